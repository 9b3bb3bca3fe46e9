//! Realistic random inputs of
//! [`compute_hydrostatic_correction_term`](crate::solve_nonhydro::stencils::compute_hydrostatic_correction_term).

use super::virtual_potential_temperature;
use crate::common::constants::{CPD, GRAV};
use crate::diffusion::inputs::{edge_field, signed_field};
use crate::velocity_advection::inputs::compute_advection_in_predictor_vertical_momentum::{
    column_field, layer_thicknesses,
};
use foehn::dsl::prelude::*;
use foehn::ir::{self, Scalar};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs: `theta_v`, `theta_v_ic` θv profiles
/// ([`virtual_potential_temperature`]); `inv_ddqz_z_full` the inverse of layers 20–1000
/// m thick ([`layer_thicknesses`]); `inv_dual_edge_length` the grid's; `grav_o_cpd =
/// grav/cpd`; `ikoffset` and `zdiff_gradp` as [`pressure_gradient_offsets`] makes them.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0021);
    args.set_field(
        "theta_v",
        virtual_potential_temperature(&mut rng, grid, nlev, K),
    );
    args.set_field(
        "theta_v_ic",
        virtual_potential_temperature(&mut rng, grid, nlev, KHALF),
    );
    let dz = layer_thicknesses(&mut rng, grid.size(Location::Cell), nlev);
    let inverse: Vec<f64> = dz.iter().map(|dz| 1.0 / dz).collect();
    args.set_field(
        "inv_ddqz_z_full",
        column_field(grid, nlev, (CELL, K), &inverse),
    );
    args.set_field(
        "inv_dual_edge_length",
        edge_field(grid, nlev, &grid.geometry.inv_dual_edge_length),
    );
    pressure_gradient_offsets(&mut rng, &mut args, grid, nlev);
    args.set_scalar("grav_o_cpd", GRAV / CPD);
    args
}

/// Sets ICON's Taylor pressure-gradient metrics `ikoffset` (ICON `vertoffset_gradp`) and
/// `zdiff_gradp`, `(Edge, E2C, K)`: in the upper half of the column (ICON's flat levels)
/// the offset is 0; below, on 60 % of the points, the neighbour layer holding the edge's
/// height is up to two levels above or one below, `k + off ∈ [0, nlev)` (on the lowest
/// level −2, −1 or 0, so `k + off + 1 ≤ nlev` stays on the interfaces). `zdiff_gradp`,
/// the height above that layer's centre, is ±(0.5..40) m (never zero).
pub fn pressure_gradient_offsets(rng: &mut SplitMix64, args: &mut Args, grid: &Grid, nlev: usize) {
    let ne = grid.size(Location::Edge);
    let mut off = vec![0i32; ne * 2 * nlev];
    for k in nlev / 2..nlev {
        let (lo, hi) = (-(k.min(2) as i32), (nlev - 1 - k).min(1) as i32);
        for slot in off[ne * 2 * k..ne * 2 * (k + 1)].iter_mut() {
            if rng.chance(0.6) {
                *slot = lo + rng.below((hi - lo + 1) as usize) as i32;
            }
        }
    }
    args.set_field(
        "ikoffset",
        Field::from_fn(grid, nlev, (EDGE, E2C, K), I32, |idx| {
            Scalar::I32(off[idx[0] + ne * (idx[1] + 2 * idx[2])])
        }),
    );
    args.set_field(
        "zdiff_gradp",
        signed_field(rng, grid, nlev, (EDGE, E2C, K), 0.5, 40.0),
    );
}
