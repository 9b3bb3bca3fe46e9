//! Realistic random inputs of
//! [`apply_diffusion_to_vn`](crate::diffusion::stencils::apply_diffusion_to_vn).

use super::{set_diamond_fields, set_edge_fields};
use crate::common::constants::DBL_EPS;
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::Args;
use foehn_grid::Grid;
use foehn_testkit::{random_args, random_field, SplitMix64};

/// Realistic random inputs: the grid's own lengths, areas and vertex normals; `vn` in
/// ±30 m/s; `z_nabla2_e` and the vertex vectors of the size of a Laplacian of a wind
/// of ~10 m/s on this grid; `kh_smag_e` in `(0, smag_limit ≈ 0.1)`; `diff_multfac_vn`
/// up to 1/128; `nudgecoeff_e` up to the maximum nudging coefficient 0.1 and
/// `nudgezone_diff = 0.04/(0.1 + ε)`, so both sides of the `max` occur;
/// `fac_bdydiff_v = √5/200` (5 substeps). Both variants get all of them.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x0a11_7f5e);
    let geo = &grid.geometry;
    let n = geo.inv_primal_edge_length.len() as f64;
    let mean_inv = geo.inv_primal_edge_length.iter().sum::<f64>() / n;
    let lap = 10.0 * mean_inv * mean_inv; // |∇²vn| for ~10 m/s over one edge length
    let mut set = |args: &mut Args, name: &str, dims: Vec<ir::Dim>, lo: f64, hi: f64| {
        args.set_field(name, random_field(&mut rng, grid, nlev, dims, F64, lo, hi));
    };
    let (ek, vk) = (vec![EDGE.into(), K.into()], vec![VERTEX.into(), K.into()]);
    set(&mut args, "vn", ek.clone(), -30.0, 30.0);
    set(&mut args, "z_nabla2_e", ek.clone(), -lap, lap);
    set(&mut args, "u_vert", vk.clone(), -lap, lap);
    set(&mut args, "v_vert", vk, -lap, lap);
    set(&mut args, "kh_smag_e", ek, 1e-4, 0.1);
    set(
        &mut args,
        "diff_multfac_vn",
        vec![K.into()],
        5e-4,
        1.0 / 128.0,
    );
    let edge_geometry: [(&str, &[f64]); 3] = [
        ("inv_vert_vert_length", &geo.inv_vert_vert_length),
        ("inv_primal_edge_length", &geo.inv_primal_edge_length),
        ("area_edge", &geo.edge_area),
    ];
    set_edge_fields(&mut args, grid, nlev, &edge_geometry);
    let diamond_geometry: [(&str, &[f64]); 2] = [
        ("primal_normal_vert_v1", &geo.primal_normal_vert_x),
        ("primal_normal_vert_v2", &geo.primal_normal_vert_y),
    ];
    set_diamond_fields(&mut args, grid, nlev, &diamond_geometry);
    set(&mut args, "nudgecoeff_e", vec![EDGE.into()], 1e-3, 0.1);
    args.set_scalar("nudgezone_diff", 0.04 / (0.1 + DBL_EPS));
    args.set_scalar("fac_bdydiff_v", 5f64.sqrt() / 200.0);
    args
}
