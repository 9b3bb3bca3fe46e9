//! Checks shared by the solve_nonhydro test files of the predictor (P6, P11, P13), the
//! fluxes (P8) and the corrector (P12): the DSL-vs-reference run and ICON4Py's argument
//! lists. Used next to `tests/common` (`mod common; mod solve_nonhydro_support;`).
#![allow(dead_code)]

use crate::common;
use foehn_grid::{Grid, Location, Zone};
use foehn_testkit::catalog::Entry;

/// Levels of the test column.
pub const NLEV: usize = 10;
/// Relative tolerance of the DSL against the reference.
pub const TOL: f64 = 1e-12;

/// Reference, interpreter and CPU backend (unfused and optimised) agree on both grids,
/// every variant.
pub fn check(entry: &Entry) {
    common::check_entry(entry, NLEV, TOL);
    common::check_entry_optimised(entry, NLEV, TOL);
}

/// Every variant's arguments (fields with their dimensions, then scalars) are `want`;
/// the entry has `variants` variants and ICON calls it `calls` times per step.
pub fn assert_arguments(entry: &Entry, want: &[&str], variants: usize, calls: f64) {
    let all = entry.variants().unwrap();
    assert_eq!(all.len(), variants, "{}: variants", entry.name);
    for variant in &all {
        let ir = entry.specialize(variant).unwrap();
        assert_eq!(common::arguments(&ir), want, "{} [{variant}]", entry.name);
    }
    assert_eq!(entry.calls_per_step, Some(calls), "{}", entry.name);
}

/// The edges `[LATERAL_BOUNDARY_LEVEL_5, HALO_LEVEL_2 end)`.
pub fn lb5_to_halo_2_edges(grid: &Grid) -> (usize, usize) {
    common::zone_range(
        grid,
        Location::Edge,
        Zone::LateralBoundary(5),
        Zone::Halo(2),
    )
}

/// The edges `[NUDGING_LEVEL_2, LOCAL end)`.
pub fn nudging_2_to_local_edges(grid: &Grid) -> (usize, usize) {
    common::zone_range(grid, Location::Edge, Zone::Nudging(2), Zone::Local)
}
