//! `foehn bench`: benchmark catalog programs on a grid with a backend; table + JSON (+ PNG).
//! The programs run on their random inputs, and the output says so
//! ([`INPUTS`]).

use crate::bench_driver::{
    bench_cpu_side, bench_cuda, cpu_copy_bandwidth, BenchSetup, Engine, InputCache, INPUTS,
};
use crate::grid_load;
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::cuda::CudaBackend;
use foehn_cache::Cache;
use foehn_grid::Location;
use foehn_metrics::{BenchReport, GridInfo};
use foehn_testkit::catalog::Entry;
use std::path::PathBuf;

mod schedules;
use schedules::configs;
pub(crate) use schedules::without;

/// Options of `foehn bench`.
#[derive(ClapArgs)]
pub struct BenchArgs {
    /// Programs to run (comma-separated; default: all in the catalog).
    #[arg(long, value_delimiter = ',')]
    programs: Vec<String>,
    /// Grid name or ICON grid file (see `foehn grid generate --help`).
    #[arg(long, default_value = "r2b4")]
    grid: String,
    /// Number of full levels.
    #[arg(long, default_value_t = 80, value_parser = crate::limits::levels)]
    levels: usize,
    /// Backends: interp, cpu, rust-reference, or cuda (alone: a report is for one device).
    #[arg(long, value_delimiter = ',', default_value = "cpu")]
    backend: Vec<String>,
    /// Timed calls per program variant (median reported).
    #[arg(long, default_value_t = 20)]
    runs: usize,
    /// Skip the verification against the reference. (Verified, a result whose outputs
    /// differ keeps its time, is marked DIFFERS, and the run fails at the end.)
    #[arg(long)]
    no_verify: bool,
    /// Schedules: unfused (each stencil its own loop nest, as written), optimised
    /// (after the optimiser: regions specialised, temporaries inlined, dead stencils
    /// removed, kernels fused, k-blocking, 32-bit indices, sizes fixed at compile time;
    /// launch parameters from the model) and/or tuned (optimised, then block size,
    /// k-block, unroll and block order measured per kernel on the GPU, then code options
    /// such as branch-local loads and register caps flipped where a kernel gets faster;
    /// persisted in the cache). Ablations:
    /// `optimised/without-fuse`, `optimised/inline8`, `optimised/cost1024` (the inliner's
    /// recompute-cost limit), `optimised/unroll4` (the level loop of k-blocked kernels
    /// unrolled), `optimised/lockreg64` (a register cap on lockstep column kernels),
    /// `optimised/maxreg48` (a register cap on every kernel), `optimised/lockunroll2`
    /// (the level loops of lockstep column kernels unrolled; with `with-levelfastest`,
    /// the lane-0 scan loops of its warp-per-column kernels), `optimised/with-levelfastest/warpcols4`
    /// (four columns in each warp of those kernels, their lane-0 steps side by side),
    /// `optimised/recompute-rho_explicit_term` (that temporary recomputed in its
    /// consumers, whatever the inliner's load factor says); opt-in passes:
    /// `optimised/with-selecthoistindices` (under slot selection
    /// only the indices of both slots hoisted, not their values), `optimised/with-prefetch`
    /// (lockstep level windows one level ahead, ADR 0030) (several `/` parts allowed).
    #[arg(long, value_delimiter = ',', default_value = "unfused,optimised")]
    schedule: Vec<String>,
    /// Optimiser passes to leave off in the optimised/tuned schedules (ablation):
    /// specialise, inline, dead, fuse, fuseclip, forward, colocal, afterscan, lockreg,
    /// kblock, idx32, fixed, kmajor, hoist, branchlocal, slotselect, selecthoist, column
    /// (column kernels around scans), lockstep (their members one after another instead),
    /// windows (lockstep level windows), stage, vstream.
    #[arg(long, value_delimiter = ',')]
    without: Vec<String>,
    /// The inliner's load factor in the optimised/tuned schedules (default 2: inline
    /// while the recomputed loads stay within twice a stored temporary's traffic).
    #[arg(long)]
    inline_load_factor: Option<usize>,
    /// Write the JSON report here.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Write a bar chart (% of peak per program) here.
    #[arg(long)]
    png: Option<PathBuf>,
    /// Measure nothing: print the summary (and write --png/--output) of this existing
    /// report, e.g. one an interrupted run left behind.
    #[arg(long)]
    from: Option<PathBuf>,
    /// Only the variants with these static values (`name=value`, comma-separated, e.g.
    /// `--only at_first_substep=true,is_iau_active=true`); a program without one of the
    /// names keeps all its values of it.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Relative tolerance of the verification, point by point (default 1e-12). Outputs
    /// that are differences of nearly equal values (a gradient between neighbours on a
    /// fine grid) lose digits to cancellation in both the reference and the backend.
    #[arg(long, default_value_t = 1e-12, value_parser = tolerance)]
    tolerance: f64,
}

/// A verification tolerance: positive and below 1.
fn tolerance(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t > 0.0 && t < 1.0 => Ok(t),
        _ => Err(format!(
            "`{s}`: expected a relative tolerance in (0, 1), e.g. 1e-10"
        )),
    }
}

/// The `name=value` pairs of `--only`, checked against the chosen programs: every name
/// must be a static argument of at least one of them.
fn only_filter(a: &BenchArgs, chosen: &[&Entry]) -> Result<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    for item in &a.only {
        let Some((name, value)) = item.split_once('=') else {
            bail!("--only `{item}`: expected name=value (e.g. at_first_substep=true)");
        };
        let mut known = std::collections::BTreeSet::new();
        for entry in chosen {
            for variant in entry.variants()? {
                known.extend(variant.0.keys().cloned());
            }
        }
        if !known.contains(name) {
            let names: Vec<String> = known.into_iter().collect();
            bail!(
                "--only `{name}`: no chosen program has this static argument (they have: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            );
        }
        pairs.push((name.to_string(), value.to_string()));
    }
    Ok(pairs)
}

/// The variants of `entry` that `--only`'s pairs keep.
fn variants_kept(entry: &Entry, only: &[(String, String)]) -> Result<Vec<foehn::ir::Variant>> {
    Ok(entry
        .variants()?
        .into_iter()
        .filter(|v| {
            only.iter()
                .all(|(name, value)| v.get(name).is_none_or(|x| x.to_string() == *value))
        })
        .collect())
}

/// Every program foehn knows.
pub fn catalog() -> Vec<Entry> {
    let mut all = foehn_testkit::catalog::examples();
    all.extend(foehn_icon::catalog());
    all
}

/// Looks programs up by name (all when `names` is empty).
pub fn select<'a>(entries: &'a [Entry], names: &[String]) -> Result<Vec<&'a Entry>> {
    if names.is_empty() {
        return Ok(entries.iter().collect());
    }
    names
        .iter()
        .map(|p| {
            entries.iter().find(|e| e.name == p).with_context(|| {
                let known: Vec<&str> = entries.iter().map(|e| e.name).collect();
                format!("unknown program `{p}` (known: {})", known.join(", "))
            })
        })
        .collect()
}

fn engine(name: &str) -> Result<Engine> {
    Ok(match name {
        "interp" | "interpreter" => Engine::Interp,
        "cpu" => Engine::Cpu,
        "rust-reference" | "reference" => Engine::Reference,
        other => bail!("unknown backend `{other}` (expected interp, cpu or rust-reference)"),
    })
}

/// Runs `foehn bench`.
pub fn run(a: BenchArgs) -> Result<()> {
    if let Some(path) = &a.from {
        let report = foehn_metrics::BenchReport::read(path)
            .with_context(|| format!("reading the bench report {}", path.display()))?;
        return finish_report(&a, &report);
    }
    let entries = catalog();
    let chosen = select(&entries, &a.programs)?;
    if a.backend.iter().any(|b| b == "cuda") {
        if a.backend.len() > 1 {
            bail!("--backend cuda cannot be mixed with CPU backends in one report (each report is for one device)");
        }
        return run_cuda(&a, &chosen);
    }
    let engines: Vec<Engine> = a.backend.iter().map(|b| engine(b)).collect::<Result<_>>()?;
    let grid = grid_load::load(&a.grid)?;
    eprintln!("measuring host copy bandwidth ...");
    let peak = cpu_copy_bandwidth();
    let cpu = CpuBackend::default();
    let setup = BenchSetup {
        grid: &grid,
        nlev: a.levels,
        peak_gbs: peak,
        cpu: &cpu,
        inputs: InputCache::new(a.schedule.len() * engines.len() > 1),
    };
    let cfgs = configs(&a)?;
    let info = grid_info(&grid, a.levels);
    let device = format!("host CPU ({} threads)", rayon::current_num_threads());
    let mut report = BenchReport::new(&device, peak, info);
    let only = only_filter(&a, &chosen)?;
    let mut jobs = Vec::new();
    for entry in chosen {
        for variant in variants_kept(entry, &only)? {
            for &e in &engines {
                for cfg in &cfgs {
                    // The reference and the interpreter have no schedules.
                    let scheduled = e == Engine::Cpu || cfg.opt.is_none();
                    if scheduled && (e != Engine::Reference || entry.reference.is_some()) {
                        jobs.push((entry, variant.clone(), e, cfg));
                    }
                }
            }
        }
    }
    let bar = progress(jobs.len());
    for (entry, variant, e, cfg) in jobs {
        bar.set_message(format!(
            "compile + verify + time {} [{variant}] {} on {}",
            entry.name,
            cfg.schedule(),
            e.name()
        ));
        let r = bench_cpu_side(entry, &variant, e, &setup, cfg);
        bar.inc(1);
        report
            .results
            .push(r.with_context(|| format!("{} [{variant}] on {}", entry.name, e.name()))?);
        log_done(&bar, &report);
        save_partial(&a, &report)?;
    }
    bar.finish_and_clear();
    finish_report(&a, &report)?;
    fail_on_mismatch(&report)
}

/// Writes the results so far to `--output` (atomically), so that a run stopped
/// early keeps every measurement already made.
fn save_partial(a: &BenchArgs, report: &BenchReport) -> Result<()> {
    match &a.output {
        Some(path) => Ok(report.write(path)?),
        None => Ok(()),
    }
}

fn finish_report(a: &BenchArgs, report: &BenchReport) -> Result<()> {
    println!("{}", report.summary());
    println!("{INPUTS}");
    if let Some(path) = &a.output {
        report.write(path)?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &a.png {
        foehn_metrics::plot::render_bench_png(report, path)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

fn grid_info(grid: &foehn_grid::Grid, levels: usize) -> GridInfo {
    GridInfo {
        name: grid.name.clone(),
        cells: grid.size(Location::Cell) as u64,
        edges: grid.size(Location::Edge) as u64,
        vertices: grid.size(Location::Vertex) as u64,
        levels: levels as u64,
    }
}

fn run_cuda(a: &BenchArgs, chosen: &[&Entry]) -> Result<()> {
    let cuda = CudaBackend::open(Cache::from_env())?;
    let grid = grid_load::load(&a.grid)?;
    eprintln!(
        "measuring device copy bandwidth on {} ...",
        cuda.gpu().name()
    );
    let bw = foehn_gpu::copy_bandwidth(cuda.gpu(), 1 << 30, 20)?;
    let cpu = CpuBackend::default();
    let setup = BenchSetup {
        grid: &grid,
        nlev: a.levels,
        peak_gbs: bw.kernel_gbs,
        cpu: &cpu,
        inputs: InputCache::new(a.schedule.len() > 1),
    };
    let cfgs = configs(a)?;
    let device = format!(
        "{} ({}; copy kernel {:.0} GB/s = {:.1}% of cuMemcpyDtoD {:.0} GB/s)",
        cuda.gpu().name(),
        cuda.gpu().arch(),
        bw.kernel_gbs,
        100.0 * bw.kernel_gbs / bw.memcpy_gbs,
        bw.memcpy_gbs
    );
    let mut report = BenchReport::new(&device, bw.kernel_gbs, grid_info(&grid, a.levels));
    let only = only_filter(a, chosen)?;
    let mut jobs = Vec::new();
    for entry in chosen {
        for variant in variants_kept(entry, &only)? {
            for cfg in &cfgs {
                jobs.push((*entry, variant.clone(), cfg));
            }
        }
    }
    let bar = progress(jobs.len());
    for (entry, variant, cfg) in jobs {
        bar.set_message(format!(
            "compile + verify + time {} [{variant}] {} on cuda",
            entry.name,
            cfg.schedule()
        ));
        let r = bench_cuda(entry, &variant, &setup, &cuda, cfg);
        bar.inc(1);
        report
            .results
            .push(r.with_context(|| format!("{} [{variant}] on cuda", entry.name))?);
        log_done(&bar, &report);
        save_partial(a, &report)?;
    }
    bar.finish_and_clear();
    finish_report(a, &report)?;
    fail_on_mismatch(&report)
}

/// An error naming every result whose outputs differed from the reference (after the
/// report is printed and written, so one wrong program does not cost the others'
/// measurements); `Ok` when none did.
fn fail_on_mismatch(report: &BenchReport) -> Result<()> {
    let wrong: Vec<String> = report
        .results
        .iter()
        .filter_map(|r| {
            let m = r.mismatch.as_ref()?;
            Some(format!(
                "  {} [{}] {} on {}: {m}",
                r.program, r.variant, r.schedule, r.backend
            ))
        })
        .collect();
    if wrong.is_empty() {
        return Ok(());
    }
    bail!(
        "verification failed for {} of {} results (their times are in the report, marked DIFFERS):\n{}",
        wrong.len(),
        report.results.len(),
        wrong.join("\n")
    )
}

/// A line on stderr for the result just added to `report`, so that the log of a run
/// stopped early (a time limit) still shows what it measured: above the progress bar on
/// a terminal, as a plain line where the bar is hidden.
fn log_done(bar: &indicatif::ProgressBar, report: &BenchReport) {
    let Some(r) = report.results.last() else {
        return;
    };
    let check = match (&r.mismatch, r.verified) {
        (Some(m), _) => format!("DIFFERS: {m}"),
        (None, true) => "verified".to_string(),
        (None, false) => "not verified".to_string(),
    };
    let line = format!(
        "done {}/{}: {} [{}] {} on {}: {:.4} ms, {check}",
        bar.position(),
        bar.length().unwrap_or(0),
        r.program,
        r.variant,
        r.schedule,
        r.backend,
        r.median_ms
    );
    if bar.is_hidden() {
        eprintln!("{line}");
    } else {
        bar.println(line);
    }
}

/// A progress bar on stderr over `n` benchmark jobs.
fn progress(n: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(n as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
            .expect("valid template"),
    );
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_that_differs_from_the_reference_is_kept_and_fails_the_run_at_the_end() {
        let grid = GridInfo {
            name: "r2b6".into(),
            cells: 327_680,
            edges: 491_520,
            vertices: 163_842,
            levels: 80,
        };
        let mut report = BenchReport::new("test device", 2830.0, grid);
        let timed = |p: &str| {
            let mut r = foehn_metrics::BenchResult::new(p, "", "optimised", "cuda").timed(
                vec![1.0, 1.2],
                0.0,
                1 << 30,
                2830.0,
            );
            r.verified = true;
            r
        };
        report.results.push(timed("good"));
        assert!(fail_on_mismatch(&report).is_ok());
        let mut wrong = timed("wrong");
        wrong.verified = false;
        wrong.mismatch = Some("`z` differs by 1e-11 (relative) from the reference".into());
        report.results.push(wrong);
        let err = fail_on_mismatch(&report).unwrap_err().to_string();
        assert!(err.contains("1 of 2 results"), "{err}");
        assert!(
            err.contains("wrong [] optimised on cuda: `z` differs"),
            "{err}"
        );
        let summary = report.summary();
        assert!(
            summary.contains("DIFFERS") && summary.contains("yes"),
            "{summary}"
        );
        // The report keeps the time and the finding.
        let json = serde_json::to_string(&report).unwrap();
        let back: BenchReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back.results[1].mismatch, report.results[1].mismatch);
        assert!(back.results[1].median_ms > 0.0);
    }
}
