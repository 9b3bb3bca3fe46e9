//! Realistic random inputs of
//! [`compute_rayleigh_damping_factor`](crate::solve_nonhydro::stencils::compute_rayleigh_damping_factor).

use super::set_substep_dtime;
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs: `rayleigh_w` the Klemp profile of ICON's sponge layer,
/// `rayleigh_coeff·(1 − tanh(3.8·(z_top − z)/(z_top − z_damp)))` with `rayleigh_coeff`
/// 0.05–0.25 s⁻¹ and the interfaces spread evenly from the top (`z_top − z = 0`) down to
/// the bottom of the sponge, so it falls from `rayleigh_coeff` to about 2e-3 of it
/// (ICON's is zero below the sponge; never zero here); `dtime` a substep of 5–60 s.
/// Output random.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0070);
    let rayleigh_coeff = rng.range_f64(0.05, 0.25);
    args.set_field(
        "rayleigh_w",
        Field::from_fn_f64(grid, nlev, KHALF, |k| {
            // Depth below the model top in units of the sponge depth, 0..=1.
            let depth = k as f64 / nlev as f64;
            rayleigh_coeff * (1.0 - (3.8 * depth).tanh())
        }),
    );
    set_substep_dtime(&mut rng, &mut args);
    args
}
