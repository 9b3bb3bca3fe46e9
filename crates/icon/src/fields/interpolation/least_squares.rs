//! `lsq_pseudoinv` (Cell, LsqUnk, C2E2C; ICON4Py `compute_lsq_coeffs`, ICON's linear
//! least-squares reconstruction `lsq_lin_set`): the weighted pseudo-inverse that turns
//! the differences `ψ_j − ψ_c` to the three neighbours into the gradient at the cell
//! centre, `∇ψ_c ≈ Σ_j lsq_pseudoinv[c, :, j] (ψ_j − ψ_c)`.
//!
//! With `d_j` the position of neighbour `j` in the plane tangent at the centre (gnomonic
//! projection, m; the periodic offset on the torus), weights `w_j = |d_j|⁻² / max_k |d_k|⁻²`
//! and `B` the 3×2 matrix of rows `w_j d_j`: `lsq_pseudoinv = B⁺ · diag(w)`, the
//! minimiser of `Σ_j w_j² (d_j·g − (ψ_j − ψ_c))²`, `B⁺ = (BᵀB)⁻¹Bᵀ` (B has full rank;
//! ICON4Py takes it from an SVD, the same matrix to round-off). From the
//! second boundary row; 0 before.

use super::SparseField;
use super::{fill_rows, require_neighbours, zone_end, zone_start, InterpolationError};
use foehn_grid::{Connectivity as C, Grid, Location, Space, Zone};
use nalgebra::Matrix3x2;

/// Gnomonic projection of `(lat, lon)` onto the plane tangent at `(lat_c, lon_c)` (unit sphere).
pub(crate) fn gnomonic(lat_c: f64, lon_c: f64, lat: f64, lon: f64) -> (f64, f64) {
    let (s_c, c_c) = lat_c.sin_cos();
    let (s, c) = lat.sin_cos();
    let (sd, cd) = (lon - lon_c).sin_cos();
    let cos_dist = s_c * s + c_c * c * cd;
    ((c * sd) / cos_dist, (c_c * s - s_c * c * cd) / cos_dist)
}

/// `lsq_pseudoinv`, rows of `[2 unknowns][3 neighbours]`.
pub fn lsq_pseudoinv(grid: &Grid) -> Result<SparseField, InterpolationError> {
    let field = "lsq_pseudoinv";
    let from = Zone::LateralBoundary(2);
    let start = zone_start(grid, Location::Cell, from, field)?;
    let end = zone_end(grid, Location::Cell, Zone::End, field)?;
    require_neighbours(grid, C::C2E2C, (start, end), 3, field, from)?;
    let g = &grid.geometry;
    let c2e2c = grid.topology.table(C::C2E2C);
    fill_rows(grid.topology.n_cells(), 6, start, |c, out| {
        let d: [(f64, f64); 3] = [0, 1, 2].map(|j| {
            let n = c2e2c.get(c, j) as usize;
            match grid.space {
                Space::Sphere { radius } => {
                    let (x, y) =
                        gnomonic(g.cell_lat[c], g.cell_lon[c], g.cell_lat[n], g.cell_lon[n]);
                    (x * radius, y * radius)
                }
                Space::Torus { .. } => {
                    let v = grid.space.delta(grid.points.cell[c], grid.points.cell[n]);
                    (v[0], v[1])
                }
            }
        });
        let inv2 = d.map(|(x, y)| 1.0 / (x * x + y * y));
        let max = inv2[0].max(inv2[1]).max(inv2[2]);
        let w = inv2.map(|v| v / max);
        let b = Matrix3x2::from_fn(|j, k| w[j] * if k == 0 { d[j].0 } else { d[j].1 });
        // B has full column rank (3 neighbours around the centre): B⁺ = (BᵀB)⁻¹Bᵀ.
        let pinv = (b.transpose() * b)
            .try_inverse()
            .map(|m| m * b.transpose())
            .ok_or(InterpolationError::SingularSystem { field, index: c })?;
        for k in 0..2 {
            for j in 0..3 {
                out[3 * k + j] = pinv[(k, j)] * w[j];
            }
        }
        if out.iter().all(|x| x.is_finite()) {
            Ok(())
        } else {
            Err(InterpolationError::SingularSystem { field, index: c })
        }
    })
}
