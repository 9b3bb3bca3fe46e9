//! `foehn compare`: speedups between reports (foehn bench JSON, GT4Py metrics JSON,
//! ICON's OpenACC timer JSON), a weighted overall speedup, and a bar chart.

use anyhow::Result;
use clap::Args as ClapArgs;
use std::path::PathBuf;

/// Options of `foehn compare`.
#[derive(ClapArgs)]
pub struct CompareArgs {
    /// Two or more reports; the first is the baseline.
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
