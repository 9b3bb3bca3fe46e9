//! Test helpers: grids (small global, small limited-area) and the DSL-vs-reference check.
#![allow(dead_code)]

use foehn::ir::Variant;
use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::interp::Interpreter;
use foehn_grid::Grid;
use foehn_testkit::catalog::Entry;
use std::sync::OnceLock;

/// The global and the limited-area program grids (the test kit's list).
pub use foehn_testkit::grids::program_grids as grids;

/// The CPU backend with a private cache.
pub fn cpu() -> &'static CpuBackend {
    static B: OnceLock<(tempfile::TempDir, CpuBackend)> = OnceLock::new();
    &B.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let b = CpuBackend::new(foehn_cache::Cache::at(d.path()));
        (d, b)
    })
    .1
}

/// Runs `entry` for every variant on both grids with the reference, the interpreter and
/// the CPU backend on the same random inputs; every writable field must agree to `tol`
/// (relative) and be bit-identical between interpreter and CPU backend where possible.
pub fn check_entry(entry: &Entry, nlev: usize, tol: f64) {
    for grid in grids() {
        for variant in entry.variants().unwrap() {
            check_variant(entry, &variant, grid, nlev, tol);
        }
    }
}

/// [`check_entry`] for one variant and grid.
pub fn check_variant(entry: &Entry, variant: &Variant, grid: &Grid, nlev: usize, tol: f64) {
    let ir = entry.specialize(variant).unwrap_or_else(|e| panic!("{e}"));
    let args = (entry.inputs)(&ir, grid, nlev, 7);
    let mut want = args.clone();
    (entry.reference.expect("reference"))(&ir, grid, &mut want).unwrap();
    let mut interp = args.clone();
    Interpreter
        .run_ir(&ir, grid, &mut interp)
        .unwrap_or_else(|e| panic!("{} [{variant}] on {}: {e}", entry.name, grid.name));
    let mut native = args.clone();
    let compiled = cpu()
        .compile(
            &ir,
            &foehn::ir::Schedule::unfused(&ir),
            foehn::codegen::Sizes::of(grid, nlev),
        )
        .unwrap();
    cpu()
        .run_compiled(&ir, &compiled, grid, &mut native)
        .unwrap();
    for (what, got) in [("interpreter", &interp), ("cpu", &native)] {
        let what = format!("{} [{variant}] on {} ({what})", entry.name, grid.name);
        assert_outputs_agree(&what, &ir, &want, got, tol);
    }
}

pub use foehn_testkit::compare::assert_outputs_agree;

/// [`check_entry`] for the optimised schedule (inlined, specialised, fused, k-blocked;
/// `OptOptions::default()`) on the CPU backend: every variant on both grids against the
/// reference, to `tol`.
pub fn check_entry_optimised(entry: &Entry, nlev: usize, tol: f64) {
    check_entry_with(entry, nlev, tol, &foehn::opt::OptOptions::default());
}

/// [`check_entry_optimised`] with the optimiser options `opts`.
pub fn check_entry_with(entry: &Entry, nlev: usize, tol: f64, opts: &foehn::opt::OptOptions) {
    for grid in grids() {
        for variant in entry.variants().unwrap() {
            check_variant_optimised(entry, &variant, grid, nlev, tol, opts);
        }
    }
}

/// [`check_entry_with`] for one variant and grid.
pub fn check_variant_optimised(
    entry: &Entry,
    variant: &Variant,
    grid: &Grid,
    nlev: usize,
    tol: f64,
    opts: &foehn::opt::OptOptions,
) {
    use foehn::opt::optimise_scheduled;
    let ir = entry.specialize(variant).unwrap_or_else(|e| panic!("{e}"));
    let args = (entry.inputs)(&ir, grid, nlev, 5);
    let mut want = args.clone();
    (entry.reference.expect("reference"))(&ir, grid, &mut want).unwrap();
    let (opt, schedule, _) = optimise_scheduled(&ir, opts);
    let what = format!(
        "{} [{variant}] on {} (cpu, optimised)",
        entry.name, grid.name
    );
    let compiled = cpu()
        .compile(&opt, &schedule, foehn::codegen::Sizes::of(grid, nlev))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut got = args;
    cpu().run_compiled(&opt, &compiled, grid, &mut got).unwrap();
    assert_outputs_agree(&what, &ir, &want, &got, tol);
}

/// Asserts that the f64 field `name` differs from `before` at every point of
/// `[h0, h1) × [k0, k1)` (its output domain, written with values other than the random
/// ones it held) and is bit-identical everywhere else.
pub fn assert_written_exactly(
    before: &foehn::runtime::field::Args,
    after: &foehn::runtime::field::Args,
    name: &str,
    (h0, h1): (usize, usize),
    (k0, k1): (usize, usize),
) {
    let (a, b) = (before.field(name).unwrap(), after.field(name).unwrap());
    assert!(h0 < h1 && k0 < k1, "`{name}`: empty domain");
    for k in 0..a.levels() {
        for h in 0..a.shape()[0] {
            let i = a.flat_index(h, 0, k);
            let same = a.data().get(i).as_f64().to_bits() == b.data().get(i).as_f64().to_bits();
            let inside = (h0..h1).contains(&h) && (k0..k1).contains(&k);
            assert!(
                same != inside,
                "`{name}` at point {h}, level {k}: {} (domain [{h0}, {h1}) × [{k0}, {k1}))",
                if inside {
                    "not written inside its domain"
                } else {
                    "written outside its domain"
                }
            );
        }
    }
}

/// Runs `variant` of `entry` in the interpreter on its inputs (seed 11) on `grid` with
/// `nlev` levels, after `edit` has changed them; returns (before, after).
pub fn run_with(
    entry: &Entry,
    variant: &Variant,
    grid: &Grid,
    nlev: usize,
    edit: impl FnOnce(&mut foehn::runtime::field::Args),
) -> (foehn::runtime::field::Args, foehn::runtime::field::Args) {
    let ir = entry.specialize(variant).unwrap();
    let mut before = (entry.inputs)(&ir, grid, nlev, 11);
    edit(&mut before);
    let mut after = before.clone();
    Interpreter.run_ir(&ir, grid, &mut after).unwrap();
    (before, after)
}

/// The f64 data of the argument `name`.
pub fn data<'a>(a: &'a foehn::runtime::field::Args, name: &str) -> &'a [f64] {
    a.field(name).unwrap().as_f64().unwrap()
}

/// The arguments of `ir` in declaration order (temporaries excluded) with their
/// dimensions, then the scalars.
pub fn arguments(ir: &foehn::ir::Program) -> Vec<String> {
    let mut out: Vec<String> = ir
        .fields
        .iter()
        .filter(|f| f.role != foehn::ir::Role::Temp)
        .map(|f| format!("{} {}", f.name, f.ty.dims))
        .collect();
    out.extend(ir.scalars.iter().map(|s| s.name.clone()));
    out
}

/// `[start(from), end(to))` of `loc` on `grid`.
pub fn zone_range(
    grid: &Grid,
    loc: foehn_grid::Location,
    from: foehn_grid::Zone,
    to: foehn_grid::Zone,
) -> (usize, usize) {
    let z = grid.zones.of(loc);
    (z.start(from).unwrap(), z.end(to).unwrap())
}
