//! `foehn bench`: benchmark catalog programs on a grid with a backend; table + JSON (+ PNG).

use crate::grid_cmd;
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use foehn::bench::{bench_cpu_side, cpu_copy_bandwidth, BenchConfig, BenchSetup, Engine};
use foehn::catalog::Entry;
use foehn::codegen::cpu::CpuBackend;
use foehn_grid::Location;
use foehn_metrics::{BenchReport, GridInfo};
use std::path::PathBuf;

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
    #[arg(long, default_value_t = 80)]
    levels: usize,
    /// Backends: interp, cpu, rust-reference (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "cpu")]
    backend: Vec<String>,
    /// Timed calls per program variant (median reported).
    #[arg(long, default_value_t = 20)]
    runs: usize,
    /// Skip the verification against the reference.
    #[arg(long)]
    no_verify: bool,
    /// Write the JSON report here.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Write a bar chart (% of peak per program) here.
    #[arg(long)]
    png: Option<PathBuf>,
}

/// Every program foehn knows.
pub fn catalog() -> Vec<Entry> {
    foehn::catalog::examples()
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
    let entries = catalog();
    let chosen: Vec<&Entry> = if a.programs.is_empty() {
        entries.iter().collect()
    } else {
        a.programs
            .iter()
            .map(|p| {
                entries.iter().find(|e| e.name == p).with_context(|| {
                    let names: Vec<&str> = entries.iter().map(|e| e.name).collect();
                    format!("unknown program `{p}` (known: {})", names.join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    let engines: Vec<Engine> = a.backend.iter().map(|b| engine(b)).collect::<Result<_>>()?;
    let grid = grid_cmd::load(&a.grid)?;
    eprintln!("measuring host copy bandwidth ...");
    let peak = cpu_copy_bandwidth();
    let cpu = CpuBackend::default();
    let setup = BenchSetup {
        grid: &grid,
        nlev: a.levels,
        peak_gbs: peak,
        cpu: &cpu,
    };
    let cfg = BenchConfig {
        runs: a.runs,
        verify: !a.no_verify,
        ..BenchConfig::default()
    };
    let info = GridInfo {
        name: grid.name.clone(),
        cells: grid.size(Location::Cell) as u64,
        edges: grid.size(Location::Edge) as u64,
        vertices: grid.size(Location::Vertex) as u64,
        levels: a.levels as u64,
    };
    let device = format!("host CPU ({} threads)", rayon::current_num_threads());
    let mut report = BenchReport::new(&device, peak, info);
    for entry in chosen {
        for variant in entry.variants()? {
            for &e in &engines {
                if e == Engine::Reference && entry.reference.is_none() {
                    continue;
                }
                eprintln!("{} [{variant}] on {} ...", entry.name, e.name());
                let r = bench_cpu_side(entry, &variant, e, &setup, &cfg)?;
                report.results.push(r);
            }
        }
    }
    println!("{}", report.summary());
    if let Some(path) = &a.output {
        report.write(path)?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &a.png {
        foehn_metrics::plot::render_bench_png(&report, path)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
