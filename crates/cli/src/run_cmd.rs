//! `foehn run`: the main job — ICON's diffusion component for a few time steps on a
//! generated grid, on the GPU when one is present (fields stay on the device), else on
//! all CPU cores; prints per-step times and field norms. Every interpolation coefficient,
//! metric field and the reference atmosphere are computed from the grid and the
//! topography first ([`GridFields`]); the prognostic state is synthetic (a zonal jet over
//! the reference atmosphere) until the Jablonowski–Williamson initial state exists.

use crate::grid_load;
use anyhow::{bail, Result};
use clap::Args as ClapArgs;
use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::cuda::CudaBackend;
use foehn_cache::Cache;
use foehn_driver::config::schedule::ProgramSchedule;
use foehn_icon::diffusion::component::{
    realistic_dtime, Diffusion, DiffusionState, Engine, Schedule,
};
use foehn_icon::diffusion::config::{DiffusionConfig, DiffusionParams};
use foehn_icon::diffusion::inputs::state::grid_state;
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::fields::topography::Topography;
use foehn_icon::fields::vertical::VerticalConfig;
use std::time::Instant;

/// Options of `foehn run`.
#[derive(ClapArgs)]
#[command(args_conflicts_with_subcommands = true)]
pub struct RunArgs {
    /// `foehn run jw`: the Jablonowski–Williamson test ([`crate::run_jw`]).
    #[command(subcommand)]
    jw: Option<RunSubcommand>,
    /// What to run (for now: `diffusion`, ICON's diffusion component; the full dycore on
    /// the Jablonowski–Williamson test comes later).
    #[arg(default_value = "diffusion")]
    component: String,
    /// Grid name or ICON grid file.
    #[arg(long, default_value = "r2b4")]
    grid: String,
    /// Number of full levels.
    #[arg(long, default_value_t = 30, value_parser = crate::limits::levels)]
    levels: usize,
    /// Time steps (the first is ICON's initial run).
    #[arg(long, default_value_t = 5)]
    steps: usize,
    /// auto (GPU if present, else CPU), cpu or cuda.
    #[arg(long, default_value = "auto")]
    backend: String,
    /// unfused (one program per diffusion program), fused (the step as one program),
    /// optimised (the fused step after the optimiser, compiled for this grid; the default)
    /// or tuned (optimised, and on the GPU tuned on the device before its first call).
    #[arg(long, default_value = "optimised")]
    schedule: String,
    /// Surface height the metric fields are computed over: flat, or jw (the
    /// Jablonowski–Williamson surface; grids on the sphere only).
    #[arg(long, default_value = "flat")]
    topography: Topography,
}

/// The runs with their own options.
#[derive(clap::Subcommand)]
enum RunSubcommand {
    /// ICON's dycore (solve_nonhydro substeps and diffusion) on the
    /// Jablonowski–Williamson test: NetCDF output, surface-pressure map, timers.
    Jw(crate::run_jw::JwArgs),
}

fn norms(state: &DiffusionState) -> String {
    ["vn", "w", "theta_v", "exner"]
        .iter()
        .filter_map(|n| {
            let v = state.f64s(n)?;
            let rms = (v.iter().map(|x| x * x).sum::<f64>() / v.len().max(1) as f64).sqrt();
            Some(format!("{n} rms {rms:.6e}"))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn topography_name(t: &Topography) -> &'static str {
    match t {
        Topography::Flat => "flat",
        Topography::JablonowskiWilliamson(_) => "Jablonowski–Williamson",
    }
}

/// Runs `foehn run`.
pub fn run(a: RunArgs) -> Result<()> {
    if let Some(RunSubcommand::Jw(jw)) = a.jw {
        return crate::run_jw::run(jw);
    }
    if a.component != "diffusion" {
        bail!("unknown component `{}` (available: diffusion)", a.component);
    }
    let (schedule, tuned) = match a.schedule.as_str() {
        "fused" => (Schedule::Fused, false),
        "unfused" => (Schedule::Unfused, false),
        "optimised" | "optimized" => (Schedule::Optimised, false),
        "tuned" => (Schedule::Optimised, true),
        other => bail!("unknown schedule `{other}` (fused, unfused, optimised or tuned)"),
    };
    let grid = grid_load::load(&a.grid)?;
    let config = DiffusionConfig {
        limited_area: grid.is_limited_area(),
        ..DiffusionConfig::default()
    };
    let t = Instant::now();
    let fields = GridFields::compute(&grid, VerticalConfig::new(a.levels), &a.topography)?;
    let vertical = &fields.statics.vertical;
    let params = DiffusionParams::new(&config, vertical, false);
    let fields_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut state = grid_state(&fields, &config, 1)?;
    let state_s = t.elapsed().as_secs_f64();
    let dtime = realistic_dtime(&grid);
    let cuda = match a.backend.as_str() {
        "cpu" => None,
        "auto" => match CudaBackend::open(Cache::from_env()) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("{e}; running on the CPU");
                None
            }
        },
        "cuda" => Some(CudaBackend::open(Cache::from_env())?),
        other => bail!("unknown backend `{other}` (auto, cpu or cuda)"),
    };
    if tuned {
        ProgramSchedule::Tuned.prepare(cuda.as_ref());
    }
    let cpu = CpuBackend::default();
    let engine = match &cuda {
        Some(c) => Engine::Cuda(c),
        None => Engine::Cpu(&cpu),
    };
    let mut diffusion = Diffusion::new(&config, &params, &grid, vertical)?
        .with_schedule(schedule)?
        .with_engine(engine);
    let device = cuda.as_ref().map_or(
        format!("CPU ({} threads)", rayon::current_num_threads()),
        |c| c.gpu().name().to_string(),
    );
    println!(
        "diffusion on {} ({} cells, {} levels), {:?} schedule, on {device}, dt = {dtime:.1} s",
        grid.name,
        grid.size(foehn_grid::Location::Cell),
        a.levels,
        schedule
    );
    println!(
        "coefficients computed from the grid ({} topography: interpolation, metric and \
         reference fields) in {fields_s:.2} s, state assembled in {state_s:.2} s; \
         prognostic state synthetic (zonal jet over the reference atmosphere)",
        topography_name(&a.topography)
    );
    println!("initial: {}", norms(&state));
    match &cuda {
        Some(c) => {
            // Fields stay on the device between steps.
            let plan = diffusion.cuda(c)?;
            let mut dev = plan.upload(&mut state)?;
            for step in 0..a.steps {
                let t = Instant::now();
                dev.run(dtime, step == 0)?;
                dev.finish()?;
                println!("step {step}: {:.3} ms", t.elapsed().as_secs_f64() * 1e3);
            }
            dev.download(&mut state)?;
        }
        None => {
            for step in 0..a.steps {
                let t = Instant::now();
                diffusion.run(&mut state, dtime, step == 0)?;
                println!("step {step}: {:.3} ms", t.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    println!("final:   {}", norms(&state));
    Ok(())
}
