//! The truly horizontal temperature diffusion over steep slopes (ICON4Py
//! `compute_diffusion_metrics.py`, ICON `mo_vertical_grid.f90`, `l_zdiffu_t`).
//!
//! A cell from the nudging zone on takes part where its averaged slope `maxslp_avg` or
//! height difference `maxhgtd_avg` exceeds the thresholds (`thslp_zdiffu`,
//! `thhgtd_zdiffu`) at the lowest level; it is diffused on the levels `[kstart, kend)`:
//! from the first level over a threshold down to the last level still above every
//! neighbour's lowest full level (`max_nbhgt`). There
//!
//! ```text
//! zd_diffcoef = min(0.002, max(√max(0, maxslp_avg − thslp)/250, 2·10⁻⁴·√max(0, maxhgtd_avg − thhgtd)))
//! ```
//!
//! and for each neighbour `n` (C2E2C) the level `k' = k + zd_vertoffset` is the last
//! neighbour level at or above the cell's height (clamped to `0 ..= nlev − 2`), with
//! `zd_intcoef = (z − z_n[k'+1])/(z_n[k'] − z_n[k'+1])` the weight of `k'` in the linear
//! interpolation between `k'` and `k' + 1` to the cell's height `z = z_mc[c, k]`.
//! Outside those levels and cells all three are 0.

use super::fill::{fill_columns, zeros};
use super::{MetricsConfig, NeighborColumns, Ranges};
use crate::fields::Columns;
use foehn_grid::{Connectivity, Grid};
use rayon::prelude::*;

/// Largest slope `zd_diffcoef` takes.
const MAX_DIFFUSION_COEFFICIENT: f64 = 0.002;

pub(crate) struct TrulyHorizontal {
    pub max_nbhgt: Vec<f64>,
    pub zd_diffcoef: Columns,
    pub zd_intcoef: NeighborColumns<f64>,
    pub zd_vertoffset: NeighborColumns<i32>,
}

pub(crate) fn truly_horizontal(
    grid: &Grid,
    z_mc: &Columns,
    maxslp_avg: &Columns,
    maxhgtd_avg: &Columns,
    config: &MetricsConfig,
    r: &Ranges,
) -> TrulyHorizontal {
    let c2e2c = grid.topology.table(Connectivity::C2E2C);
    let n = z_mc.len();
    let nlev = z_mc.levels();
    let (thslp, thhgtd) = (config.thslp_zdiffu, config.thhgtd_zdiffu);
    let max_nbhgt: Vec<f64> = (0..n)
        .into_par_iter()
        .map(|c| {
            (0..3)
                .filter_map(|j| c2e2c.neighbor(c, j))
                .map(|nb| z_mc.get(nb, nlev - 1))
                .fold(f64::NEG_INFINITY, f64::max)
        })
        .collect();
    let steep =
        |c: usize, k: usize| maxslp_avg.get(c, k) >= thslp || maxhgtd_avg.get(c, k) >= thhgtd;
    // The diffused levels [kstart, kend) of cell c; empty where it takes no part.
    let range = |c: usize| -> (usize, usize) {
        if c < r.cell_nudging || c >= r.cell_owned || !steep(c, nlev - 1) {
            return (0, 0);
        }
        let kend = (0..nlev)
            .rev()
            .find(|&k| z_mc.get(c, k) >= max_nbhgt[c])
            .map_or(0, |k| k + 1);
        let kstart = (0..nlev).find(|&k| steep(c, k)).unwrap_or(0);
        if kend > kstart {
            (kstart, kend)
        } else {
            (0, 0)
        }
    };
    let ranges: Vec<(usize, usize)> = (0..n).into_par_iter().map(range).collect();

    let [zd_diffcoef] = fill_columns(n, [nlev], |c, [out]| {
        let (start, end) = ranges[c];
        for (k, x) in out.iter_mut().enumerate().take(end).skip(start) {
            let by_slope = (maxslp_avg.get(c, k) - thslp).max(0.0).sqrt() / 250.0;
            let by_height = 2e-4 * (maxhgtd_avg.get(c, k) - thhgtd).max(0.0).sqrt();
            *x = MAX_DIFFUSION_COEFFICIENT.min(by_slope.max(by_height));
        }
    });

    let mut intcoef: Vec<f64> = zeros(n * 3 * nlev);
    let mut vertoffset: Vec<i32> = zeros(n * 3 * nlev);
    if nlev >= 2 {
        intcoef
            .par_chunks_mut(3 * nlev)
            .zip(vertoffset.par_chunks_mut(3 * nlev))
            .enumerate()
            .for_each(|(c, (coef, off))| {
                let (start, end) = ranges[c];
                for j in 0..3 {
                    let Some(nb) = c2e2c.neighbor(c, j) else {
                        continue;
                    };
                    let zn = z_mc.column(nb);
                    for k in start..end {
                        let z = z_mc.get(c, k);
                        // Last neighbour level at or above z (the column decreases).
                        let above = zn.partition_point(|&x| x >= z);
                        let k1 = above.saturating_sub(1).min(nlev - 2);
                        coef[j * nlev + k] = (z - zn[k1 + 1]) / (zn[k1] - zn[k1 + 1]);
                        off[j * nlev + k] = k1 as i32 - k as i32;
                    }
                }
            });
    }
    TrulyHorizontal {
        max_nbhgt,
        zd_diffcoef,
        zd_intcoef: NeighborColumns::from_data(n, 3, nlev, intcoef),
        zd_vertoffset: NeighborColumns::from_data(n, 3, nlev, vertoffset),
    }
}
