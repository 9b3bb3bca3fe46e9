//! Realistic random inputs of
//! [`apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence`](crate::diffusion::stencils::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence).

use super::cell_field;
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, random_field, SplitMix64};

/// Realistic random inputs: the grid's cell areas; `w_old` in ±2 m/s; `geofac_n2s` a
/// Laplacian stencil (neighbour weights ~1/area, the centre weight about minus their
/// sum); `geofac_grg_x/y` gradient weights ~±1/√area; `diff_multfac_w = 5/540` (K4W with
/// 5 substeps); `diff_multfac_n2w` in `(0, 1/12)` on every level (so a wrong damping
/// range shows); outputs random.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x3c0d_e2c0);
    let nc = grid.size(Location::Cell);
    let area = &grid.geometry.cell_area;
    let ck = vec![CELL.into(), KHALF.into()];
    args.set_field(
        "w_old",
        random_field(&mut rng, grid, nlev, ck.clone(), F64, -2.0, 2.0),
    );
    args.set_field(
        "w",
        random_field(&mut rng, grid, nlev, ck.clone(), F64, -2.0, 2.0),
    );
    for name in ["dwdx", "dwdy"] {
        args.set_field(
            name,
            random_field(&mut rng, grid, nlev, ck.clone(), F64, -1e-3, 1e-3),
        );
    }
    args.set_field("area", cell_field(grid, nlev, area));
    // Laplacian weights: neighbours 1/area·(0.8..1.2), centre −Σ neighbours·(0.95..1.05).
    let mut n2s = vec![0.0; nc * 4];
    for c in 0..nc {
        let mut sum = 0.0;
        for j in 1..4 {
            n2s[c + nc * j] = rng.range_f64(0.8, 1.2) / area[c];
            sum += n2s[c + nc * j];
        }
        n2s[c] = -sum * rng.range_f64(0.95, 1.05);
    }
    args.set_field(
        "geofac_n2s",
        Field::from_fn(grid, nlev, (CELL, C2E2CO), F64, |i| {
            ir::Scalar::F64(n2s[i[0] + nc * i[1]])
        }),
    );
    for name in ["geofac_grg_x", "geofac_grg_y"] {
        let f = Field::from_fn(grid, nlev, (CELL, C2E2CO), F64, |i| {
            ir::Scalar::F64(rng.range_f64(-1.0, 1.0) / area[i[0]].sqrt())
        });
        args.set_field(name, f);
    }
    args.set_field(
        "diff_multfac_n2w",
        random_field(&mut rng, grid, nlev, K, F64, 1e-3, 1.0 / 12.0),
    );
    args.set_scalar("diff_multfac_w", 5.0 / 540.0);
    args
}
