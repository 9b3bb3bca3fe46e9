//! ICON's horizontal diffusion (mo_nh_diffusion; ICON4Py's `Diffusion.run`): every
//! program of the step in the DSL with its reference, and the component.

pub mod config;
pub mod stencils;

use foehn::catalog::Entry;

/// The diffusion programs.
pub fn catalog() -> Vec<Entry> {
    stencils::catalog()
}
