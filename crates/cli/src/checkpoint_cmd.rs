//! `foehn checkpoint …`: what a checkpoint holds, and how two differ, bit for bit and
//! field by field: for checking a restart, or the same run on another engine or machine
//! (the engines compute bit for bit alike: ADR 0035).

use anyhow::{Context, Result};
use clap::Subcommand;
use foehn::runtime::field::FieldData;
use foehn_driver::checkpoint::Checkpoint;
use std::path::{Path, PathBuf};

/// Checkpoint subcommands.
#[derive(Subcommand)]
pub enum CheckpointCommand {
    /// What a checkpoint holds: its run (grid, levels, settings), clock and fields.
    Info {
        /// A checkpoint written by `foehn run jw --checkpoint`.
        file: PathBuf,
    },
    /// Compare two checkpoints bit for bit, field by field. Exit status 0 when they are
    /// identical, 1 when they differ (or on an error, which says so).
    Diff {
        /// The first checkpoint.
        a: PathBuf,
        /// The second checkpoint.
        b: PathBuf,
    },
}

/// Runs a checkpoint subcommand.
pub fn run(cmd: CheckpointCommand) -> Result<()> {
    match cmd {
        CheckpointCommand::Info { file } => {
            info(&read(&file)?);
            Ok(())
        }
        CheckpointCommand::Diff { a, b } => {
            let differences = read(&a)?.differences(&read(&b)?);
            if !differences.is_empty() {
                for line in &differences {
                    println!("{line}");
                }
                println!("{} difference(s)", differences.len());
                std::process::exit(1);
            }
            println!("identical, bit for bit");
            Ok(())
        }
    }
}

fn read(path: &Path) -> Result<Checkpoint> {
    Checkpoint::read(path).with_context(|| format!("reading {}", path.display()))
}

fn info(c: &Checkpoint) {
    for (name, value) in c.identity.members() {
        println!("{name}: {value}");
    }
    println!(
        "clock: {} steps done, t = {} s, CFL watch mode {}, {} substeps next",
        c.clock.steps_done,
        c.clock.time,
        if c.clock.cfl_watch_active {
            "on"
        } else {
            "off"
        },
        c.clock.ndyn_substeps_var
    );
    let bytes: usize = c.fields.iter().map(|f| byte_count(&f.data)).sum();
    println!("{} fields, {:.1} MB:", c.fields.len(), bytes as f64 / 1e6);
    for f in &c.fields {
        println!(
            "  {:<70} {:>4} {:?}",
            f.name,
            format!("{:?}", f.data.dtype()).to_lowercase(),
            f.shape
        );
    }
}

fn byte_count(d: &FieldData) -> usize {
    d.len() * d.dtype().size_bytes()
}
