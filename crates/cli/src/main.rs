//! `foehn`: the command line of the foehn stencil compiler and ICON dycore.

mod bench_cmd;
mod bench_driver;
mod cache_cmd;
mod checkpoint_cmd;
mod compare_cmd;
mod compile_cmd;
mod exec_cmd;
mod explain_cmd;
mod fields_cmd;
#[cfg(feature = "netcdf")]
mod fields_stream;
mod fields_write;
mod grid_cmd;
mod grid_load;
mod jw_report_cmd;
mod limits;
mod plot_cmd;
mod run_cmd;
mod run_jw;

use clap::{Parser, Subcommand};

/// foehn: ICON's dynamical core as declarative stencils, compiled for CPUs and GPUs.
#[derive(Parser)]
#[command(name = "foehn", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a model: `foehn run jw`, ICON's dycore on the Jablonowski–Williamson test
    /// (GPU if present); `foehn run diffusion`, the diffusion component alone.
    Run(run_cmd::RunArgs),
    /// Generate, inspect and convert grids.
    #[command(subcommand)]
    Grid(grid_cmd::GridCommand),
    /// Benchmark programs: verified, median of repeated calls, bytes, GB/s, % of peak.
    Bench(bench_cmd::BenchArgs),
    /// Compile every variant of the chosen programs in parallel (cold-start measurement).
    Compile(compile_cmd::CompileArgs),
    /// Compare reports: per-program and call-weighted speedups, bar chart.
    Compare(compare_cmd::CompareArgs),
    /// Run a program on given data (.npz in ICON4Py dimension order) and grid; write .npz.
    Exec(exec_cmd::ExecArgs),
    /// Show a program's typed IR, content hash, minimal bytes and generated code.
    Explain(explain_cmd::ExplainArgs),
    /// Draw a lat/lon map (PNG) of a cell field of a run's NetCDF output.
    Plot(plot_cmd::PlotArgs),
    /// The JW baroclinic wave across resolutions: p_s minima against the reference, l2
    /// differences between resolutions, maps (report.md, report.json, PNGs).
    JwReport(jw_report_cmd::JwReportArgs),
    /// Inspect or clear the compiled-program cache (FOEHN_CACHE_DIR).
    #[command(subcommand)]
    Cache(cache_cmd::CacheCommand),
    /// Inspect a run's checkpoint, or compare two bit for bit, field by field.
    #[command(subcommand)]
    Checkpoint(checkpoint_cmd::CheckpointCommand),
}

fn main() {
    // Printing into a closed pipe (`foehn … | head`) ends the process quietly, as for
    // other Unix tools, instead of a panic in `println!`.
    #[cfg(unix)]
    // SAFETY: restores the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // An interrupted run removes the outputs it had not finished (temporary files).
    if let Err(e) = foehn_fsio::cleanup::remove_on_interrupt() {
        eprintln!("foehn: warning: {e}");
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Grid(cmd) => grid_cmd::run(cmd),
        Command::Run(a) => run_cmd::run(a),
        Command::Cache(cmd) => cache_cmd::run(cmd),
        Command::Bench(a) => bench_cmd::run(a),
        Command::Explain(a) => explain_cmd::run(a),
        Command::Compile(a) => compile_cmd::run(a),
        Command::Exec(a) => exec_cmd::run(a),
        Command::Compare(a) => compare_cmd::run(a),
        Command::Plot(a) => plot_cmd::run(a),
        Command::JwReport(a) => jw_report_cmd::run(a),
        Command::Checkpoint(cmd) => checkpoint_cmd::run(cmd),
    };
    // Per-program metrics (FOEHN_METRICS ≥ 1): table on stderr, GT4Py-layout JSON.
    if let Err(e) = foehn_metrics::finish() {
        eprintln!("error: writing metrics: {e}");
    }
    if let Err(e) = result {
        eprintln!("error: {}", error_text(&e));
        std::process::exit(1);
    }
}

/// An error and its causes as one line, `outer: cause: …`, leaving out a cause whose text
/// the line already holds (error types that print their source and also return it as
/// their `source()` would otherwise say it twice).
fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if text.contains(part.trim()) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

#[cfg(test)]
mod tests {
    /// A cause that its context already printed is said once.
    #[test]
    fn causes_are_not_repeated() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = anyhow::Error::new(io).context("reading a.json: no such file");
        assert_eq!(super::error_text(&e), "reading a.json: no such file");
        let e = anyhow::anyhow!("inner").context("outer");
        assert_eq!(super::error_text(&e), "outer: inner");
    }
}
