//! SLEVE heights (Schär et al. 2002; Leuenberger et al. 2010) of every interface
//! (`z_ifc`, `nlev + 1` per cell) and full level (`z_mc`) over a topography, as ICON4Py
//! `compute_vertical_coordinate` and ICON `init_sleve_coord` compute them:
//!
//! 1. the topography `h` is split into a large-scale part `h₁` (25 passes of the
//!    diffusion `h ← h + ⅛·∇²h·A`, [`smooth_topography`]) and a small-scale part
//!    `h₂ = h − h₁`;
//! 2. `z_ifc[k] = vct_a[k]` for `k ≤ nflatlev`, `z_ifc[nlev] = h`, and between them
//!    `z_ifc[k] = vct_a[k] + h₁·b₁(vct_a[k]) + h₂·b₂(vct_a[k])` with the decay
//!    `bᵢ(z) = sinh((H/sᵢ)^n − (z/sᵢ)^n) / sinh((H/sᵢ)^n)` (scales `s₁`, `s₂`, exponent
//!    `n`, model top `H`);
//! 3. layers thinner than a minimum that grows with the nominal thickness are thickened
//!    bottom-up, and the transition above the highest thickened layer is smoothed
//!    (ICON's limiter, `correct_layer_thickness` here);
//! 4. `z_mc[k] = (z_ifc[k] + z_ifc[k+1])/2`.
//!
//! From the heights and the cell→edge weights `c_lin_e` come ICON's `flat_idx_max` and
//! `nflat_gradp` (the levels flat enough for the plain pressure gradient).
//!
//! ICON4Py's JW setup goes through the same path (smoothing and both decay scales).

use super::metrics::fill::{fill_columns, zeros};
use super::vertical::VerticalGrid;
use super::Columns;
use foehn_grid::{Connectivity, Grid, Location, NeighborTable, Zone};
use rayon::prelude::*;
use std::fmt;

/// Passes of the topography smoothing (ICON4Py `smooth_topography`).
pub const SMOOTHING_ITERATIONS: usize = 25;
/// Nominal thickness below which a layer keeps at least a third of it, m (ICON's
/// hard-coded `init_vert_coord` limits, ICON4Py `_SLEVE_minimum_layer_thickness_1`).
const MIN_THICKNESS_1: f64 = 100.0;
/// Nominal thickness from which a layer keeps at least half of it, m.
const MIN_THICKNESS_2: f64 = 500.0;
/// Minimal relative thickness of thin layers.
const MIN_RELATIVE_1: f64 = 1.0 / 3.0;
/// Minimal relative thickness of layers `MIN_THICKNESS_2` thick.
const MIN_RELATIVE_2: f64 = 0.5;

/// Interface and full-level heights of every cell column.
#[derive(Debug, Clone, PartialEq)]
pub struct Heights {
    /// Interface heights `[n_cells, nlev + 1]`, m (ICON `z_ifc`; ICON4Py
    /// `vertical_coordinates_on_half_levels`).
    pub z_ifc: Columns,
    /// Full-level heights `[n_cells, nlev]`, m (ICON `z_mc`; ICON4Py `height`).
    pub z_mc: Columns,
}

impl Heights {
    /// SLEVE heights on `grid` over `topography` (m, per cell), smoothed with the
    /// grid's cell areas and the nabla² weights `geofac_n2s` (`[n_cells, 4]`, C2E2CO
    /// order, from the interpolation fields).
    pub fn on_grid(
        grid: &Grid,
        vertical: &VerticalGrid,
        topography: &[f64],
        geofac_n2s: &[f64],
    ) -> Result<Heights, SleveError> {
        let smoothed = smooth_topography(
            topography,
            &grid.geometry.cell_area,
            geofac_n2s,
            grid.topology.table(Connectivity::C2E2CO),
        )?;
        Heights::compute(vertical, topography, &smoothed)
    }

    /// SLEVE heights over `topography` with its large-scale part `smoothed_topography`
    /// (both m, per cell).
    pub fn compute(
        vertical: &VerticalGrid,
        topography: &[f64],
        smoothed_topography: &[f64],
    ) -> Result<Heights, SleveError> {
        let n_cells = topography.len();
        check_len("smoothed_topography", smoothed_topography, n_cells)?;
        check_finite("topography", topography)?;
        check_finite("smoothed_topography", smoothed_topography)?;
        let nlev = vertical.num_levels();
        let (vct_a, nflatlev) = (&vertical.vct_a, vertical.nflatlev);
        let c = &vertical.config;
        let decay = |scale: f64| -> Vec<f64> {
            let b = |z: f64| decay_factor(z, c.model_top_height, scale, c.sleve_decay_exponent);
            vct_a.iter().map(|&z| b(z)).collect()
        };
        let (b1, b2) = (decay(c.sleve_decay_scale_1), decay(c.sleve_decay_scale_2));
        let min_dz = minimum_thickness(vct_a, c.lowest_layer_thickness);

        let mut z_ifc = zeros(n_cells * (nlev + 1));
        let mut ktop = vec![nlev; n_cells];
        z_ifc
            .par_chunks_mut(nlev + 1)
            .zip(ktop.par_iter_mut())
            .enumerate()
            .for_each(|(cell, (z, ktop))| {
                let (h, h1) = (topography[cell], smoothed_topography[cell]);
                z[nlev] = h;
                for k in 0..nlev {
                    z[k] = if k <= nflatlev {
                        vct_a[k]
                    } else {
                        vct_a[k] + h1 * b1[k] + (h - h1) * b2[k]
                    };
                }
                *ktop = correct_layer_thickness(z, &min_dz);
            });
        if nlev > 6 {
            if let Some(cell) = ktop.iter().position(|&k| k <= 2) {
                return Err(SleveError::ModelTopTooLow {
                    cell,
                    level: ktop[cell],
                });
            }
        }
        let z_ifc = Columns {
            n: n_cells,
            levels: nlev + 1,
            data: z_ifc,
        };
        let k_flat = nflatlev.saturating_sub(1);
        if let Some(cell) = (0..n_cells).find(|&i| z_ifc.get(i, k_flat) != vct_a[k_flat]) {
            return Err(SleveError::NotFlat {
                cell,
                level: k_flat,
            });
        }
        let [z_mc] = fill_columns(n_cells, [nlev], |i, [m]| {
            let z = z_ifc.column(i);
            for (k, x) in m.iter_mut().enumerate() {
                *x = 0.5 * (z[k] + z[k + 1]);
            }
        });
        Ok(Heights { z_ifc, z_mc })
    }

    /// Number of full levels.
    pub fn num_levels(&self) -> usize {
        self.z_mc.levels()
    }

    /// Per edge, the last full level `k` whose height at the edge
    /// `z_me = Σⱼ c_lin_e[e, j]·z_mc[E2C[e, j], k]` lies inside layer `k` of both
    /// neighbour cells (0 if none, or where a neighbour is missing) — ICON4Py
    /// `compute_flat_max_idx`, ICON `flat_idx`. `c_lin_e` is `[n_edges, 2]` row-major (the
    /// interpolation fields' cell→edge weights).
    pub fn flat_idx_max(&self, grid: &Grid, c_lin_e: &[f64]) -> Result<Vec<usize>, SleveError> {
        let n_edges = grid.topology.n_edges();
        check_len("c_lin_e", c_lin_e, 2 * n_edges)?;
        let n_cells = grid.topology.n_cells();
        if self.z_mc.len() != n_cells {
            return Err(SleveError::WrongLength {
                field: "heights (cells)",
                expected: n_cells,
                found: self.z_mc.len(),
            });
        }
        let e2c = grid.topology.table(Connectivity::E2C);
        let mut flat = vec![0; n_edges];
        flat.par_iter_mut().enumerate().for_each(|(e, out)| {
            let (Some(c0), Some(c1)) = (e2c.neighbor(e, 0), e2c.neighbor(e, 1)) else {
                return;
            };
            let (i0, i1) = (self.z_ifc.column(c0), self.z_ifc.column(c1));
            let (m0, m1) = (self.z_mc.column(c0), self.z_mc.column(c1));
            let inside = |z_ifc: &[f64], k: usize, z: f64| z <= z_ifc[k] && z >= z_ifc[k + 1];
            *out = (0..self.num_levels())
                .rev()
                .find(|&k| {
                    let z = c_lin_e[2 * e] * m0[k] + c_lin_e[2 * e + 1] * m1[k];
                    inside(i0, k, z) && inside(i1, k, z)
                })
                .unwrap_or(0);
        });
        Ok(flat)
    }

    /// `nflat_gradp`: the smallest [`Heights::flat_idx_max`] over the edges from the second
    /// lateral boundary row on (`nlev` if there are none) — the first level of ICON's
    /// multi-level pressure gradient (ICON4Py `compute_nflat_gradp`, one process).
    pub fn nflat_gradp(&self, grid: &Grid, c_lin_e: &[f64]) -> Result<usize, SleveError> {
        let flat = self.flat_idx_max(grid, c_lin_e)?;
        let start = grid
            .zones
            .of(Location::Edge)
            .start(Zone::LateralBoundary(2))
            .map_err(|e| SleveError::Zone(e.to_string()))?;
        Ok(flat[start.min(flat.len())..]
            .iter()
            .copied()
            .min()
            .unwrap_or(self.num_levels()))
    }
}

/// The large-scale part of `topography`: [`SMOOTHING_ITERATIONS`] passes of
/// `h ← h + ⅛·(Σⱼ geofac_n2s[c, j]·h[c2e2co[c, j]])·cell_area[c]` (missing neighbours
/// skipped). `geofac_n2s` is `[n_cells, 4]` row-major in C2E2CO order.
pub fn smooth_topography(
    topography: &[f64],
    cell_area: &[f64],
    geofac_n2s: &[f64],
    c2e2co: &NeighborTable,
) -> Result<Vec<f64>, SleveError> {
    let n = topography.len();
    check_len("cell_area", cell_area, n)?;
    check_len("geofac_n2s", geofac_n2s, 4 * n)?;
    if c2e2co.rows() != n || c2e2co.width() != 4 {
        return Err(SleveError::WrongLength {
            field: "c2e2co",
            expected: 4 * n,
            found: c2e2co.as_slice().len(),
        });
    }
    let mut h = topography.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..SMOOTHING_ITERATIONS {
        next.par_iter_mut().enumerate().for_each(|(c, out)| {
            let nabla2: f64 = (0..4)
                .filter_map(|j| c2e2co.neighbor(c, j).map(|i| h[i] * geofac_n2s[4 * c + j]))
                .sum();
            *out = h[c] + 0.125 * nabla2 * cell_area[c];
        });
        std::mem::swap(&mut h, &mut next);
    }
    Ok(h)
}

/// SLEVE decay `sinh(a − b)/sinh(a)` with `a = (top/scale)^n`, `b = (z/scale)^n`, in
/// the overflow-free form `(e^{−b} − e^{b−2a})/(1 − e^{−2a})` where `sinh(a)` would
/// overflow.
pub fn decay_factor(z: f64, top: f64, scale: f64, exponent: f64) -> f64 {
    let a = (top / scale).powf(exponent);
    let b = (z / scale).powf(exponent);
    if a < 700.0 {
        (a - b).sinh() / a.sinh()
    } else {
        ((-b).exp() - (b - 2.0 * a).exp()) / (1.0 - (-2.0 * a).exp())
    }
}

/// ICON's minimal thickness of layer `k` (between interfaces `k` and `k + 1`): a third
/// of the nominal thickness `Δ` below 100 m, blending to a half at 500 m, then
/// `250 m·(Δ/500 m)^{1/3}`; never below `min(50 m, lowest_layer_thickness)`.
fn minimum_thickness(vct_a: &[f64], lowest_layer_thickness: f64) -> Vec<f64> {
    let floor = lowest_layer_thickness.min(50.0);
    vct_a
        .windows(2)
        .map(|w| {
            let d = w[0] - w[1];
            let m = if d < MIN_THICKNESS_1 {
                MIN_RELATIVE_1 * d
            } else if d < MIN_THICKNESS_2 {
                let f = ((MIN_THICKNESS_2 - d) / (MIN_THICKNESS_2 - MIN_THICKNESS_1)).powi(2);
                (MIN_RELATIVE_1 * f + MIN_RELATIVE_2 * (1.0 - f)) * d
            } else {
                MIN_RELATIVE_2 * MIN_THICKNESS_2 * (d / MIN_THICKNESS_2).powf(1.0 / 3.0)
            };
            m.max(floor)
        })
        .collect()
}

/// Thickens layers thinner than `min_dz` bottom-up in one column, smooths the thickness
/// ratios above the highest thickened layer `kt` when `3 ≤ kt ≤ nlev − 3`, and returns
/// `kt` (`nlev` when no layer was thickened).
fn correct_layer_thickness(z: &mut [f64], min_dz: &[f64]) -> usize {
    let nlev = min_dz.len();
    let mut kt = nlev;
    for k in (0..nlev).rev() {
        if z[k + 1] + min_dz[k] > z[k] {
            z[k] = z[k + 1] + min_dz[k];
            kt = k;
        }
    }
    if kt >= 3 && kt + 3 <= nlev {
        let dz1 = z[kt + 1] - z[kt + 2];
        let dz2 = z[kt - 3] - z[kt - 2];
        let sf = (dz2 / dz1).powf(0.25);
        let dz3 = (z[kt - 2] - z[kt + 1]) / (sf * (1.0 + sf * (1.0 + sf)));
        z[kt] = z[kt].max(z[kt + 1] + dz3 * sf);
        z[kt - 1] = z[kt - 1].max(z[kt] + dz3 * sf * sf);
    }
    kt
}

fn check_len(field: &'static str, data: &[f64], expected: usize) -> Result<(), SleveError> {
    if data.len() != expected {
        return Err(SleveError::WrongLength {
            field,
            expected,
            found: data.len(),
        });
    }
    Ok(())
}

fn check_finite(field: &'static str, data: &[f64]) -> Result<(), SleveError> {
    match data.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(SleveError::NotFinite { field, index }),
        None => Ok(()),
    }
}

/// Why SLEVE heights cannot be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum SleveError {
    /// An input of the wrong length.
    WrongLength {
        /// The input.
        field: &'static str,
        /// The length expected from the number of cells.
        expected: usize,
        /// Its length.
        found: usize,
    },
    /// A non-finite input value.
    NotFinite {
        /// The input.
        field: &'static str,
        /// The first bad entry.
        index: usize,
    },
    /// The minimal-thickness limiter reached level 2 or above (more than 6 levels):
    /// the model top is too low for the topography.
    ModelTopTooLow {
        /// The first such cell.
        cell: usize,
        /// The highest thickened layer there.
        level: usize,
    },
    /// Level `nflatlev − 1` is no longer flat after the limiter.
    NotFlat {
        /// The first such cell.
        cell: usize,
        /// The level.
        level: usize,
    },
    /// The grid's edge zones do not give the start of the second boundary row.
    Zone(String),
}

impl fmt::Display for SleveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::WrongLength {
                field,
                expected,
                found,
            } => write!(f, "SLEVE: {field} has {found} values, {expected} expected"),
            Self::NotFinite { field, index } => {
                write!(f, "SLEVE: {field}[{index}] is not finite")
            }
            Self::ModelTopTooLow { cell, level } => write!(
                f,
                "SLEVE: the model top is too low for the topography (cell {cell}: layers \
                 thickened up to level {level})"
            ),
            Self::NotFlat { cell, level } => write!(
                f,
                "SLEVE: level {level} (nflatlev − 1) is not flat at cell {cell}; raise \
                 flat_height or the model top"
            ),
            Self::Zone(e) => write!(f, "SLEVE: {e}"),
        }
    }
}

impl std::error::Error for SleveError {}
