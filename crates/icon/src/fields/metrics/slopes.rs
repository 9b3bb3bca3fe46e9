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

use super::{weighted_neighbors, MetricInputs, MetricsConfig, Ranges};
use crate::fields::vertical::VerticalGrid;
use crate::fields::Columns;
use foehn_grid::{Connectivity, Grid};
use rayon::prelude::*;

/// The slope fields.
pub(crate) struct Slopes {
    pub ddxn_z_half_e: Columns,
    pub ddxt_z_half_e: Columns,
    pub ddxn_z_full: Columns,
    pub ddxt_z_full: Columns,
    pub maxslp: Columns,
    pub maxhgtd: Columns,
    pub maxslp_avg: Columns,
    pub maxhgtd_avg: Columns,
    pub exner_exfac: Columns,
    pub vwind_impl_wgt: Vec<f64>,
    pub vwind_expl_wgt: Vec<f64>,
}

pub(crate) fn slopes(
    grid: &Grid,
    vertical: &VerticalGrid,
    z_ifc: &Columns,
    inputs: &MetricInputs<'_>,
    config: &MetricsConfig,
    r: &Ranges,
) -> Slopes {
    let t = &grid.topology;
    let g = &grid.geometry;
    let (e2c, e2v, v2c, c2e) = (
        t.table(Connectivity::E2C),
        t.table(Connectivity::E2V),
        t.table(Connectivity::V2C),
        t.table(Connectivity::C2E),
    );
    let c2e2co = t.table(Connectivity::C2E2CO);
    let (n_cells, n_edges, n_vertices) = (t.n_cells(), t.n_edges(), t.n_vertices());
    let half = z_ifc.levels();
    let nlev = half - 1;

    let ddxn_z_half_e = Columns::from_fn(n_edges, half, |e, k| {
        if e < r.edge_lb2 || e >= r.edge_local_end {
            return 0.0;
        }
        match (e2c.neighbor(e, 0), e2c.neighbor(e, 1)) {
            (Some(c0), Some(c1)) => {
                (z_ifc.get(c1, k) - z_ifc.get(c0, k)) * g.inv_dual_edge_length[e]
            }
            _ => 0.0,
        }
    });
    let z_v = Columns::from_fn(n_vertices, half, |v, k| {
        weighted_neighbors(v2c, inputs.cells_aw_verts, v, |c| z_ifc.get(c, k))
    });
    let ddxt_z_half_e = Columns::from_fn(n_edges, half, |e, k| {
        if e < r.edge_lb3 || e >= r.edge_local_end {
            return 0.0;
        }
        match (e2v.neighbor(e, 0), e2v.neighbor(e, 1)) {
            (Some(v0), Some(v1)) => {
                g.tangent_orientation[e]
                    * (z_v.get(v1, k) - z_v.get(v0, k))
                    * g.inv_primal_edge_length[e]
            }
            _ => 0.0,
        }
    });
    drop(z_v);
    let ddxn_z_full = Columns::from_fn(n_edges, nlev, |e, k| {
        0.5 * (ddxn_z_half_e.get(e, k) + ddxn_z_half_e.get(e, k + 1))
    });
    let ddxt_z_full = Columns::from_fn(n_edges, nlev, |e, k| {
        if e < r.edge_lb2 {
            return 0.0;
        }
        0.5 * (ddxt_z_half_e.get(e, k) + ddxt_z_half_e.get(e, k + 1))
    });

    let max_over_edges = |c: usize, k: usize, height: bool| {
        (0..3)
            .filter_map(|j| c2e.neighbor(c, j))
            .map(|e| {
                let s = ddxn_z_full.get(e, k);
                if height {
                    (s * g.dual_edge_length[e]).abs()
                } else {
                    s.abs()
                }
            })
            .fold(0.0, f64::max)
    };
    let maxslp = Columns::from_fn(n_cells, nlev, |c, k| max_over_edges(c, k, false));
    let maxhgtd = Columns::from_fn(n_cells, nlev, |c, k| max_over_edges(c, k, true));
    let average = |f: &Columns| {
        Columns::from_fn(n_cells, nlev, |c, k| {
            if c < r.cell_lb2 {
                return 0.0;
            }
            weighted_neighbors(c2e2co, inputs.c_bln_avg, c, |n| f.get(n, k))
        })
    };
    let (maxslp_avg, maxhgtd_avg) = (average(&maxslp), average(&maxhgtd));

    let expol = config.exner_expol;
    let exner_exfac = Columns::from_fn(n_cells, nlev, |c, k| {
        let (slope, height) = (maxslp.get(c, k), maxhgtd.get(c, k));
        let reduced = if c >= r.cell_lb2 {
            expol * (1.0 - (4.0 * slope).powi(2)).min(1.0 - (0.002 * height).powi(2))
        } else {
            expol
        };
        if slope > 1.5 {
            (-1.0f64 / 6.0).max(1.0 / 9.0 * (1.5 - slope))
        } else {
            reduced.max(0.0)
        }
    });

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
    Slopes {
        ddxn_z_half_e,
        ddxt_z_half_e,
        ddxn_z_full,
        ddxt_z_full,
        maxslp,
        maxhgtd,
        maxslp_avg,
        maxhgtd_avg,
        exner_exfac,
        vwind_impl_wgt,
        vwind_expl_wgt,
    }
}
