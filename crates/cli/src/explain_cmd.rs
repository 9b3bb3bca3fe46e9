//! `foehn explain`: the IR of a program variant (and, on request, the generated code).

use crate::bench_cmd::catalog;
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
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
    /// Also print the generated C code.
    #[arg(long)]
    code: bool,
    /// Print the optimised IR too (and generate code from it with --code).
    #[arg(long)]
    optimised: bool,
    /// Grid for the bytes figure.
    #[arg(long, default_value = "r2b6")]
    grid: String,
    /// Levels for the bytes figure.
    #[arg(long, default_value_t = 80)]
    levels: usize,
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
    let def = (entry.build)();
    let mut fixed = entry.fixed_statics.map(|f| f()).unwrap_or_default();
    for (name, value) in parse_variant(&a.variant)?.0 {
        fixed = fixed.with(&name, value);
    }
    let grid = GridSpec::parse(&a.grid)?;
    let grid = grid.build()?;
    for variant in def.variants(&fixed)? {
        let ir = def.specialize(&variant)?;
        println!("=== {} [{}]  hash {}", ir.name, variant, ir.content_hash());
        println!("{ir}");
        let bytes = ir.minimal_bytes(&grid, a.levels);
        println!(
            "minimal bytes on {} with {} levels: {:.1} MB (each argument field read once, written once)",
            grid.name,
            a.levels,
            bytes as f64 / 1e6
        );
        let (opt, report) = foehn::opt::optimise(&ir, &foehn::opt::OptOptions::default());
        println!(
            "schedule unfused: {} stencil(s), one loop nest (kernel) each",
            ir.stencils.len()
        );
        println!(
            "schedule optimised: {} kernel(s); the optimiser's decisions:",
            opt.stencils.len()
        );
        for action in &report.actions {
            println!("  - {action}");
        }
        if report.actions.is_empty() {
            println!("  (no temporaries to inline or remove)");
        }
        if a.optimised {
            println!("--- optimised IR ---\n{opt}");
        }
        if a.code {
            let c = foehn::codegen::c::generate(if a.optimised { &opt } else { &ir })?;
            println!("--- generated C ---\n{}", c.source);
        }
    }
    Ok(())
}
