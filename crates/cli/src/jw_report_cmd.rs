//! `foehn jw-report --run r2b4=DIR_OR_STEM --run r2b5=… [--days 4,6,8,9] -o OUTDIR`:
//! the Jablonowski–Williamson baroclinic wave across resolutions from runs' NetCDF
//! output (`foehn run jw --output DIR/jw.nc`) — minimum surface pressure and its location
//! against the reference and its acceptance bands, the l2 difference of p_s between
//! successive resolutions over time on a lat/lon grid, maps and charts
//! ([`foehn_driver::report`]). Writes `report.md`, `report.json` and PNGs into OUTDIR.

use anyhow::{bail, Result};
use clap::Args as ClapArgs;
use std::path::PathBuf;

/// Options of `foehn jw-report`.
#[derive(ClapArgs)]
#[cfg_attr(not(feature = "netcdf"), allow(dead_code))]
pub struct JwReportArgs {
    /// A run as NAME=PATH: PATH a run's output folder, its --output path (out/jw.nc) or
    /// one NetCDF file; repeat for each resolution (any order: sorted by cell count).
    #[arg(long = "run", value_name = "NAME=PATH", required = true)]
    runs: Vec<String>,
    /// The days of the minimum table and the maps.
    #[arg(
        long,
        value_name = "D,D,…",
        value_delimiter = ',',
        default_value = "4,6,8,9"
    )]
    days: Vec<u32>,
    /// Spacing of the lat/lon grid of the l2 differences, degrees.
    #[arg(long, value_name = "DEGREES", default_value_t = 1.0)]
    step: f64,
    /// The folder of the report (created if missing).
    #[arg(short = 'o', long = "output", value_name = "OUTDIR")]
    output: PathBuf,
}

/// Runs `foehn jw-report`.
#[cfg(not(feature = "netcdf"))]
pub fn run(_a: JwReportArgs) -> Result<()> {
    bail!("foehn jw-report reads NetCDF files: this foehn was built without the `netcdf` feature")
}

/// Runs `foehn jw-report`.
#[cfg(feature = "netcdf")]
pub fn run(a: JwReportArgs) -> Result<()> {
    use foehn_driver::report::input::{load_run, RunSpec};
    use foehn_driver::report::latlon::LatLonGrid;
    use foehn_driver::report::{analyse, write::write_report};

    if a.days.is_empty() {
        bail!("--days: give at least one day (e.g. 4,6,8,9)");
    }
    let grid = LatLonGrid::new(a.step)?;
    let specs = a
        .runs
        .iter()
        .map(|s| {
            s.parse::<RunSpec>()
                .map_err(|e| anyhow::anyhow!("--run {e}"))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut runs = specs
        .iter()
        .map(|s| {
            let run = load_run(s, &grid, &a.days)?;
            println!(
                "read {} ({} cells, {} output times)",
                s.name,
                run.cells(),
                run.times.len()
            );
            Ok(run)
        })
        .collect::<Result<Vec<_>>>()?;
    let mut report = analyse(&mut runs, &grid, &a.days)?;
    write_report(&mut report, &runs, &a.output)?;
    let failed = report
        .minima
        .iter()
        .filter(|m| m.pass() == Some(false))
        .count();
    println!(
        "wrote {} (report.md, report.json, {} figures); {} of {} banded minima outside their bands",
        a.output.display(),
        report.figures.len(),
        failed,
        report.minima.iter().filter(|m| m.pass().is_some()).count()
    );
    Ok(())
}
