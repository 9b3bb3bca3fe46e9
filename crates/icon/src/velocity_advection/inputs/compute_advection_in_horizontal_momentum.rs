//! Realistic random inputs of
//! [`compute_advection_in_horizontal_momentum`](crate::velocity_advection::stencils::compute_advection_in_horizontal_momentum).

use super::compute_advection_in_predictor_vertical_momentum::{
    cfl_probing_velocity, column_field, e_bln_c_s, layer_thicknesses, set_time_step_scalars, DTIME,
};
use crate::diffusion::inputs::{edge_field, set_edge_fields, signed_field};
use foehn::dsl::prelude::*;
use foehn::ir::{self, Scalar};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs: `vn`, `vt`, `vn_ie` ±(0.5..40) m/s and `z_kin_hor_e =
/// ½(vn² + vt²)`; the grid's Coriolis parameter, edge areas, tangent orientations and
/// inverse primal lengths; `geofac_rot = dual_edge_length·orientation/dual_area` from the
/// grid (pentagons' unused sixth slot non-zero); `coeff_gradekin = (r, 1/r)·
/// inv_dual_edge_length` with `r` in `[0.7, 1.4)` and `c_lin_e = (a, 1 − a)`, `a` in
/// `[0.35, 0.65)` (so swapped slots show); `geofac_grdiv` ±(0.5..1.5)/(dual·primal
/// length); `ddqz_z_full_e` the mean of the two cells' layers (20–1000 m, thicker
/// aloft); `z_w_con_c_full` of CFL numbers on both sides of `cfl_w_limit·dtime` and of
/// 0.85 over those layers, so that `|w_con_e| > cfl_w_limit·ddqz_z_full_e` and both
/// sides of the `min` occur (about 21 % of the points of the extra-diffusion levels are
/// over the limit; ICON4Py's StencilTest inputs, on which GT4Py's timings in
/// docs/adr/0012 were taken, put about 72 % there); the scalars for the substep
/// [`DTIME`]. Outputs random.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x7e10_0003);
    let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
    let geo = &grid.geometry;
    let vn = signed_field(&mut rng, grid, nlev, (EDGE, K), 0.5, 40.0);
    let vt = signed_field(&mut rng, grid, nlev, (EDGE, K), 0.5, 40.0);
    let (vn_d, vt_d) = (vn.as_f64().unwrap(), vt.as_f64().unwrap());
    let ekin: Vec<f64> = vn_d
        .iter()
        .zip(vt_d)
        .map(|(a, b)| 0.5 * (a * a + b * b))
        .collect();
    args.set_field(
        "horizontal_kinetic_energy_at_edges_on_model_levels",
        column_field(grid, nlev, (EDGE, K), &ekin),
    );
    args.set_field("vn", vn);
    args.set_field("tangential_wind", vt);
    args.set_field(
        "vn_on_half_levels",
        signed_field(&mut rng, grid, nlev, (EDGE, KHALF), 0.5, 40.0),
    );
    args.set_field("e_bln_c_s", e_bln_c_s(&mut rng, grid, nlev));
    // Layers of the cells, their mean at the edges, and w near the CFL limit over them.
    let dz = layer_thicknesses(&mut rng, nc, nlev);
    let e2c = grid.topology.table(E2C);
    let mut dz_e = vec![0.0; ne * nlev];
    for k in 0..nlev {
        for e in 0..ne {
            let (mut sum, mut n) = (0.0, 0.0);
            for j in 0..2 {
                if let Some(c) = e2c.neighbor(e, j) {
                    sum += dz[c + nc * k];
                    n += 1.0;
                }
            }
            dz_e[e + ne * k] = sum / n;
        }
    }
    args.set_field("ddqz_z_full_e", column_field(grid, nlev, (EDGE, K), &dz_e));
    let w = cfl_probing_velocity(&mut rng, &dz, DTIME);
    args.set_field(
        "contravariant_corrected_w_at_cells_on_model_levels",
        column_field(grid, nlev, (CELL, K), &w),
    );
    // Interpolation and metric coefficients.
    let v2e = grid.topology.table(V2E);
    let geofac_rot = Field::from_fn(grid, nlev, (VERTEX, V2E), F64, |i| {
        let (v, j) = (i[0], i[1]);
        Scalar::F64(match v2e.neighbor(v, j) {
            Some(e) => {
                geo.dual_edge_length[e] * geo.vertex_edge_orientation[6 * v + j] / geo.dual_area[v]
            }
            None => 1.0 / geo.dual_area[v].sqrt(),
        })
    });
    args.set_field("geofac_rot", geofac_rot);
    let ratio: Vec<f64> = (0..ne).map(|_| rng.range_f64(0.7, 1.4)).collect();
    args.set_field(
        "coeff_gradekin",
        Field::from_fn(grid, nlev, (EDGE, E2C), F64, |i| {
            let (e, j) = (i[0], i[1]);
            let r = if j == 0 { ratio[e] } else { 1.0 / ratio[e] };
            Scalar::F64(r * geo.inv_dual_edge_length[e])
        }),
    );
    let a: Vec<f64> = (0..ne).map(|_| rng.range_f64(0.35, 0.65)).collect();
    args.set_field(
        "c_lin_e",
        Field::from_fn(grid, nlev, (EDGE, E2C), F64, |i| {
            Scalar::F64(if i[1] == 0 { a[i[0]] } else { 1.0 - a[i[0]] })
        }),
    );
    args.set_field(
        "geofac_grdiv",
        Field::from_fn(grid, nlev, (EDGE, E2C2EO), F64, |i| {
            let e = i[0];
            let x = rng.range_f64(0.5, 1.5)
                * geo.inv_dual_edge_length[e]
                * geo.inv_primal_edge_length[e];
            Scalar::F64(if rng.chance(0.5) { x } else { -x })
        }),
    );
    args.set_field(
        "coriolis_frequency",
        edge_field(grid, nlev, &geo.coriolis_frequency),
    );
    let edge_geometry: [(&str, &[f64]); 3] = [
        ("area_edge", &geo.edge_area),
        ("tangent_orientation", &geo.tangent_orientation),
        ("inv_primal_edge_length", &geo.inv_primal_edge_length),
    ];
    set_edge_fields(&mut args, grid, nlev, &edge_geometry);
    set_time_step_scalars(&mut args, DTIME);
    args
}
