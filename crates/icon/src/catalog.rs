//! The one list of ICON programs foehn provides, which `foehn bench`, `explain`, `exec`
//! and `compile` read: each entry is a program with its realistic inputs and its
//! plain-Rust reference. Each dycore component contributes its entries.

use crate::{diffusion, velocity_advection};
use foehn_testkit::catalog::Entry;

/// Every ICON program foehn provides: the diffusion's programs in ICON's call order,
/// then the whole diffusion step as one program; then the velocity advection's.
pub fn catalog() -> Vec<Entry> {
    let mut entries = diffusion::entries();
    entries.extend(velocity_advection::entries());
    // Then the nonhydrostatic solver's programs.
    entries.extend(crate::solve_nonhydro::entries());
    entries
}

/// Seed of the tuning inputs (fixed: the same inputs, the same measurement conditions).
const TUNING_SEED: u64 = 0x7u64 << 40 | 0x0075_6e65;

/// The realistic inputs of `program` (a catalog program's variant, under its own
/// argument names) on `grid` with `nlev` levels: what a run tunes its programs on
/// (`foehn::runtime::tune::InputsProvider`; `foehn run jw --schedule tuned`). `None`
/// for a program not in the catalog.
pub fn tuning_inputs(
    program: &foehn::ir::Program,
    grid: &foehn_grid::Grid,
    nlev: usize,
) -> Option<foehn::runtime::field::Args> {
    let entry = catalog().into_iter().find(|e| e.name == program.name)?;
    Some((entry.inputs)(program, grid, nlev, TUNING_SEED))
}
