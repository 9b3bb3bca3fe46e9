//! Realistic random inputs of
//! [`stencils_61_62`](crate::solve_nonhydro::stencils::stencils_61_62).

use super::{density, set_substep_dtime, signed_with_outliers, virtual_potential_temperature};
use crate::diffusion::inputs::signed_field;
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::Args;
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs: ρ ([`density`]) and θv ([`virtual_potential_temperature`])
/// profiles, `w_now` ±(0.01..1) m/s with some ±10 m/s; boundary tendencies of the
/// driving model's sizes, either sign: `grf_tend_rho` ±(1e-7..1e-5) kg/(m³ s),
/// `grf_tend_thv` ±(1e-5..1e-3) K/s, `grf_tend_w` ±(1e-5..1e-3) m/s²; `dtime` a substep
/// of 5–60 s. Outputs random.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0061);
    args.set_field("rho_now", density(&mut rng, grid, nlev, K));
    args.set_field(
        "theta_v_now",
        virtual_potential_temperature(&mut rng, grid, nlev, K),
    );
    args.set_field(
        "w_now",
        signed_with_outliers(&mut rng, grid, nlev, (CELL, KHALF), (0.01, 1.0)),
    );
    for (name, dims, (lo, hi)) in [
        ("grf_tend_rho", (CELL, K), (1e-7, 1e-5)),
        ("grf_tend_thv", (CELL, K), (1e-5, 1e-3)),
        ("grf_tend_w", (CELL, KHALF), (1e-5, 1e-3)),
    ] {
        args.set_field(name, signed_field(&mut rng, grid, nlev, dims, lo, hi));
    }
    set_substep_dtime(&mut rng, &mut args);
    args
}
