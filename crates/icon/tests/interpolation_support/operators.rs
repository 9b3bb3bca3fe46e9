//! Errors of the discrete operators built from the interpolation fields on smooth
//! analytic fields (issue 13's convergence list): divergence, curl at vertices and the
//! cell→edge, cell→vertex and edge→cell interpolations. Each returns the
//! (mean, max) error relative to the largest exact value.

use super::*;

/// A smooth scalar on the unit sphere (spherical harmonics of degree 1 and 2 about a
/// tilted axis, so that no grid symmetry helps).
pub fn smooth(p: Vec3) -> f64 {
    let a = dot(axis(), p);
    1.0 + 0.5 * a + 0.75 * (3.0 * a * a - 1.0) + 0.3 * p[0] * p[1]
}

/// Largest |smooth| on the sphere bounds this; relative errors divide by it.
const SMOOTH_SCALE: f64 = 2.5;

/// (mean, max) of `|got − want| / scale` over `range`.
fn relative(
    range: std::ops::Range<usize>,
    scale: f64,
    mut pair: impl FnMut(usize) -> (f64, f64),
) -> (f64, f64) {
    let n = range.len() as f64;
    let (sum, max) = range
        .map(|i| {
            let (got, want) = pair(i);
            (got - want).abs() / scale
        })
        .fold((0.0, 0.0f64), |(s, m), e| (s + e, m.max(e)));
    (sum / n, max)
}

/// The divergence (`geofac_div`) of the gradient of `a·p` (normal wind `a·n/R`),
/// against the exact `−2 a·p/R²`.
pub fn divergence_error(grid: &Grid, f: &InterpolationFields) -> (f64, f64) {
    let r = EARTH_RADIUS;
    let n = &grid.geometry.primal_normal_cartesian;
    let vn: Vec<f64> = (0..grid.topology.n_edges())
        .map(|e| dot(axis(), n[e]) / r)
        .collect();
    let lb2 = start(grid, Location::Cell, Zone::LateralBoundary(2));
    relative(lb2..grid.topology.n_cells(), 2.0 / (r * r), |c| {
        let exact = -2.0 * dot(axis(), grid.points.cell[c]) / (r * r);
        (apply(grid, C::C2E, &f.geofac_div, &vn, c), exact)
    })
}

/// The curl at vertices (`geofac_rot`) of the solid-body rotation (speed 1 m/s at the
/// equator of the axis), against the exact vorticity `2 a·p/R`.
pub fn curl_error(grid: &Grid, f: &InterpolationFields) -> (f64, f64) {
    let r = EARTH_RADIUS;
    let vn = solid_body_vn(grid);
    let lb2 = start(grid, Location::Vertex, Zone::LateralBoundary(2));
    relative(lb2..grid.topology.n_vertices(), 2.0 / r, |v| {
        let exact = 2.0 * dot(axis(), grid.points.vertex[v]) / r;
        (apply(grid, C::V2E, &f.geofac_rot, &vn, v), exact)
    })
}

/// [`smooth`] from cells to edges with `c_lin_e`.
pub fn cell_to_edge_error(grid: &Grid, f: &InterpolationFields) -> (f64, f64) {
    let psi: Vec<f64> = grid.points.cell.iter().map(|&p| smooth(p)).collect();
    let lb2 = start(grid, Location::Edge, Zone::LateralBoundary(2));
    relative(lb2..grid.topology.n_edges(), SMOOTH_SCALE, |e| {
        let got = apply(grid, C::E2C, &f.c_lin_e, &psi, e);
        (got, smooth(grid.points.edge[e]))
    })
}

/// [`smooth`] from cells to vertices with `cells_aw_verts`.
pub fn cell_to_vertex_error(grid: &Grid, f: &InterpolationFields) -> (f64, f64) {
    let psi: Vec<f64> = grid.points.cell.iter().map(|&p| smooth(p)).collect();
    let lb2 = start(grid, Location::Vertex, Zone::LateralBoundary(2));
    relative(lb2..grid.topology.n_vertices(), SMOOTH_SCALE, |v| {
        let got = apply(grid, C::V2C, &f.cells_aw_verts, &psi, v);
        (got, smooth(grid.points.vertex[v]))
    })
}

/// [`smooth`] from edges to cell centres with `e_bln_c_s`.
pub fn edge_to_cell_error(grid: &Grid, f: &InterpolationFields) -> (f64, f64) {
    let psi: Vec<f64> = grid.points.edge.iter().map(|&p| smooth(p)).collect();
    let lb2 = start(grid, Location::Cell, Zone::LateralBoundary(2));
    relative(lb2..grid.topology.n_cells(), SMOOTH_SCALE, |c| {
        let got = apply(grid, C::C2E, &f.e_bln_c_s, &psi, c);
        (got, smooth(grid.points.cell[c]))
    })
}
