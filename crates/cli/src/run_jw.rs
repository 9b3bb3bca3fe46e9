//! `foehn run jw`: ICON's dycore on the Jablonowski–Williamson test. The run is
//! described by a configuration ([`foehn_driver::config`]: ICON's JW defaults, a TOML
//! file given with `--config`, the flags here overriding it), checked as a whole before
//! anything is computed; `--print-config` prints the effective configuration as TOML
//! (a file to edit and pass back with `--config`).
//!
//! The time loop is not written yet: after validating everything, the command says so
//! and exits with status 2 (nothing is run).

use crate::grid_load;
use anyhow::Result;
use clap::Args;
use foehn_driver::config::interval::Interval;
use foehn_driver::config::{grid_kind_of_name, Backend, RunConfig, RunSetup};
use std::path::PathBuf;

/// The exit status of a valid run that cannot be integrated yet.
pub const NOT_AVAILABLE: i32 = 2;

/// Options of `foehn run jw` (every one overrides the configuration file).
#[derive(Args, Debug, Clone, Default)]
pub struct JwArgs {
    /// A TOML configuration (sections [run], [cfl], [vertical], [diffusion],
    /// [nonhydrostatic], [jw]; see --print-config); keys left out take ICON's JW defaults.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print the effective configuration as TOML and exit.
    #[arg(long)]
    pub print_config: bool,
    /// Grid name (r2b4, r2b5:cap:46,8,800, …) or ICON grid file (default r2b4).
    #[arg(long, value_name = "NAME|FILE")]
    pub grid: Option<String>,
    /// Number of full levels (default 35).
    #[arg(long, value_name = "N", value_parser = crate::limits::levels)]
    pub levels: Option<usize>,
    /// Run length in simulated days (default 9).
    #[arg(
        long,
        value_name = "D",
        conflicts_with = "steps",
        allow_negative_numbers = true
    )]
    pub days: Option<f64>,
    /// Run length in time steps.
    #[arg(long, value_name = "S")]
    pub steps: Option<u64>,
    /// The steady state (no perturbation) instead of the baroclinic wave.
    #[arg(long)]
    pub steady: bool,
    /// Time step, s (default: 300 s at R2B4, halved per bisection).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub dtime: Option<f64>,
    /// Dynamics substeps per time step (default 5).
    #[arg(long, value_name = "N")]
    pub substeps: Option<usize>,
    /// NetCDF output file (default: no output).
    #[arg(long, value_name = "FILE")]
    pub output: Option<String>,
    /// Time between outputs: "6h", "1d", "30m", "300s" or "10 steps" (default 6h).
    #[arg(long, value_name = "INTERVAL")]
    pub output_interval: Option<Interval>,
    /// auto (GPU if present, else CPU), cpu or cuda (default auto).
    #[arg(long, value_name = "NAME")]
    pub backend: Option<Backend>,
}

impl JwArgs {
    /// The configuration file (or ICON's JW defaults) with the flags applied.
    pub fn config(&self) -> Result<RunConfig> {
        let mut c = match &self.config {
            Some(path) => RunConfig::from_file(path)?,
            None => RunConfig::default(),
        };
        let run = &mut c.run;
        if let Some(g) = &self.grid {
            run.grid = g.clone();
        }
        if let Some(n) = self.levels {
            run.levels = n;
        }
        if self.steady {
            run.steady = true;
        }
        if let Some(d) = self.dtime {
            run.dtime = Some(d);
        }
        if let Some(n) = self.substeps {
            run.ndyn_substeps = n;
        }
        if let Some(o) = &self.output {
            run.output = Some(o.clone());
        }
        if let Some(i) = self.output_interval {
            run.output_interval = i;
        }
        if let Some(b) = self.backend {
            run.backend = b;
        }
        if let Some(d) = self.days {
            c.set_days(d);
        }
        if let Some(s) = self.steps {
            c.set_steps(s);
        }
        Ok(c)
    }
}

/// The configuration resolved for its grid (a grid file is read for its resolution).
pub fn setup(a: &JwArgs) -> Result<RunSetup> {
    let config = a.config()?;
    let kind = match grid_kind_of_name(&config.run.grid)? {
        Some(kind) => kind,
        None => grid_load::load(&config.run.grid)?.kind,
    };
    Ok(config.resolve(&kind)?)
}

/// One line describing a valid run.
fn summary(s: &RunSetup) -> String {
    let run = &s.config.run;
    let case = if run.steady {
        "steady state"
    } else {
        "baroclinic wave"
    };
    let output = match (&run.output, s.output_every) {
        (Some(path), Some(every)) => format!("output to {path} every {every} steps"),
        _ => "no output".to_string(),
    };
    format!(
        "Jablonowski–Williamson {case} on {} × {} levels: dtime {} s with {} substeps, {} \
         steps ({:.3} days), {output}, backend {}",
        run.grid,
        run.levels,
        s.dtime,
        run.ndyn_substeps,
        s.steps,
        s.simulated_seconds() / 86_400.0,
        run.backend
    )
}

/// Runs `foehn run jw`: validates; prints the configuration with `--print-config`;
/// otherwise stops with [`NOT_AVAILABLE`] (the time loop does not exist yet).
pub fn run(a: JwArgs) -> Result<()> {
    let s = setup(&a)?;
    if a.print_config {
        print!("{}", s.config.to_toml());
        return Ok(());
    }
    println!("configuration valid: {}", summary(&s));
    eprintln!(
        "foehn run jw: the time integration of the dycore is not available yet (issue 16); \
         nothing was run. `foehn run jw --print-config` prints the configuration."
    );
    std::process::exit(NOT_AVAILABLE);
}
