//! Slopes of the coordinate surfaces and what depends on them (ICON4Py
//! `compute_ddxn_z_half_e`, `compute_ddxt_z_half_e`, `average_two_vertical_levels_downwards_on_edges`,
//! `compute_maxslp_maxhgtd`, `compute_weighted_cell_neighbor_sum`, `compute_exner_exfac`,
//! `compute_exner_w_implicit_weight_parameter`):
//!
//! ```text
//! ddxn_z_half_e[e, k] = (z_ifc[c₁, k] − z_ifc[c₀, k]) / dual_edge_length[e]       (E2C = c₀, c₁)
//! ddxt_z_half_e[e, k] = tangent_orientation[e]·(z_v[v₁, k] − z_v[v₀, k]) / edge_length[e]
//!                       (E2V = v₀, v₁;  z_v = Σ cells_aw_verts·z_ifc over V2C)
//! ddx*_z_full[e, k]   = (ddx*_z_half_e[e, k] + ddx*_z_half_e[e, k+1]) / 2
//! maxslp[c, k]  = maxₑ |ddxn_z_full[e, k]|,   maxhgtd[c, k] = maxₑ |ddxn_z_full[e, k]|·dual_edge_length[e]
//! exner_exfac   = max(0, exner_expol·min(1 − (4·maxslp)², 1 − (0.002·maxhgtd)²)),
//!                 max(−1/6, (1.5 − maxslp)/9) where maxslp > 1.5
//! ```
//!
//! `vwind_impl_wgt = 0.5 + offctr` with the off-centering raised over steep or high
//! slopes of the surface (up to `max(vwind_offctr, 0.75)`) and to `1.2 − Δz/Δz_nominal`
//! where one of the nine lowest layers is squeezed below 0.6 of its nominal thickness.
//! ICON4Py's ranges: `ddxn_z_half_e` from the second, `ddxt_z_half_e` from the third
//! boundary row of edges (to the end of the owned edges), `ddxt_z_full`, the averages
//! and the squeezed-layer check from the second boundary row.

use super::fill::{fill_columns, weighted_sum};
use super::{MetricInputs, MetricsConfig, Ranges};
use crate::fields::vertical::VerticalGrid;
use crate::fields::Columns;
use foehn_grid::{Connectivity, Grid};
use rayon::prelude::*;

/// The slopes of the coordinate surfaces at edges: `[ddxn_z_half_e, ddxt_z_half_e,
/// ddxn_z_full, ddxt_z_full]`, in one pass (the interface heights at vertices they need
/// are freed on return).
pub(crate) fn edge_slopes(
    grid: &Grid,
    z_ifc: &Columns,
    inputs: &MetricInputs<'_>,
    r: &Ranges,
) -> [Columns; 4] {
    let t = &grid.topology;
    let g = &grid.geometry;
    let (e2c, e2v, v2c) = (
        t.table(Connectivity::E2C),
        t.table(Connectivity::E2V),
        t.table(Connectivity::V2C),
    );
    let (n_edges, n_vertices) = (t.n_edges(), t.n_vertices());
    let half = z_ifc.levels();
    let nlev = half - 1;

    // Interface heights at vertices.
    let [z_v] = fill_columns(n_vertices, [half], |v, [out]| {
        let w = v2c.width();
        let mut cols = [None; 6];
        for (j, c) in cols.iter_mut().enumerate().take(w) {
            *c = v2c.neighbor(v, j).map(|c| z_ifc.column(c));
        }
        let weights = &inputs.cells_aw_verts[v * w..(v + 1) * w];
        for (k, x) in out.iter_mut().enumerate() {
            *x = weighted_sum(&cols[..w], weights, k);
        }
    });
    // The slopes at edges, interfaces and full levels, one pass.
    let [ddxn_z_half_e, ddxt_z_half_e, ddxn_z_full, ddxt_z_full] = fill_columns(
        n_edges,
        [half, half, nlev, nlev],
        |e, [n_half, t_half, n_full, t_full]| {
            if e >= r.edge_lb2 && e < r.edge_local_end {
                if let (Some(c0), Some(c1)) = (e2c.neighbor(e, 0), e2c.neighbor(e, 1)) {
                    let (z0, z1) = (z_ifc.column(c0), z_ifc.column(c1));
                    for k in 0..half {
                        n_half[k] = (z1[k] - z0[k]) * g.inv_dual_edge_length[e];
                    }
                }
            }
            if e >= r.edge_lb3 && e < r.edge_local_end {
                if let (Some(v0), Some(v1)) = (e2v.neighbor(e, 0), e2v.neighbor(e, 1)) {
                    let (z0, z1) = (z_v.column(v0), z_v.column(v1));
                    for k in 0..half {
                        t_half[k] = g.tangent_orientation[e]
                            * (z1[k] - z0[k])
                            * g.inv_primal_edge_length[e];
                    }
                }
            }
            for k in 0..nlev {
                n_full[k] = 0.5 * (n_half[k] + n_half[k + 1]);
            }
            if e >= r.edge_lb2 {
                for k in 0..nlev {
                    t_full[k] = 0.5 * (t_half[k] + t_half[k + 1]);
                }
            }
        },
    );
    drop(z_v);
    [ddxn_z_half_e, ddxt_z_half_e, ddxn_z_full, ddxt_z_full]
}

/// `[maxslp, maxhgtd, exner_exfac]`: the largest slope and height difference over a
/// cell's edges, and the Exner extrapolation factor from them, in one pass.
pub(crate) fn cell_maxima(
    grid: &Grid,
    ddxn_z_full: &Columns,
    config: &MetricsConfig,
    r: &Ranges,
) -> [Columns; 3] {
    let g = &grid.geometry;
    let c2e = grid.topology.table(Connectivity::C2E);
    let (n_cells, nlev) = (grid.topology.n_cells(), ddxn_z_full.levels());
    let expol = config.exner_expol;
    let [maxslp, maxhgtd, exner_exfac] =
        fill_columns(n_cells, [nlev; 3], |c, [slp, hgtd, exfac]| {
            let mut edges = [None; 3];
            for (j, x) in edges.iter_mut().enumerate() {
                *x = c2e
                    .neighbor(c, j)
                    .map(|e| (ddxn_z_full.column(e), g.dual_edge_length[e]));
            }
            for k in 0..nlev {
                let slopes = edges.iter().flatten().map(|(s, _)| s[k].abs());
                slp[k] = slopes.fold(0.0, f64::max);
                let heights = edges.iter().flatten().map(|(s, d)| (s[k] * d).abs());
                hgtd[k] = heights.fold(0.0, f64::max);
                let (slope, height) = (slp[k], hgtd[k]);
                let reduced = if c >= r.cell_lb2 {
                    expol * (1.0 - (4.0 * slope).powi(2)).min(1.0 - (0.002 * height).powi(2))
                } else {
                    expol
                };
                exfac[k] = if slope > 1.5 {
                    (-1.0f64 / 6.0).max(1.0 / 9.0 * (1.5 - slope))
                } else {
                    reduced.max(0.0)
                };
            }
        });
    [maxslp, maxhgtd, exner_exfac]
}

/// `[maxslp_avg, maxhgtd_avg]`: `maxslp` and `maxhgtd` averaged with `c_bln_avg`
/// (C2E2CO) from the second boundary row on, in one pass.
pub(crate) fn averages(
    grid: &Grid,
    maxslp: &Columns,
    maxhgtd: &Columns,
    c_bln_avg: &[f64],
    r: &Ranges,
) -> [Columns; 2] {
    let c2e2co = grid.topology.table(Connectivity::C2E2CO);
    let (n_cells, nlev) = (maxslp.len(), maxslp.levels());
    let [maxslp_avg, maxhgtd_avg] = fill_columns(n_cells, [nlev; 2], |c, [slp, hgtd]| {
        if c < r.cell_lb2 {
            return;
        }
        let weights = &c_bln_avg[4 * c..4 * c + 4];
        let cells: [Option<usize>; 4] = std::array::from_fn(|j| c2e2co.neighbor(c, j));
        for (f, out) in [(maxslp, slp), (maxhgtd, hgtd)] {
            let cols = cells.map(|n| n.map(|n| f.column(n)));
            for (k, x) in out.iter_mut().enumerate() {
                *x = weighted_sum(&cols, weights, k);
            }
        }
    });
    [maxslp_avg, maxhgtd_avg]
}

/// `(vwind_impl_wgt, vwind_expl_wgt)` per cell from the slopes of the lowest interface
/// and the squeezed lowest layers.
pub(crate) fn vwind_weights(
    grid: &Grid,
    vertical: &VerticalGrid,
    z_ifc: &Columns,
    ddxn_z_half_e: &Columns,
    ddxt_z_half_e: &Columns,
    config: &MetricsConfig,
    r: &Ranges,
) -> (Vec<f64>, Vec<f64>) {
    let g = &grid.geometry;
    let c2e = grid.topology.table(Connectivity::C2E);
    let n_cells = grid.topology.n_cells();
    let nlev = z_ifc.levels() - 1;
    let vct_a = &vertical.vct_a;
    let offctr = config.vwind_offctr;
    let mut vwind_impl_wgt = vec![0.0; n_cells];
    vwind_impl_wgt
        .par_iter_mut()
        .enumerate()
        .for_each(|(c, w)| {
            let (mut slope, mut height) = (0.0f64, 0.0f64);
            for e in (0..3).filter_map(|j| c2e.neighbor(c, j)) {
                let n = ddxn_z_half_e.get(e, nlev).abs();
                let t = ddxt_z_half_e.get(e, nlev).abs();
                slope = slope.max(n).max(t);
                height = height.max(n * g.dual_edge_length[e]);
            }
            let maxslope = 0.425 * slope.powf(0.75);
            let diff = (0.25f64).min(0.00025 * (height - 250.0));
            let off = offctr.max(0.75).min(offctr.max(maxslope.max(diff)));
            let mut wgt = 0.5 + off;
            if c >= r.cell_lb2 {
                for k in nlev.saturating_sub(9)..nlev {
                    let squeeze =
                        (z_ifc.get(c, k) - z_ifc.get(c, k + 1)) / (vct_a[k] - vct_a[k + 1]);
                    if squeeze < 0.6 {
                        wgt = wgt.max(1.2 - squeeze);
                    }
                }
            }
            *w = wgt;
        });
    let vwind_expl_wgt = vwind_impl_wgt.iter().map(|w| 1.0 - w).collect();
    (vwind_impl_wgt, vwind_expl_wgt)
}
