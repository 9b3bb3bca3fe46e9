//! ICON's velocity advection (mo_velocity_advection; ICON4Py's `VelocityAdvection`):
//! its four programs in the DSL ([`stencils`]) with their plain-Rust references
//! ([`references`]) and realistic inputs ([`inputs`]), assembled into catalog entries
//! ([`entry`]). The component (`run_predictor_step`, `run_corrector_step`) builds on them.
//!
//! Until the interpolation and metric fields are computed from the grid, the inputs are
//! realistic random coefficients with ICON's signs and sizes, as the diffusion's are.

pub mod component;
pub mod inputs;
pub mod references;
pub mod stencils;

use foehn_testkit::catalog::Entry;

/// The velocity advection's catalog entries, in ICON's call order (P1–P4 of
/// `icon-dycore-reference.md` §3.3), then the component's predictor and corrector steps
/// as linked programs ([`component::entry`]).
pub fn entries() -> Vec<Entry> {
    let mut entries = vec![
        entry::compute_diagnostics_from_normal_wind(),
        entry::compute_advection_in_predictor_vertical_momentum(),
        entry::compute_advection_in_horizontal_momentum(),
        entry::compute_advection_in_corrector_vertical_momentum(),
    ];
    entries.extend(component::entry::entries());
    entries
}

/// The catalog entry of each velocity-advection program, assembled from its three parts:
/// the DSL program ([`stencils`]), the realistic inputs ([`inputs`]) and the plain-Rust
/// reference ([`references`]).
pub mod entry {
    use foehn_testkit::catalog::Entry;

    /// [`compute_diagnostics_from_normal_wind`](super::stencils::compute_diagnostics_from_normal_wind)
    /// (P1), with `nflatlev` fixed to
    /// [`NFLATLEV`](super::stencils::compute_diagnostics_from_normal_wind::NFLATLEV); ICON
    /// calls it once per step (the predictor of the first substep).
    pub fn compute_diagnostics_from_normal_wind() -> Entry {
        use super::stencils::compute_diagnostics_from_normal_wind as p;
        Entry::new(
            p::NAME,
            p::program,
            super::inputs::compute_diagnostics_from_normal_wind::inputs,
            super::references::compute_diagnostics_from_normal_wind::reference,
        )
        .fixed_statics(|| foehn::ir::Variant::new().with("nflatlev", p::NFLATLEV))
        .calls_per_step(1.0)
    }

    /// [`compute_advection_in_predictor_vertical_momentum`](super::stencils::compute_advection_in_predictor_vertical_momentum)
    /// (P2), with `nflatlev` and `end_index_of_damping_layer` fixed to the program's
    /// `NFLATLEV` and `END_INDEX_OF_DAMPING_LAYER`; ICON calls it once per step (the
    /// predictor of the first substep).
    pub fn compute_advection_in_predictor_vertical_momentum() -> Entry {
        use super::stencils::compute_advection_in_predictor_vertical_momentum as p;
        Entry::new(
            p::NAME,
            p::program,
            super::inputs::compute_advection_in_predictor_vertical_momentum::inputs,
            super::references::compute_advection_in_predictor_vertical_momentum::reference,
        )
        .fixed_statics(|| {
            foehn::ir::Variant::new()
                .with("nflatlev", p::NFLATLEV)
                .with("end_index_of_damping_layer", p::END_INDEX_OF_DAMPING_LAYER)
        })
        .calls_per_step(1.0)
    }

    /// [`compute_advection_in_corrector_vertical_momentum`](super::stencils::compute_advection_in_corrector_vertical_momentum)
    /// (P4), with `end_index_of_damping_layer` fixed to
    /// [`END_INDEX_OF_DAMPING_LAYER`](super::stencils::compute_advection_in_corrector_vertical_momentum::END_INDEX_OF_DAMPING_LAYER);
    /// ICON calls it in every corrector, 5 times per step.
    pub fn compute_advection_in_corrector_vertical_momentum() -> Entry {
        use super::stencils::compute_advection_in_corrector_vertical_momentum as p;
        Entry::new(
            p::NAME,
            p::program,
            super::inputs::compute_advection_in_corrector_vertical_momentum::inputs,
            super::references::compute_advection_in_corrector_vertical_momentum::reference,
        )
        .fixed_statics(|| {
            foehn::ir::Variant::new()
                .with("end_index_of_damping_layer", p::END_INDEX_OF_DAMPING_LAYER)
        })
        .calls_per_step(5.0)
    }

    /// [`compute_advection_in_horizontal_momentum`](super::stencils::compute_advection_in_horizontal_momentum)
    /// (P3), with `end_index_of_damping_layer` fixed to the program's
    /// `END_INDEX_OF_DAMPING_LAYER`; ICON calls it 6 times per step (the predictor of the
    /// first substep and the corrector of each of the 5).
    pub fn compute_advection_in_horizontal_momentum() -> Entry {
        use super::stencils::compute_advection_in_horizontal_momentum as p;
        Entry::new(
            p::NAME,
            p::program,
            super::inputs::compute_advection_in_horizontal_momentum::inputs,
            super::references::compute_advection_in_horizontal_momentum::reference,
        )
        .fixed_statics(|| {
            foehn::ir::Variant::new()
                .with("end_index_of_damping_layer", p::END_INDEX_OF_DAMPING_LAYER)
        })
        .calls_per_step(6.0)
    }
}
