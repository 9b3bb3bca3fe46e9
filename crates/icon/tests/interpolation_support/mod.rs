//! Helpers of the interpolation-field tests: the test grids with their fields (computed
//! once), solid-body rotation, neighbour sums and random data.
#![allow(dead_code, clippy::needless_range_loop)]

use foehn_grid::{Connectivity as C, Grid, Location, Zone, EARTH_RADIUS};
use foehn_icon::fields::interpolation::{InterpolationConfig, InterpolationFields, SparseField};
use foehn_testkit::grids;
use foehn_testkit::SplitMix64;
use std::sync::OnceLock;

mod operators;
#[allow(unused_imports)] // not every test binary uses them
pub use operators::*;

/// ICON4Py's names of the interpolation fields, in the order of its factory.
pub const INTERPOLATION_NAMES: [&str; 23] = [
    "nudging_coefficients_for_edges",
    "geometrical_factor_for_divergence",
    "geometrical_factor_for_curl",
    "geometrical_factor_for_nabla_2_scalar",
    "geometrical_factor_for_gradient_of_divergence",
    "rbf_scale_cell",
    "rbf_scale_edge",
    "rbf_scale_vertex",
    "lsq_interpolation_coefficient",
    "bilinear_cell_average_weight",
    "bilinear_edge_cell_weight",
    "pos_on_tplane_e_x",
    "pos_on_tplane_e_y",
    "interpolation_coefficient_from_cell_to_edge",
    "geometrical_factor_for_green_gauss_gradient_x",
    "geometrical_factor_for_green_gauss_gradient_y",
    "e_flux_average",
    "cell_to_vertex_interpolation_factor_by_area_weighting",
    "rbf_interpolation_coefficient_cell_1",
    "rbf_interpolation_coefficient_cell_2",
    "rbf_interpolation_coefficient_edge",
    "rbf_interpolation_coefficient_vertex_1",
    "rbf_interpolation_coefficient_vertex_2",
];

pub type Vec3 = [f64; 3];

pub fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The rotation axis of the test flow: tilted, so that no grid symmetry helps.
pub fn axis() -> Vec3 {
    let a = [0.3, -0.2, 1.0];
    let n = dot(a, a).sqrt();
    a.map(|x| x / n)
}

/// Solid-body rotation about [`axis`] at 1 (unit-sphere speed) at a unit vector `p`.
pub fn solid_body(p: Vec3) -> Vec3 {
    cross(axis(), p)
}

/// Local east and north unit vectors at a unit vector `p`.
pub fn east_north(p: Vec3) -> (Vec3, Vec3) {
    let h = (p[0] * p[0] + p[1] * p[1]).sqrt();
    let east = [-p[1] / h, p[0] / h, 0.0];
    (east, cross(p, east))
}

pub fn fields(grid: &Grid) -> InterpolationFields {
    InterpolationFields::compute(grid, &InterpolationConfig::default()).expect("fields")
}

pub fn global() -> &'static (Grid, InterpolationFields) {
    static F: OnceLock<(Grid, InterpolationFields)> = OnceLock::new();
    F.get_or_init(|| {
        let g = grids::global().clone();
        let f = fields(&g);
        (g, f)
    })
}

pub fn limited_area() -> &'static (Grid, InterpolationFields) {
    static F: OnceLock<(Grid, InterpolationFields)> = OnceLock::new();
    F.get_or_init(|| {
        let g = grids::limited_area().clone();
        let f = fields(&g);
        (g, f)
    })
}

pub fn r2b3() -> &'static (Grid, InterpolationFields) {
    static F: OnceLock<(Grid, InterpolationFields)> = OnceLock::new();
    F.get_or_init(|| {
        let g = Grid::icosahedral(2, 3, EARTH_RADIUS).expect("r2b3");
        let f = fields(&g);
        (g, f)
    })
}

pub fn r2b4() -> &'static (Grid, InterpolationFields) {
    static F: OnceLock<(Grid, InterpolationFields)> = OnceLock::new();
    F.get_or_init(|| {
        let g = Grid::icosahedral(2, 4, EARTH_RADIUS).expect("r2b4");
        let f = fields(&g);
        (g, f)
    })
}

pub fn both() -> [&'static (Grid, InterpolationFields); 2] {
    [global(), limited_area()]
}

pub fn start(grid: &Grid, loc: Location, zone: Zone) -> usize {
    grid.zones.of(loc).start(zone).unwrap()
}

/// Applies a sparse field to point values through a connectivity (missing slots skipped).
pub fn apply(grid: &Grid, conn: C, w: &SparseField, x: &[f64], i: usize) -> f64 {
    let t = grid.topology.table(conn);
    (0..t.width())
        .filter_map(|j| t.neighbor(i, j).map(|n| w.get(i, j) * x[n]))
        .sum()
}

pub fn fmt(x: &[f64]) -> String {
    x.iter()
        .map(|v| format!("{v:.3e}"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn random(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| rng.range_f64(-1.0, 1.0)).collect()
}

/// Largest |Σ weights − 1| of `cells_aw_verts` over the computed vertices.
pub fn c_intp_sum_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let lb2 = start(grid, Location::Vertex, Zone::LateralBoundary(2));
    (lb2..grid.topology.n_vertices())
        .map(|v| (f.cells_aw_verts.row(v).iter().sum::<f64>() - 1.0).abs())
        .fold(0.0, f64::max)
}

/// The normal gradient of a cell scalar, `(ψ(c1) − ψ(c0)) / ℓ*`, at edges with two cells.
pub fn normal_gradient(grid: &Grid, psi: &[f64]) -> Vec<f64> {
    let e2c = grid.topology.table(C::E2C);
    (0..grid.topology.n_edges())
        .map(|e| match (e2c.neighbor(e, 0), e2c.neighbor(e, 1)) {
            (Some(a), Some(b)) => (psi[b] - psi[a]) * grid.geometry.inv_dual_edge_length[e],
            _ => 0.0,
        })
        .collect()
}

/// Mean and largest error of the discrete Laplacian of ψ = a·p (∇²ψ = −2ψ/R²),
/// relative to 2/R².
pub fn laplacian_error(grid: &Grid, f: &InterpolationFields) -> (f64, f64) {
    let psi: Vec<f64> = grid.points.cell.iter().map(|&p| dot(axis(), p)).collect();
    let r2 = EARTH_RADIUS * EARTH_RADIUS;
    let errors: Vec<f64> = (0..grid.topology.n_cells())
        .map(|c| {
            let lap = apply(grid, C::C2E2CO, &f.geofac_n2s, &psi, c);
            (lap + 2.0 * psi[c] / r2).abs() * r2 / 2.0
        })
        .collect();
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    (mean, errors.iter().copied().fold(0.0, f64::max))
}

/// Largest error of the Green–Gauss gradient of ψ = a·p relative to |∇ψ|max = 1/R.
pub fn gradient_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let psi: Vec<f64> = grid.points.cell.iter().map(|&p| dot(axis(), p)).collect();
    let a = axis();
    (0..grid.topology.n_cells())
        .map(|c| {
            let p = grid.points.cell[c];
            let (east, north) = east_north(p);
            let gx = apply(grid, C::C2E2CO, &f.geofac_grg_x, &psi, c);
            let gy = apply(grid, C::C2E2CO, &f.geofac_grg_y, &psi, c);
            let (ex, ey) = (dot(a, east) / EARTH_RADIUS, dot(a, north) / EARTH_RADIUS);
            (gx - ex).hypot(gy - ey) * EARTH_RADIUS
        })
        .fold(0.0, f64::max)
}

/// Normal wind of the solid-body rotation at every edge.
pub fn solid_body_vn(grid: &Grid) -> Vec<f64> {
    (0..grid.topology.n_edges())
        .map(|e| {
            dot(
                solid_body(grid.points.edge[e]),
                grid.geometry.primal_normal_cartesian[e],
            )
        })
        .collect()
}

/// Largest error of the RBF tangential wind at edges (speeds ≤ 1).
pub fn rbf_edge_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let vn = solid_body_vn(grid);
    let lb2 = start(grid, Location::Edge, Zone::LateralBoundary(2));
    (lb2..grid.topology.n_edges())
        .map(|e| {
            let exact = dot(
                solid_body(grid.points.edge[e]),
                grid.geometry.dual_normal_cartesian[e],
            );
            (apply(grid, C::E2C2E, &f.rbf_vec_coeff_e, &vn, e) - exact).abs()
        })
        .fold(0.0, f64::max)
}

/// Largest error of an RBF (u, v) reconstruction at `points` through `conn`.
pub fn rbf_uv_error(
    grid: &Grid,
    conn: C,
    points: &[Vec3],
    c1: &SparseField,
    c2: &SparseField,
    from: usize,
) -> f64 {
    let vn = solid_body_vn(grid);
    (from..points.len())
        .map(|i| {
            let p = points[i];
            let (east, north) = east_north(p);
            let v = solid_body(p);
            let u = apply(grid, conn, c1, &vn, i);
            let w = apply(grid, conn, c2, &vn, i);
            (u - dot(v, east)).hypot(w - dot(v, north))
        })
        .fold(0.0, f64::max)
}

pub fn rbf_vertex_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let from = start(grid, Location::Vertex, Zone::LateralBoundary(2));
    let (c1, c2) = (&f.rbf_vec_coeff_v1, &f.rbf_vec_coeff_v2);
    rbf_uv_error(grid, C::V2E, &grid.points.vertex, c1, c2, from)
}

pub fn rbf_cell_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let from = start(grid, Location::Cell, Zone::LateralBoundary(2));
    let (c1, c2) = (&f.rbf_vec_coeff_c1, &f.rbf_vec_coeff_c2);
    rbf_uv_error(grid, C::C2E2C2E, &grid.points.cell, c1, c2, from)
}

/// Largest |e_flx_avg(vn) − vn| of the solid-body rotation over the normalised edges.
pub fn flux_average_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let vn = solid_body_vn(grid);
    let lb5 = start(grid, Location::Edge, Zone::LateralBoundary(5));
    (lb5..grid.topology.n_edges())
        .map(|e| (apply(grid, C::E2C2EO, &f.e_flx_avg, &vn, e) - vn[e]).abs())
        .fold(0.0, f64::max)
}

/// Positions of a cell's three neighbours in its tangent plane (gnomonic, m).
pub fn neighbour_offsets(grid: &Grid, c: usize) -> [(f64, f64); 3] {
    let c2e2c = grid.topology.table(C::C2E2C);
    let p = grid.points.cell[c];
    let (east, north) = east_north(p);
    [0, 1, 2].map(|j| {
        let q = grid.points.cell[c2e2c.get(c, j) as usize];
        let s = EARTH_RADIUS / dot(p, q);
        (dot(q, east) * s, dot(q, north) * s)
    })
}

/// Largest error of the least-squares gradient of ψ = a·p relative to 1/R.
pub fn lsq_gradient_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let c2e2c = grid.topology.table(C::C2E2C);
    let lb2 = start(grid, Location::Cell, Zone::LateralBoundary(2));
    let psi: Vec<f64> = grid.points.cell.iter().map(|&p| dot(axis(), p)).collect();
    (lb2..grid.topology.n_cells())
        .map(|c| {
            let row = f.lsq_pseudoinv.row(c);
            let diff = [0, 1, 2].map(|j| psi[c2e2c.get(c, j) as usize] - psi[c]);
            let gx: f64 = (0..3).map(|j| row[j] * diff[j]).sum();
            let gy: f64 = (0..3).map(|j| row[3 + j] * diff[j]).sum();
            let (east, north) = east_north(grid.points.cell[c]);
            let (ex, ey) = (dot(axis(), east), dot(axis(), north));
            (gx * EARTH_RADIUS - ex).hypot(gy * EARTH_RADIUS - ey)
        })
        .fold(0.0, f64::max)
}
