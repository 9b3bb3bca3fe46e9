//! Realistic random inputs of
//! [`compute_rho_theta_pgrad_and_update_vn`](crate::solve_nonhydro::stencils::compute_rho_theta_pgrad_and_update_vn).

use super::virtual_potential_temperature as theta_v_profile;
use super::{cells_to_edges, density, set_substep_dtime, take_from_donors};
use crate::common::constants::{CPD, GRAV};
use crate::diffusion::inputs::signed_field;
use crate::fields::interpolation::{geofac, tangent_plane, weights, InterpolationError};
use crate::solve_nonhydro::entry::{
    apply_divergence_damping_and_update_vn, compute_hydrostatic_correction_term,
};
use crate::velocity_advection::entry::compute_diagnostics_from_normal_wind;
use foehn::dsl::prelude::*;
use foehn::ir::{self, Scalar};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// A field of `dims` (a horizontal location and a local dimension of width `width`) from
/// row-major data (`data[width·h + j]`), as the grid's and the interpolation fields'
/// sparse arrays are stored.
fn sparse_field(
    grid: &Grid,
    nlev: usize,
    dims: impl IntoDims,
    width: usize,
    data: &[f64],
) -> Field {
    Field::from_fn(grid, nlev, dims, F64, |i| {
        Scalar::F64(data[width * i[0] + i[1]])
    })
}

/// `pg_exdist` (`(Edge, K)`, m): zero (ICON's edges without downward extrapolation) except
/// on the lowest two levels, where 40 % of the edges lie `1..200` m below the highest
/// neighbour surface (negative, as ICON's metric fields make it).
pub fn pg_exdist(rng: &mut SplitMix64, grid: &Grid, nlev: usize) -> Field {
    let ne = grid.size(Location::Edge);
    Field::from_fn_f64(grid, nlev, (EDGE, K), |i| {
        if i / ne + 2 >= nlev && rng.chance(0.4) {
            -rng.range_f64(1.0, 200.0)
        } else {
            0.0
        }
    })
}

/// `z_hydro_corr` (`(Edge, K)`, m⁻²) of the size P6 gives it on its level `nlev − 1`:
/// `grav/cpd·inv_dual_edge_length·Δθ·4/(2θ)²` with `Δθ = ±(0.05..5)` K between the
/// neighbours and `θ` in [255, 300) K; the other levels (which P6 leaves alone and the
/// program must not read) alike.
pub fn hydrostatic_correction(rng: &mut SplitMix64, grid: &Grid, nlev: usize) -> Field {
    let inv_dual = &grid.geometry.inv_dual_edge_length;
    let ne = inv_dual.len();
    Field::from_fn_f64(grid, nlev, (EDGE, K), |i| {
        let e = i % ne;
        let dtheta = rng.range_f64(0.05, 5.0) * if rng.chance(0.5) { 1.0 } else { -1.0 };
        let theta = rng.range_f64(255.0, 300.0);
        GRAV / CPD * inv_dual[e] * dtheta * 4.0 / (4.0 * theta * theta)
    })
}

/// Sets the grid's own geometry and interpolation fields: `primal/dual_normal_cell_x/y`,
/// and ICON's `pos_on_tplane_e_x/y`, `c_lin_e` and `geofac_grg_x/y` computed on `grid`
/// ([`crate::fields::interpolation`]).
pub fn set_grid_fields(
    args: &mut Args,
    grid: &Grid,
    nlev: usize,
) -> Result<(), InterpolationError> {
    let geo = &grid.geometry;
    let e2c = (EDGE, E2C);
    for (name, data) in [
        ("primal_normal_cell_x", &geo.primal_normal_cell_x),
        ("primal_normal_cell_y", &geo.primal_normal_cell_y),
        ("dual_normal_cell_x", &geo.dual_normal_cell_x),
        ("dual_normal_cell_y", &geo.dual_normal_cell_y),
    ] {
        args.set_field(name, sparse_field(grid, nlev, e2c, 2, data));
    }
    let (pos_x, pos_y) = tangent_plane::pos_on_tplane_e(grid)?;
    let c_lin_e = weights::c_lin_e(grid)?;
    let (grg_x, grg_y) = geofac::grg(grid, &geofac::div(grid), &c_lin_e)?;
    for (name, dims, f) in [
        ("pos_on_tplane_e_x", e2c.into_dims(), &pos_x),
        ("pos_on_tplane_e_y", e2c.into_dims(), &pos_y),
        ("c_lin_e", e2c.into_dims(), &c_lin_e),
        ("geofac_grg_x", (CELL, C2E2CO).into_dims(), &grg_x),
        ("geofac_grg_y", (CELL, C2E2CO).into_dims(), &grg_y),
    ] {
        args.set_field(
            name,
            sparse_field(grid, nlev, dims, f.width(), f.as_slice()),
        );
    }
    Ok(())
}

/// Realistic random inputs: `vn_now` (and the `vn_new` kept outside its edges), the
/// tendencies `ddt_vn_apc_pc`, `ddt_vn_phy`, `vn_incr` and `inv_dual_edge_length` from
/// [`apply_divergence_damping_and_update_vn`](super::apply_divergence_damping_and_update_vn::inputs)
/// (winds ±(0.5..40) m/s of both signs); `vt`, `ddxn_z_full` from velocity advection's
/// [`compute_diagnostics_from_normal_wind`](crate::velocity_advection::inputs::compute_diagnostics_from_normal_wind::inputs);
/// `ikoffset`, `zdiff_gradp` from
/// [`pressure_gradient_offsets`](super::compute_hydrostatic_correction_term::pressure_gradient_offsets)
/// through P6's inputs (offsets in the lower half of the column). Then `rho_ref_me`,
/// `theta_ref_me` the density and θv profiles carried to the edges; `z_rth_pr_1`
/// ±(1e-4..0.03) kg/m³, `z_rth_pr_2` ±(0.01..5) K; `z_exner_ex_pr` ±(1e-5..3e-3),
/// `z_dexner_dz_c_1` ±(1e-8..1e-6) m⁻¹, `z_dexner_dz_c_2` ±(1e-12..1e-9) m⁻²;
/// `z_hydro_corr` from [`hydrostatic_correction`], `pg_exdist` from [`pg_exdist`];
/// `grf_tend_vn` ±(1e-5..1e-2) m/s²; the grid's fields ([`set_grid_fields`]);
/// `iau_wgt_dyn` in [0.1, 1) and a substep `dtime`.
///
/// # Panics
/// When the grid's interpolation fields cannot be computed on `grid`.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let donors = [
        apply_divergence_damping_and_update_vn(),
        compute_diagnostics_from_normal_wind(),
        compute_hydrostatic_correction_term(),
    ];
    take_from_donors(&mut args, program, &donors, (grid, nlev, seed));
    let mut rng = SplitMix64::new(seed ^ 0x5011_0007);
    let rho = density(&mut rng, grid, nlev, K);
    let theta_v = theta_v_profile(&mut rng, grid, nlev, K);
    let rho_ref_me = cells_to_edges(&mut rng, grid, nlev, &rho);
    let theta_ref_me = cells_to_edges(&mut rng, grid, nlev, &theta_v);
    args.set_field("reference_rho_at_edges_on_model_levels", rho_ref_me);
    args.set_field("reference_theta_at_edges_on_model_levels", theta_ref_me);
    let exner = "temporal_extrapolation_of_perturbed_exner";
    let ddz = "ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels";
    let d2dz2 = "d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels";
    for (name, dims, lo, hi) in [
        ("perturbed_rho_at_cells_on_model_levels", CELL, 1e-4, 0.03),
        (
            "perturbed_theta_v_at_cells_on_model_levels",
            CELL,
            0.01,
            5.0,
        ),
        (exner, CELL, 1e-5, 3e-3),
        (ddz, CELL, 1e-8, 1e-6),
        (d2dz2, CELL, 1e-12, 1e-9),
        ("grf_tend_vn", EDGE, 1e-5, 1e-2),
    ] {
        args.set_field(name, signed_field(&mut rng, grid, nlev, (dims, K), lo, hi));
    }
    args.set_field(
        "hydrostatic_correction_on_lowest_level",
        hydrostatic_correction(&mut rng, grid, nlev),
    );
    args.set_field("pg_exdist", pg_exdist(&mut rng, grid, nlev));
    set_grid_fields(&mut args, grid, nlev)
        .unwrap_or_else(|e| panic!("{}: grid fields on {}: {e}", program.name, grid.name));
    args.set_scalar("iau_wgt_dyn", rng.range_f64(0.1, 1.0));
    set_substep_dtime(&mut rng, &mut args);
    args
}
