//! Realistic random inputs of
//! [`compute_horizontal_velocity_quantities_and_fluxes`](crate::solve_nonhydro::stencils::compute_horizontal_velocity_quantities_and_fluxes).

use super::take_from_donors;
use crate::solve_nonhydro::entry::compute_averaged_vn_and_fluxes;
use crate::velocity_advection::entry::compute_diagnostics_from_normal_wind;
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// ICON's `geofac_grdiv` (`Edge, E2C2EO`), the weights of the gradient of the divergence
/// (1/m²): at edge `e` of scale `s = inv_dual_edge_length·inv_primal_edge_length`, its
/// own slot `−s·[2, 3)`, its diamond edges' `±s·[0.3, 1)` (signs follow the edge
/// orientations).
pub fn geofac_grdiv(rng: &mut SplitMix64, grid: &Grid, nlev: usize) -> Field {
    let geo = &grid.geometry;
    Field::from_fn(grid, nlev, (EDGE, E2C2EO), F64, |i| {
        let (e, slot) = (i[0], i[1]);
        let s = geo.inv_dual_edge_length[e] * geo.inv_primal_edge_length[e];
        ir::Scalar::F64(if slot == 0 {
            -s * rng.range_f64(2.0, 3.0)
        } else {
            let w = s * rng.range_f64(0.3, 1.0);
            if rng.chance(0.5) {
                w
            } else {
                -w
            }
        })
    })
}

/// Realistic random inputs, those of the programs whose parts this one repeats: `vn`,
/// `rbf_vec_coeff_e`, `wgtfac_e`, `wgtfacq_e`, the slopes `ddxn/ddxt_z_full` and the
/// previous winds, kinetic energy and contravariant correction from velocity advection's
/// [`compute_diagnostics_from_normal_wind`](crate::velocity_advection::inputs::compute_diagnostics_from_normal_wind::inputs);
/// `e_flx_avg`, `z_rho_e`, `z_theta_v_e` and `ddqz_z_full_e` from
/// [`compute_averaged_vn_and_fluxes`](super::compute_averaged_vn_and_fluxes::inputs);
/// `geofac_grdiv` from [`geofac_grdiv`]. Both donors get the same seed.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let donors = [
        compute_diagnostics_from_normal_wind(),
        compute_averaged_vn_and_fluxes(),
    ];
    take_from_donors(&mut args, program, &donors, (grid, nlev, seed));
    let mut rng = SplitMix64::new(seed ^ 0x5011_0029);
    args.set_field("geofac_grdiv", geofac_grdiv(&mut rng, grid, nlev));
    args
}
