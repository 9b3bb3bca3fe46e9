//! `foehn compile`: compile every variant of the chosen programs in parallel (cold start
//! measurement), with a progress bar: as written (unfused, sizes read at run time) or
//! optimised for one grid and level count (sizes fixed at compile time, as `foehn run`
//! compiles them).

use crate::bench_cmd::{catalog, select};
use crate::bench_driver::optimise_for_grid;
use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use foehn::codegen::Sizes;
use foehn::ir;
use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::cuda::CudaBackend;
use foehn_cache::{Cache, Origin};
use foehn_testkit::{GenConfig, RandomProgram};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::time::Instant;

/// Options of `foehn compile`.
#[derive(ClapArgs)]
pub struct CompileArgs {
    /// Programs (comma-separated; default: the whole catalog).
    #[arg(long, value_delimiter = ',')]
    programs: Vec<String>,
    /// Also compile this many random test-suite programs (seeds 0..N).
    #[arg(long, default_value_t = 0)]
    random: u64,
    /// Backend: cpu or cuda.
    #[arg(long, default_value = "cpu")]
    backend: String,
    /// Levels (CUDA scan columns are sized for them).
    #[arg(long, default_value_t = 80, value_parser = crate::limits::levels)]
    levels: usize,
    /// Schedule: `unfused` (the programs as written) or `optimised` (the optimiser's
    /// programs and kernels, sizes fixed for `--grid` and `--levels`).
    #[arg(long, default_value = "unfused")]
    schedule: String,
    /// Grid name or ICON grid file the optimised programs are compiled for.
    #[arg(long, default_value = "r2b6")]
    grid: String,
}

/// Runs `foehn compile`.
pub fn run(a: CompileArgs) -> Result<()> {
    let optimised = match a.schedule.as_str() {
        "unfused" => false,
        "optimised" | "optimized" => true,
        other => anyhow::bail!("unknown schedule `{other}` (unfused or optimised)"),
    };
    let entries = catalog();
    let mut programs: Vec<ir::Program> = Vec::new();
    for e in select(&entries, &a.programs)? {
        for v in e.variants()? {
            programs.push(e.specialize(&v)?);
        }
    }
    for seed in 0..a.random {
        let def = RandomProgram::generate(seed, GenConfig::default()).def;
        programs.push(def.specialize(&ir::Variant::new())?);
    }
    let cache = Cache::from_env();
    eprintln!(
        "compiling {} program variants for {} (cache {})",
        programs.len(),
        a.backend,
        cache.root().display()
    );
    let bar = ProgressBar::new(programs.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}").expect("valid template"),
    );
    let grid = if optimised {
        Some(crate::grid_load::load(&a.grid)?)
    } else {
        None
    };
    let t0 = Instant::now();
    let origins = match a.backend.as_str() {
        "cpu" => {
            let b = CpuBackend::new(cache);
            compile_all(&programs, &bar, |p| {
                planned(p, grid.as_ref(), a.levels, |p, s, sizes| {
                    b.compile(p, s, sizes).map(|c| c.origin)
                })
            })?
        }
        "cuda" => {
            let b = CudaBackend::open(cache)?;
            compile_all(&programs, &bar, |p| {
                planned(p, grid.as_ref(), a.levels, |p, s, sizes| {
                    b.compile(p, s, sizes).map(|c| c.origin)
                })
            })?
        }
        other => anyhow::bail!("unknown backend `{other}` (cpu or cuda)"),
    };
    bar.finish_and_clear();
    let built = origins.iter().filter(|o| *o != "Hit").count();
    let what = match &grid {
        Some(g) => format!("optimised for {} × {}", g.name, a.levels),
        None => "unfused".to_string(),
    };
    println!(
        "compiled {} program variants for {} ({what}) in {:.2} s ({built} built, {} from the cache) on {} threads",
        programs.len(),
        a.backend,
        t0.elapsed().as_secs_f64(),
        origins.len() - built,
        rayon::current_num_threads()
    );
    Ok(())
}

/// Calls `compile` with what the backend compiles of `p`: the program as written
/// (sizes read at run time), or with `grid` the optimised program, its kernels and the
/// grid's sizes (optimising is part of the cold start).
fn planned<R>(
    p: &ir::Program,
    grid: Option<&foehn_grid::Grid>,
    levels: usize,
    compile: impl FnOnce(&ir::Program, &ir::Schedule, Sizes) -> R,
) -> R {
    match grid {
        Some(g) => {
            let opts = foehn::opt::OptOptions::default();
            let (o, schedule) = optimise_for_grid(p, &opts, g, levels);
            compile(&o, &schedule, Sizes::of(g, levels))
        }
        None => compile(p, &ir::Schedule::unfused(p), Sizes::levels(levels)),
    }
}

/// Compiles `programs` in parallel with `compile`, advancing `bar`, and returns where
/// each compiled program came from (`Hit`, `Built`, `Rebuilt`).
fn compile_all(
    programs: &[ir::Program],
    bar: &ProgressBar,
    compile: impl Fn(&ir::Program) -> foehn::Result<Origin> + Sync,
) -> Result<Vec<String>> {
    programs
        .par_iter()
        .map(|p| {
            bar.set_message(p.name.clone());
            let c = compile(p).with_context(|| p.name.clone());
            bar.inc(1);
            c.map(|origin| format!("{origin:?}"))
        })
        .collect()
}
