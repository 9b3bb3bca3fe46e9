//! Realistic random inputs of
//! [`update_theta_and_exner_in_halo`](crate::solve_nonhydro::stencils::update_theta_and_exner_in_halo).

use super::{density, exner_pressure, virtual_potential_temperature};
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::ir::Scalar;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs: `mask_prog_halo_c` true at about two thirds of the cells;
/// ρ, θv and Exner profiles at time level now ([`density`],
/// [`virtual_potential_temperature`], [`exner_pressure`]); `rho_new` within ±0.5 % of
/// `rho_now`; `exner_new` within ±0.1 % of `exner_now` at the prognostic cells and a θv
/// (250–330 K) at the others, as the solver leaves them; `theta_v_new` a θv profile
/// (to be replaced).
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0068);
    let nc = grid.size(Location::Cell);
    let prognostic: Vec<bool> = (0..nc).map(|_| !rng.chance(0.35)).collect();
    args.set_field(
        "mask_prog_halo_c",
        Field::from_fn(grid, nlev, CELL, BOOL, |i| Scalar::Bool(prognostic[i[0]])),
    );
    let rho_now = density(&mut rng, grid, nlev, K);
    let exner_now = exner_pressure(&mut rng, grid, nlev);
    let boundary_theta_v = virtual_potential_temperature(&mut rng, grid, nlev, K);
    let (rho, exner, theta) = (
        rho_now.as_f64().unwrap().to_vec(),
        exner_now.as_f64().unwrap().to_vec(),
        boundary_theta_v.as_f64().unwrap().to_vec(),
    );
    args.set_field(
        "rho_new",
        Field::from_fn_f64(grid, nlev, (CELL, K), |i| {
            rho[i] * (1.0 + rng.range_f64(-5e-3, 5e-3))
        }),
    );
    args.set_field(
        "exner_new",
        Field::from_fn_f64(grid, nlev, (CELL, K), |i| {
            if prognostic[i % nc] {
                exner[i] * (1.0 + rng.range_f64(-1e-3, 1e-3))
            } else {
                theta[i]
            }
        }),
    );
    args.set_field("rho_now", rho_now);
    args.set_field("exner_now", exner_now);
    args.set_field(
        "theta_v_now",
        virtual_potential_temperature(&mut rng, grid, nlev, K),
    );
    args.set_field(
        "theta_v_new",
        virtual_potential_temperature(&mut rng, grid, nlev, K),
    );
    args
}
