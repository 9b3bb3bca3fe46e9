//! The solver's programs in the DSL: one module per ICON4Py program, and the domains they
//! share.

pub mod apply_divergence_damping_and_update_vn;
pub mod compute_averaged_vn_and_fluxes;
pub mod compute_dwdz_for_divergence_damping;
pub mod compute_exner_from_rhotheta;
pub mod compute_horizontal_velocity_quantities_and_fluxes;
pub mod compute_hydrostatic_correction_term;
pub mod compute_interpolation_and_nonhydro_buoy;
pub mod compute_perturbed_quantities_and_interpolation;
pub mod compute_rayleigh_damping_factor;
pub mod compute_rho_theta_pgrad_and_update_vn;
pub mod implicit_solver;
pub mod init_cell_kdim_field_with_zero_wp;
pub mod stencils_61_62;
pub mod update_mass_flux_weighted;
pub mod update_theta_and_exner_in_halo;
pub mod vertically_implicit_solver_at_corrector_step;
pub mod vertically_implicit_solver_at_predictor_step;

use foehn::dsl::prelude::*;

/// Restricts `stencil` to ICON's lateral-boundary cells `[LATERAL_BOUNDARY,
/// LATERAL_BOUNDARY_LEVEL_4 end)` (ICON4Py `start_cell_lateral_boundary`,
/// `end_cell_lateral_boundary_level_4`): the domain of the limited-area programs. Empty
/// on a global grid.
pub fn on_lateral_boundary_cells(stencil: &mut StencilDecl) -> &mut StencilDecl {
    stencil.horizontal(
        start(Zone::LateralBoundary(1)),
        end(Zone::LateralBoundary(4)),
    )
}
