//! The fields ICON computes from the grid, the vertical grid and the topography, before a
//! run (ICON4Py's `VerticalGrid`, topography, `MetricsFieldsFactory` inputs):
//!
//! - [`vertical`]: the vertical grid (`vct_a`, `vct_b`) of ICON's configuration and the
//!   level indices derived from it (`nflatlev`, `end_index_of_damping_layer`,
//!   `kstart_moist`);
//! - [`topography`]: the surface height at cell centres (flat, Jablonowski–Williamson);
//! - [`sleve`]: the SLEVE height of every interface and full level (`z_ifc`, `z_mc`)
//!   over a topography;
//! - [`reference_atmosphere`]: ICON's reference atmosphere at cells, interfaces and edges;
//! - [`interpolation`]: the interpolation coefficients from the horizontal grid (c_lin_e, geofac_*, RBF, …).
//! - [`metrics`]: the metric fields of the dycore (ddqz, wgtfac, slopes, pressure-gradient levels, …).
//! - [`static_fields`]: all of them computed once for a grid and handed out as the components' fields.
//!
//! Cell × level fields are [`Columns`]: ICON4Py's dimension order `[n, levels]`, one
//! column contiguous.

pub mod interpolation;
pub mod metrics;
pub mod named;
pub mod reference_atmosphere;
pub mod sleve;
pub mod static_fields;
pub mod topography;
pub mod vertical;

use rayon::prelude::*;

/// A field over horizontal points (cells or edges) and levels, stored row-major as
/// ICON4Py orders its dimensions (`[n, levels]`): column `i` is
/// `data[i·levels .. (i+1)·levels]`, level 0 at the model top.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Columns {
    n: usize,
    levels: usize,
    data: Vec<f64>,
}

impl Columns {
    /// `n` columns of `levels` values `f(i, k)`, computed in parallel over columns.
    pub fn from_fn(n: usize, levels: usize, f: impl Fn(usize, usize) -> f64 + Sync) -> Columns {
        let mut data = vec![0.0; n * levels];
        if levels > 0 {
            data.par_chunks_mut(levels)
                .enumerate()
                .for_each(|(i, col)| col.iter_mut().enumerate().for_each(|(k, x)| *x = f(i, k)));
        }
        Columns { n, levels, data }
    }

    /// Wraps row-major data of `n` columns of `levels` values; `None` when the length
    /// is not `n·levels`.
    pub fn from_vec(n: usize, levels: usize, data: Vec<f64>) -> Option<Columns> {
        (data.len() == n * levels).then_some(Columns { n, levels, data })
    }

    /// Number of levels per column.
    pub fn levels(&self) -> usize {
        self.levels
    }

    /// Number of columns.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when there are no columns.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Column `i` (level 0 first).
    pub fn column(&self, i: usize) -> &[f64] {
        &self.data[i * self.levels..(i + 1) * self.levels]
    }

    /// The value of column `i` at level `k`.
    pub fn get(&self, i: usize, k: usize) -> f64 {
        self.data[i * self.levels + k]
    }

    /// Every column, in order.
    pub fn columns(&self) -> impl Iterator<Item = &[f64]> + '_ {
        (0..self.n).map(|i| self.column(i))
    }

    /// The data, row-major `[n, levels]`.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }

    /// The data, row-major `[n, levels]`.
    pub fn into_vec(self) -> Vec<f64> {
        self.data
    }
}
