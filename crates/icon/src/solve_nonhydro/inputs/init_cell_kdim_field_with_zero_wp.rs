//! Realistic random inputs of
//! [`init_cell_kdim_field_with_zero_wp`](crate::solve_nonhydro::stencils::init_cell_kdim_field_with_zero_wp).

use crate::diffusion::inputs::signed_field;
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::Args;
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs: the field to reset holds the previous step's vertical mass
/// flux `mass_flx_ic`, ±(0.01..1) kg/(m² s).
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0064);
    args.set_field(
        "field_with_zero_wp",
        signed_field(&mut rng, grid, nlev, (CELL, KHALF), 0.01, 1.0),
    );
    args
}
