//! `foehn run jw`: ICON's dycore on the Jablonowski–Williamson test. The run is
//! described by a configuration ([`foehn_driver::config`]: ICON's JW defaults, a TOML
//! file given with `--config`, the flags here overriding it), checked as a whole before
//! anything is computed; `--print-config` prints the effective configuration as TOML
//! (a file to edit and pass back with `--config`).
//!
//! The run: the static fields over the JW surface, the initial state, the time loop
//! ([`foehn_driver::jw_run`]) on the CPU backend or, with `--backend cuda` (and `auto`
//! when a GPU opens), on the GPU with the state on the device for the whole run
//! ([`DeviceDycore`]; copied back only for output); NetCDF output at t = 0 and every
//! output interval (one file per time) with a surface-pressure map of the last, a
//! progress bar, and at the end ICON-style timers (per component; per program with
//! `FOEHN_METRICS=1`) and the monitoring series' summary ([`RunSeries`]: mass and
//! energy budgets, the surface-pressure minimum, JW06's l2 measures; every step and every
//! 6 h on the CPU, every 6 h on the GPU; `<stem>_series.csv` beside the output).
//! `--checkpoint-interval`/`--checkpoint` write checkpoints, `--restart` continues one
//! bit for bit ([`foehn_driver::checkpoint`]).

use crate::grid_load;
use anyhow::{bail, Result};
use clap::Args;
use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::cuda::CudaBackend;
use foehn_cache::Cache;
use foehn_driver::checkpoint::{Checkpoint, CheckpointPlan};
use foehn_driver::config::interval::Interval;
use foehn_driver::config::schedule::ProgramSchedule;
use foehn_driver::config::{grid_kind_of_name, Backend, RunConfig, RunSetup};
use foehn_driver::jw_run;
use foehn_driver::output::plot::write_snapshot_map;
use foehn_driver::output::series::{series_path, RunSeries, SeriesSchedule};
use foehn_driver::output::{Snapshot, DEFAULT_PRESSURE_LEVELS};
use foehn_driver::time_loop::{DeviceDycore, Dycore, StepSummary};
use foehn_icon::common::runner::Engine;
use foehn_icon::common::state::PrognosticState;
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::solve_nonhydro::component::SolveNonhydroState;
use foehn_metrics::timer_report::{ProgramGroup, RunProgress, TimerReport, Timers};
use std::path::PathBuf;
use std::time::Instant;

/// Options of `foehn run jw` (every one overrides the configuration file).
#[derive(Args, Debug, Clone, Default)]
pub struct JwArgs {
    /// A TOML configuration (sections `[run]`, `[cfl]`, `[vertical]`, `[diffusion]`,
    /// `[nonhydrostatic]`, `[jw]`; see --print-config); keys left out take ICON's JW defaults.
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
    /// Only these output variables, comma-separated (e.g. "ps,temp_p"; default: all):
    /// small files with the cell centres and the coordinates they use.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub output_vars: Option<Vec<String>>,
    /// Time between the series' full records (p_s minimum, l2 norms, zonal asymmetry;
    /// each copies the state to the host on the GPU): "6h", "1d", "10 steps" (default 6h).
    #[arg(long, value_name = "INTERVAL")]
    pub series_interval: Option<Interval>,
    /// auto (GPU if present, else CPU), cpu or cuda (default auto).
    #[arg(long, value_name = "NAME")]
    pub backend: Option<Backend>,
    /// optimised (foehn's optimiser; default), tuned (optimised, and on the GPU each
    /// program tuned on the device before its first call: minutes the first time on a
    /// device and grid, then reused from the cache) or unfused (one loop nest per
    /// stencil, the programs as written).
    #[arg(long, value_name = "NAME")]
    pub schedule: Option<ProgramSchedule>,
    /// Write the run's timers here: every program variant in GT4Py's metrics JSON
    /// layout and the component timers (for `foehn compare`). Turns per-program timing
    /// on as FOEHN_METRICS=1 does: a clock read and a push per program call (on the GPU
    /// the host's enqueue time; FOEHN_METRICS=10 adds kernel times but waits for every
    /// program).
    #[arg(long, value_name = "FILE.json")]
    pub timers: Option<PathBuf>,
    /// Write a checkpoint every INTERVAL ("1d", "6h", "10 steps") and at the end, to
    /// --checkpoint (default foehn_jw.ckpt).
    #[arg(long, value_name = "INTERVAL")]
    pub checkpoint_interval: Option<Interval>,
    /// The checkpoint file (written at the end, and every --checkpoint-interval).
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Continue the run from this checkpoint to the configured end, bit for bit as if
    /// it had never stopped (same grid and configuration; --steps/--days may be longer).
    #[arg(long, value_name = "FILE")]
    pub restart: Option<PathBuf>,
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
        if let Some(v) = &self.output_vars {
            run.output_variables = Some(v.clone());
        }
        if let Some(b) = self.backend {
            run.backend = b;
        }
        if let Some(s) = self.schedule {
            run.schedule = s;
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
         steps ({:.3} days), {output}, backend {}, {} programs",
        run.grid,
        run.levels,
        s.dtime,
        run.ndyn_substeps,
        s.steps,
        s.simulated_seconds() / 86_400.0,
        run.backend,
        run.schedule
    )
}

/// Runs `foehn run jw`: validates; prints the configuration with `--print-config`;
/// otherwise integrates (see the module doc).
pub fn run(a: JwArgs) -> Result<()> {
    let s = setup(&a)?;
    if a.print_config {
        print!("{}", s.config.to_toml());
        return Ok(());
    }
    let output = s
        .config
        .run
        .output
        .as_deref()
        .map(|path| output_target(path, &s.config.run.output_variables))
        .transpose()?;
    println!("{}", summary(&s));
    if let Some(p) = a.timers.as_ref().filter(|p| p.is_dir()) {
        bail!(
            "--timers {}: a folder; name the JSON file to write",
            p.display()
        );
    }
    let metrics_level = foehn_metrics::level();
    if a.timers.is_some() {
        foehn_metrics::set_level(metrics_level.max(foehn_metrics::LEVEL_TOTAL));
    }
    // The parser refuses zero; whole time steps keep the full records on steps.
    let series_interval = match a.series_interval {
        Some(i) => {
            let steps = i.steps(s.dtime, "--series-interval");
            Some(steps.map_err(anyhow::Error::msg)? as f64 * s.dtime)
        }
        None => None,
    };
    let checkpoints = CheckpointPlan::new(a.checkpoint.clone(), a.checkpoint_interval, s.dtime)
        .map_err(anyhow::Error::msg)?;
    let restart = a.restart.as_deref().map(Checkpoint::read).transpose()?;
    let resumed = restart.as_ref().map_or(0, |c| c.clock.steps_done);
    if resumed > s.steps {
        bail!(
            "--restart: the checkpoint is after step {resumed}, this run ends at step {}: \
             give a longer --steps or --days",
            s.steps
        );
    }
    let start = Instant::now();
    let mut timers = Timers::new();
    // Every part of the cold start has a timer of its own (the device's covers the
    // CUDA context and the state's upload); the kernels are compiled (or loaded from
    // the cache) when first called, in the first step.
    let grid = timers.time("initialisation: grid", || {
        grid_load::load(&s.config.run.grid)
    })?;
    let spec = s.jw_run_spec();
    let cpu = CpuBackend::default();
    let cuda = timers.time("initialisation: device", || -> Result<_> {
        Ok(match s.config.run.backend {
            Backend::Cpu => None,
            Backend::Cuda => Some(CudaBackend::open(Cache::from_env())?),
            Backend::Auto => match CudaBackend::open(Cache::from_env()) {
                Ok(c) => Some(c),
                Err(e) => {
                    eprintln!("backend auto: no GPU ({e}); the dycore runs on the CPU");
                    None
                }
            },
        })
    })?;
    // The time loop runs one program at a time: its bindings share their temporaries
    // and snapshots (device memory of the largest binding, not of all of them).
    if let Some(c) = &cuda {
        c.share_work_buffers();
    }
    s.config.run.schedule.prepare(cuda.as_ref());
    let fields = timers.time("initialisation: fields", || jw_run::fields(&grid, &spec))?;
    let parts = timers.time("initialisation: state", || match &cuda {
        Some(c) => jw_run::parts(&fields, &spec, Engine::Cuda(c)),
        None => jw_run::parts(&fields, &spec, Engine::Cpu(&cpu)),
    })?;
    let device_diffusion = timers.time("initialisation: device", || match &cuda {
        Some(c) => parts.diffusion.cuda(c).map(Some),
        None => Ok(None),
    })?;
    let described = jw_run::description(&spec);
    let device_start = Instant::now();
    let mut dycore = match (&cuda, &device_diffusion) {
        (Some(c), Some(d)) => {
            let (mut host, settings) = (Box::new(parts.state), spec.settings.clone());
            let attached = Some((d, &parts.diffusion_state));
            let dycore = match restart {
                Some(ck) => DeviceDycore::resume(
                    parts.solver,
                    c,
                    attached,
                    &mut host,
                    settings,
                    ck,
                    &described,
                )?,
                None => DeviceDycore::new(parts.solver, c, attached, &host, settings)?,
            };
            Integrator::Gpu {
                dycore: Box::new(dycore),
                host,
                downloaded: None,
            }
        }
        _ => {
            let mut d = Dycore::new(
                parts.solver,
                Some((parts.diffusion, parts.diffusion_state)),
                parts.state,
                spec.settings.clone(),
            )?;
            if let Some(ck) = restart {
                d.restore(ck, &described)?;
            }
            Integrator::Cpu(Box::new(d))
        }
    };
    if cuda.is_some() {
        timers.record(
            "initialisation: device",
            device_start.elapsed().as_secs_f64(),
        );
    }
    let mut schedule = match &cuda {
        Some(_) => SeriesSchedule::device(),
        None => SeriesSchedule::host(),
    };
    if let Some(interval) = series_interval {
        schedule.interval = interval;
    }
    let time0 = dycore.time();
    let csv = output.as_ref().map(|o| series_path(&o.path));
    // A restart keeps the series written before it: its own file from the restart on.
    let csv = csv.map(|p| match resumed {
        0 => p,
        n => p.with_extension(format!("from_step{n}.csv")),
    });
    // The first record (on the GPU, the state copied to the host) and the series' setup.
    let mut series = timers.time("initialisation: series", || -> Result<_> {
        Ok(RunSeries::new(
            &fields,
            dycore.prognostic()?,
            resumed,
            time0,
            schedule,
            csv.as_deref(),
        )?)
    })?;
    if let (Some(out), 0) = (&output, resumed) {
        timers.time("output", || write_output(out, &fields, &mut dycore))?;
    }
    let progress = RunProgress::new(s.steps, s.dtime);
    let mut max_cfl = 0.0f64;
    let mut cold_start_s = None;
    for step in resumed + 1..=s.steps {
        let summary = dycore.step()?;
        // What the issue calls the cold start: from the run's start (the arguments
        // read) to the end of its first step, everything it needed on the way.
        cold_start_s.get_or_insert_with(|| start.elapsed().as_secs_f64());
        max_cfl = max_cfl.max(summary.max_vertical_cfl);
        progress.set_step(step);
        if let (Some(out), Some(every)) = (&output, s.output_every) {
            if step % every == 0 || step == s.steps {
                timers.time("output", || write_output(out, &fields, &mut dycore))?;
            }
        }
        let output_due = step == s.steps
            || (output.is_some() && s.output_every.is_some_and(|e| step.is_multiple_of(e)));
        if let Some(plan) = checkpoints.as_ref().filter(|p| p.due(step, s.steps)) {
            let c = timers.time("checkpoint", || dycore.checkpoint(&described))?;
            timers.time("checkpoint", || c.write(&plan.path))?;
            eprintln!("wrote checkpoint {} (step {step})", plan.path.display());
        }
        let time = dycore.time();
        timers.time("series", || {
            series.after_step(step, time, s.dtime, output_due, || dycore.prognostic())
        })?;
    }
    progress.finish();
    let run_s = start.elapsed().as_secs_f64();
    let drift = series.last().budget.mass / series.first().budget.mass - 1.0;
    println!(
        "{} steps, {:.3} simulated days in {run_s:.1} s; relative dry-mass change {drift:.2e}; \
         largest vertical CFL number {max_cfl:.3}",
        s.steps,
        dycore.time() / 86_400.0
    );
    println!("{}", series.summary());
    if let Some(c) = cold_start_s {
        println!("cold start: {c:.1} s from the run's start to the end of its first step");
    }
    if let Some(out) = &output {
        let map = out.map_path();
        let snapshot = snapshot(&fields, &mut dycore)?;
        write_snapshot_map(&grid, &snapshot, "ps", 0, &map)?;
        println!("wrote {}", map.display());
    }
    timers.merge(&foehn_metrics::component_timers());
    if let Some(path) = &a.timers {
        let run = foehn_metrics::RunInfo {
            grid: s.config.run.grid.clone(),
            levels: s.config.run.levels,
            backend: if cuda.is_some() { "cuda" } else { "cpu" }.into(),
            steps: s.steps,
            dtime_s: s.dtime,
            substeps: s.config.run.ndyn_substeps,
            wall_s: run_s,
            simulated_s: dycore.time(),
            cold_start_s,
        };
        let programs = foehn_metrics::snapshot();
        let components = timers.clone();
        foehn_metrics::RunTimers {
            programs,
            components,
            run,
        }
        .write_json(path)?;
        println!("wrote {}", path.display());
        // FOEHN_METRICS's own table and file at exit only where it was asked for.
        foehn_metrics::set_level(metrics_level);
    }
    let groups = [ProgramGroup::new(
        "dycore",
        &foehn_icon::catalog()
            .iter()
            .map(|e| e.name)
            .collect::<Vec<_>>(),
    )];
    let report = TimerReport::new(
        &timers,
        &foehn_metrics::snapshot(),
        &groups,
        run_s,
        dycore.time(),
    );
    println!("{}", report.table());
    Ok(())
}

/// Where the output goes: the NetCDF files (one per output time, named after `path`)
/// and the surface-pressure map of the last one beside them.
struct OutputTarget {
    #[cfg(feature = "netcdf")]
    files: foehn_driver::output::netcdf::NetcdfOutput,
    path: PathBuf,
}

impl OutputTarget {
    /// `<stem>_ps.png` beside the output.
    fn map_path(&self) -> PathBuf {
        let stem = self
            .path
            .file_stem()
            .map_or_else(|| "output".into(), |s| s.to_string_lossy().into_owned());
        self.path.with_file_name(format!("{stem}_ps.png"))
    }
}

/// The output of `--output PATH`, refused before anything is computed when this
/// build cannot write NetCDF.
fn output_target(path: &str, variables: &Option<Vec<String>>) -> Result<OutputTarget> {
    let path = PathBuf::from(path);
    if path.extension().and_then(|e| e.to_str()) != Some("nc") {
        bail!(
            "--output {}: the output is NetCDF; name it *.nc",
            path.display()
        );
    }
    #[cfg(feature = "netcdf")]
    {
        Ok(OutputTarget {
            files: foehn_driver::output::netcdf::NetcdfOutput::from_path(&path)
                .with_variables(variables.clone()),
            path,
        })
    }
    #[cfg(not(feature = "netcdf"))]
    {
        let _ = variables;
        bail!(
            "--output {}: this foehn was built without NetCDF (the `netcdf` feature); \
             rebuild with default features or run without --output",
            path.display()
        )
    }
}

/// The time loop on the host or on the GPU.
enum Integrator<'a> {
    /// On the CPU backend.
    Cpu(Box<Dycore<'a>>),
    /// On the GPU, with the host copy that output reads.
    Gpu {
        /// The loop on the device.
        dycore: Box<DeviceDycore<'a>>,
        /// The state as last downloaded (boxed: the variants stay of a size): its
        /// current prognostic state for output and the series, the whole state at
        /// checkpoints.
        host: Box<SolveNonhydroState>,
        /// The steps done when `host`'s current prognostic state was downloaded: the
        /// output and the series of one step share one download.
        downloaded: Option<u64>,
    },
}

impl Integrator<'_> {
    /// One time step.
    fn step(&mut self) -> Result<StepSummary> {
        Ok(match self {
            Integrator::Cpu(d) => d.step()?,
            Integrator::Gpu { dycore, .. } => dycore.step()?,
        })
    }

    /// A checkpoint of the loop (downloaded from the GPU) for the run `described`.
    fn checkpoint(&mut self, described: &str) -> Result<Checkpoint> {
        Ok(match self {
            Integrator::Cpu(d) => d.checkpoint(described),
            Integrator::Gpu {
                dycore,
                host,
                downloaded,
            } => {
                let checkpoint = dycore.checkpoint(host, described)?;
                *downloaded = Some(dycore.clock().steps_done());
                checkpoint
            }
        })
    }

    /// Simulated time, s.
    fn time(&self) -> f64 {
        match self {
            Integrator::Cpu(d) => d.time(),
            Integrator::Gpu { dycore, .. } => dycore.time(),
        }
    }

    /// The current prognostic state (downloaded from the GPU).
    fn prognostic(&mut self) -> Result<&PrognosticState> {
        Ok(match self {
            Integrator::Cpu(d) => d.prognostic(),
            Integrator::Gpu {
                dycore,
                host,
                downloaded,
            } => {
                let steps = dycore.clock().steps_done();
                if *downloaded != Some(steps) {
                    dycore.download_current(host)?;
                    *downloaded = Some(steps);
                }
                &host.current
            }
        })
    }
}

/// The prognostic state and its diagnostics at the dycore's time.
fn snapshot(fields: &GridFields, dycore: &mut Integrator) -> Result<Snapshot> {
    let time = dycore.time();
    Ok(Snapshot::diagnose(
        fields,
        dycore.prognostic()?,
        time,
        &DEFAULT_PRESSURE_LEVELS,
    )?)
}

/// Writes the output file of the dycore's time.
fn write_output(out: &OutputTarget, fields: &GridFields, dycore: &mut Integrator) -> Result<()> {
    let snapshot = snapshot(fields, dycore)?;
    #[cfg(feature = "netcdf")]
    {
        let path = out.files.write(fields, &snapshot)?;
        eprintln!("wrote {}", path.display());
    }
    #[cfg(not(feature = "netcdf"))]
    let _ = (out, snapshot);
    Ok(())
}
