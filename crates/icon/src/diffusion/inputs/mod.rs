//! Realistic random inputs of the diffusion programs, one module per program of
//! [`stencils`](crate::diffusion::stencils): each `inputs` starts from
//! [`random_args`](foehn_testkit::random_args) and replaces the fields and scalars by
//! values of ICON's magnitudes, the grid's own geometry where the program reads it. The
//! helpers below are shared by several programs.

pub mod apply_diffusion_to_theta_and_exner;
pub mod apply_diffusion_to_vn;
pub mod apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence;
pub mod calculate_diagnostic_quantities_for_turbulence;
pub mod calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools;
pub mod calculate_nabla2_and_smag_coefficients_for_vn;
pub mod mo_intp_rbf_rbf_vec_interpol_vertex;
pub mod scale_k;
pub mod state;

use foehn::dsl::prelude::*;
use foehn::dsl::IntoDims;
use foehn::ir::Scalar;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::SplitMix64;

/// A field of values uniform in `±[lo, hi)`, each with a random sign (never zero).
pub fn signed_field(
    rng: &mut SplitMix64,
    grid: &Grid,
    nlev: usize,
    dims: impl IntoDims,
    lo: f64,
    hi: f64,
) -> Field {
    Field::from_fn(grid, nlev, dims, F64, |_| {
        let x = rng.range_f64(lo, hi);
        Scalar::F64(if rng.chance(0.5) { x } else { -x })
    })
}

/// An `Edge` field from a grid geometry array indexed by edge.
pub fn edge_field(grid: &Grid, nlev: usize, data: &[f64]) -> Field {
    Field::from_fn_f64(grid, nlev, EDGE, |e| data[e])
}

/// A `Cell` field from a grid geometry array indexed by cell.
pub fn cell_field(grid: &Grid, nlev: usize, data: &[f64]) -> Field {
    Field::from_fn_f64(grid, nlev, CELL, |c| data[c])
}

/// Sets each `(name, data)` of `fields` in `args` as an [`edge_field`].
pub fn set_edge_fields(args: &mut Args, grid: &Grid, nlev: usize, fields: &[(&str, &[f64])]) {
    for (name, data) in fields {
        args.set_field(name, edge_field(grid, nlev, data));
    }
}

/// Sets each `(name, data)` of `fields` in `args` as a [`diamond_field`].
pub fn set_diamond_fields(args: &mut Args, grid: &Grid, nlev: usize, fields: &[(&str, &[f64])]) {
    for (name, data) in fields {
        args.set_field(name, diamond_field(grid, nlev, data));
    }
}

/// An `(Edge, E2C2V)` field from a grid geometry array stored edge-major (`e·4 + i`, the
/// edge's four diamond vertices).
pub fn diamond_field(grid: &Grid, nlev: usize, data: &[f64]) -> Field {
    Field::from_fn(grid, nlev, (EDGE, E2C2V), F64, |i| {
        Scalar::F64(data[4 * i[0] + i[1]])
    })
}

/// ICON's divergence weights `geofac_div(c, j) = primal edge length · orientation / cell
/// area` of the cell's `j`-th edge (`C2E`), from the grid's geometry.
pub fn geofac_div(grid: &Grid, nlev: usize) -> Field {
    let g = &grid.geometry;
    let c2e = grid.topology.table(C2E);
    Field::from_fn(grid, nlev, (CELL, C2E), F64, |i| {
        let (c, j) = (i[0], i[1]);
        let length = c2e.neighbor(c, j).map_or(0.0, |e| g.primal_edge_length[e]);
        Scalar::F64(length * g.cell_edge_orientation[3 * c + j] / g.cell_area[c])
    })
}
