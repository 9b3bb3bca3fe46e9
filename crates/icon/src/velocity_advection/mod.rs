//! ICON's velocity advection (mo_velocity_advection; ICON4Py's `VelocityAdvection`):
//! its four programs in the DSL ([`stencils`]) with their plain-Rust references
//! ([`references`]) and realistic inputs ([`inputs`]), assembled into catalog entries
//! ([`entry`]). The component (`run_predictor_step`, `run_corrector_step`) builds on them.
//!
//! Until the interpolation and metric fields are computed from the grid, the inputs are
//! realistic random coefficients with ICON's signs and sizes, as the diffusion's are.

pub mod inputs;
pub mod references;
pub mod stencils;

use foehn_testkit::catalog::Entry;

/// The velocity advection's catalog entries, in ICON's call order (P1–P4 of
/// `icon-dycore-reference.md` §3.3).
pub fn entries() -> Vec<Entry> {
    vec![]
}

/// The catalog entry of each velocity-advection program, assembled from its three parts:
/// the DSL program ([`stencils`]), the realistic inputs ([`inputs`]) and the plain-Rust
/// reference ([`references`]).
pub mod entry {}
