//! The plain-Rust references of the diffusion programs, one module per program of
//! [`stencils`](crate::diffusion::stencils): loops over the program's domain written
//! straight from the math, independent of the DSL, that the catalog checks the
//! interpreter and the backends against.

pub mod apply_diffusion_to_theta_and_exner;
pub mod apply_diffusion_to_vn;
pub mod apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence;
pub mod calculate_diagnostic_quantities_for_turbulence;
pub mod calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools;
pub mod calculate_nabla2_and_smag_coefficients_for_vn;
pub mod mo_intp_rbf_rbf_vec_interpol_vertex;
pub mod scale_k;
