//! Realistic random inputs of
//! [`vertically_implicit_solver_at_predictor_step`](crate::solve_nonhydro::stencils::vertically_implicit_solver_at_predictor_step),
//! and those of the implicit solver that the corrector's
//! ([`vertically_implicit_solver_at_corrector_step`](super::vertically_implicit_solver_at_corrector_step))
//! shares ([`set_solver_inputs`]).

use super::{
    cells_to_edges, density, exner_pressure, interpolation_weights, near, set_substep_dtime,
    virtual_potential_temperature,
};
use crate::diffusion::inputs::{geofac_div, signed_field};
use crate::velocity_advection::inputs::compute_advection_in_predictor_vertical_momentum::{
    column_field, ddqz_z_half, e_bln_c_s, layer_thicknesses,
};
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// ICON's `wgtfacq_c` (`Cell, K`): in the lowest three levels the quadratic surface
/// extrapolation weights (1.875, −1.25, 0.375 for equal layers; here perturbed by up to
/// ±0.2 and summing to one, `nlev − 1` holding the nearest-surface weight); above, where
/// ICON's field is zero and never read, values in [0.5, 1.5).
pub fn wgtfacq_c(rng: &mut SplitMix64, grid: &Grid, nlev: usize) -> Field {
    let nc = grid.size(Location::Cell);
    let mut data: Vec<f64> = (0..nc * nlev).map(|_| rng.range_f64(0.5, 1.5)).collect();
    for c in 0..nc {
        let q1 = 1.875 + rng.range_f64(-0.2, 0.2);
        let q2 = -1.25 + rng.range_f64(-0.2, 0.2);
        for (j, q) in [(1, q1), (2, q2), (3, 1.0 - q1 - q2)] {
            data[c + nc * (nlev - j)] = q;
        }
    }
    column_field(grid, nlev, (CELL, K), &data)
}

/// The mass flux `ρ·vn·Δz` through the edges (`Edge, K`, kg/(m·s)) and the θv flux (its
/// product with θv at the edges): `vn` a solid-body rotation, `u = U(k)·cos(lat)` with
/// `U` from 10 m/s at the lowest level to 30 m/s at the top, projected on the edge
/// normal, plus ±(0.05..0.5) m/s at random (a divergence of order 1e-5 s⁻¹); ρ, θv and
/// the layer thickness `dz` (cells, `(Cell, K)` fields) carried to the edges
/// ([`cells_to_edges`]).
pub fn edge_fluxes(
    rng: &mut SplitMix64,
    grid: &Grid,
    nlev: usize,
    (rho, theta_v, dz): (&Field, &Field, &Field),
) -> (Field, Field) {
    let ne = grid.size(Location::Edge);
    let geo = &grid.geometry;
    let rho_e = cells_to_edges(rng, grid, nlev, rho);
    let theta_e = cells_to_edges(rng, grid, nlev, theta_v);
    let dz_e = cells_to_edges(rng, grid, nlev, dz);
    let (rho_e, theta_e, dz_e) = (
        rho_e.as_f64().expect("f64"),
        theta_e.as_f64().expect("f64"),
        dz_e.as_f64().expect("f64"),
    );
    let vn = signed_field(rng, grid, nlev, (EDGE, K), 0.05, 0.5);
    let mass: Vec<f64> = vn
        .as_f64()
        .expect("f64")
        .iter()
        .enumerate()
        .map(|(i, noise)| {
            let (e, k) = (i % ne, i / ne);
            let height = (nlev - 1 - k) as f64 / (nlev.max(2) - 1) as f64;
            let u = (10.0 + 20.0 * height) * geo.edge_lat[e].cos();
            rho_e[i] * (u * geo.primal_normal_x[e] + noise) * dz_e[i]
        })
        .collect();
    let theta: Vec<f64> = mass.iter().zip(theta_e).map(|(m, t)| m * t).collect();
    (
        column_field(grid, nlev, (EDGE, K), &mass),
        column_field(grid, nlev, (EDGE, K), &theta),
    )
}

/// A `(location, levels)` field whose column `h` holds `a_h·shape(z)·(1 ± 10 %)` on each
/// level, `z` the height as a fraction of the column's (1 at the top interface, 0 at the
/// surface; full levels halfway between their interfaces) and `a_h` in ±(lo..hi) with a
/// random sign: a vertically smooth profile (vertical winds, the contravariant
/// correction, the buoyancy term) rather than independent values on each level.
pub fn column_profile(
    rng: &mut SplitMix64,
    grid: &Grid,
    nlev: usize,
    (location, levels): (Location, VKind),
    (lo, hi): (f64, f64),
    shape: fn(f64) -> f64,
) -> Field {
    let n = grid.size(location);
    let amplitude: Vec<f64> = (0..n)
        .map(|_| {
            let a = rng.range_f64(lo, hi);
            if rng.chance(0.5) {
                a
            } else {
                -a
            }
        })
        .collect();
    let offset = match levels {
        VKind::Full => 0.5,
        VKind::Half => 0.0,
    };
    Field::from_fn_f64(grid, nlev, (location, levels), |i| {
        let z = (nlev as f64 - (i / n) as f64 - offset) / nlev as f64;
        amplitude[i % n] * shape(z) * rng.range_f64(0.9, 1.1)
    })
}

/// Sets the implicit solver's inputs (both programs): layers 20–1000 m thick (thicker
/// aloft) giving `inv_ddqz_z_full`, `ddqz_z_half` and `wgtfac_c`; ρ, θv and Exner
/// profiles now ([`density`], [`virtual_potential_temperature`], [`exner_pressure`]) and
/// at the interfaces, the new state within ±0.5 % of now ([`near`]); `exner_pr` a
/// column's ±(1e-4..2e-3) plus ±3e-8 per metre of layer thickness on each level (vertical
/// perturbation pressure gradients of a few 1e-2 m/s²) and `exner_ref_mc = exner_now −
/// exner_pr`; `w_concorr_c` a column's ±(0.002..0.05) m/s times `(1 − z)²` (largest at
/// the surface) and `w_now` the same plus a contravariant part, a column's ±(0.01..1) m/s
/// times `z²·sin(π·z)` (so `w_now ≈ w_concorr_c` near the ground; vertical CFL numbers
/// well below one), `w_new` (overwritten) ±(0.01..0.5) m/s; `rho_ic` and `theta_v_ic`
/// profiles on every interface (ICON never writes `rho_ic` at the surface, so its zero
/// there cancels the surface term of `rho_new`; here the term is checked);
/// `z_th_ddz_exner_c` a column's ±(1e-7..2e-5) K/m (`cpd·z_th_ddz_exner_c` up
/// to 2e-2 m/s²), each ±10 % ([`column_profile`]); the advective tendencies of
/// `w` ±(1e-5..1e-3) m/s²; the edge fluxes of [`edge_fluxes`] with the grid's
/// `geofac_div`; `vwind_impl_wgt` in [0.6, 0.85) and `vwind_expl_wgt = 1 −
/// vwind_impl_wgt`; `ddt_exner_phy` ±(1e-10..1e-7) s⁻¹; IAU increments ±(1e-6..1e-4)
/// kg/m³ and ±(1e-7..1e-5); `rayleigh_damping_factor` in [0.3, 0.99) on every level
/// (ICON's is 1 below the sponge layer: here levels damped by mistake would show);
/// `exner_dynamical_increment` within ±1 % of `exner_now`; `dtime` 5–60 s and
/// `iau_wgt_dyn` in [0.1, 1).
pub fn set_solver_inputs(args: &mut Args, rng: &mut SplitMix64, grid: &Grid, nlev: usize) {
    let (full, half) = ((CELL, K), (CELL, KHALF));
    let nc = grid.size(Location::Cell);
    let dz = layer_thicknesses(rng, nc, nlev);
    let inv_dz: Vec<f64> = dz.iter().map(|d| 1.0 / d).collect();
    args.set_field("inv_ddqz_z_full", column_field(grid, nlev, full, &inv_dz));
    args.set_field(
        "ddqz_z_half",
        column_field(grid, nlev, half, &ddqz_z_half(&dz, nc, nlev)),
    );
    args.set_field("wgtfac_c", interpolation_weights(rng, grid, nlev, &dz));
    let rho = density(rng, grid, nlev, K);
    let theta_v = virtual_potential_temperature(rng, grid, nlev, K);
    let exner = exner_pressure(rng, grid, nlev);
    let dz_field = column_field(grid, nlev, full, &dz);
    let (mass, theta_flux) = edge_fluxes(rng, grid, nlev, (&rho, &theta_v, &dz_field));
    args.set_field("mass_flux_at_edges_on_model_levels", mass);
    args.set_field("theta_v_flux_at_edges_on_model_levels", theta_flux);
    args.set_field("geofac_div", geofac_div(grid, nlev));
    let base: Vec<f64> = (0..nc).map(|_| rng.range_f64(1e-4, 2e-3)).collect();
    let exner_pr: Vec<f64> = (0..nc * nlev)
        .map(|i| base[i % nc] + rng.range_f64(-3e-8, 3e-8) * dz[i])
        .collect();
    let now = exner.as_f64().expect("f64");
    let exner_ref: Vec<f64> = now.iter().zip(&exner_pr).map(|(e, p)| e - p).collect();
    let pr = "perturbed_exner_at_cells_on_model_levels";
    args.set_field(pr, column_field(grid, nlev, full, &exner_pr));
    let reference = "reference_exner_at_cells_on_model_levels";
    args.set_field(reference, column_field(grid, nlev, full, &exner_ref));
    args.set_field("exner_dynamical_increment", near(rng, &exner, 0.01));
    for (next, now) in [
        ("next_rho", &rho),
        ("next_exner", &exner),
        ("next_theta_v", &theta_v),
    ] {
        args.set_field(next, near(rng, now, 0.005));
    }
    args.set_field("current_rho", rho);
    args.set_field("current_theta_v", theta_v);
    args.set_field("current_exner", exner);
    args.set_field(
        "rho_at_cells_on_half_levels",
        density(rng, grid, nlev, KHALF),
    );
    args.set_field(
        "theta_v_at_cells_on_half_levels",
        virtual_potential_temperature(rng, grid, nlev, KHALF),
    );
    let w_concorr_c = column_profile(rng, grid, nlev, half, (0.002, 0.05), |z| {
        (1.0 - z) * (1.0 - z)
    });
    let contravariant = column_profile(rng, grid, nlev, half, (0.01, 1.0), |z| {
        z * z * (std::f64::consts::PI * z).sin()
    });
    let mut w_now = contravariant;
    let concorr = w_concorr_c.as_f64().expect("f64");
    for (w, c) in w_now.as_f64_mut().expect("f64").iter_mut().zip(concorr) {
        *w += c;
    }
    args.set_field("current_w", w_now);
    let name = "contravariant_correction_at_cells_on_half_levels";
    args.set_field(name, w_concorr_c);
    let next_w = signed_field(rng, grid, nlev, half, 0.01, 0.5);
    args.set_field("next_w", next_w);
    let buoy = column_profile(rng, grid, nlev, full, (1e-7, 2e-5), |_| 1.0);
    args.set_field("nonhydro_buoy_at_cells_on_half_levels", buoy);
    let mut signed = |args: &mut Args, name: &str, dims: (Location, VKind), lo, hi| {
        args.set_field(name, signed_field(rng, grid, nlev, dims, lo, hi));
    };
    for name in [
        "predictor_vertical_wind_advective_tendency",
        "corrector_vertical_wind_advective_tendency",
    ] {
        signed(args, name, half, 1e-5, 1e-3);
    }
    signed(
        args,
        "exner_tendency_due_to_slow_physics",
        full,
        1e-10,
        1e-7,
    );
    signed(args, "rho_iau_increment", full, 1e-6, 1e-4);
    signed(args, "exner_iau_increment", full, 1e-7, 1e-5);
    let impl_wgt: Vec<f64> = (0..nc).map(|_| rng.range_f64(0.6, 0.85)).collect();
    let expl_wgt: Vec<f64> = impl_wgt.iter().map(|w| 1.0 - w).collect();
    let cell = |data: &[f64]| Field::from_fn_f64(grid, nlev, CELL, |c| data[c]);
    args.set_field("exner_w_implicit_weight_parameter", cell(&impl_wgt));
    args.set_field("exner_w_explicit_weight_parameter", cell(&expl_wgt));
    let raylfac = Field::from_fn_f64(grid, nlev, K, |_| rng.range_f64(0.3, 0.99));
    args.set_field("rayleigh_damping_factor", raylfac);
    set_substep_dtime(rng, args);
    args.set_scalar("iau_wgt_dyn", rng.range_f64(0.1, 1.0));
}

/// Realistic random inputs: the solver's ([`set_solver_inputs`]); `z_w_concorr_me` an
/// edge column's ±(0.01..0.3) m/s times `(1 − z)²` ([`column_profile`]: `vn` up to 40 m/s
/// over slopes of a few 1e-2, decaying with height), [`e_bln_c_s`],
/// [`wgtfacq_c`]; `z_dwdz_dd` ±(1e-6..1e-4) s⁻¹.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0009);
    set_solver_inputs(&mut args, &mut rng, grid, nlev);
    let z_w_concorr_me = column_profile(&mut rng, grid, nlev, (EDGE, K), (0.01, 0.3), |z| {
        (1.0 - z) * (1.0 - z)
    });
    let name = "contravariant_correction_at_edges_on_model_levels";
    args.set_field(name, z_w_concorr_me);
    args.set_field("e_bln_c_s", e_bln_c_s(&mut rng, grid, nlev));
    args.set_field("wgtfacq_c", wgtfacq_c(&mut rng, grid, nlev));
    args.set_field(
        "dwdz_at_cells_on_model_levels",
        signed_field(&mut rng, grid, nlev, (CELL, K), 1e-6, 1e-4),
    );
    retain_declared(&mut args, program);
    args
}

/// Drops the fields of `args` that `program` does not declare (the shared generator sets
/// both programs' fields).
pub fn retain_declared(args: &mut Args, program: &ir::Program) {
    let extra: Vec<String> = args
        .fields()
        .map(|(name, _)| name.to_string())
        .filter(|name| !program.fields.iter().any(|d| &d.name == name))
        .collect();
    for name in extra {
        args.take_field(&name);
    }
}
