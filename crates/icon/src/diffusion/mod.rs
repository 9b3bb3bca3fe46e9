//! ICON's horizontal diffusion (mo_nh_diffusion; ICON4Py's `Diffusion.run`): every
//! program of the step in the DSL with its reference, and the component.

pub mod component;
pub mod config;
pub mod stencils;

use foehn_testkit::catalog::Entry;

/// The diffusion programs, then the whole step as one program (`diffusion_step`).
pub fn catalog() -> Vec<Entry> {
    let mut entries = stencils::catalog();
    entries.extend(component::catalog());
    entries
}
