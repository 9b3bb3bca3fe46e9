//! ICON's horizontal diffusion (mo_nh_diffusion; ICON4Py's `Diffusion.run`): every
//! program of the step in the DSL ([`stencils`]) with its plain-Rust reference
//! ([`references`]) and realistic inputs ([`inputs`]), assembled into catalog entries
//! ([`entry`]), and the component.

pub mod component;
pub mod config;
pub mod fused_step;
pub mod inputs;
pub mod references;
pub mod stencils;

use foehn_testkit::catalog::Entry;

/// The diffusion's catalog entries: its programs in ICON's call order, then the whole
/// step as one program (`diffusion_step`).
pub fn entries() -> Vec<Entry> {
    let mut entries = vec![
        entry::scale_k(),
        entry::mo_intp_rbf_rbf_vec_interpol_vertex(),
        entry::calculate_nabla2_and_smag_coefficients_for_vn(),
        entry::calculate_diagnostic_quantities_for_turbulence(),
        entry::apply_diffusion_to_vn(),
        entry::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence(),
        entry::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools(),
        entry::apply_diffusion_to_theta_and_exner(),
    ];
    entries.push(fused_step::entry());
    entries
}

/// The catalog entry of each diffusion program, assembled from its three parts: the
/// DSL program ([`stencils`]), the realistic inputs ([`inputs`]) and the plain-Rust
/// reference ([`references`]).
pub mod entry {
    use super::{inputs, references as reference, stencils as dsl};
    use foehn::ir::Variant;
    use foehn_testkit::catalog::Entry;

    /// [`scale_k`](dsl::scale_k).
    pub fn scale_k() -> Entry {
        Entry::new(
            dsl::scale_k::NAME,
            dsl::scale_k::program,
            inputs::scale_k::inputs,
            reference::scale_k::reference,
        )
    }

    /// [`mo_intp_rbf_rbf_vec_interpol_vertex`](dsl::mo_intp_rbf_rbf_vec_interpol_vertex);
    /// ICON calls the program twice per diffusion step (on `vn` and on `z_nabla2_e`).
    pub fn mo_intp_rbf_rbf_vec_interpol_vertex() -> Entry {
        Entry::new(
            dsl::mo_intp_rbf_rbf_vec_interpol_vertex::NAME,
            dsl::mo_intp_rbf_rbf_vec_interpol_vertex::program,
            inputs::mo_intp_rbf_rbf_vec_interpol_vertex::inputs,
            reference::mo_intp_rbf_rbf_vec_interpol_vertex::reference,
        )
        .calls_per_step(2.0)
    }

    /// [`calculate_nabla2_and_smag_coefficients_for_vn`](dsl::calculate_nabla2_and_smag_coefficients_for_vn).
    pub fn calculate_nabla2_and_smag_coefficients_for_vn() -> Entry {
        Entry::new(
            dsl::calculate_nabla2_and_smag_coefficients_for_vn::NAME,
            dsl::calculate_nabla2_and_smag_coefficients_for_vn::program,
            inputs::calculate_nabla2_and_smag_coefficients_for_vn::inputs,
            reference::calculate_nabla2_and_smag_coefficients_for_vn::reference,
        )
    }

    /// [`calculate_diagnostic_quantities_for_turbulence`](dsl::calculate_diagnostic_quantities_for_turbulence).
    pub fn calculate_diagnostic_quantities_for_turbulence() -> Entry {
        Entry::new(
            dsl::calculate_diagnostic_quantities_for_turbulence::NAME,
            dsl::calculate_diagnostic_quantities_for_turbulence::program,
            inputs::calculate_diagnostic_quantities_for_turbulence::inputs,
            reference::calculate_diagnostic_quantities_for_turbulence::reference,
        )
    }

    /// [`apply_diffusion_to_vn`](dsl::apply_diffusion_to_vn).
    pub fn apply_diffusion_to_vn() -> Entry {
        Entry::new(
            dsl::apply_diffusion_to_vn::NAME,
            dsl::apply_diffusion_to_vn::program,
            inputs::apply_diffusion_to_vn::inputs,
            reference::apply_diffusion_to_vn::reference,
        )
    }

    /// [`apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence`](dsl::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence),
    /// with the static `nrdmax` fixed to its listed value
    /// ([`NRDMAX`](dsl::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence::NRDMAX)).
    pub fn apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence() -> Entry {
        use dsl::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence as w;
        Entry::new(
            w::NAME,
            w::program,
            inputs::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence::inputs,
            reference::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence::reference,
        )
        .fixed_statics(|| Variant::new().with("nrdmax", w::NRDMAX))
    }

    /// [`calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools`](dsl::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools).
    pub fn calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools() -> Entry {
        Entry::new(
            dsl::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools::NAME,
            dsl::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools::program,
            inputs::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools::inputs,
            reference::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools::reference,
        )
    }

    /// [`apply_diffusion_to_theta_and_exner`](dsl::apply_diffusion_to_theta_and_exner).
    pub fn apply_diffusion_to_theta_and_exner() -> Entry {
        Entry::new(
            dsl::apply_diffusion_to_theta_and_exner::NAME,
            dsl::apply_diffusion_to_theta_and_exner::program,
            inputs::apply_diffusion_to_theta_and_exner::inputs,
            reference::apply_diffusion_to_theta_and_exner::reference,
        )
    }
}
