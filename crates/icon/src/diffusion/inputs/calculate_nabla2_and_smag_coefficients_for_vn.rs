//! Realistic random inputs of
//! [`calculate_nabla2_and_smag_coefficients_for_vn`](crate::diffusion::stencils::calculate_nabla2_and_smag_coefficients_for_vn).

use super::{set_diamond_fields, set_edge_fields, signed_field};
use foehn::dsl::prelude::*;
use foehn::ir::{self, Scalar};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic inputs: the grid's own edge geometry (orientation, inverse lengths, normals
/// at the diamond vertices); winds of ±[0.5, 30) m/s; `smag_limit` = 0.125 − 4·diff_multfac_vn
/// with diff_multfac_vn in (0, 1/128]; `smag_offset` ≈ 0.25·K4·ndyn. `diff_multfac_smag`
/// (= enh_smag_fac·dtime; ICON's time step scales with the mesh width Δx) falls from
/// 3e-2·Δx s at the model top to 1e-6·Δx s at the surface (Δx = mean primal edge length in
/// m), log-spaced over the levels with random jitter: with random winds, `kh_smag_e` then
/// takes all three branches of its limiter (0, the limit, in between) on every grid.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5eed_0003);
    let g = &grid.geometry;
    let edge_geometry: [(&str, &[f64]); 3] = [
        ("tangent_orientation", &g.tangent_orientation),
        ("inv_primal_edge_length", &g.inv_primal_edge_length),
        ("inv_vert_vert_length", &g.inv_vert_vert_length),
    ];
    set_edge_fields(&mut args, grid, nlev, &edge_geometry);
    let diamond_geometry: [(&str, &[f64]); 4] = [
        ("primal_normal_vert_x", &g.primal_normal_vert_x),
        ("primal_normal_vert_y", &g.primal_normal_vert_y),
        ("dual_normal_vert_x", &g.dual_normal_vert_x),
        ("dual_normal_vert_y", &g.dual_normal_vert_y),
    ];
    set_diamond_fields(&mut args, grid, nlev, &diamond_geometry);
    let mut wind = |loc: Location| signed_field(&mut rng, grid, nlev, (loc, K), 0.5, 30.0);
    for (name, loc) in [
        ("u_vert", VERTEX),
        ("v_vert", VERTEX),
        ("vn", EDGE),
        ("kh_smag_e", EDGE),
        ("kh_smag_ec", EDGE),
        ("z_nabla2_e", EDGE),
    ] {
        args.set_field(name, wind(loc));
    }
    let dx = g.primal_edge_length.iter().sum::<f64>() / g.primal_edge_length.len() as f64;
    let (ln_top, ln_bottom) = ((3e-2 * dx).ln(), (1e-6 * dx).ln());
    args.set_field(
        "diff_multfac_smag",
        Field::from_fn(grid, nlev, K, F64, |i| {
            let s = (i[0] as f64 + rng.next_f64()) / nlev as f64;
            Scalar::F64((ln_top + (ln_bottom - ln_top) * s).exp())
        }),
    );
    args.set_field(
        "smag_limit",
        Field::from_fn(grid, nlev, K, F64, |_| {
            Scalar::F64(0.125 - 4.0 * rng.range_f64(1e-4, 1.0 / 128.0))
        }),
    );
    args.set_scalar("smag_offset", rng.range_f64(2e-4, 1e-3));
    args
}
