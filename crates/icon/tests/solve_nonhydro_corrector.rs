//! solve_nonhydro, the corrector's `apply_divergence_damping_and_update_vn` (P12 of
//! `icon-dycore-reference.md` §3.3, every variant of 2nd/4th/combined damping ×
//! `is_iau_active` × `limited_area`, and `divdamp_order` 24 and 4): DSL (interpreter,
//! native CPU backend as written and optimised) against the plain-Rust reference on both
//! test grids, ICON4Py's argument list, the output domain (written exactly there,
//! untouched elsewhere) and both sides of the order-24 `max(0, …)`.

mod common;
mod solve_nonhydro_support;

use common::{assert_written_exactly, data};
use foehn::ir::Variant;
use foehn::runtime::field::access::scalar_f64;
use foehn_icon::solve_nonhydro::entry;
use solve_nonhydro_support::{assert_arguments, check, nudging_2_to_local_edges, NLEV, TOL};

#[test]
fn divergence_damping_and_update_vn_matches_reference() {
    check(&entry::apply_divergence_damping_and_update_vn());
}

#[test]
fn divergence_damping_of_4th_order_alone_matches_reference() {
    // divdamp_order = 4: the 4th-order coefficient without the order-24 reduction.
    let entry = entry::apply_divergence_damping_and_update_vn();
    let chosen = Variant::new()
        .with("divdamp_order", 4)
        .with("apply_4th_order_divergence_damping", true);
    let variants = entry.variants_with(&chosen).unwrap();
    assert_eq!(variants.len(), 8);
    for grid in common::grids() {
        for variant in &variants {
            common::check_variant(&entry, variant, grid, NLEV, TOL);
        }
    }
}

#[test]
fn divergence_damping_and_update_vn_declares_icon4py_arguments() {
    let want = [
        "horizontal_gradient_of_normal_wind_divergence [Edge, K]",
        "next_vn [Edge, K]",
        "current_vn [Edge, K]",
        "dwdz_at_cells_on_model_levels [Cell, K]",
        "predictor_normal_wind_advective_tendency [Edge, K]",
        "corrector_normal_wind_advective_tendency [Edge, K]",
        "normal_wind_tendency_due_to_slow_physics_process [Edge, K]",
        "normal_wind_iau_increment [Edge, K]",
        "theta_v_at_edges_on_model_levels [Edge, K]",
        "horizontal_pressure_gradient [Edge, K]",
        "horizontal_mask_for_3d_divdamp [Edge]",
        "scaling_factor_for_3d_divdamp [K]",
        "inv_dual_edge_length [Edge]",
        "nudgecoeff_e [Edge]",
        "geofac_grdiv [Edge, E2C2EO]",
        "interpolated_fourth_order_divdamp_factor [K]",
        "second_order_divdamp_scaling_coeff",
        "advection_explicit_weight_parameter",
        "advection_implicit_weight_parameter",
        "dtime",
        "iau_wgt_dyn",
        "mean_cell_area",
        "second_order_divdamp_factor",
        "max_nudging_coefficient",
        "dbl_eps",
    ];
    assert_arguments(
        &entry::apply_divergence_damping_and_update_vn(),
        &want,
        16,
        5.0,
    );
}

#[test]
fn divergence_damping_and_update_vn_writes_exactly_its_edges_in_every_variant() {
    let entry = entry::apply_divergence_damping_and_update_vn();
    let lam = common::grids()[1];
    assert!(
        nudging_2_to_local_edges(lam).0 > 0,
        "the cap's boundary edges lie outside"
    );
    for grid in common::grids() {
        let edges = nudging_2_to_local_edges(grid);
        for variant in entry.variants().unwrap() {
            let (before, after) = common::run_with(&entry, &variant, grid, NLEV, |_| {});
            assert_written_exactly(&before, &after, "next_vn", edges, (0, NLEV));
        }
    }
}

#[test]
fn divergence_damping_of_order_24_takes_both_sides_of_its_reduction() {
    // max(0, enh_divdamp_fac − ¼·divdamp_fac_o2): clipped to zero on some levels, positive
    // on others, so the combined damping's 4th-order part is switched off and on.
    let entry = entry::apply_divergence_damping_and_update_vn();
    let variant = entry.variants().unwrap().remove(0);
    for grid in common::grids() {
        let (args, _) = common::run_with(&entry, &variant, grid, NLEV, |_| {});
        let fac_o2 = scalar_f64(&args, "second_order_divdamp_factor").unwrap();
        let enh = data(&args, "interpolated_fourth_order_divdamp_factor");
        let reduced: Vec<f64> = enh.iter().map(|f| f - 0.25 * fac_o2).collect();
        assert!(reduced.iter().any(|&r| r < 0.0), "{reduced:?}");
        assert!(reduced.iter().any(|&r| r > 0.0), "{reduced:?}");
    }
}
