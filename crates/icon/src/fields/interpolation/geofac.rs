//! The factors of ICON's discrete operators (ICON4Py `compute_geofac_*`):
//!
//! - `geofac_div` (Cell, C2E): `ℓ_e · σ_{c,e} / A_c`, so that
//!   `div(v)_c = Σ_e geofac_div · v_n,e` (Gauss over the triangle; σ = +1 where the
//!   edge normal points out of the cell). All cells.
//! - `geofac_rot` (Vertex, V2E): `ℓ*_e · σ_{v,e} / A*_v`, so that
//!   `curl(v)_v = Σ_e geofac_rot · v_n,e` (Stokes around the dual cell; σ = +1 where the
//!   normal points counter-clockwise). All vertices; 0 in the slot a pentagon lacks.
//! - `geofac_n2s` (Cell, C2E2CO): `∇²ψ_c = Σ geofac_n2s · ψ` over the cell and its three
//!   neighbours, the divergence of the normal gradient `(ψ_{c1} − ψ_{c0}) / ℓ*_e`.
//!   From the second boundary row.
//! - `geofac_grg_x/y` (Cell, C2E2CO): the Green–Gauss gradient
//!   `∇ψ_c = 1/A_c Σ_e ℓ_e σ_{c,e} n_e ψ_e` with `ψ_e` interpolated by `c_lin_e` and `n_e`
//!   the edge normal's eastward (x) and northward (y) components at the cell centre.
//!   From the second boundary row.
//! - `geofac_grdiv` (Edge, E2C2EO): the normal gradient of the divergence,
//!   `(div_{c1} − div_{c0}) / ℓ*_e`, as weights of the edge and its four diamond edges.
//!   From the second boundary row.

use super::{fill_rows_ok, position, require_neighbours, zone_start, InterpolationError};
use super::{zone_end, SparseField};
use foehn_grid::{Connectivity as C, Grid, Location, Zone};

/// `geofac_div` (Cell, C2E).
pub fn div(grid: &Grid) -> SparseField {
    let g = &grid.geometry;
    let c2e = grid.topology.table(C::C2E);
    fill_rows_ok(grid.topology.n_cells(), 3, 0, |c, out| {
        for (k, o) in out.iter_mut().enumerate() {
            let e = c2e.get(c, k) as usize;
            *o = g.primal_edge_length[e] * g.cell_edge_orientation[3 * c + k] / g.cell_area[c];
        }
    })
}

/// `geofac_rot` (Vertex, V2E).
pub fn rot(grid: &Grid) -> SparseField {
    let g = &grid.geometry;
    let v2e = grid.topology.table(C::V2E);
    let w = v2e.width();
    fill_rows_ok(grid.topology.n_vertices(), w, 0, |v, out| {
        for (k, o) in out.iter_mut().enumerate() {
            if let Some(e) = v2e.neighbor(v, k) {
                *o = g.dual_edge_length[e] * g.vertex_edge_orientation[w * v + k] / g.dual_area[v];
            }
        }
    })
}

/// The rows `[start of the second boundary row, end)` of a location, checked to have
/// every neighbour of `conns`.
fn domain(
    grid: &Grid,
    loc: Location,
    conns: &[C],
    field: &'static str,
) -> Result<usize, InterpolationError> {
    let from = Zone::LateralBoundary(2);
    let start = zone_start(grid, loc, from, field)?;
    let end = zone_end(grid, loc, Zone::End, field)?;
    for &conn in conns {
        let w = grid.topology.table(conn).width();
        require_neighbours(grid, conn, (start, end), w, field, from)?;
    }
    Ok(start)
}

/// `geofac_n2s` (Cell, C2E2CO), from the second boundary row.
pub fn n2s(grid: &Grid, geofac_div: &SparseField) -> Result<SparseField, InterpolationError> {
    let start = domain(grid, Location::Cell, &[C::C2E2C], "geofac_n2s")?;
    let g = &grid.geometry;
    let (c2e, e2c) = (grid.topology.table(C::C2E), grid.topology.table(C::E2C));
    Ok(fill_rows_ok(grid.topology.n_cells(), 4, start, |c, out| {
        for k in 0..3 {
            let e = c2e.get(c, k) as usize;
            let f = geofac_div.get(c, k) / g.dual_edge_length[e];
            // d/dn = (ψ(E2C[1]) − ψ(E2C[0])) / ℓ*; the neighbour across edge k is C2E2C[k].
            let (c0, c1) = (e2c.get(e, 0) as usize, e2c.get(e, 1) as usize);
            if c0 == c {
                out[0] -= f;
                out[1 + k] += f;
            } else if c1 == c {
                out[0] += f;
                out[1 + k] -= f;
            }
        }
    }))
}

/// `geofac_grg_x`, `geofac_grg_y` (Cell, C2E2CO), from the second boundary row.
pub fn grg(
    grid: &Grid,
    geofac_div: &SparseField,
    c_lin_e: &SparseField,
) -> Result<(SparseField, SparseField), InterpolationError> {
    let start = domain(grid, Location::Cell, &[C::C2E2C], "geofac_grg")?;
    let g = &grid.geometry;
    let (c2e, e2c) = (grid.topology.table(C::C2E), grid.topology.table(C::E2C));
    let n = grid.topology.n_cells();
    let component = |normal: &[f64]| {
        fill_rows_ok(n, 4, start, |c, out| {
            for k in 0..3 {
                let e = c2e.get(c, k) as usize;
                // Which side of the edge the cell is; the other side is C2E2C[k].
                let own = usize::from(e2c.get(e, 0) as usize != c);
                let (n, d) = (normal[2 * e + own], geofac_div.get(c, k));
                out[0] += n * (d * c_lin_e.get(e, own));
                out[1 + k] += n * d * c_lin_e.get(e, 1 - own);
            }
        })
    };
    Ok((
        component(&g.primal_normal_cell_x),
        component(&g.primal_normal_cell_y),
    ))
}

/// `geofac_grdiv` (Edge, E2C2EO), from the second boundary row.
pub fn grdiv(grid: &Grid, geofac_div: &SparseField) -> Result<SparseField, InterpolationError> {
    let start = domain(grid, Location::Edge, &[C::E2C, C::E2C2E], "geofac_grdiv")?;
    let g = &grid.geometry;
    let t = &grid.topology;
    let (c2e, e2c, e2c2e) = (t.table(C::C2E), t.table(C::E2C), t.table(C::E2C2E));
    Ok(fill_rows_ok(t.n_edges(), 5, start, |e, out| {
        let inv = g.inv_dual_edge_length[e];
        let (c0, c1) = (e2c.get(e, 0) as usize, e2c.get(e, 1) as usize);
        let (r0, r1) = (c2e.row(c0), c2e.row(c1));
        if let (Some(p0), Some(p1)) = (position(r0, e), position(r1, e)) {
            out[0] = (geofac_div.get(c1, p1) - geofac_div.get(c0, p0)) * inv;
        }
        for j in 0..2 {
            let (a, b) = (e2c2e.get(e, j) as usize, e2c2e.get(e, 2 + j) as usize);
            if let Some(k) = position(r0, a) {
                out[1 + j] = -geofac_div.get(c0, k) * inv;
            }
            if let Some(k) = position(r1, b) {
                out[3 + j] = geofac_div.get(c1, k) * inv;
            }
        }
    }))
}
