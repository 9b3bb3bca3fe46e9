//! solve_nonhydro, the predictor's and corrector's programs of `icon-dycore-reference.md`
//! §3.3: `compute_hydrostatic_correction_term` (P6): DSL (interpreter, native CPU
//! backend as written and optimised) against the plain-Rust references on both test
//! grids, ICON4Py's argument lists, the output domains (written exactly there, untouched
//! elsewhere) and the data-dependent vertical offsets.

mod common;

use common::{arguments, assert_written_exactly, data, zone_range};
use foehn::dsl::prelude::{E2C, EDGE, I32, K};
use foehn::ir::Scalar;
use foehn::runtime::field::{Args, Field};
use foehn_grid::{Grid, Location, Zone};
use foehn_icon::solve_nonhydro::{entry, references};
use foehn_testkit::catalog::Entry;

const NLEV: usize = 10;
const TOL: f64 = 1e-12;

/// Reference, interpreter and CPU backend (unfused and optimised) agree on both grids,
/// every variant.
fn check(entry: &Entry) {
    common::check_entry(entry, NLEV, TOL);
    common::check_entry_optimised(entry, NLEV, TOL);
}

/// Every variant's arguments (fields with their dimensions, then scalars) are `want`;
/// the entry has `variants` variants and ICON calls it `calls` times per step.
fn assert_arguments(entry: &Entry, want: &[&str], variants: usize, calls: f64) {
    let all = entry.variants().unwrap();
    assert_eq!(all.len(), variants, "{}: variants", entry.name);
    for variant in &all {
        let ir = entry.specialize(variant).unwrap();
        assert_eq!(arguments(&ir), want, "{} [{variant}]", entry.name);
    }
    assert_eq!(entry.calls_per_step, Some(calls), "{}", entry.name);
}

/// Runs the entry's first variant in the interpreter on `grid` after `edit`; returns
/// (before, after).
fn run(entry: &Entry, grid: &Grid, edit: impl FnOnce(&mut Args)) -> (Args, Args) {
    let variant = entry.variants().unwrap().remove(0);
    common::run_with(entry, &variant, grid, NLEV, edit)
}

// ---------------------------------------------------------------------------------------
// compute_hydrostatic_correction_term

/// The edges `[NUDGING_LEVEL_2, LOCAL end)`.
fn nudging_2_to_local_edges(grid: &Grid) -> (usize, usize) {
    zone_range(grid, Location::Edge, Zone::Nudging(2), Zone::Local)
}

/// `ikoffset` at edge `e`, neighbour `i`, level `k`.
fn ikoffset(args: &Args, grid: &Grid, e: usize, i: usize, k: usize) -> i32 {
    let ne = grid.size(Location::Edge);
    let f = args.field("ikoffset").unwrap();
    match f.data().get(e + ne * (i + 2 * k)) {
        Scalar::I32(x) => x,
        other => panic!("ikoffset holds {other:?}"),
    }
}

/// An `ikoffset` of `offset` everywhere.
fn uniform_ikoffset(grid: &Grid, offset: i32) -> Field {
    Field::from_fn(grid, NLEV, (EDGE, E2C, K), I32, |_| Scalar::I32(offset))
}

#[test]
fn hydrostatic_correction_term_matches_reference() {
    check(&entry::compute_hydrostatic_correction_term());
}

#[test]
fn hydrostatic_correction_term_declares_icon4py_arguments() {
    let want = [
        "theta_v [Cell, K]",
        "ikoffset [Edge, E2C, K]",
        "zdiff_gradp [Edge, E2C, K]",
        "theta_v_ic [Cell, KHalf]",
        "inv_ddqz_z_full [Cell, K]",
        "inv_dual_edge_length [Edge]",
        "z_hydro_corr [Edge, K]",
        "grav_o_cpd",
    ];
    assert_arguments(&entry::compute_hydrostatic_correction_term(), &want, 1, 5.0);
}

#[test]
fn hydrostatic_correction_term_writes_exactly_the_lowest_level_of_its_edges() {
    let entry = entry::compute_hydrostatic_correction_term();
    let [global, lam] = common::grids();
    let lam_edges = nudging_2_to_local_edges(lam);
    assert!(lam_edges.0 > 0, "the cap's boundary edges lie outside");
    for grid in [global, lam] {
        let (before, after) = run(&entry, grid, |_| {});
        let edges = nudging_2_to_local_edges(grid);
        assert_written_exactly(&before, &after, "z_hydro_corr", edges, (NLEV - 1, NLEV));
    }
}

#[test]
fn hydrostatic_correction_term_reads_at_the_offset_levels() {
    // The inputs hold every offset −2, −1, 0 on the lowest level; zeroing them changes
    // the correction exactly at the edges with a non-zero offset.
    let entry = entry::compute_hydrostatic_correction_term();
    for grid in common::grids() {
        let (given, after) = run(&entry, grid, |_| {});
        let (_, flat) = run(&entry, grid, |args| {
            args.set_field("ikoffset", uniform_ikoffset(grid, 0));
        });
        let ne = grid.size(Location::Edge);
        let (e0, e1) = nudging_2_to_local_edges(grid);
        let k = NLEV - 1;
        let mut seen = std::collections::BTreeSet::new();
        for e in e0..e1 {
            let offsets = [0, 1].map(|i| ikoffset(&given, grid, e, i, k));
            seen.extend(offsets);
            let i = e + ne * k;
            let same = data(&after, "z_hydro_corr")[i] == data(&flat, "z_hydro_corr")[i];
            assert_eq!(same, offsets == [0, 0], "edge {e}, offsets {offsets:?}");
        }
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            [-2, -1, 0],
            "{}",
            grid.name
        );
    }
}

#[test]
fn hydrostatic_correction_term_reference_rejects_offsets_below_the_column() {
    let entry = entry::compute_hydrostatic_correction_term();
    let grid = common::grids()[0];
    let variant = entry.variants().unwrap().remove(0);
    let ir = entry.specialize(&variant).unwrap();
    let mut args = (entry.inputs)(&ir, grid, NLEV, 3);
    args.set_field("ikoffset", uniform_ikoffset(grid, 1));
    let got = references::compute_hydrostatic_correction_term::reference(&ir, grid, &mut args);
    assert!(got.is_err(), "level nlev read as a full level");
}
