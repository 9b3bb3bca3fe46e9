//! Realistic random inputs of
//! [`calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools`](crate::diffusion::stencils::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools).

use crate::common::constants::DBL_EPS;
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs for the lowest levels: θref 285–295 K (so valley points,
/// `trefdiff < 0`, and others occur), θv = θref ± 8 K (so cold pools are rare but
/// present), `kh_smag_e` of the size of the enhancement (0–4e-3), and
/// ICON's constants `thresh_tdiff = −5 K`, `smallest_vpfloat = DBL_EPS`.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0xc01d_9001);
    let theta_ref = Field::from_fn_f64(grid, nlev, (CELL, K), |_| rng.range_f64(285.0, 295.0));
    let reference = theta_ref.as_f64().unwrap_or_default().to_vec();
    let theta_v = Field::from_fn_f64(grid, nlev, (CELL, K), |i| {
        reference[i] + rng.range_f64(-8.0, 8.0)
    });
    let kh = Field::from_fn_f64(grid, nlev, (EDGE, K), |_| rng.range_f64(1.0e-6, 4.0e-3));
    args.set_field("theta_ref_mc", theta_ref);
    args.set_field("theta_v", theta_v);
    args.set_field("kh_smag_e", kh);
    args.set_scalar("thresh_tdiff", -5.0);
    args.set_scalar("smallest_vpfloat", DBL_EPS);
    args
}
