//! Fortran (ICON OpenACC) timer names → ICON4Py/foehn programs and static-argument filters.
//!
//! The same correspondence as ICON4Py's `scripts/python/compare_icon4py_openacc.py`
//! (icon-dycore-reference.md §5): a timer covers one program variant, or several programs
//! whose per-call times add up (ICON times them as one region). Filters name the static
//! arguments a matching variant must have; an empty filter accepts any variant.

/// One program (and variant filter) that a Fortran timer covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgramPart {
    /// ICON4Py/foehn program name.
    pub program: &'static str,
    /// Static arguments a matching variant must have (`true`/`false` spelled in lower case).
    pub filter: &'static [(&'static str, &'static str)],
}

/// A Fortran timer and the programs it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerMapping {
    /// Timer name in the OpenACC/Bencher JSON.
    pub timer: &'static str,
    /// Programs whose per-call times add up to the timer's (the first is the main one).
    pub parts: &'static [ProgramPart],
}

const fn p(program: &'static str, filter: &'static [(&'static str, &'static str)]) -> ProgramPart {
    ProgramPart { program, filter }
}

const fn t(timer: &'static str, parts: &'static [ProgramPart]) -> TimerMapping {
    TimerMapping { timer, parts }
}

const SKIP: &str = "skip_compute_predictor_vertical_advection";
const FIRST: &str = "at_first_substep";
const LAST: &str = "at_last_substep";
const PREP: &str = "prepare_advection";

/// The table, sorted by timer name.
pub const FORTRAN_TIMERS: &[TimerMapping] = &[
    t(
        "apply_diffusion_to_theta_and_exner",
        &[p("apply_diffusion_to_theta_and_exner", &[])],
    ),
    t("apply_diffusion_to_vn", &[p("apply_diffusion_to_vn", &[])]),
    t(
        "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence",
        &[p(
            "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence",
            &[],
        )],
    ),
    t(
        "apply_divergence_damping_and_update_vn",
        &[p("apply_divergence_damping_and_update_vn", &[])],
    ),
    t(
        "boundary_halo_cleanup",
        &[
            p("update_theta_and_exner_in_halo", &[]),
            p("compute_exner_from_rhotheta", &[]),
        ],
    ),
    t(
        "calculate_diagnostic_quantities_for_turbulence",
        &[p("calculate_diagnostic_quantities_for_turbulence", &[])],
    ),
    t(
        "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools",
        &[p(
            "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools",
            &[],
        )],
    ),
    t(
        "calculate_nabla2_and_smag_coefficients_for_vn",
        &[p("calculate_nabla2_and_smag_coefficients_for_vn", &[])],
    ),
    t(
        "compute_advection_in_horizontal_momentum_equation",
        &[p("compute_advection_in_horizontal_momentum", &[])],
    ),
    t(
        "compute_advection_in_predictor_vertical_momentum",
        &[p(
            "compute_advection_in_predictor_vertical_momentum",
            &[(SKIP, "false")],
        )],
    ),
    t(
        "compute_advection_in_predictor_vertical_momentum_skip",
        &[p(
            "compute_advection_in_predictor_vertical_momentum",
            &[(SKIP, "true")],
        )],
    ),
    t(
        "compute_advection_in_vertical_momentum_equation",
        &[p("compute_advection_in_corrector_vertical_momentum", &[])],
    ),
    t(
        "compute_averaged_vn_and_fluxes_and_prepare_tracer_advection",
        &[p(
            "compute_averaged_vn_and_fluxes",
            &[(FIRST, "false"), (PREP, "true")],
        )],
    ),
    t(
        "compute_averaged_vn_and_fluxes_and_prepare_tracer_advection_first",
        &[p(
            "compute_averaged_vn_and_fluxes",
            &[(FIRST, "true"), (PREP, "true")],
        )],
    ),
    t(
        "compute_diagnostics_from_normal_wind",
        &[p(
            "compute_diagnostics_from_normal_wind",
            &[(SKIP, "false")],
        )],
    ),
    t(
        "compute_diagnostics_from_normal_wind_skip",
        &[p("compute_diagnostics_from_normal_wind", &[(SKIP, "true")])],
    ),
    t(
        "compute_dwdz_and_boundary_update_rho_theta_w",
        &[
            p("stencils_61_62", &[]),
            p("compute_dwdz_for_divergence_damping", &[]),
        ],
    ),
    t(
        "compute_horizontal_velocity_quantities_and_fluxes",
        &[p("compute_horizontal_velocity_quantities_and_fluxes", &[])],
    ),
    t(
        "compute_interpolation_and_nonhydro_buoy",
        &[p("compute_interpolation_and_nonhydro_buoy", &[])],
    ),
    t(
        "compute_perturbed_quantities_and_interpolation",
        &[p("compute_perturbed_quantities_and_interpolation", &[])],
    ),
    t(
        "compute_rho_theta_pgrad_and_update_vn",
        &[
            p("compute_rho_theta_pgrad_and_update_vn", &[]),
            p("compute_hydrostatic_correction_term", &[]),
        ],
    ),
    t(
        "update_mass_flux_weighted",
        &[p("update_mass_flux_weighted", &[])],
    ),
    t(
        "update_mass_flux_weighted_first",
        &[
            p("update_mass_flux_weighted", &[]),
            p("init_cell_kdim_field_with_zero_wp", &[]),
        ],
    ),
    t(
        "vertically_implicit_solver_at_corrector_step",
        &[p(
            "vertically_implicit_solver_at_corrector_step",
            &[(FIRST, "false"), (LAST, "false")],
        )],
    ),
    t(
        "vertically_implicit_solver_at_corrector_step_first",
        &[p(
            "vertically_implicit_solver_at_corrector_step",
            &[(FIRST, "true"), (LAST, "false")],
        )],
    ),
    t(
        "vertically_implicit_solver_at_corrector_step_last",
        &[p(
            "vertically_implicit_solver_at_corrector_step",
            &[(FIRST, "false"), (LAST, "true")],
        )],
    ),
    t(
        "vertically_implicit_solver_at_predictor_step",
        &[p(
            "vertically_implicit_solver_at_predictor_step",
            &[(FIRST, "false")],
        )],
    ),
    t(
        "vertically_implicit_solver_at_predictor_step_first",
        &[p(
            "vertically_implicit_solver_at_predictor_step",
            &[(FIRST, "true")],
        )],
    ),
];

/// The mapping of Fortran timer `timer`, if it is a dycore/diffusion program timer.
pub fn lookup(timer: &str) -> Option<&'static TimerMapping> {
    FORTRAN_TIMERS
        .binary_search_by(|m| m.timer.cmp(timer))
        .ok()
        .map(|i| &FORTRAN_TIMERS[i])
}

/// An ICON component timer and the foehn component timers it corresponds to
/// ([`crate::span::names`]); where several are listed their calls are pooled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComponentMapping {
    /// Timer name in the OpenACC/Bencher JSON.
    pub timer: &'static str,
    /// foehn component timers whose calls it stands for.
    pub components: &'static [&'static str],
    /// What one call is.
    pub what: &'static str,
    /// Why a foehn run may have no such timer.
    pub missing: &'static str,
}

use crate::span::names;

/// ICON's component timers that a foehn run's timers file can be compared with.
pub const COMPONENT_TIMERS: &[ComponentMapping] = &[
    ComponentMapping {
        timer: "nh_hdiff",
        components: &[names::DIFFUSION],
        what: "one diffusion call per time step",
        missing: "the run did not diffuse",
    },
    ComponentMapping {
        timer: "nh_solve",
        components: &[names::SOLVE_NONHYDRO],
        what: "one dynamics substep (predictor, corrector, fix-ups)",
        missing: "the run made no substep",
    },
    ComponentMapping {
        timer: "nh_solve.veltend",
        components: &[
            names::VELOCITY_ADVECTION_PREDICTOR,
            names::VELOCITY_ADVECTION_CORRECTOR,
        ],
        what: "one velocity advection call (predictor and corrector pooled)",
        missing: "foehn runs velocity advection inside solve_nonhydro's step list, \
                  without a timer of its own; its programs are compared one by one",
    },
];

/// The component mapping of timer `timer`, if any.
pub fn lookup_component(timer: &str) -> Option<&'static ComponentMapping> {
    COMPONENT_TIMERS.iter().find(|m| m.timer == timer)
}

/// Why an OpenACC timer with neither a program nor a component mapping is not compared.
pub fn unmapped_reason(timer: &str) -> &'static str {
    match timer {
        t if t.starts_with("nh_solve.") => {
            "regions inside solve_nonhydro that foehn does not time on their own (their \
             programs are compared one by one)"
        }
        "nh_hdiff_initial_run" => {
            "the diffusion's initial run before the time loop (foehn counts such a call \
             under `diffusion`)"
        }
        "integrate_nh" | "total" => {
            "the whole model step or run, with physics, transport and I/O (foehn runs the \
             dycore only)"
        }
        _ => {
            "not a dycore program or component (physics, tracer transport, I/O, \
             initialisation, communication): nothing in foehn to compare"
        }
    }
}
