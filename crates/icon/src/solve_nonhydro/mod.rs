//! ICON's nonhydrostatic solver (mo_solve_nonhydro; ICON4Py's `SolveNonhydro`): its
//! programs in the DSL ([`stencils`]) with their plain-Rust references ([`references`])
//! and realistic inputs ([`inputs`]), assembled into catalog entries ([`entry`]).
//!
//! So far the small limited-area and halo programs of `icon-dycore-reference.md` §3.3
//! P14, in ICON's call order within a substep: `compute_rayleigh_damping_factor` (before
//! the predictor's implicit solver, when `dtime` changed), `stencils_61_62` and
//! `compute_dwdz_for_divergence_damping` (end of the predictor, limited area),
//! `init_cell_kdim_field_with_zero_wp` and `update_mass_flux_weighted` (end of the
//! corrector, limited area with `lprep_adv`), `compute_exner_from_rhotheta` (limited
//! area) and `update_theta_and_exner_in_halo` (the fix-ups after the corrector).
//!
//! Then the predictor's and corrector's programs of §3.3, as they are added:
//! `compute_perturbed_quantities_and_interpolation` (P5, predictor),
//! `compute_hydrostatic_correction_term` (P6, predictor),
//! `compute_rho_theta_pgrad_and_update_vn` (P7, predictor),
//! `compute_interpolation_and_nonhydro_buoy` (P11, corrector),
//! `compute_averaged_vn_and_fluxes` (P13, corrector).
//! `compute_horizontal_velocity_quantities_and_fluxes` (P8, predictor).
//! `apply_divergence_damping_and_update_vn` (P12, corrector).
//! `vertically_implicit_solver_at_predictor_step` (P9, predictor) and
//! `vertically_implicit_solver_at_corrector_step` (P10, corrector), the solver they share
//! in [`stencils::implicit_solver`].
//!
//! The inputs are realistic random fields with ICON's signs and sizes, as the diffusion's
//! and the velocity advection's are.
//!
//! The component ([`component::SolveNonhydro`], ICON4Py's `SolveNonhydro.time_step`)
//! calls these programs in ICON's order with the velocity advection's, its configuration
//! with ICON's defaults and the parameters derived from it in [`config`]
//! (`NonHydrostaticConfig`, `NonHydrostaticParams`). [`substep`] links the calls of
//! one substep, the velocity advection's included, into one program (`dycore_substep`),
//! the last catalog entry.

pub mod component;
pub mod config;
pub mod grid_state;
pub mod inputs;
pub mod references;
pub mod stencils;
pub mod substep;

pub use grid_state::grid_state;

use crate::common::constants::{CVD, P0REF, RD};
use foehn_testkit::catalog::Entry;

/// `cvd/rd` (ICON4Py `PhysicsConstants.cvd_o_rd`), the factor of the θv update from the
/// Exner pressure in [`update_theta_and_exner_in_halo`](stencils::update_theta_and_exner_in_halo).
pub const CVD_O_RD: f64 = CVD / RD;
/// `rd/p0ref` (ICON4Py `PhysicsConstants.rd_o_p0ref`), in the equation of state
/// `exner = (rd/p0ref·ρ·θv)^(rd/cvd)`.
pub const RD_O_P0REF: f64 = RD / P0REF;

/// The solver's catalog entries, in ICON's call order (see the module doc).
pub fn entries() -> Vec<Entry> {
    vec![
        entry::compute_perturbed_quantities_and_interpolation(),
        entry::compute_hydrostatic_correction_term(),
        entry::compute_rho_theta_pgrad_and_update_vn(),
        entry::compute_horizontal_velocity_quantities_and_fluxes(),
        entry::compute_rayleigh_damping_factor(),
        entry::vertically_implicit_solver_at_predictor_step(),
        entry::stencils_61_62(),
        entry::compute_dwdz_for_divergence_damping(),
        entry::compute_interpolation_and_nonhydro_buoy(),
        entry::apply_divergence_damping_and_update_vn(),
        entry::compute_averaged_vn_and_fluxes(),
        entry::vertically_implicit_solver_at_corrector_step(),
        entry::init_cell_kdim_field_with_zero_wp(),
        entry::update_mass_flux_weighted(),
        entry::compute_exner_from_rhotheta(),
        entry::update_theta_and_exner_in_halo(),
        entry::update_theta_and_exner_in_halo_on_all_cells(),
        substep::entry(),
    ]
}

/// The catalog entry of each solve_nonhydro program, assembled from its three parts: the
/// DSL program ([`stencils`]), the realistic inputs ([`inputs`]) and the plain-Rust
/// reference ([`references`]). `calls_per_step` counts ICON's calls in a time step of 5
/// substeps on a limited-area grid (with `lprep_adv`).
pub mod entry {
    use super::{inputs, references, stencils};
    use foehn_testkit::catalog::Entry;

    /// An entry of a program whose module in [`stencils`], [`inputs`] and [`references`]
    /// is `$p`, with `$calls` calls per step.
    macro_rules! entry {
        ($p:ident, $calls:expr) => {
            Entry::new(
                stencils::$p::NAME,
                stencils::$p::program,
                inputs::$p::inputs,
                references::$p::reference,
            )
            .calls_per_step($calls)
        };
    }

    /// [`compute_perturbed_quantities_and_interpolation`](super::stencils::compute_perturbed_quantities_and_interpolation)
    /// (P5), with `nflatlev` and `nflat_gradp` fixed to
    /// [`NFLATLEV`](super::stencils::compute_perturbed_quantities_and_interpolation::NFLATLEV)
    /// and [`NFLAT_GRADP`](super::stencils::compute_perturbed_quantities_and_interpolation::NFLAT_GRADP)
    /// (`igradp_method` takes its one value, 3): the predictor of every substep, 5 times
    /// per step.
    pub fn compute_perturbed_quantities_and_interpolation() -> Entry {
        use super::stencils::compute_perturbed_quantities_and_interpolation as p;
        entry!(compute_perturbed_quantities_and_interpolation, 5.0).fixed_statics(|| {
            foehn::ir::Variant::new()
                .with("nflatlev", p::NFLATLEV)
                .with("nflat_gradp", p::NFLAT_GRADP)
        })
    }

    /// [`compute_hydrostatic_correction_term`](super::stencils::compute_hydrostatic_correction_term):
    /// the predictor of every substep (`igradp_method = 3`), 5 times per step.
    pub fn compute_hydrostatic_correction_term() -> Entry {
        entry!(compute_hydrostatic_correction_term, 5.0)
    }

    /// [`compute_rho_theta_pgrad_and_update_vn`](super::stencils::compute_rho_theta_pgrad_and_update_vn)
    /// (P7), with `nflatlev` and `nflat_gradp` fixed to
    /// [`NFLATLEV`](super::stencils::compute_rho_theta_pgrad_and_update_vn::NFLATLEV) and
    /// [`NFLAT_GRADP`](super::stencils::compute_rho_theta_pgrad_and_update_vn::NFLAT_GRADP):
    /// the predictor of every substep, 5 times per step.
    pub fn compute_rho_theta_pgrad_and_update_vn() -> Entry {
        use super::stencils::compute_rho_theta_pgrad_and_update_vn as p;
        entry!(compute_rho_theta_pgrad_and_update_vn, 5.0).fixed_statics(|| {
            foehn::ir::Variant::new()
                .with("nflatlev", p::NFLATLEV)
                .with("nflat_gradp", p::NFLAT_GRADP)
        })
    }

    /// [`compute_horizontal_velocity_quantities_and_fluxes`](super::stencils::compute_horizontal_velocity_quantities_and_fluxes)
    /// (P8), with `nflatlev` fixed to
    /// [`NFLATLEV`](super::stencils::compute_horizontal_velocity_quantities_and_fluxes::NFLATLEV):
    /// the predictor of every substep, 5 times per step.
    pub fn compute_horizontal_velocity_quantities_and_fluxes() -> Entry {
        use super::stencils::compute_horizontal_velocity_quantities_and_fluxes as p;
        entry!(compute_horizontal_velocity_quantities_and_fluxes, 5.0)
            .fixed_statics(|| foehn::ir::Variant::new().with("nflatlev", p::NFLATLEV))
    }

    /// [`vertically_implicit_solver_at_predictor_step`](super::stencils::vertically_implicit_solver_at_predictor_step)
    /// (P9), with `end_index_of_damping_layer`, `kstart_moist` and
    /// `flat_level_index_plus1` fixed to the module's constants: the predictor of every
    /// substep, 5 times per step.
    pub fn vertically_implicit_solver_at_predictor_step() -> Entry {
        use super::stencils::vertically_implicit_solver_at_predictor_step as p;
        entry!(vertically_implicit_solver_at_predictor_step, 5.0).fixed_statics(|| {
            foehn::ir::Variant::new()
                .with("end_index_of_damping_layer", p::END_INDEX_OF_DAMPING_LAYER)
                .with("kstart_moist", p::KSTART_MOIST)
                .with("flat_level_index_plus1", p::FLAT_LEVEL_INDEX_PLUS1)
        })
    }

    /// [`stencils_61_62`](super::stencils::stencils_61_62): the predictor of every
    /// substep, 5 times per step.
    pub fn stencils_61_62() -> Entry {
        entry!(stencils_61_62, 5.0)
    }

    /// [`compute_dwdz_for_divergence_damping`](super::stencils::compute_dwdz_for_divergence_damping):
    /// the predictor of every substep (`divdamp_type ≥ 3`), 5 times per step.
    pub fn compute_dwdz_for_divergence_damping() -> Entry {
        entry!(compute_dwdz_for_divergence_damping, 5.0)
    }

    /// [`compute_interpolation_and_nonhydro_buoy`](super::stencils::compute_interpolation_and_nonhydro_buoy):
    /// the corrector of every substep, 5 times per step.
    pub fn compute_interpolation_and_nonhydro_buoy() -> Entry {
        entry!(compute_interpolation_and_nonhydro_buoy, 5.0)
    }

    /// [`apply_divergence_damping_and_update_vn`](super::stencils::apply_divergence_damping_and_update_vn)
    /// (P12), with `divdamp_order` fixed to ICON's default
    /// [`DIVDAMP_ORDER`](super::stencils::apply_divergence_damping_and_update_vn::DIVDAMP_ORDER):
    /// the corrector of every substep, 5 times per step.
    pub fn apply_divergence_damping_and_update_vn() -> Entry {
        use super::stencils::apply_divergence_damping_and_update_vn as p;
        entry!(apply_divergence_damping_and_update_vn, 5.0)
            .fixed_statics(|| foehn::ir::Variant::new().with("divdamp_order", p::DIVDAMP_ORDER))
    }

    /// [`compute_averaged_vn_and_fluxes`](super::stencils::compute_averaged_vn_and_fluxes):
    /// the corrector of every substep, 5 times per step.
    pub fn compute_averaged_vn_and_fluxes() -> Entry {
        entry!(compute_averaged_vn_and_fluxes, 5.0)
    }

    /// [`vertically_implicit_solver_at_corrector_step`](super::stencils::vertically_implicit_solver_at_corrector_step)
    /// (P10), with `end_index_of_damping_layer` and `kstart_moist` fixed to the
    /// predictor's constants: the corrector of every substep, 5 times per step.
    pub fn vertically_implicit_solver_at_corrector_step() -> Entry {
        use super::stencils::vertically_implicit_solver_at_predictor_step as p;
        entry!(vertically_implicit_solver_at_corrector_step, 5.0).fixed_statics(|| {
            foehn::ir::Variant::new()
                .with("end_index_of_damping_layer", p::END_INDEX_OF_DAMPING_LAYER)
                .with("kstart_moist", p::KSTART_MOIST)
        })
    }

    /// [`init_cell_kdim_field_with_zero_wp`](super::stencils::init_cell_kdim_field_with_zero_wp):
    /// the corrector of the first substep, once per step.
    pub fn init_cell_kdim_field_with_zero_wp() -> Entry {
        entry!(init_cell_kdim_field_with_zero_wp, 1.0)
    }

    /// [`update_mass_flux_weighted`](super::stencils::update_mass_flux_weighted): the
    /// corrector of every substep, 5 times per step.
    pub fn update_mass_flux_weighted() -> Entry {
        entry!(update_mass_flux_weighted, 5.0)
    }

    /// [`compute_exner_from_rhotheta`](super::stencils::compute_exner_from_rhotheta):
    /// after every substep, 5 times per step.
    pub fn compute_exner_from_rhotheta() -> Entry {
        entry!(compute_exner_from_rhotheta, 5.0)
    }

    /// [`update_theta_and_exner_in_halo`](super::stencils::update_theta_and_exner_in_halo):
    /// after every substep, 5 times per step.
    pub fn update_theta_and_exner_in_halo() -> Entry {
        entry!(update_theta_and_exner_in_halo, 5.0)
    }

    /// The same program on every cell, as ICON4Py's `StencilTest` runs (and GT4Py's
    /// time was measured): a comparable benchmark on a grid of one process, whose halo
    /// is empty. ICON does not call it so: 0 per step.
    pub fn update_theta_and_exner_in_halo_on_all_cells() -> Entry {
        use super::stencils::update_theta_and_exner_in_halo as p;
        Entry::new(
            p::NAME_ON_ALL_CELLS,
            p::program_on_all_cells,
            inputs::update_theta_and_exner_in_halo::inputs,
            references::update_theta_and_exner_in_halo::reference_on_all_cells,
        )
        .calls_per_step(0.0)
    }

    /// [`compute_rayleigh_damping_factor`](super::stencils::compute_rayleigh_damping_factor):
    /// only when the substep's `dtime` differs from the previous one (ICON4Py
    /// `_get_rayleigh_damping_factor`), so at the first substep of a run: 0 per step.
    pub fn compute_rayleigh_damping_factor() -> Entry {
        entry!(compute_rayleigh_damping_factor, 0.0)
    }
}
