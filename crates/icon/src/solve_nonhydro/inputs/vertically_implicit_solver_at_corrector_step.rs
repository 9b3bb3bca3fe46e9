//! Realistic random inputs of
//! [`vertically_implicit_solver_at_corrector_step`](crate::solve_nonhydro::stencils::vertically_implicit_solver_at_corrector_step).

use super::vertically_implicit_solver_at_predictor_step::{retain_declared, set_solver_inputs};
use crate::diffusion::inputs::signed_field;
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::Args;
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// ICON's number of dynamics substeps, `ndyn_substeps_var` (default 5).
pub const NDYN_SUBSTEPS: f64 = 5.0;

/// Realistic random inputs: the solver's
/// ([`set_solver_inputs`]);
/// the accumulated vertical mass and volume fluxes ±(0.01..1) kg/(m²·s) and m/s; ICON's
/// weights `wgt_nnow_vel = 0.25`, `wgt_nnew_vel = 0.75`, `ndyn_substeps_var = 5` and
/// `r_nsubsteps = 1/5`.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0010);
    set_solver_inputs(&mut args, &mut rng, grid, nlev);
    for name in [
        "dynamical_vertical_mass_flux_at_cells_on_half_levels",
        "dynamical_vertical_volumetric_flux_at_cells_on_half_levels",
    ] {
        let flux = signed_field(&mut rng, grid, nlev, (CELL, KHALF), 0.01, 1.0);
        args.set_field(name, flux);
    }
    args.set_scalar("advection_explicit_weight_parameter", 0.25);
    args.set_scalar("advection_implicit_weight_parameter", 0.75);
    args.set_scalar("ndyn_substeps_var", NDYN_SUBSTEPS);
    args.set_scalar("r_nsubsteps", 1.0 / NDYN_SUBSTEPS);
    retain_declared(&mut args, program);
    args
}
