//! Radial-basis-function vector reconstruction (ICON4Py `rbf_interpolation.py`, ICON's
//! `mo_intp_rbf_coeffs`): the wind component along a target direction `z` at a point
//! `x` from the normal winds `v·n_j` of a stencil of edges `x_j`,
//! `v·z ≈ Σ_j c_j (v·n_j)`, with the vector kernel `φ(|x_i − x_j|) n_i·n_j`:
//!
//! `Σ_j φ(|x_i − x_j|) (n_i·n_j) c_j = φ(|x − x_i|) (z·n_i)`,
//!
//! then `c` divided by `Σ_j (z·n_j) c_j`, so that a uniform field along `z` is exact.
//!
//! - `rbf_vec_coeff_e` (Edge, E2C2E, inverse multiquadric): the tangential wind of an
//!   edge (`z` = its tangent) from the four edges of its diamond;
//! - `rbf_vec_coeff_v1/v2` (Vertex, V2E, Gaussian): the eastward and northward wind at
//!   a vertex from its 6 (5) edges;
//! - `rbf_vec_coeff_c1/c2` (Cell, C2E2C2E, Gaussian): the same at a cell centre from the
//!   9 edges of its three neighbours.
//!
//! On the sphere distances are great-circle arcs of the unit sphere (radians) and the
//! default scales depend on the resolution as in ICON; on the torus distances are in
//! metres (nearest periodic image) and the scale is the mean dual edge length. Each
//! point's system is solved on its own by LU with partial pivoting (`nalgebra`), from
//! the second boundary row to the end of the local points; rows before stay 0.

use super::weights::require_closed_rings;
use super::{require_neighbours, zone_end, zone_start, InterpolationError, SparseField};
use foehn_grid::{Connectivity as C, Grid, GridKind, Location, Space, Zone};
use nalgebra::{DMatrix, SMatrix};
use rayon::prelude::*;

type Vec3 = [f64; 3];

/// An RBF kernel (ICON's `rbf_vec_kern_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RbfKernel {
    /// `exp(−(d/s)²)` (ICON 1).
    Gaussian,
    /// `1/√(1 + (d/s)²)` (ICON 3).
    InverseMultiquadric,
}

impl RbfKernel {
    /// ICON's number of the kernel.
    pub fn icon_number(self) -> i32 {
        match self {
            RbfKernel::Gaussian => 1,
            RbfKernel::InverseMultiquadric => 3,
        }
    }

    /// The kernel of ICON's number (1 or 3).
    pub fn from_icon_number(n: i32) -> Option<RbfKernel> {
        match n {
            1 => Some(RbfKernel::Gaussian),
            3 => Some(RbfKernel::InverseMultiquadric),
            _ => None,
        }
    }

    /// The kernel's value at distance `d` with scale `s`.
    #[inline]
    pub fn eval(self, d: f64, s: f64) -> f64 {
        let r = d / s;
        match self {
            RbfKernel::Gaussian => (-(r * r)).exp(),
            RbfKernel::InverseMultiquadric => 1.0 / (1.0 + r * r).sqrt(),
        }
    }
}

/// The default shape parameters of the three reconstructions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RbfScales {
    /// `rbf_vec_scale_c`.
    pub cell: f64,
    /// `rbf_vec_scale_e`.
    pub edge: f64,
    /// `rbf_vec_scale_v`.
    pub vertex: f64,
}

/// ICON's resolution-dependent scale: 0.5 (radians) on coarse grids, shrinking below
/// `threshold` km of characteristic length.
fn icon_scale(resol_km: f64, threshold: f64, c1: f64, c2: f64, c3: f64) -> f64 {
    let s = if resol_km < threshold {
        0.5 / (1.0 + c1 * (threshold / resol_km).ln().powf(c2))
    } else {
        0.5
    };
    if resol_km <= 0.125 {
        s * (resol_km / 0.125).powf(c3)
    } else {
        s
    }
}

/// The default scales: on the sphere from the characteristic length √(mean cell area)
/// of the global grid (the parent's for a limited area, as ICON4Py's analytical means),
/// on the torus the mean dual edge length.
pub fn default_scales(grid: &Grid) -> RbfScales {
    match grid.space {
        Space::Sphere { radius } => {
            let n_cells = match grid.kind {
                GridKind::Icosahedral { root, bisections }
                | GridKind::LimitedArea {
                    root, bisections, ..
                } => 20.0 * f64::from(root).powi(2) * 4f64.powi(bisections as i32),
                GridKind::Torus(_) => grid.topology.n_cells() as f64,
            };
            let mean_area = 4.0 * std::f64::consts::PI * radius * radius / n_cells;
            let resol = mean_area.sqrt() / 1000.0;
            RbfScales {
                cell: icon_scale(resol, 2.5, 1.8, 3.75, 0.9),
                edge: icon_scale(resol, 2.0, 0.4, 2.0, 0.325),
                vertex: icon_scale(resol, 2.0, 1.8, 3.0, 0.96),
            }
        }
        Space::Torus { .. } => {
            let edge = grid
                .geometry
                .primal_edge_length
                .first()
                .copied()
                .unwrap_or(0.0);
            let dual = edge / 3f64.sqrt();
            RbfScales {
                cell: dual,
                edge: dual,
                vertex: dual,
            }
        }
    }
}

#[inline]
fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Distance as the kernels see it: unit-sphere arc (radians) or metres on the torus.
#[inline]
fn distance(space: &Space, a: Vec3, b: Vec3) -> f64 {
    match space {
        Space::Sphere { .. } => {
            let c = [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ];
            dot(c, c).sqrt().atan2(dot(a, b))
        }
        Space::Torus { .. } => space.distance(a, b),
    }
}

/// The Cartesian vector of eastward/northward components `(u, v)` at `(lat, lon)`.
fn cartesian(space: &Space, lat: f64, lon: f64, u: f64, v: f64) -> Vec3 {
    match space {
        Space::Sphere { .. } => {
            let (sl, cl) = lat.sin_cos();
            let (so, co) = lon.sin_cos();
            [-u * so - v * sl * co, u * co - v * sl * so, cl * v]
        }
        Space::Torus { .. } => [u, v, 0.0],
    }
}

/// The most neighbours a reconstruction uses (C2E2C2E).
const MAX_STENCIL: usize = 9;

/// One point's system: the kernel matrix `Σ_j φ(|x_i − x_j|) (n_i·n_j)` of its `m`
/// edges (row-major `[m, m]` in the first `m²` entries) and the right-hand sides of the
/// `K` directions (`[m, K]`), solved by LU with partial pivoting; `None` if singular.
/// The size is fixed where a stencil is complete, so that nothing is allocated; the
/// factorisation is the same either way (the same operations in the same order).
fn lu_solve<const K: usize>(
    m: usize,
    mat: &[f64; MAX_STENCIL * MAX_STENCIL],
    rhs: &[[f64; K]; MAX_STENCIL],
) -> Option<[[f64; K]; MAX_STENCIL]> {
    // Complete stencils of `$m` edges on the stack (a macro: nalgebra's LU needs the
    // size as a literal).
    macro_rules! fixed {
        ($m:literal) => {{
            let a = SMatrix::<f64, $m, $m>::from_fn(|i, j| mat[i * $m + j]);
            let b = SMatrix::<f64, $m, K>::from_fn(|i, k| rhs[i][k]);
            let x = a.lu().solve(&b)?;
            let mut out = [[0.0; K]; MAX_STENCIL];
            for (i, row) in out.iter_mut().enumerate().take($m) {
                for (k, v) in row.iter_mut().enumerate() {
                    *v = x[(i, k)];
                }
            }
            Some(out)
        }};
    }
    match m {
        4 => fixed!(4),
        5 => fixed!(5),
        6 => fixed!(6),
        9 => fixed!(9),
        _ => {
            let a = DMatrix::<f64>::from_fn(m, m, |i, j| mat[i * m + j]);
            let b = DMatrix::<f64>::from_fn(m, K, |i, k| rhs[i][k]);
            let x = a.lu().solve(&b)?;
            let mut out = [[0.0; K]; MAX_STENCIL];
            for (i, row) in out.iter_mut().enumerate().take(m) {
                for (k, v) in row.iter_mut().enumerate() {
                    *v = x[(i, k)];
                }
            }
            Some(out)
        }
    }
}

/// Solves the RBF system of every point in `[start, end)` of a connectivity to `edges`
/// for `K` target directions; slots of missing neighbours stay 0.
#[allow(clippy::too_many_arguments)]
fn solve<const K: usize>(
    grid: &Grid,
    conn: C,
    (start, end): (usize, usize),
    centre: &[Vec3],
    targets: impl Fn(usize) -> [Vec3; K] + Sync,
    kernel: RbfKernel,
    scale: f64,
    field: &'static str,
) -> Result<[SparseField; K], InterpolationError> {
    let table = grid.topology.table(conn);
    let w = table.width();
    let n = table.rows();
    let space = &grid.space;
    let pos = &grid.points.edge;
    let normal = &grid.geometry.primal_normal_cartesian;
    assert!(
        w <= MAX_STENCIL,
        "RBF stencils have at most {MAX_STENCIL} edges"
    );
    // Each point's coefficients, `[K][w]`, in one allocation for all points.
    let mut coeffs = vec![0.0; (end - start) * K * w];
    let err = coeffs
        .par_chunks_mut((K * w).max(1))
        .enumerate()
        .filter_map(|(p, out)| {
            let i = start + p;
            let singular = InterpolationError::SingularSystem { field, index: i };
            let mut slots = [0usize; MAX_STENCIL];
            let mut edges = [0usize; MAX_STENCIL];
            let mut m = 0;
            for j in 0..w {
                if let Some(e) = table.neighbor(i, j) {
                    (slots[m], edges[m]) = (j, e);
                    m += 1;
                }
            }
            if m == 0 {
                return Some((i, singular));
            }
            let mut mat = [0.0; MAX_STENCIL * MAX_STENCIL];
            for a in 0..m {
                for b in a..m {
                    let (ea, eb) = (edges[a], edges[b]);
                    let d = distance(space, pos[ea], pos[eb]);
                    let v = dot(normal[ea], normal[eb]) * kernel.eval(d, scale);
                    mat[a * m + b] = v;
                    mat[b * m + a] = v;
                }
            }
            let z = targets(i);
            let mut rhs = [[0.0; K]; MAX_STENCIL];
            let mut proj = [[0.0; MAX_STENCIL]; K];
            for (a, &e) in edges[..m].iter().enumerate() {
                let phi = kernel.eval(distance(space, centre[i], pos[e]), scale);
                for k in 0..K {
                    proj[k][a] = dot(z[k], normal[e]);
                    rhs[a][k] = phi * proj[k][a];
                }
            }
            let Some(sol) = lu_solve(m, &mat, &rhs) else {
                return Some((i, singular));
            };
            for k in 0..K {
                let norm: f64 = (0..m).map(|a| proj[k][a] * sol[a][k]).sum();
                if !(norm.is_finite() && norm != 0.0) {
                    return Some((i, singular));
                }
                for (a, &j) in slots[..m].iter().enumerate() {
                    out[k * w + j] = sol[a][k] / norm;
                }
            }
            None
        })
        .min_by_key(|(i, _)| *i);
    if let Some((_, e)) = err {
        return Err(e);
    }
    let mut fields: [SparseField; K] = std::array::from_fn(|_| SparseField::zeros(n, w));
    for (p, point) in coeffs.chunks_exact((K * w).max(1)).enumerate() {
        for (k, field) in fields.iter_mut().enumerate() {
            field.as_mut_slice()[(start + p) * w..][..w].copy_from_slice(&point[k * w..][..w]);
        }
    }
    Ok(fields)
}

/// `[start of the second boundary row, end of the local points)` of a location.
fn domain(
    grid: &Grid,
    loc: Location,
    field: &'static str,
) -> Result<(usize, usize), InterpolationError> {
    let start = zone_start(grid, loc, Zone::LateralBoundary(2), field)?;
    let end = zone_end(grid, loc, Zone::Local, field)?;
    Ok((start, end.max(start)))
}

/// `rbf_vec_coeff_e` (Edge, E2C2E): the tangential wind from the diamond's normal winds.
pub fn edge_coefficients(
    grid: &Grid,
    kernel: RbfKernel,
    scale: f64,
) -> Result<SparseField, InterpolationError> {
    let field = "rbf_vec_coeff_e";
    let range = domain(grid, Location::Edge, field)?;
    require_neighbours(grid, C::E2C2E, range, 4, field, Zone::LateralBoundary(2))?;
    let g = &grid.geometry;
    let [c] = solve(
        grid,
        C::E2C2E,
        range,
        &grid.points.edge,
        |e| {
            [cartesian(
                &grid.space,
                g.edge_lat[e],
                g.edge_lon[e],
                g.dual_normal_x[e],
                g.dual_normal_y[e],
            )]
        },
        kernel,
        scale,
        field,
    )?;
    Ok(c)
}

/// `rbf_vec_coeff_v1`, `rbf_vec_coeff_v2` (Vertex, V2E): eastward and northward wind.
pub fn vertex_coefficients(
    grid: &Grid,
    kernel: RbfKernel,
    scale: f64,
) -> Result<[SparseField; 2], InterpolationError> {
    let field = "rbf_vec_coeff_v";
    let range = domain(grid, Location::Vertex, field)?;
    require_closed_rings(grid, range, field, Zone::LateralBoundary(2))?;
    let g = &grid.geometry;
    let s = &grid.space;
    solve(
        grid,
        C::V2E,
        range,
        &grid.points.vertex,
        |v| {
            let (lat, lon) = (g.vertex_lat[v], g.vertex_lon[v]);
            [
                cartesian(s, lat, lon, 1.0, 0.0),
                cartesian(s, lat, lon, 0.0, 1.0),
            ]
        },
        kernel,
        scale,
        field,
    )
}

/// `rbf_vec_coeff_c1`, `rbf_vec_coeff_c2` (Cell, C2E2C2E): eastward and northward wind.
pub fn cell_coefficients(
    grid: &Grid,
    kernel: RbfKernel,
    scale: f64,
) -> Result<[SparseField; 2], InterpolationError> {
    let field = "rbf_vec_coeff_c";
    let range = domain(grid, Location::Cell, field)?;
    require_neighbours(grid, C::C2E2C2E, range, 9, field, Zone::LateralBoundary(2))?;
    let g = &grid.geometry;
    let s = &grid.space;
    solve(
        grid,
        C::C2E2C2E,
        range,
        &grid.points.cell,
        |c| {
            let (lat, lon) = (g.cell_lat[c], g.cell_lon[c]);
            [
                cartesian(s, lat, lon, 1.0, 0.0),
                cartesian(s, lat, lon, 0.0, 1.0),
            ]
        },
        kernel,
        scale,
        field,
    )
}
