//! Realistic random inputs of
//! [`compute_averaged_vn_and_fluxes`](crate::solve_nonhydro::stencils::compute_averaged_vn_and_fluxes).

use super::{cells_to_edges, density, virtual_potential_temperature};
use crate::diffusion::inputs::signed_field;
use crate::velocity_advection::inputs::compute_advection_in_predictor_vertical_momentum::{
    column_field, layer_thicknesses,
};
use foehn::dsl::prelude::*;
use foehn::ir::{self, Scalar};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs: `vn` ±(0.5..40) m/s; `e_flx_avg` ICON's averaging weights,
/// the edge's own in [0.45, 0.6) and its diamond edges' ±(0.05..0.2) (signs follow the
/// edge orientations); `z_rho_e`, `z_theta_v_e` the ρ and θv profiles
/// ([`density`], [`virtual_potential_temperature`]) carried to the edges
/// ([`cells_to_edges`]); `ddqz_z_full_e` layers 20–1000 m thick ([`layer_thicknesses`]);
/// the substep averages so far `vn_traj` ±(0.5..40) m/s and `mass_flx_me`
/// ±(0.1..2000) kg/(m s) (a mass flux `ρ·vn·dz`); `r_nsubsteps = 1/ndyn_substeps` for
/// 1 to 8 substeps.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0032);
    let edge_k = (EDGE, K);
    args.set_field("vn", signed_field(&mut rng, grid, nlev, edge_k, 0.5, 40.0));
    args.set_field(
        "e_flx_avg",
        Field::from_fn(grid, nlev, (EDGE, E2C2EO), F64, |idx| {
            Scalar::F64(if idx[1] == 0 {
                rng.range_f64(0.45, 0.6)
            } else {
                let w = rng.range_f64(0.05, 0.2);
                if rng.chance(0.5) {
                    w
                } else {
                    -w
                }
            })
        }),
    );
    let rho = density(&mut rng, grid, nlev, K);
    args.set_field(
        "rho_at_edges_on_model_levels",
        cells_to_edges(&mut rng, grid, nlev, &rho),
    );
    let theta_v = virtual_potential_temperature(&mut rng, grid, nlev, K);
    args.set_field(
        "theta_v_at_edges_on_model_levels",
        cells_to_edges(&mut rng, grid, nlev, &theta_v),
    );
    let dz = layer_thicknesses(&mut rng, grid.size(Location::Edge), nlev);
    args.set_field("ddqz_z_full_e", column_field(grid, nlev, edge_k, &dz));
    args.set_field(
        "substep_and_spatially_averaged_vn",
        signed_field(&mut rng, grid, nlev, edge_k, 0.5, 40.0),
    );
    args.set_field(
        "substep_averaged_mass_flux",
        signed_field(&mut rng, grid, nlev, edge_k, 0.1, 2000.0),
    );
    args.set_scalar("r_nsubsteps", 1.0 / (1 + rng.below(8)) as f64);
    args
}
