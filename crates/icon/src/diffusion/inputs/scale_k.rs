//! Realistic random inputs of [`scale_k`](crate::diffusion::stencils::scale_k).

use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::Args;
use foehn_grid::Grid;
use foehn_testkit::{random_args, random_field, SplitMix64};

/// Realistic random inputs: `field` = `enh_smag_fac` (the Smagorinsky scaling factor
/// 0.015, enhanced up to 4× towards the model top), `factor` = `dtime` in [30, 900) s.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5eed_0001);
    args.set_field(
        "field",
        random_field(&mut rng, grid, nlev, K, F64, 0.015, 0.06),
    );
    args.set_scalar("factor", rng.range_f64(30.0, 900.0));
    args.set_field(
        "scaled_field",
        random_field(&mut rng, grid, nlev, K, F64, 0.5, 50.0),
    );
    args
}
