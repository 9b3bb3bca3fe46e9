//! Test helpers: grids (small global, small limited-area) and the DSL-vs-reference check.
#![allow(dead_code)]

use foehn::catalog::Entry;
use foehn::codegen::cpu::CpuBackend;
use foehn::field::Args;
use foehn::interp::Interpreter;
use foehn::ir::{Role, Variant};
use foehn_grid::{Grid, GridSpec, EARTH_RADIUS};
use std::sync::OnceLock;

/// A small global grid (R2B2, 1280 cells) and a small limited-area grid (cut from R2B4).
pub fn grids() -> &'static [Grid; 2] {
    static G: OnceLock<[Grid; 2]> = OnceLock::new();
    G.get_or_init(|| {
        [
            Grid::icosahedral(2, 2, EARTH_RADIUS).unwrap(),
            GridSpec::parse("r2b4:cap:46,8,1500")
                .unwrap()
                .build()
                .unwrap(),
        ]
    })
}

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
    let ir = (entry.build)()
        .specialize(variant)
        .unwrap_or_else(|e| panic!("{e}"));
    let args = (entry.inputs)(&ir, grid, nlev, 7);
    let mut want = args.clone();
    (entry.reference.expect("reference"))(&ir, grid, &mut want).unwrap();
    let mut interp = args.clone();
    Interpreter
        .run_ir(&ir, grid, &mut interp)
        .unwrap_or_else(|e| panic!("{} [{variant}] on {}: {e}", entry.name, grid.name));
    let mut native = args.clone();
    let compiled = cpu().compile(&ir).unwrap();
    cpu()
        .run_compiled(&ir, &compiled, grid, &mut native)
        .unwrap();
    for (what, got) in [("interpreter", &interp), ("cpu", &native)] {
        let what = format!("{} [{variant}] on {} ({what})", entry.name, grid.name);
        assert_outputs_agree(&what, &ir, &want, got, tol);
    }
}

/// Every writable argument field of `ir` agrees between `want` and `got`: bit-identical
/// or within `tol` relative.
pub fn assert_outputs_agree(
    what: &str,
    ir: &foehn::ir::Program,
    want: &Args,
    got: &Args,
    tol: f64,
) {
    for d in ir
        .fields
        .iter()
        .filter(|d| d.role.writable() && d.role != Role::Temp)
    {
        compare(&format!("{what}: `{}`", d.name), want, got, &d.name, tol);
    }
}

fn compare(what: &str, want: &Args, got: &Args, name: &str, tol: f64) {
    let (a, b) = (
        want.field(name).unwrap().data(),
        got.field(name).unwrap().data(),
    );
    for i in 0..a.len() {
        let (x, y) = (a.get(i).as_f64(), b.get(i).as_f64());
        if x.to_bits() == y.to_bits() {
            continue;
        }
        let rel = (x - y).abs() / x.abs().max(y.abs()).max(1e-300);
        assert!(
            rel <= tol,
            "{what}: element {i}: reference {x:e}, got {y:e} (rel {rel:e})"
        );
    }
}
