//! `foehn explain`: the IR of a program variant (and, on request, the generated code).

use crate::bench_cmd::catalog;
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use foehn::codegen::{self, Sizes, Target};
use foehn::ir::{StaticValue, Variant};
use foehn_grid::GridSpec;

/// Options of `foehn explain`.
#[derive(ClapArgs)]
pub struct ExplainArgs {
    /// Program name (see `foehn bench --help` for the catalog).
    program: String,
    /// Static arguments `name=value` (e.g. `--variant at_first_substep=true`); unset
    /// statics are enumerated.
    #[arg(long)]
    variant: Vec<String>,
    /// Also print the generated C code (of the optimised schedule, sizes fixed for
    /// `--grid`/`--levels`, with --optimised).
    #[arg(long)]
    code: bool,
    /// With --code: print the CUDA source the GPU backend compiles (optimised schedule
    /// with --optimised) instead of the C source.
    #[arg(long)]
    cuda: bool,
    /// Optimiser passes to leave off (as `foehn bench --without`): specialise, inline,
    /// dead, fuse, fuseclip, forward, colocal, afterscan, lockreg, kblock, idx32, fixed,
    /// kmajor, hoist, branchlocal, slotselect, selecthoist, column, lockstep, windows,
    /// stage, vstream.
    #[arg(long, value_delimiter = ',')]
    without: Vec<String>,
    /// Opt-in optimiser passes to turn on: selecthoistindices (under slot selection, only
    /// both slots' indices hoisted, not their field values; ADR 0024), levelfastest,
    /// stageslots (ADR 0027), prefetch (lockstep windows one level ahead; ADR 0030).
    #[arg(long, value_delimiter = ',')]
    with: Vec<String>,
    /// The inliner's load factor (as `foehn bench --inline-load-factor`).
    #[arg(long)]
    inline_load_factor: Option<usize>,
    /// The inliner's recompute-cost limit (as `foehn bench --schedule optimised/cost<N>`).
    #[arg(long)]
    inline_max_cost: Option<usize>,
    /// Temporaries to recompute in their consumers whatever the load factor says (as
    /// `foehn bench --schedule optimised/recompute-<name>`).
    #[arg(long, value_delimiter = ',')]
    recompute: Vec<String>,
    /// Print the optimised IR too (and generate code from it with --code).
    #[arg(long)]
    optimised: bool,
    /// Grid for the bytes figure.
    #[arg(long, default_value = "r2b6")]
    grid: String,
    /// Levels for the bytes figure.
    #[arg(long, default_value_t = 80, value_parser = crate::limits::levels)]
    levels: usize,
    /// Memory bandwidth (GB/s) for the predicted kernel times; default: the copy
    /// bandwidth measured on an NVIDIA H200 (bench/results/2026-11-22-h200-r2b6.json).
    #[arg(long, default_value_t = 3900.0)]
    bandwidth: f64,
    /// Take the bandwidth from a `foehn bench` report (its measured `peak_copy_gbs`).
    #[arg(long, value_name = "REPORT.json")]
    bandwidth_from: Option<std::path::PathBuf>,
}

/// The copy bandwidth recorded in a `foehn bench` JSON report.
fn report_bandwidth(path: &std::path::Path) -> Result<f64> {
    let r = foehn_metrics::BenchReport::read(path)
        .with_context(|| format!("reading the bench report {}", path.display()))?;
    Ok(r.peak_copy_gbs)
}

/// Prints the kernels of a schedule: stencils, k-block (as the CUDA generator applies
/// it), minimal bytes, predicted time at `gbs`; returns the predicted total (ms) and
/// the bytes the kernels move together.
fn print_kernels(
    ir: &foehn::ir::Program,
    schedule: &foehn::ir::Schedule,
    grid: &foehn_grid::Grid,
    levels: usize,
    gbs: f64,
) -> Result<(f64, f64)> {
    let code = codegen::generate(ir, schedule, Target::Cuda, Sizes::of(grid, levels))?;
    let (mut total, mut moved) = (0.0, 0.0);
    for (i, ((k, plan), name)) in code
        .kernels
        .iter()
        .zip(&schedule.kernels)
        .zip(schedule.describe(ir))
        .enumerate()
    {
        // With a lockstep kernel's columns written going up and read back going down, and
        // the fields both its loops read, loaded again going down (printed below).
        let bytes = foehn::opt::lockstep::modelled_bytes(ir, plan, grid, levels) as f64;
        let ms = bytes / (gbs * 1e9) * 1e3;
        total += ms;
        moved += bytes;
        let mut how = if plan.lockstep.is_some() {
            let columns = foehn::opt::lockstep::column_bytes(ir, plan, grid, levels);
            let rereads = foehn::opt::lockstep::descending_rereads(ir, plan, grid, levels);
            format!(
                "a thread per column (scans), members in lockstep, {:.1} MB through its columns, {:.1} MB read again going down",
                columns as f64 / 1e6,
                rereads as f64 / 1e6
            )
        } else if let Some(w) = k.warps {
            format!("a warp per column (scans), {w} per block, columns in shared memory")
        } else if k.per_column {
            "a thread per column (scans)".to_string()
        } else if k.k_block > 1 {
            format!("k-blocked, {} levels per thread", k.k_block)
        } else {
            "a thread per point".to_string()
        };
        if let Some((conn, tiles)) = k.stage {
            how += &format!(
                ", {tiles} value(s) staged in shared memory for the block's {conn} neighbours"
            );
        }
        println!(
            "  kernel {i}: {name}\n      {how}, {:.1} MB, predicted {ms:.4} ms",
            bytes / 1e6
        );
    }
    Ok((total, moved))
}

/// `N MB moved, x.xx× the minimal bytes`: what a schedule's kernels move against the
/// program's minimal bytes.
fn moved(bytes: f64, minimal: f64) -> String {
    format!(
        "{:.1} MB moved, {:.2}x the minimal bytes",
        bytes / 1e6,
        bytes / minimal.max(1.0)
    )
}

/// Parses `name=value` static arguments (`true`/`false` or integers).
pub fn parse_variant(items: &[String]) -> Result<Variant> {
    let mut v = Variant::new();
    for item in items {
        let (name, value) = item
            .split_once('=')
            .with_context(|| format!("`{item}`: expected name=value"))?;
        let value: StaticValue = match value.trim().to_ascii_lowercase().as_str() {
            "true" => true.into(),
            "false" => false.into(),
            x => x
                .parse::<i32>()
                .with_context(|| format!("`{item}`: value must be true, false or an integer"))?
                .into(),
        };
        v = v.with(name.trim(), value);
    }
    Ok(v)
}

/// Runs `foehn explain`.
pub fn run(a: ExplainArgs) -> Result<()> {
    let entries = catalog();
    let Some(entry) = entries.iter().find(|e| e.name == a.program) else {
        let names: Vec<&str> = entries.iter().map(|e| e.name).collect();
        bail!(
            "unknown program `{}` (known: {})",
            a.program,
            names.join(", ")
        );
    };
    let chosen = parse_variant(&a.variant)?;
    let grid = GridSpec::parse(&a.grid)?;
    let grid = grid.build()?;
    let gbs = match &a.bandwidth_from {
        Some(p) => report_bandwidth(p)?,
        None => a.bandwidth,
    };
    // Options are checked before anything is printed.
    let mut opts = crate::bench_cmd::without(&a.without, &a.with)?;
    if let Some(f) = a.inline_load_factor {
        opts.inline_load_factor = f;
    }
    if let Some(c) = a.inline_max_cost {
        opts.max_inline_cost = c;
    }
    opts.recompute.extend(a.recompute.iter().cloned());
    for variant in entry.variants_with(&chosen)? {
        let ir = entry.specialize(&variant)?;
        println!("=== {} [{}]  hash {}", ir.name, variant, ir.content_hash());
        println!("{ir}");
        let bytes = ir.minimal_bytes(&grid, a.levels);
        println!(
            "minimal bytes on {} with {} levels: {:.1} MB (each argument field read once, written once)",
            grid.name,
            a.levels,
            bytes as f64 / 1e6
        );
        let libm = ir.math_library_functions();
        if libm.is_empty() {
            println!("engines: bit for bit alike (interpreter, CPU, CUDA; docs/adr/0035)");
        } else {
            println!(
                "engines: interpreter and CPU bit for bit alike; CUDA's {} may round differently (docs/adr/0035)",
                libm.join(", ")
            );
        }
        let (opt, schedule, report) = foehn::opt::optimise_scheduled(&ir, &opts);
        println!(
            "schedule unfused: {} kernel(s), one per stencil, at {gbs:.0} GB/s:",
            ir.stencils.len()
        );
        let (unfused, unfused_bytes) = print_kernels(
            &ir,
            &foehn::ir::Schedule::unfused(&ir),
            &grid,
            a.levels,
            gbs,
        )?;
        let minimal = bytes as f64;
        println!(
            "  predicted total {unfused:.4} ms ({})",
            moved(unfused_bytes, minimal)
        );
        println!(
            "schedule optimised: {} kernel(s); the optimiser's decisions:",
            schedule.kernels.len()
        );
        for decision in &report.decisions {
            println!("  - {decision}");
        }
        println!(
            "  - code: k-block {} on the GPU{}, {}-bit indices where fields fit, sizes {}",
            opts.k_block,
            if opts.k_major {
                " in k-major block order"
            } else {
                ""
            },
            if opts.idx32 { 32 } else { 64 },
            if opts.fixed_sizes {
                "fixed at compile time for the caller's grid"
            } else {
                "read at run time"
            }
        );
        let selected = codegen::slot_selected_wheres(&opt);
        if opts.slot_select && selected > 0 {
            println!(
                "  - code: {selected} `where`(s) choosing one expression at two neighbour slots (upwind) computed once at the slot the mask selects, not branched"
            );
        }
        println!("kernels of the optimised schedule at {gbs:.0} GB/s:");
        let (optimised, optimised_bytes) = print_kernels(&opt, &schedule, &grid, a.levels, gbs)?;
        println!(
            "  predicted total {optimised:.4} ms ({:.2}x the unfused prediction; {})",
            unfused / optimised.max(1e-12),
            moved(optimised_bytes, minimal)
        );
        if a.optimised {
            println!("--- optimised IR ---\n{opt}");
        }
        if a.code {
            let (program, schedule) = if a.optimised {
                (&opt, schedule.clone())
            } else {
                (&ir, foehn::ir::Schedule::unfused(&ir))
            };
            let (language, target) = if a.cuda {
                ("CUDA", Target::Cuda)
            } else {
                ("C", Target::C)
            };
            let code = codegen::generate(program, &schedule, target, Sizes::of(&grid, a.levels))?;
            println!("--- generated {language} ---\n{}", code.source);
        }
    }
    Ok(())
}
