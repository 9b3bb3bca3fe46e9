//! Realistic random inputs of
//! [`mo_intp_rbf_rbf_vec_interpol_vertex`](crate::diffusion::stencils::mo_intp_rbf_rbf_vec_interpol_vertex).

use super::signed_field;
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::Args;
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs: `p_e_in` a normal wind of ±[0.5, 30) m/s; RBF coefficients
/// of either sign and order one (ICON's `rbf_vec_coeff_v`), non-zero also in the skipped
/// pentagon slots (so a reference that read them would differ).
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5eed_0002);
    let mut field =
        |dims: Vec<Dim>, lo: f64, hi: f64| signed_field(&mut rng, grid, nlev, dims, lo, hi);
    args.set_field("p_e_in", field(vec![EDGE.into(), K.into()], 0.5, 30.0));
    args.set_field(
        "ptr_coeff_1",
        field(vec![VERTEX.into(), V2E.into()], 0.05, 1.0),
    );
    args.set_field(
        "ptr_coeff_2",
        field(vec![VERTEX.into(), V2E.into()], 0.05, 1.0),
    );
    args.set_field("p_u_out", field(vec![VERTEX.into(), K.into()], 0.5, 30.0));
    args.set_field("p_v_out", field(vec![VERTEX.into(), K.into()], 0.5, 30.0));
    args
}
