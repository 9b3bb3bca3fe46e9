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
