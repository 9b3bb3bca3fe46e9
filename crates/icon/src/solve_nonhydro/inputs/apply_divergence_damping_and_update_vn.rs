//! Realistic random inputs of
//! [`apply_divergence_damping_and_update_vn`](crate::solve_nonhydro::stencils::apply_divergence_damping_and_update_vn).

use super::compute_horizontal_velocity_quantities_and_fluxes::geofac_grdiv;
use super::{cells_to_edges, set_substep_dtime, virtual_potential_temperature};
use crate::common::constants::DBL_EPS;
use crate::diffusion::config::enhanced_smagorinsky_factor;
use crate::diffusion::inputs::{set_edge_fields, signed_field};
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// `max_nudging_coefficient`: ICON's 5·0.02 = 0.1, as the diffusion's configuration has.
pub const MAX_NUDGING_COEFFICIENT: f64 = 0.1;

/// `enh_divdamp_fac` (`K`): ICON's `en_smag_fac_for_zero_nshift` with the divergence
/// damping's defaults (0.0025 below 32.5 km rising to 0.004 at 40 km and above) over
/// interfaces from 80 km at the top to the ground, each ± 300 m.
pub fn enh_divdamp_fac(rng: &mut SplitMix64, grid: &Grid, nlev: usize) -> Field {
    let vct_a: Vec<f64> = (0..=nlev)
        .map(|k| {
            let z = 80_000.0 * (1.0 - k as f64 / nlev as f64);
            if k == 0 || k == nlev {
                z
            } else {
                z + rng.range_f64(-300.0, 300.0)
            }
        })
        .collect();
    let fac = [0.0025, 0.004, 0.004, 0.004];
    let heights = [32_500.0, 40_000.0, 60_000.0, 80_000.0];
    let profile = enhanced_smagorinsky_factor(&vct_a, fac, heights);
    Field::from_fn_f64(grid, nlev, K, |k| profile[k])
}

/// Realistic random inputs: `vn_now` ±(0.5..40) m/s; the advective tendencies
/// ±(1e-4..5e-3) m/s², the physics' ±(1e-6..1e-4) m/s²; `z_gradh_exner` ±(1e-10..1e-8)
/// m⁻¹ (a pressure-gradient acceleration `cpd·θv·∇π` of about 1e-3 m/s²); `z_theta_v_e`
/// the θv profile ([`virtual_potential_temperature`]) carried to the edges; `vn_incr`
/// ±(1e-3..0.5) m/s; `geofac_grdiv` from [`geofac_grdiv`] and `z_graddiv_vn` of its size
/// times a wind, `±s·(0.5..40)` with `s = inv_dual_edge_length·inv_primal_edge_length`;
/// `z_dwdz_dd` ±(1e-6..1e-4) s⁻¹; `hmask_dd3d` in [0.1, 1], `scalfac_dd3d` in [0.05, 1);
/// `nudgecoeff_e` up to [`MAX_NUDGING_COEFFICIENT`]; `enh_divdamp_fac` from
/// [`enh_divdamp_fac`]; the grid's inverse dual edge lengths and mean cell area;
/// `divdamp_fac_o2` in [0.0104, 0.0156), so `¼·divdamp_fac_o2` lies between the profile's
/// values (both sides of the order-24 `max(0, …)`), `scal_divdamp_o2 =
/// divdamp_fac_o2·mean_cell_area`; ICON's weights 0.25/0.75, `dbl_eps`, `iau_wgt_dyn`
/// in [0.1, 1) and a substep `dtime`.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0012);
    let ek = (EDGE, K);
    let geo = &grid.geometry;
    let mut signed = |args: &mut Args, name: &str, dims: (Location, VKind), lo, hi| {
        args.set_field(name, signed_field(&mut rng, grid, nlev, dims, lo, hi));
    };
    signed(&mut args, "current_vn", ek, 0.5, 40.0);
    signed(&mut args, "next_vn", ek, 0.5, 40.0);
    for name in [
        "predictor_normal_wind_advective_tendency",
        "corrector_normal_wind_advective_tendency",
    ] {
        signed(&mut args, name, ek, 1e-4, 5e-3);
    }
    let physics = "normal_wind_tendency_due_to_slow_physics_process";
    signed(&mut args, physics, ek, 1e-6, 1e-4);
    signed(&mut args, "horizontal_pressure_gradient", ek, 1e-10, 1e-8);
    signed(&mut args, "normal_wind_iau_increment", ek, 1e-3, 0.5);
    signed(
        &mut args,
        "dwdz_at_cells_on_model_levels",
        (CELL, K),
        1e-6,
        1e-4,
    );
    let ne = grid.size(Location::Edge);
    let mut graddiv = signed_field(&mut rng, grid, nlev, ek, 0.5, 40.0);
    for (i, x) in graddiv.as_f64_mut().expect("f64").iter_mut().enumerate() {
        let e = i % ne;
        *x *= geo.inv_dual_edge_length[e] * geo.inv_primal_edge_length[e];
    }
    args.set_field("horizontal_gradient_of_normal_wind_divergence", graddiv);
    args.set_field("geofac_grdiv", geofac_grdiv(&mut rng, grid, nlev));
    let theta_v = virtual_potential_temperature(&mut rng, grid, nlev, K);
    let theta_e = cells_to_edges(&mut rng, grid, nlev, &theta_v);
    args.set_field("theta_v_at_edges_on_model_levels", theta_e);
    let hmask: Vec<f64> = (0..ne).map(|_| rng.range_f64(0.1, 1.0)).collect();
    let nudge: Vec<f64> = (0..ne)
        .map(|_| rng.range_f64(1e-3, MAX_NUDGING_COEFFICIENT))
        .collect();
    set_edge_fields(
        &mut args,
        grid,
        nlev,
        &[
            ("horizontal_mask_for_3d_divdamp", &hmask[..]),
            ("inv_dual_edge_length", &geo.inv_dual_edge_length[..]),
            ("nudgecoeff_e", &nudge[..]),
        ],
    );
    let scalfac = Field::from_fn_f64(grid, nlev, K, |_| rng.range_f64(0.05, 1.0));
    args.set_field("scaling_factor_for_3d_divdamp", scalfac);
    let enh = enh_divdamp_fac(&mut rng, grid, nlev);
    args.set_field("interpolated_fourth_order_divdamp_factor", enh);
    let mean_cell_area = geo.cell_area.iter().sum::<f64>() / geo.cell_area.len() as f64;
    let divdamp_fac_o2 = rng.range_f64(0.0104, 0.0156);
    args.set_scalar("mean_cell_area", mean_cell_area);
    args.set_scalar("second_order_divdamp_factor", divdamp_fac_o2);
    args.set_scalar(
        "second_order_divdamp_scaling_coeff",
        divdamp_fac_o2 * mean_cell_area,
    );
    args.set_scalar("advection_explicit_weight_parameter", 0.25);
    args.set_scalar("advection_implicit_weight_parameter", 0.75);
    args.set_scalar("max_nudging_coefficient", MAX_NUDGING_COEFFICIENT);
    args.set_scalar("dbl_eps", DBL_EPS);
    args.set_scalar("iau_wgt_dyn", rng.range_f64(0.1, 1.0));
    set_substep_dtime(&mut rng, &mut args);
    args
}
