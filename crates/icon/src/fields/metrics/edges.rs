//! Edge metric fields (ICON4Py `cell_2_edge_interpolation` of `ddqz_z_full`, `wgtfac_c`
//! and `wgtfacq_c`, `compute_coeff_gradekin`, `compute_zdiff_gradp`,
//! `compute_pressure_gradient_downward_extrapolation_mask_distance`,
//! `compute_horizontal_mask_for_3d_divdamp`) and the halo masks of the cells
//! (`compute_mask_prog_halo_c`).
//!
//! The Taylor pressure gradient of ICON (`igradp_method` 3) evaluates the Exner
//! pressure of each neighbour cell at the edge's full-level height
//! `z_me = Σ c_lin_e·z_mc` by expanding around the neighbour level that contains it:
//! below the flat levels (`k > flat_idx_max`) `vertoffset_gradp` is the offset of the
//! neighbour layer `[z_ifc[k'+1], z_ifc[k']]` holding `z_me` (the lowest layer if
//! none does) and `zdiff_gradp = z_me − z_mc[k']`. From the second nudging row on,
//! where `z_me` lies below the highest neighbour surface minus 5 m, the expansion is
//! made at that height instead and `pg_exdist` is how far below it `z_me` lies.

use super::fill::{fill_columns, weighted_sum, zeros};
use super::{MetricsConfig, NeighborColumns, Ranges};
use crate::fields::sleve::Heights;
use crate::fields::Columns;
use foehn_grid::{Connectivity, Grid, Location, NeighborTable};
use rayon::prelude::*;

/// Depth below the highest neighbour surface from where the pressure gradient is
/// extrapolated downwards, m (ICON's `extrapol_dist`).
pub const EXTRAPOLATION_DISTANCE: f64 = 5.0;

/// `Σⱼ c_lin_e[e, j]·f[E2C[e, j], k]` of each field `f` at every edge, in one pass.
pub(crate) fn cell_to_edge<const N: usize>(
    fields: [&Columns; N],
    e2c: &NeighborTable,
    c_lin_e: &[f64],
) -> [Columns; N] {
    fill_columns(e2c.rows(), fields.map(Columns::levels), |e, out| {
        let cells = [e2c.neighbor(e, 0), e2c.neighbor(e, 1)];
        let w = &c_lin_e[2 * e..2 * e + 2];
        for (f, o) in fields.iter().zip(out.iter_mut()) {
            let cols = cells.map(|c| c.map(|c| f.column(c)));
            for (k, x) in o.iter_mut().enumerate() {
                *x = weighted_sum(&cols, w, k);
            }
        }
    })
}

/// `coeff_gradekin[e] = [d₁/d₀, d₀/d₁]/dual_edge_length` (`d` the edge–cell-centre
/// distances) from the second boundary row on.
pub(crate) fn coeff_gradekin(grid: &Grid, r: &Ranges) -> Vec<f64> {
    let g = &grid.geometry;
    let mut out = vec![0.0; 2 * grid.size(Location::Edge)];
    out.par_chunks_mut(2)
        .enumerate()
        .skip(r.edge_lb2)
        .for_each(|(e, o)| {
            let (d0, d1) = (g.edge_cell_distance[2 * e], g.edge_cell_distance[2 * e + 1]);
            o[0] = d1 / d0 * g.inv_dual_edge_length[e];
            o[1] = d0 / d1 * g.inv_dual_edge_length[e];
        });
    out
}

/// The first layer `k' ≥ from` of the interface column `z` that contains `h`, or the
/// lowest.
fn layer_containing(z: &[f64], h: f64, from: usize) -> usize {
    let nlev = z.len() - 1;
    (from..nlev)
        .find(|&k| k == nlev - 1 || (h <= z[k] && h >= z[k + 1]))
        .unwrap_or(nlev - 1)
}

/// `zdiff_gradp` and `vertoffset_gradp`, `[n_edges, 2, nlev]`.
pub(crate) fn pressure_gradient(
    grid: &Grid,
    heights: &Heights,
    z_me: &Columns,
    flat_idx_max: &[usize],
    r: &Ranges,
) -> (NeighborColumns<f64>, NeighborColumns<i32>) {
    let e2c = grid.topology.table(Connectivity::E2C);
    let (z_ifc, z_mc) = (&heights.z_ifc, &heights.z_mc);
    let nlev = z_mc.levels();
    let n_edges = e2c.rows();
    let mut zdiff: Vec<f64> = zeros(n_edges * 2 * nlev);
    let mut offset: Vec<i32> = zeros(n_edges * 2 * nlev);
    if nlev > 0 {
        zdiff
            .par_chunks_mut(2 * nlev)
            .zip(offset.par_chunks_mut(2 * nlev))
            .enumerate()
            .skip(r.edge_lb2)
            .for_each(|(e, (zd, off))| {
                let cells = [e2c.neighbor(e, 0), e2c.neighbor(e, 1)];
                let [Some(c0), Some(c1)] = cells else {
                    return;
                };
                let flat = flat_idx_max[e];
                let (zi0, zi1) = (z_ifc.column(c0), z_ifc.column(c1));
                let surface = zi0[nlev].max(zi1[nlev]) - EXTRAPOLATION_DISTANCE;
                let extrapolate = e >= r.edge_nudging2;
                let z_e = z_me.column(e);
                for (j, c) in [c0, c1].into_iter().enumerate() {
                    let (zd, off) = (&mut zd[j * nlev..][..nlev], &mut off[j * nlev..][..nlev]);
                    let (zi, zm) = (z_ifc.column(c), z_mc.column(c));
                    for (k, x) in zd.iter_mut().enumerate().take(flat.min(nlev - 1) + 1) {
                        *x = z_e[k] - zm[k];
                    }
                    let mut start = flat;
                    for k in flat + 1..nlev {
                        let z = z_e[k];
                        let target = if extrapolate && z < surface {
                            surface
                        } else {
                            z
                        };
                        let k1 = layer_containing(zi, target, start);
                        start = k1;
                        zd[k] = target - zm[k1];
                        off[k] = k1 as i32 - k as i32;
                    }
                }
            });
    }
    (
        NeighborColumns::from_data(n_edges, 2, nlev, zdiff),
        NeighborColumns::from_data(n_edges, 2, nlev, offset),
    )
}

/// `pg_exdist` and its mask, `[n_edges, nlev]`: from the second nudging row on, below
/// the flat levels, where `z_me` lies below the highest neighbour surface minus 5 m
/// (that height counted 0 outside the nudging end .. owned end range, as ICON4Py),
/// `z_me` minus that height.
pub(crate) fn downward_extrapolation(
    grid: &Grid,
    heights: &Heights,
    z_me: &Columns,
    flat_idx_max: &[usize],
    r: &Ranges,
) -> (Columns, Vec<bool>) {
    let e2c = grid.topology.table(Connectivity::E2C);
    let z_ifc = &heights.z_ifc;
    let nlev = z_me.levels();
    let n_edges = e2c.rows();
    let mut pg_exdist: Vec<f64> = zeros(n_edges * nlev);
    let mut mask: Vec<bool> = zeros(n_edges * nlev);
    if nlev > 0 {
        pg_exdist
            .par_chunks_mut(nlev)
            .zip(mask.par_chunks_mut(nlev))
            .enumerate()
            .for_each(|(e, (dist, m))| {
                if e < r.edge_nudging2 || e >= r.edge_local_end {
                    return;
                }
                let limit = if e < r.edge_nudging_end {
                    0.0
                } else {
                    (0..2)
                        .filter_map(|j| e2c.neighbor(e, j))
                        .map(|c| z_ifc.get(c, nlev))
                        .fold(f64::NEG_INFINITY, f64::max)
                        - EXTRAPOLATION_DISTANCE
                };
                let z_e = z_me.column(e);
                for k in flat_idx_max[e] + 1..nlev {
                    if z_e[k] < limit {
                        dist[k] = z_e[k] - limit;
                        m[k] = dist[k] != 0.0;
                    }
                }
            });
    }
    (
        Columns {
            n: n_edges,
            levels: nlev,
            data: pg_exdist,
        },
        mask,
    )
}

/// `hmask_dd3d` from `refin_e_ctrl`, from the second boundary row to the end of the
/// owned edges: 0 up to the end of the nudging zone, rising linearly over
/// `grf_nudgezone_width − 1` rows behind it, 1 beyond and in the interior (`refin ≤ 0`).
pub(crate) fn hmask_dd3d(grid: &Grid, config: &MetricsConfig, r: &Ranges) -> Vec<f64> {
    let refin = grid.zones.of(Location::Edge).refin_ctrl();
    let (start, width) = (config.grf_nudge_start_e, config.grf_nudgezone_width);
    let (start_f, width_f) = (start as f64, width as f64);
    (0..grid.size(Location::Edge))
        .map(|e| {
            if e < r.edge_lb2 || e >= r.edge_local_end {
                return 0.0;
            }
            let rc = refin[e];
            if rc <= 0 || rc as f64 >= start_f + 2.0 * (width_f - 1.0) {
                1.0
            } else if rc > start + width - 1 {
                (rc as f64 - (start_f + width_f - 1.0)) / (width_f - 1.0)
            } else {
                0.0
            }
        })
        .collect()
}

/// `mask_prog_halo_c` (halo cells outside the four boundary rows; false for owned
/// cells) and ICON's list `bdy_halo_c` (halo cells in the boundary rows).
pub(crate) fn halo_masks(grid: &Grid, r: &Ranges) -> (Vec<bool>, Vec<usize>) {
    let refin = grid.zones.of(Location::Cell).refin_ctrl();
    let n = grid.size(Location::Cell);
    let halo = r.cell_halo.min(r.cell_owned).min(n);
    let boundary = |c: usize| (1..=4).contains(&refin[c]);
    let mask = (0..n).map(|c| c >= halo && !boundary(c)).collect();
    let list = (halo..n).filter(|&c| boundary(c)).collect();
    (mask, list)
}
