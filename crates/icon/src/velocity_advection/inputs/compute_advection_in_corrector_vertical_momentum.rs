//! Realistic random inputs of
//! [`compute_advection_in_corrector_vertical_momentum`](crate::velocity_advection::stencils::compute_advection_in_corrector_vertical_momentum).

use super::compute_advection_in_predictor_vertical_momentum::{
    cfl_probing_velocity, column_field, ddqz_z_half, e_bln_c_s, geofac_n2s, layer_thicknesses,
    owner_mask, set_time_step_scalars, set_vertical_metrics, DTIME,
};
use super::compute_diagnostics_from_normal_wind::c_intp;
use crate::diffusion::inputs::{cell_field, set_edge_fields, signed_field};
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::Args;
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs: layers 20–1000 m thick (thicker aloft) giving `ddqz_z_half`
/// and `coeff1/2_dwdz` (the predictor's [`set_vertical_metrics`]);
/// `contravariant_correction_at_cells_on_half_levels` (`w_concorr_c`) ±(0.01..0.5) m/s
/// on every level (ICON's is zero above `nflatlev + 1`; never zero here) and `w` such
/// that `z_w_con_c = w − w_concorr_c` has CFL numbers on both sides of
/// `cfl_w_limit·dtime` and of ±0.85 ([`cfl_probing_velocity`]: about 45 % of the points
/// over the limit, 38 % also owned, so extra-diffused; ICON4Py's StencilTest inputs, on
/// which GT4Py's timings in docs/adr/0012 were taken, about 92 % and 46 %); `vn_on_half_levels`
/// and `tangential_wind_on_half_levels` ±(0.5..40) m/s; [`c_intp`], [`e_bln_c_s`],
/// [`geofac_n2s`], [`owner_mask`]; the grid's cell areas, inverse edge lengths and
/// tangent orientations; the time-step scalars of [`set_time_step_scalars`] for
/// [`DTIME`]. Outputs random.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x7e10_0004);
    let nc = grid.size(Location::Cell);
    let dz = layer_thicknesses(&mut rng, nc, nlev);
    set_vertical_metrics(&mut args, grid, nlev, &dz);
    let w_concorr_c: Vec<f64> = (0..nc * (nlev + 1))
        .map(|_| {
            let x = rng.range_f64(0.01, 0.5);
            if rng.chance(0.5) {
                x
            } else {
                -x
            }
        })
        .collect();
    let z_w_con_c = cfl_probing_velocity(&mut rng, &ddqz_z_half(&dz, nc, nlev), DTIME);
    let w: Vec<f64> = z_w_con_c
        .iter()
        .zip(&w_concorr_c)
        .map(|(z, c)| z + c)
        .collect();
    args.set_field("w", column_field(grid, nlev, (CELL, KHALF), &w));
    args.set_field(
        "contravariant_correction_at_cells_on_half_levels",
        column_field(grid, nlev, (CELL, KHALF), &w_concorr_c),
    );
    args.set_field(
        "vn_on_half_levels",
        signed_field(&mut rng, grid, nlev, (EDGE, KHALF), 0.5, 40.0),
    );
    args.set_field(
        "tangential_wind_on_half_levels",
        signed_field(&mut rng, grid, nlev, (EDGE, K), 0.5, 40.0),
    );
    args.set_field("c_intp", c_intp(&mut rng, grid, nlev));
    args.set_field("e_bln_c_s", e_bln_c_s(&mut rng, grid, nlev));
    args.set_field("geofac_n2s", geofac_n2s(&mut rng, grid, nlev));
    args.set_field("owner_mask", owner_mask(&mut rng, grid, nlev));
    let geo = &grid.geometry;
    args.set_field("area", cell_field(grid, nlev, &geo.cell_area));
    set_edge_fields(
        &mut args,
        grid,
        nlev,
        &[
            ("inv_dual_edge_length", &geo.inv_dual_edge_length[..]),
            ("inv_primal_edge_length", &geo.inv_primal_edge_length[..]),
            ("tangent_orientation", &geo.tangent_orientation[..]),
        ],
    );
    set_time_step_scalars(&mut args, DTIME);
    args
}
