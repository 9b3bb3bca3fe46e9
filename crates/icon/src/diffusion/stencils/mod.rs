//! The diffusion programs in the DSL, one module each: the math, domain and ICON name
//! in the module doc, the field operators, `add_stencils` (shared with the fused
//! diffusion step) and `program()`. Their plain-Rust references are in
//! [`references`](crate::diffusion::references), their random inputs in
//! [`inputs`](crate::diffusion::inputs).

pub mod apply_diffusion_to_theta_and_exner;
pub mod apply_diffusion_to_vn;
pub mod apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence;
pub mod calculate_diagnostic_quantities_for_turbulence;
pub mod calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools;
pub mod calculate_nabla2_and_smag_coefficients_for_vn;
pub mod mo_intp_rbf_rbf_vec_interpol_vertex;
pub mod scale_k;
