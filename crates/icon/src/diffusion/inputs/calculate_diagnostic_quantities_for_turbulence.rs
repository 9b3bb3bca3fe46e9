//! Realistic random inputs of
//! [`calculate_diagnostic_quantities_for_turbulence`](crate::diffusion::stencils::calculate_diagnostic_quantities_for_turbulence).

use super::{geofac_div, signed_field};
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::Args;
use foehn_grid::Grid;
use foehn_testkit::{random_args, random_field, SplitMix64};

/// Realistic inputs: `kh_smag_ec` ≥ 0 in [1e-4, 0.3); `vn` of ±[0.5, 30) m/s;
/// `e_bln_c_s` ≈ 1/3; `geofac_div` = primal edge length · orientation / cell area from the
/// grid's geometry; `diff_multfac_smag` (= enh_smag_fac·dtime) in [0.5, 50); `wgtfac_c` in
/// [0.4, 0.7) (about ½ on a smoothly stretched grid).
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5eed_0004);
    let (ek, ce, ck) = (
        vec![EDGE.into(), K.into()],
        vec![CELL.into(), C2E.into()],
        vec![CELL.into(), KHALF.into()],
    );
    let uniform: [(&str, Vec<Dim>, f64, f64); 6] = [
        ("kh_smag_ec", ek, 1e-4, 0.3),
        ("e_bln_c_s", ce, 0.28, 0.39),
        ("diff_multfac_smag", vec![K.into()], 0.5, 50.0),
        ("wgtfac_c", ck.clone(), 0.4, 0.7),
        ("div_ic", ck.clone(), -1e-4, 1e-4),
        ("hdef_ic", ck, 1e-6, 1e-3),
    ];
    for (name, dims, lo, hi) in uniform {
        args.set_field(name, random_field(&mut rng, grid, nlev, dims, F64, lo, hi));
    }
    args.set_field(
        "vn",
        signed_field(&mut rng, grid, nlev, (EDGE, K), 0.5, 30.0),
    );
    args.set_field("geofac_div", geofac_div(grid, nlev));
    args
}
