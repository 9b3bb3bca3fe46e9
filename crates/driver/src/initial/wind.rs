//! The winds of an analytic initial state, as ICON's test cases set them
//! (ICON4Py `initial_condition/analytical/utils.py`, ICON `mo_nh_jabw_exp`):
//!
//! - a cell field interpolated to the edges with `c_lin_e`,
//!   `x_e = c_lin_e[e,0]·x[E2C[e,0]] + c_lin_e[e,1]·x[E2C[e,1]]`, on the edges from the
//!   end of the second lateral boundary row (0 before);
//! - the normal wind of a zonal wind `u` at an edge, `vn = u·primal_normal_x` (the
//!   eastward component of the edge's primal normal; no meridional wind);
//! - the vertical wind that follows the surface (ICON4Py `init_w`): at the edges from
//!   the start of the second boundary row, `w_e = vn[nlev−1]·(z_s[E2C[e,1]] −
//!   z_s[E2C[e,0]])/dual_edge_length`, averaged to cells with the weights
//!   `edge_cell_distance·primal_edge_length/cell_area` of the cell's three edges, and
//!   `w[k] = w_sfc·vct_b[k]` on the interfaces `k ≥ 1` of the cells from the start of the
//!   second boundary row; `w[0] = 0` and 0 in the first boundary row.

use super::InitialError;
use foehn_grid::{Connectivity, Grid, Location, Zone};
use foehn_icon::fields::interpolation::SparseField;
use foehn_icon::fields::Columns;
use rayon::prelude::*;

/// `[start, end)` of a zone of `loc` on `grid`.
pub(crate) fn zone_range(
    grid: &Grid,
    loc: Location,
    zone: Zone,
) -> Result<(usize, usize), InitialError> {
    grid.zones
        .of(loc)
        .range(zone)
        .map_err(|e| InitialError::Zone(e.to_string()))
}

/// The cell field `cells` (`[n_cells, nlev]`) at the edges (`[n_edges, nlev]`), linearly
/// interpolated with `c_lin_e` on the edges from the end of the second lateral boundary
/// row; 0 on the edges before (ICON4Py `cell_2_edge_interpolation`).
pub fn cells_to_edges(
    grid: &Grid,
    c_lin_e: &SparseField,
    cells: &Columns,
) -> Result<Columns, InitialError> {
    let (_, start) = zone_range(grid, Location::Edge, Zone::LateralBoundary(2))?;
    let e2c = grid.topology.table(Connectivity::E2C);
    let nlev = cells.levels();
    let mut out = vec![0.0; grid.size(Location::Edge) * nlev];
    out.par_chunks_mut(nlev.max(1))
        .enumerate()
        .skip(start)
        .for_each(|(e, col)| {
            for j in 0..2 {
                if let Some(c) = e2c.neighbor(e, j) {
                    let w = c_lin_e.get(e, j);
                    for (x, y) in col.iter_mut().zip(cells.column(c)) {
                        *x += w * y;
                    }
                }
            }
        });
    Ok(crate::layout::columns(grid.size(Location::Edge), nlev, out))
}

/// The normal wind `vn = u(e, k)·primal_normal_x[e]` (`[n_edges, nlev]`) of the zonal
/// wind `u` on the edges from the end of the second lateral boundary row; 0 before.
pub fn zonal_to_normal(
    grid: &Grid,
    nlev: usize,
    u: impl Fn(usize, usize) -> f64 + Sync,
) -> Result<Columns, InitialError> {
    let (_, start) = zone_range(grid, Location::Edge, Zone::LateralBoundary(2))?;
    let normal_x = &grid.geometry.primal_normal_x;
    Ok(Columns::from_fn(grid.size(Location::Edge), nlev, |e, k| {
        if e < start {
            0.0
        } else {
            u(e, k) * normal_x[e]
        }
    }))
}

/// The vertical wind `[n_cells, nlev + 1]` that follows the surface `z_ifc[.., nlev]`
/// under the lowest-level normal wind of `vn`, decaying upwards with `vct_b` (see the
/// [module documentation](self)).
pub fn surface_following_w(
    grid: &Grid,
    z_ifc: &Columns,
    vn: &Columns,
    vct_b: &[f64],
) -> Result<Columns, InitialError> {
    let nlev = vn.levels();
    let (edge_start, _) = zone_range(grid, Location::Edge, Zone::LateralBoundary(2))?;
    let (cell_start, _) = zone_range(grid, Location::Cell, Zone::LateralBoundary(2))?;
    let (e2c, c2e) = (
        grid.topology.table(Connectivity::E2C),
        grid.topology.table(Connectivity::C2E),
    );
    let g = &grid.geometry;
    let w_e: Vec<f64> = (0..grid.size(Location::Edge))
        .into_par_iter()
        .map(|e| match (e2c.neighbor(e, 0), e2c.neighbor(e, 1)) {
            (Some(c0), Some(c1)) if e >= edge_start && nlev > 0 => {
                let slope = (z_ifc.get(c1, nlev) - z_ifc.get(c0, nlev)) * g.inv_dual_edge_length[e];
                vn.get(e, nlev - 1) * slope
            }
            _ => 0.0,
        })
        .collect();
    let w_sfc: Vec<f64> = (0..grid.size(Location::Cell))
        .into_par_iter()
        .map(|c| {
            c2e.valid(c)
                .map(|e| {
                    let side = usize::from(e2c.get(e, 0) != c as i32);
                    w_e[e] * g.edge_cell_distance[2 * e + side] * g.primal_edge_length[e]
                        / g.cell_area[c]
                })
                .sum()
        })
        .collect();
    Ok(Columns::from_fn(
        grid.size(Location::Cell),
        nlev + 1,
        |c, k| {
            if c < cell_start || k == 0 {
                0.0
            } else {
                w_sfc[c] * vct_b[k]
            }
        },
    ))
}
