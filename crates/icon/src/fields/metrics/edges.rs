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

use super::{weighted_neighbors, MetricsConfig, NeighborColumns, Ranges};
use crate::fields::sleve::Heights;
use crate::fields::Columns;
use foehn_grid::{Connectivity, Grid, Location, NeighborTable};
use rayon::prelude::*;

/// Depth below the highest neighbour surface from where the pressure gradient is
/// extrapolated downwards, m (ICON's `extrapol_dist`).
pub const EXTRAPOLATION_DISTANCE: f64 = 5.0;

/// `Σⱼ c_lin_e[e, j]·f[E2C[e, j], k]` for edges from `start` on (0 before).
pub(crate) fn cell_to_edge(
    f: &Columns,
    e2c: &NeighborTable,
    c_lin_e: &[f64],
    start: usize,
) -> Columns {
    Columns::from_fn(e2c.rows(), f.levels(), |e, k| {
        if e < start {
            return 0.0;
        }
        weighted_neighbors(e2c, c_lin_e, e, |c| f.get(c, k))
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

/// The first layer `k' ≥ from` of `z_ifc` column `c` that contains `z`, or the lowest.
fn layer_containing(z_ifc: &Columns, c: usize, z: f64, from: usize) -> usize {
    let nlev = z_ifc.levels() - 1;
    (from..nlev)
        .find(|&k| k == nlev - 1 || (z <= z_ifc.get(c, k) && z >= z_ifc.get(c, k + 1)))
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
    let mut zdiff = vec![0.0; n_edges * 2 * nlev];
    let mut offset = vec![0i32; n_edges * 2 * nlev];
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
                let surface = z_ifc.get(c0, nlev).max(z_ifc.get(c1, nlev)) - EXTRAPOLATION_DISTANCE;
                let extrapolate = e >= r.edge_nudging2;
                for (j, c) in [c0, c1].into_iter().enumerate() {
                    let (zd, off) = (&mut zd[j * nlev..][..nlev], &mut off[j * nlev..][..nlev]);
                    for (k, x) in zd.iter_mut().enumerate().take(flat.min(nlev - 1) + 1) {
                        *x = z_me.get(e, k) - z_mc.get(c, k);
                    }
                    let mut start = flat;
                    for k in flat + 1..nlev {
                        let z = z_me.get(e, k);
                        let target = if extrapolate && z < surface {
                            surface
                        } else {
                            z
                        };
                        let k1 = layer_containing(z_ifc, c, target, start);
                        start = k1;
                        zd[k] = target - z_mc.get(c, k1);
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
    let limit = |e: usize| {
        if e < r.edge_nudging_end || e >= r.edge_local_end {
            return 0.0;
        }
        (0..2)
            .filter_map(|j| e2c.neighbor(e, j))
            .map(|c| z_ifc.get(c, nlev))
            .fold(f64::NEG_INFINITY, f64::max)
            - EXTRAPOLATION_DISTANCE
    };
    let applies = |e: usize, k: usize| {
        e >= r.edge_nudging2 && e < r.edge_local_end && k > flat_idx_max[e] && {
            z_me.get(e, k) < limit(e)
        }
    };
    let pg_exdist = Columns::from_fn(n_edges, nlev, |e, k| match applies(e, k) {
        true => z_me.get(e, k) - limit(e),
        false => 0.0,
    });
    let mut mask = vec![false; n_edges * nlev];
    if nlev > 0 {
        mask.par_chunks_mut(nlev).enumerate().for_each(|(e, m)| {
            for (k, x) in m.iter_mut().enumerate() {
                *x = pg_exdist.get(e, k) != 0.0;
            }
        });
    }
    (pg_exdist, mask)
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
