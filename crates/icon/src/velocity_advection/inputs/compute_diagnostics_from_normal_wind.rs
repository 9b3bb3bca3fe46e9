//! Realistic random inputs of
//! [`compute_diagnostics_from_normal_wind`](crate::velocity_advection::stencils::compute_diagnostics_from_normal_wind).

use crate::diffusion::inputs::{set_edge_fields, signed_field};
use foehn::dsl::prelude::*;
use foehn::dsl::IntoDims;
use foehn::ir;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, random_field, SplitMix64};

/// `w` on half levels: ±[0.01, 1) m/s, one point in ten ±[1, 10) m/s (convection).
pub fn vertical_wind(rng: &mut SplitMix64, grid: &Grid, nlev: usize, dims: impl IntoDims) -> Field {
    Field::from_fn(grid, nlev, dims, F64, |_| {
        let x = if rng.chance(0.1) {
            rng.range_f64(1.0, 10.0)
        } else {
            rng.range_f64(0.01, 1.0)
        };
        ir::Scalar::F64(if rng.chance(0.5) { x } else { -x })
    })
}

/// ICON's `c_intp` (`Vertex, V2C`): positive area weights of the vertex's cells summing
/// to one (≈ 1/6, 1/5 at pentagons), a non-zero value also in the skipped pentagon slot
/// (so a reference reading it would differ).
pub fn c_intp(rng: &mut SplitMix64, grid: &Grid, nlev: usize) -> Field {
    let nv = grid.size(Location::Vertex);
    let v2c = grid.topology.table(V2C);
    let mut data = vec![0.0; nv * 6];
    for v in 0..nv {
        let slots: Vec<usize> = (0..6).filter(|&j| v2c.neighbor(v, j).is_some()).collect();
        let raw: Vec<f64> = slots.iter().map(|_| rng.range_f64(0.8, 1.2)).collect();
        let sum: f64 = raw.iter().sum();
        for j in 0..6 {
            data[v + nv * j] = rng.range_f64(0.1, 0.3); // skipped slots: never read
        }
        for (&j, r) in slots.iter().zip(raw) {
            data[v + nv * j] = r / sum;
        }
    }
    Field::from_fn(grid, nlev, (VERTEX, V2C), F64, |i| {
        ir::Scalar::F64(data[i[0] + nv * i[1]])
    })
}

/// ICON's `wgtfacq_e` (`Edge, K`): in the lowest three levels the quadratic surface
/// extrapolation weights (1.875, −1.25, 0.375 for equal layers; here perturbed by up to
/// ±0.2 and summing to one, `nlev − 1` holding the nearest-surface weight); above, where
/// ICON's field is zero and never read, values in [0.5, 1.5).
pub fn wgtfacq_e(rng: &mut SplitMix64, grid: &Grid, nlev: usize) -> Field {
    let ne = grid.size(Location::Edge);
    let mut data: Vec<f64> = (0..ne * nlev).map(|_| rng.range_f64(0.5, 1.5)).collect();
    for e in 0..ne {
        let q1 = 1.875 + rng.range_f64(-0.2, 0.2);
        let q2 = -1.25 + rng.range_f64(-0.2, 0.2);
        let q3 = 1.0 - q1 - q2;
        for (j, q) in [(1, q1), (2, q2), (3, q3)] {
            data[e + ne * (nlev - j)] = q;
        }
    }
    Field::from_fn(grid, nlev, (EDGE, K), F64, |i| {
        ir::Scalar::F64(data[i[0] + ne * i[1]])
    })
}

/// Realistic random inputs: `vn` and the output winds ±[0.5, 40) m/s, `w` from
/// [`vertical_wind`]; `rbf_vec_coeff_e` of either sign, ±[0.05, 1); `wgtfac_e` in
/// [0.5, 1); terrain slopes `ddxn_z_full`, `ddxt_z_full` ±[1e-3, 5e-2); `wgtfacq_e` from
/// [`wgtfacq_e`], `c_intp` from [`c_intp`]; the grid's own inverse edge lengths and
/// tangent orientations. Every variant gets all of them.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x7e10_0001);
    let (ek, eh) = (vec![EDGE.into(), K.into()], vec![EDGE.into(), KHALF.into()]);
    for name in ["vn", "tangential_wind", "tangential_wind_on_half_levels"] {
        args.set_field(
            name,
            signed_field(&mut rng, grid, nlev, ek.clone(), 0.5, 40.0),
        );
    }
    args.set_field(
        "vn_on_half_levels",
        signed_field(&mut rng, grid, nlev, eh.clone(), 0.5, 40.0),
    );
    args.set_field(
        "horizontal_kinetic_energy_at_edges_on_model_levels",
        random_field(&mut rng, grid, nlev, ek.clone(), F64, 1.0, 1500.0),
    );
    args.set_field(
        "contravariant_correction_at_edges_on_model_levels",
        signed_field(&mut rng, grid, nlev, ek.clone(), 1e-3, 1.0),
    );
    args.set_field(
        "horizontal_advection_of_w_at_edges_on_half_levels",
        signed_field(&mut rng, grid, nlev, ek.clone(), 1e-6, 1e-3),
    );
    args.set_field("w", vertical_wind(&mut rng, grid, nlev, (CELL, KHALF)));
    args.set_field(
        "rbf_vec_coeff_e",
        signed_field(&mut rng, grid, nlev, (EDGE, E2C2E), 0.05, 1.0),
    );
    args.set_field(
        "wgtfac_e",
        random_field(&mut rng, grid, nlev, eh, F64, 0.5, 1.0),
    );
    for name in ["ddxn_z_full", "ddxt_z_full"] {
        args.set_field(
            name,
            signed_field(&mut rng, grid, nlev, ek.clone(), 1e-3, 5e-2),
        );
    }
    args.set_field("wgtfacq_e", wgtfacq_e(&mut rng, grid, nlev));
    args.set_field("c_intp", c_intp(&mut rng, grid, nlev));
    let geo = &grid.geometry;
    set_edge_fields(
        &mut args,
        grid,
        nlev,
        &[
            ("inv_dual_edge_length", &geo.inv_dual_edge_length[..]),
            ("inv_primal_edge_length", &geo.inv_primal_edge_length[..]),
            ("tangent_orientation", &geo.tangent_orientation[..]),
        ],
    );
    args
}
