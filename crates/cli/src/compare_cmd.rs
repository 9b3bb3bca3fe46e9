//! `foehn compare`: speedups between reports (foehn bench JSON, GT4Py metrics JSON,
//! a run's timers from `foehn run jw --timers`, ICON's OpenACC timer JSON), a weighted
//! overall speedup, and a bar chart. Against OpenACC timers: ICON's timers mapped to
//! programs and static-argument variants, component timers (nh_solve, nh_hdiff) against
//! a run's components, per-step totals, and what could not be mapped and why.

use anyhow::Result;
use clap::Args as ClapArgs;
use std::path::PathBuf;

/// Options of `foehn compare`.
#[derive(ClapArgs)]
pub struct CompareArgs {
    /// Two or more reports (foehn bench, GT4Py metrics, `foehn run jw --timers` files,
    /// ICON OpenACC timers); the first is the baseline.
    #[arg(required = true, num_args = 2..)]
    files: Vec<PathBuf>,
    /// Write a horizontal bar chart of the speedups here.
    #[arg(long)]
    png: Option<PathBuf>,
}

/// Runs `foehn compare`.
pub fn run(a: CompareArgs) -> Result<()> {
    let cmp = foehn_metrics::compare_files(&a.files)?;
    println!("{}", cmp.to_text());
    if let Some(p) = &a.png {
        foehn_metrics::render_comparison_png(&cmp, p)?;
        println!("wrote {}", p.display());
    }
    Ok(())
}
