//! `foehn cache …`: list and clear the compiled-program cache.

use anyhow::Result;
use clap::Subcommand;
use foehn_cache::Cache;

/// Cache subcommands.
#[derive(Subcommand)]
pub enum CacheCommand {
    /// List cached compiled programs (key, size, description).
    Ls,
    /// Remove every cached compiled program (and nothing foehn did not write).
    Clear,
}

/// Runs a cache subcommand on the cache at `FOEHN_CACHE_DIR` (or the user cache dir).
pub fn run(cmd: CacheCommand) -> Result<()> {
    let cache = Cache::from_env();
    match cmd {
        CacheCommand::Ls => {
            let entries = cache.list()?;
            println!("{} entries in {}", entries.len(), cache.root().display());
            for e in entries {
                let desc = e
                    .meta
                    .as_ref()
                    .map_or("(no metadata: corrupt)", |m| m.description.as_str());
                println!(
                    "{}  {:>10} B  {}",
                    &e.key[..16.min(e.key.len())],
                    e.bytes,
                    desc
                );
            }
        }
        CacheCommand::Clear => {
            let cleared = cache.clear()?;
            println!(
                "removed {} entries from {}",
                cleared.removed,
                cache.root().display()
            );
            if cleared.interrupted > 0 {
                println!(
                    "removed {} unfinished builds left by interrupted runs",
                    cleared.interrupted
                );
            }
            if !cleared.skipped.is_empty() {
                println!(
                    "left {} paths there that foehn did not write (is FOEHN_CACHE_DIR right?):",
                    cleared.skipped.len()
                );
                for p in &cleared.skipped {
                    println!("  {}", p.display());
                }
            }
        }
    }
    Ok(())
}
