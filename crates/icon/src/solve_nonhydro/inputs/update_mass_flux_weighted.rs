//! Realistic random inputs of
//! [`update_mass_flux_weighted`](crate::solve_nonhydro::stencils::update_mass_flux_weighted).

use super::{density, signed_with_outliers};
use crate::diffusion::inputs::signed_field;
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs: `rho_ic` a density profile on the interfaces ([`density`]);
/// `vwind_impl_wgt` in [0.6, 0.85) (ICON's `0.5 + vwind_offctr`, raised on steep
/// slopes) and `vwind_expl_wgt = 1 − vwind_impl_wgt`; `w_now`, `w_new` ±(0.01..1) m/s
/// with some ±10 m/s; `w_concorr_c` ±(0.01..0.5) m/s; `mass_flx_ic` the flux
/// accumulated so far, ±(0.01..1) kg/(m² s); `r_nsubsteps = 1/ndyn_substeps` for 1 to 8
/// substeps.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0065);
    args.set_field("rho_ic", density(&mut rng, grid, nlev, KHALF));
    let implicit: Vec<f64> = (0..grid.size(Location::Cell))
        .map(|_| rng.range_f64(0.6, 0.85))
        .collect();
    args.set_field(
        "vwind_impl_wgt",
        Field::from_fn_f64(grid, nlev, CELL, |c| implicit[c]),
    );
    args.set_field(
        "vwind_expl_wgt",
        Field::from_fn_f64(grid, nlev, CELL, |c| 1.0 - implicit[c]),
    );
    for name in ["w_now", "w_new"] {
        let w = signed_with_outliers(&mut rng, grid, nlev, (CELL, KHALF), (0.01, 1.0));
        args.set_field(name, w);
    }
    args.set_field(
        "w_concorr_c",
        signed_field(&mut rng, grid, nlev, (CELL, KHALF), 0.01, 0.5),
    );
    args.set_field(
        "mass_flx_ic",
        signed_field(&mut rng, grid, nlev, (CELL, KHALF), 0.01, 1.0),
    );
    args.set_scalar("r_nsubsteps", 1.0 / (1 + rng.below(8)) as f64);
    args
}
