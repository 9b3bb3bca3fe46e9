//! `pos_on_tplane_e_x/y` (Edge, E2C; ICON4Py `compute_pos_on_tplane_e_x_y`): the
//! positions (m) of an edge's two cell centres in the plane tangent to the sphere at the
//! edge midpoint — the gnomonic projection of each centre, expressed along the edge
//! normal (x) and the edge tangent (y). ICON's Miura advection starts its
//! back-trajectories from them. On the torus the plane is the surface itself (the
//! periodic offset of the centre). All edges; 0 on a missing side.

use super::least_squares::gnomonic;
use super::{zone_start, InterpolationError, SparseField};
use foehn_grid::{Connectivity as C, Grid, Location, Space, Zone};
use rayon::prelude::*;

/// `(pos_on_tplane_e_x, pos_on_tplane_e_y)`.
pub fn pos_on_tplane_e(grid: &Grid) -> Result<(SparseField, SparseField), InterpolationError> {
    let start = zone_start(
        grid,
        Location::Edge,
        Zone::LateralBoundary(1),
        "pos_on_tplane_e",
    )?;
    let g = &grid.geometry;
    let e2c = grid.topology.table(C::E2C);
    let ne = grid.topology.n_edges();
    let mut x = SparseField::zeros(ne, 2);
    let mut y = SparseField::zeros(ne, 2);
    x.as_mut_slice()[2 * start..]
        .par_chunks_mut(2)
        .zip(y.as_mut_slice()[2 * start..].par_chunks_mut(2))
        .enumerate()
        .for_each(|(i, (xr, yr))| {
            let e = start + i;
            for s in 0..2 {
                let Some(c) = e2c.neighbor(e, s) else {
                    continue;
                };
                let (px, py) = match grid.space {
                    Space::Sphere { radius } => {
                        let (u, v) =
                            gnomonic(g.edge_lat[e], g.edge_lon[e], g.cell_lat[c], g.cell_lon[c]);
                        (u * radius, v * radius)
                    }
                    Space::Torus { .. } => {
                        let d = grid.space.delta(grid.points.edge[e], grid.points.cell[c]);
                        (d[0], d[1])
                    }
                };
                xr[s] = px * g.primal_normal_x[e] + py * g.primal_normal_y[e];
                yr[s] = px * g.dual_normal_x[e] + py * g.dual_normal_y[e];
            }
        });
    Ok((x, y))
}
