//! Realistic random inputs of
//! [`compute_interpolation_and_nonhydro_buoy`](crate::solve_nonhydro::stencils::compute_interpolation_and_nonhydro_buoy).

use super::{
    density, interpolation_weights, near, set_substep_dtime, virtual_potential_temperature,
};
use crate::diffusion::inputs::signed_field;
use crate::velocity_advection::inputs::compute_advection_in_predictor_vertical_momentum::{
    column_field, ddqz_z_half, layer_thicknesses,
};
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Realistic random inputs: `w` ±(0.01..0.3) m/s (back-trajectories of up to about half
/// a layer at the surface for the longest substeps: vertical CFL numbers below one) and
/// `w_concorr_c` ±(0.01..0.1) m/s; ρ and θv profiles now ([`density`],
/// [`virtual_potential_temperature`]) and new within ±0.5 % of them ([`near`]);
/// `theta_ref_mc` another θv profile (perturbations of a few K); `exner_pr`
/// ±(1e-5..2e-3); `d_exner_dz_ref_ic ≈ −g/(cpd·θ)`, −(2.5..4)e-5 per m; `ddqz_z_half`
/// and `wgtfac_c` from layers 20–1000 m thick ([`interpolation_weights`]);
/// `vwind_expl_wgt` in [0.15, 0.4) (`1 − vwind_impl_wgt`); `dtime` 5–60 s; the
/// weights `wnew = 0.5 + rhotheta_offctr` with `rhotheta_offctr` in [−0.15, 0.05)
/// (ICON: −0.1) and `wnow = 1 − wnew`.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0010);
    let half = (CELL, KHALF);
    args.set_field("w", signed_field(&mut rng, grid, nlev, half, 0.01, 0.3));
    args.set_field(
        "contravariant_correction_at_cells_on_half_levels",
        signed_field(&mut rng, grid, nlev, half, 0.01, 0.1),
    );
    let rho_now = density(&mut rng, grid, nlev, K);
    args.set_field("next_rho", near(&mut rng, &rho_now, 0.005));
    args.set_field("current_rho", rho_now);
    let theta_now = virtual_potential_temperature(&mut rng, grid, nlev, K);
    args.set_field("next_theta_v", near(&mut rng, &theta_now, 0.005));
    args.set_field("current_theta_v", theta_now);
    args.set_field(
        "reference_theta_at_cells_on_model_levels",
        virtual_potential_temperature(&mut rng, grid, nlev, K),
    );
    args.set_field(
        "perturbed_exner_at_cells_on_model_levels",
        signed_field(&mut rng, grid, nlev, (CELL, K), 1e-5, 2e-3),
    );
    args.set_field(
        "ddz_of_reference_exner_at_cells_on_half_levels",
        Field::from_fn_f64(grid, nlev, half, |_| -rng.range_f64(2.5e-5, 4e-5)),
    );
    let nc = grid.size(Location::Cell);
    let dz = layer_thicknesses(&mut rng, nc, nlev);
    args.set_field(
        "ddqz_z_half",
        column_field(grid, nlev, half, &ddqz_z_half(&dz, nc, nlev)),
    );
    args.set_field("wgtfac_c", interpolation_weights(&mut rng, grid, nlev, &dz));
    args.set_field(
        "exner_w_explicit_weight_parameter",
        Field::from_fn_f64(grid, nlev, CELL, |_| rng.range_f64(0.15, 0.4)),
    );
    set_substep_dtime(&mut rng, &mut args);
    let wnew = 0.5 + rng.range_f64(-0.15, 0.05);
    args.set_scalar("rhotheta_implicit_weight_parameter", wnew);
    args.set_scalar("rhotheta_explicit_weight_parameter", 1.0 - wnew);
    args
}
