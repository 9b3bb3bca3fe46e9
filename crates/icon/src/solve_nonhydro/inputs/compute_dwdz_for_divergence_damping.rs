//! Realistic random inputs of
//! [`compute_dwdz_for_divergence_damping`](crate::solve_nonhydro::stencils::compute_dwdz_for_divergence_damping).

use super::signed_with_outliers;
use crate::diffusion::inputs::signed_field;
use crate::velocity_advection::inputs::compute_advection_in_predictor_vertical_momentum::{
    column_field, layer_thicknesses,
};
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::Args;
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs: `inv_ddqz_z_full` the inverse of layers 20–1000 m thick,
/// thicker aloft ([`layer_thicknesses`]); `w` ±(0.01..1) m/s with some ±10 m/s;
/// `w_concorr_c` ±(0.01..0.5) m/s on every level (ICON's is zero above `nflatlev + 1`;
/// never zero here). Output random.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0063);
    let dz = layer_thicknesses(&mut rng, grid.size(Location::Cell), nlev);
    let inverse: Vec<f64> = dz.iter().map(|dz| 1.0 / dz).collect();
    args.set_field(
        "inv_ddqz_z_full",
        column_field(grid, nlev, (CELL, K), &inverse),
    );
    args.set_field(
        "w",
        signed_with_outliers(&mut rng, grid, nlev, (CELL, KHALF), (0.01, 1.0)),
    );
    args.set_field(
        "w_concorr_c",
        signed_field(&mut rng, grid, nlev, (CELL, KHALF), 0.01, 0.5),
    );
    args
}
