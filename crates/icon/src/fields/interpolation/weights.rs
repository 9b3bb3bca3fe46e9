//! Interpolation and averaging weights (ICON4Py `compute_c_lin_e`, `compute_e_bln_c_s`,
//! `compute_mass_conserving_bilinear_cell_average_weight`, `compute_cells_aw_verts`,
//! `compute_e_flx_avg`):
//!
//! - `c_lin_e` (Edge, E2C): `ψ_e = c_lin_e[0]·ψ_{c0} + c_lin_e[1]·ψ_{c1}` with
//!   `c_lin_e[0] = d(e, c1)/ℓ*_e` and `c_lin_e[1] = 1 − c_lin_e[0]` (linear along the dual
//!   edge). From the second boundary row; 0 in the first.
//! - `e_bln_c_s` (Cell, C2E): weights of the three edge midpoints that sum to one and
//!   reproduce a linear function at the cell centre, in a rotated latitude–longitude
//!   frame in which the cell centre lies on the equator (1/3 each on the torus). All cells.
//! - `c_bln_avg` (Cell, C2E2CO): the central weight `divavg_cntrwgt` and neighbour
//!   weights of the same bilinear construction summing to `1 − divavg_cntrwgt`, then
//!   corrected iteratively (ICON: 1000 iterations) so that the average conserves mass:
//!   `Σ_{n ∈ C2E2CO(c)} c_bln_avg[n → c] · A_n = A_c`. From the second boundary row,
//!   corrected from the third.
//! - `cells_aw_verts` (Vertex, V2C): each cell's share of the dual cell, the two right
//!   triangles (vertex, edge midpoint, cell centre) of area `½ d(v,e) d(e,c)`, over the
//!   dual area. From the second boundary row.
//! - `e_flx_avg` (Edge, E2C2EO): the velocity/flux averaging weights consistent with
//!   `c_bln_avg` and `geofac_div` (ICON's `e_flx_avg`), normalised so that a uniform
//!   flow along the edge normal is kept. Neighbour weights from the fourth boundary row,
//!   the central weight and the normalisation from the fifth.

use super::{fill_rows, fill_rows_ok, position, require_neighbours, zone_end, zone_start};
use super::{InterpolationConfig, InterpolationError, SparseField};
use foehn_grid::{Connectivity as C, Grid, Location, Zone};
use rayon::prelude::*;
use std::f64::consts::{FRAC_PI_2, PI};

/// `[start of zone, n)` of a location, checked to have every neighbour of `conns`.
fn domain_from(
    grid: &Grid,
    loc: Location,
    from: Zone,
    conns: &[C],
    field: &'static str,
) -> Result<usize, InterpolationError> {
    let start = zone_start(grid, loc, from, field)?;
    let end = zone_end(grid, loc, Zone::End, field)?;
    for &conn in conns {
        let w = grid.topology.table(conn).width();
        require_neighbours(grid, conn, (start, end), w, field, from)?;
    }
    Ok(start)
}

/// Checks that every vertex in `[start, end)` has a closed ring (as many cells as edges).
pub(crate) fn require_closed_rings(
    grid: &Grid,
    (start, end): (usize, usize),
    field: &'static str,
    from: Zone,
) -> Result<(), InterpolationError> {
    let (v2e, v2c) = (grid.topology.table(C::V2E), grid.topology.table(C::V2C));
    let bad = (start..end)
        .into_par_iter()
        .filter(|&v| {
            let n = v2e.valid(v).count();
            n < 3 || v2c.valid(v).count() != n
        })
        .min();
    match bad {
        Some(index) => Err(InterpolationError::MissingNeighbour {
            field,
            connectivity: C::V2C,
            index,
            from,
        }),
        None => Ok(()),
    }
}

/// `c_lin_e` (Edge, E2C).
pub fn c_lin_e(grid: &Grid) -> Result<SparseField, InterpolationError> {
    let start = domain_from(
        grid,
        Location::Edge,
        Zone::LateralBoundary(2),
        &[C::E2C],
        "c_lin_e",
    )?;
    let g = &grid.geometry;
    Ok(fill_rows_ok(grid.topology.n_edges(), 2, start, |e, out| {
        let w = g.edge_cell_distance[2 * e + 1] * g.inv_dual_edge_length[e];
        out[0] = w;
        out[1] = 1.0 - w;
    }))
}

/// Rotates `(lat, lon)` into the frame whose north pole is at `(pollat, pollon)`.
fn rotate(lat: f64, lon: f64, pollat: f64, pollon: f64) -> (f64, f64) {
    let (sl, cl) = lat.sin_cos();
    let (sp, cp) = pollat.sin_cos();
    let (sd, cd) = (lon - pollon).sin_cos();
    let rlat = (sl * sp + cl * cp * cd).asin();
    let rlon = (cl * sd).atan2(cl * sp * cd - sl * cp);
    (rlat, rlon)
}

/// The weights of three points around `centre` (all `(lat, lon)`) that sum to
/// `1 − w_centre` and, with `w_centre` at the centre, reproduce every function linear in
/// a rotated latitude–longitude frame in which the centre lies on the equator.
fn bilinear_weights(centre: (f64, f64), pts: [(f64, f64); 3], w_centre: f64) -> [f64; 3] {
    let (lat, lon) = centre;
    let pollat = if lat >= 0.0 {
        lat - FRAC_PI_2
    } else {
        lat + FRAC_PI_2
    };
    let (y_c, x_c) = rotate(lat, lon, pollat, lon);
    let mut x = [0.0; 3];
    let mut y = [0.0; 3];
    for i in 0..3 {
        let (yi, xi) = rotate(pts[i].0, pts[i].1, pollat, lon);
        y[i] = yi - y_c;
        x[i] = xi - x_c;
        // Across the rotated date line.
        if x[i] > 3.5 {
            x[i] -= 2.0 * PI;
        } else if x[i] < -3.5 {
            x[i] += 2.0 * PI;
        }
    }
    // Σ w_i x_i = 0, Σ w_i y_i = 0, Σ w_i = 1 − w_centre, eliminated for w_1 and w_2
    // with the better-conditioned pivot.
    let rest = 1.0 - w_centre;
    let (w1, w2) = if (x[1] - x[0]).abs() > 1e-11 && (y[2] - y[0]).abs() > 1e-11 {
        let s = (y[1] - y[0]) / (x[1] - x[0]);
        let w2 = rest * (-y[0] + x[0] * s) / ((y[2] - y[0]) - (x[2] - x[0]) * s);
        let w1 = (-rest * x[0] - w2 * (x[2] - x[0])) / (x[1] - x[0]);
        (w1, w2)
    } else {
        let s = (y[2] - y[0]) / (x[2] - x[0]);
        let w1 = rest * (-y[0] + x[0] * s) / ((y[1] - y[0]) - (x[1] - x[0]) * s);
        let w2 = (-rest * x[0] - w1 * (x[1] - x[0])) / (x[2] - x[0]);
        (w1, w2)
    };
    [rest - w1 - w2, w1, w2]
}

/// `e_bln_c_s` (Cell, C2E).
pub fn e_bln_c_s(grid: &Grid) -> SparseField {
    let g = &grid.geometry;
    let c2e = grid.topology.table(C::C2E);
    let sphere = grid.space.is_sphere();
    fill_rows_ok(grid.topology.n_cells(), 3, 0, |c, out| {
        if !sphere {
            out.fill(1.0 / 3.0);
            return;
        }
        let pts = [0, 1, 2].map(|k| {
            let e = c2e.get(c, k) as usize;
            (g.edge_lat[e], g.edge_lon[e])
        });
        out.copy_from_slice(&bilinear_weights((g.cell_lat[c], g.cell_lon[c]), pts, 0.0));
    })
}

/// The bilinear cell average before the mass-conservation correction: rows from the
/// second boundary row (sphere) or all rows (torus: uniform weights).
fn c_bln_avg_initial(
    grid: &Grid,
    w_centre: f64,
    start: usize,
) -> Result<SparseField, InterpolationError> {
    let g = &grid.geometry;
    let c2e2c = grid.topology.table(C::C2E2C);
    let n = grid.topology.n_cells();
    if !grid.space.is_sphere() {
        let w = (1.0 - w_centre) / 3.0;
        return Ok(fill_rows_ok(n, 4, 0, |_, out| {
            out.copy_from_slice(&[w_centre, w, w, w]);
        }));
    }
    fill_rows(n, 4, start, |c, out| {
        let pts = [0, 1, 2].map(|k| {
            let nb = c2e2c.get(c, k) as usize;
            (g.cell_lat[nb], g.cell_lon[nb])
        });
        let w = bilinear_weights((g.cell_lat[c], g.cell_lon[c]), pts, w_centre);
        out[0] = w_centre;
        out[1..].copy_from_slice(&w);
        Ok::<(), InterpolationError>(())
    })
}

/// `c_bln_avg` (Cell, C2E2CO).
pub fn c_bln_avg(
    grid: &Grid,
    config: &InterpolationConfig,
) -> Result<SparseField, InterpolationError> {
    let field = "c_bln_avg";
    let start = domain_from(
        grid,
        Location::Cell,
        Zone::LateralBoundary(2),
        &[C::C2E2C],
        field,
    )?;
    let w_centre = config.divergence_averaging_central_cell_weight;
    let mut avg = c_bln_avg_initial(grid, w_centre, start)?;
    let hs = zone_start(grid, Location::Cell, Zone::LateralBoundary(3), field)?;
    let n = grid.topology.n_cells();
    let c2e2co = grid.topology.table(C::C2E2CO);
    let area = &grid.geometry.cell_area;
    // For each corrected cell (from `hs`): its three C2E2C neighbours, and where in
    // `avg` each neighbour keeps the weight it gives the cell (`4·neighbour + slot`
    // of the cell in the neighbour's C2E2CO row; slot 0 where it is missing).
    let links: Vec<([u32; 3], [u32; 3])> = (hs..n)
        .into_par_iter()
        .map(|c| {
            let mut nb = [0u32; 3];
            let mut at = [0u32; 3];
            for j in 0..3 {
                let x = c2e2co.get(c, j + 1) as usize;
                let slot = position(&c2e2co.row(x)[1..], c).map_or(0, |p| p + 1);
                nb[j] = x as u32;
                at[j] = (4 * x + slot) as u32;
            }
            (nb, at)
        })
        .collect();
    if let Some(index) = (0..links.len())
        .into_par_iter()
        .filter(|&i| links[i].1.iter().any(|&a| a % 4 == 0))
        .min()
    {
        return Err(InterpolationError::MissingNeighbour {
            field,
            connectivity: C::C2E2CO,
            index: hs + index,
            from: Zone::LateralBoundary(3),
        });
    }
    let (max_w, min_w) = (w_centre + 0.003, w_centre - 0.003);
    const RELAX: f64 = 0.46;
    let mut residual = vec![0.0; n];
    let iterations = config.c_bln_avg_iterations;
    // Blocks of cells per task: the passes are short, so each task walks a plain loop.
    const BLOCK: usize = 4096;
    for it in 0..iterations {
        {
            let w = avg.as_slice();
            residual[hs..]
                .par_chunks_mut(BLOCK)
                .zip(links.par_chunks(BLOCK))
                .enumerate()
                .for_each(|(k, (rs, ls))| {
                    let base = hs + k * BLOCK;
                    let own = &area[base..base + rs.len()];
                    let rows = &w[4 * base..4 * (base + rs.len())];
                    for ((r, (nb, at)), (&a, row)) in rs
                        .iter_mut()
                        .zip(ls)
                        .zip(own.iter().zip(rows.chunks_exact(4)))
                    {
                        // Σ over C2E2CO(c) of the weight each neighbour gives c, times its area.
                        let mut local = row[0] * a;
                        for j in 0..3 {
                            local += w[at[j] as usize] * area[nb[j] as usize];
                        }
                        *r = local / a - 1.0;
                    }
                });
        }
        let last = it + 1 == iterations;
        let residual = &residual;
        avg.as_mut_slice()[4 * hs..]
            .par_chunks_mut(4 * BLOCK)
            .zip(links.par_chunks(BLOCK))
            .enumerate()
            .for_each(|(k, (rows, ls))| {
                let base = hs + k * BLOCK;
                let own = &residual[base..base + ls.len()];
                for ((row, (nb, _)), &r) in rows.chunks_exact_mut(4).zip(ls).zip(own) {
                    if last {
                        row[0] -= r;
                        continue;
                    }
                    row[0] -= RELAX * r;
                    for j in 0..3 {
                        row[1 + j] -= RELAX * residual[nb[j] as usize];
                    }
                    let excess = row[0] + row[1] + row[2] + row[3] - 1.0;
                    for x in row.iter_mut() {
                        *x -= 0.25 * excess;
                    }
                    row[0] = row[0].max(min_w).min(max_w);
                }
            });
    }
    Ok(avg)
}

/// `cells_aw_verts` (Vertex, V2C).
pub fn cells_aw_verts(grid: &Grid) -> Result<SparseField, InterpolationError> {
    let field = "cells_aw_verts";
    let from = Zone::LateralBoundary(2);
    let start = zone_start(grid, Location::Vertex, from, field)?;
    let end = zone_end(grid, Location::Vertex, Zone::End, field)?;
    require_closed_rings(grid, (start, end), field, from)?;
    let g = &grid.geometry;
    let t = &grid.topology;
    let (v2e, v2c, e2v, e2c) = (
        t.table(C::V2E),
        t.table(C::V2C),
        t.table(C::E2V),
        t.table(C::E2C),
    );
    let w = v2c.width();
    Ok(fill_rows_ok(t.n_vertices(), w, start, |v, out| {
        let cells = v2c.row(v);
        // A slot counts once: skip -1 and a repeat of the previous entry.
        let slot_of = |c: usize| {
            (0..w).find(|&j| cells[j] == c as i32 && (j == 0 || cells[j] != cells[j - 1]))
        };
        let edges = v2e.row(v);
        for j in 0..edges.len() {
            let Some(e) = v2e.neighbor(v, j) else {
                continue;
            };
            if j > 0 && edges[j] == edges[j - 1] {
                continue;
            }
            let idx = usize::from(e2v.get(e, 0) as usize != v);
            let d_ve = g.edge_vert_distance[2 * e + idx];
            for s in 0..2 {
                if let Some(slot) = e2c.neighbor(e, s).and_then(slot_of) {
                    out[slot] += d_ve * g.edge_cell_distance[2 * e + s];
                }
            }
        }
        for x in out.iter_mut() {
            *x = 0.5 * *x / g.dual_area[v];
        }
    }))
}

/// `e_flx_avg` (Edge, E2C2EO).
pub fn e_flx_avg(
    grid: &Grid,
    c_bln_avg: &SparseField,
    geofac_div: &SparseField,
) -> Result<SparseField, InterpolationError> {
    let field = "e_flx_avg";
    let p3 = domain_from(
        grid,
        Location::Edge,
        Zone::LateralBoundary(4),
        &[C::E2C, C::E2C2E],
        field,
    )?;
    let p4 = zone_start(grid, Location::Edge, Zone::LateralBoundary(5), field)?.max(p3);
    let t = &grid.topology;
    let (e2c, c2e, c2e2c, e2c2e) = (
        t.table(C::E2C),
        t.table(C::C2E),
        t.table(C::C2E2C),
        t.table(C::E2C2E),
    );
    let ne = t.n_edges();
    // The two cells of an edge, the edge's position in the first cell's C2E and the
    // first cell's position in the second cell's C2E2C.
    let sides = |e: usize| -> Option<(usize, usize, usize, usize)> {
        let (c0, c1) = (e2c.neighbor(e, 0)?, e2c.neighbor(e, 1)?);
        let p0 = position(c2e.row(c0), e)?;
        let p1 = c2e2c.row(c1).iter().rposition(|&x| x == c0 as i32)?;
        Some((c0, c1, p0, p1))
    };
    let (cba, div) = (c_bln_avg, geofac_div);
    let mut avg = fill_rows_ok(ne, 5, p3, |e, out| {
        let Some((c0, c1, p0, p1)) = sides(e) else {
            return;
        };
        for i in 0..2 {
            out[1 + i] = cba.get(c1, p1 + 1) * div.get(c0, (i + p0 + 1) % 3) / div.get(c1, p1);
            out[3 + i] = cba.get(c0, 1 + p0) * div.get(c1, (p1 + i + 1) % 3) / div.get(c0, p0);
        }
    });
    // The slot of edge e in the row of its diamond edge j (ICON's fixed E2C2E order).
    let slot = |e: usize, j: usize, cell: usize| -> Option<usize> {
        let a = e2c2e.neighbor(e, j)?;
        let (first, second) = if matches!(j, 0 | 2) { (2, 4) } else { (1, 3) };
        if e2c.get(a, 0) == cell as i32 {
            Some(first)
        } else if e2c.get(a, 1) == cell as i32 {
            Some(second)
        } else {
            None
        }
    };
    let central: Vec<f64> = {
        let prev = &avg;
        (p4..ne)
            .into_par_iter()
            .map(|e| {
                let Some((c0, c1, p0, p1)) = sides(e) else {
                    return 0.0;
                };
                let nb = |j: usize, cell: usize| match slot(e, j, cell) {
                    Some(s) => prev.get(e2c2e.get(e, j) as usize, s),
                    None => 0.0,
                };
                let side0 = (div.get(c0, p0) * cba.get(c0, 0)
                    + div.get(c1, p1) * cba.get(c0, p0 + 1)
                    - nb(0, c0) * div.get(c0, (p0 + 1) % 3)
                    - nb(1, c0) * div.get(c0, (p0 + 2) % 3))
                    / div.get(c0, p0);
                let side1 = (div.get(c1, p1) * cba.get(c1, 0)
                    + div.get(c0, p0) * cba.get(c1, p1 + 1)
                    - nb(2, c1) * div.get(c1, (p1 + 1) % 3)
                    - nb(3, c1) * div.get(c1, (p1 + 2) % 3))
                    / div.get(c1, p1);
                0.5 * (side0 + side1)
            })
            .collect()
    };
    let normal = &grid.geometry.primal_normal_cartesian;
    avg.as_mut_slice()[5 * p4..]
        .par_chunks_mut(5)
        .zip(central.par_iter())
        .enumerate()
        .for_each(|(i, (row, &c))| {
            let e = p4 + i;
            row[0] = c;
            let n = normal[e];
            let mut sum = 0.0;
            for j in 0..4 {
                let m = normal[e2c2e.get(e, j) as usize];
                let d = n[0] * m[0] + n[1] * m[1] + n[2] * m[2];
                sum += d * row[1 + j];
            }
            let checksum = row[0] + sum;
            for x in row.iter_mut() {
                *x /= checksum;
            }
        });
    Ok(avg)
}
