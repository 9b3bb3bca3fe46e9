//! The diffusion programs, one module each: `program()` (DSL), `reference()` (plain
//! Rust from the math), `inputs()` (realistic random inputs), `entry()` (catalog).

pub mod apply_diffusion_to_theta_and_exner;
pub mod apply_diffusion_to_vn;
pub mod apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence;
pub mod calculate_diagnostic_quantities_for_turbulence;
pub mod calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools;
pub mod calculate_nabla2_and_smag_coefficients_for_vn;
pub mod mo_intp_rbf_rbf_vec_interpol_vertex;
pub mod scale_k;

use foehn_testkit::catalog::Entry;

/// Every diffusion program, in ICON's call order.
pub fn catalog() -> Vec<Entry> {
    vec![
        scale_k::entry(),
        mo_intp_rbf_rbf_vec_interpol_vertex::entry(),
        calculate_nabla2_and_smag_coefficients_for_vn::entry(),
        calculate_diagnostic_quantities_for_turbulence::entry(),
        apply_diffusion_to_vn::entry(),
        apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence::entry(),
        calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools::entry(),
        apply_diffusion_to_theta_and_exner::entry(),
    ]
}
