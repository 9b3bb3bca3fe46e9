//! Realistic random inputs of
//! [`compute_exner_from_rhotheta`](crate::solve_nonhydro::stencils::compute_exner_from_rhotheta).

use super::{density, exner_pressure, virtual_potential_temperature};
use crate::common::constants::RD_O_CVD;
use crate::solve_nonhydro::RD_O_P0REF;
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::Args;
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs: `rho` a density profile ([`density`]); `exner` holds θv
/// (250–330 K, [`virtual_potential_temperature`]), as
/// [`stencils_61_62`](crate::solve_nonhydro::stencils::stencils_61_62) left it on the
/// boundary cells; `theta_v` an Exner-like profile ([`exner_pressure`], to be replaced);
/// the scalars ICON's `rd/cvd` and `rd/p0ref`.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0067);
    args.set_field("rho", density(&mut rng, grid, nlev, K));
    args.set_field(
        "exner",
        virtual_potential_temperature(&mut rng, grid, nlev, K),
    );
    args.set_field("theta_v", exner_pressure(&mut rng, grid, nlev));
    args.set_scalar("rd_o_cvd", RD_O_CVD);
    args.set_scalar("rd_o_p0ref", RD_O_P0REF);
    args
}
