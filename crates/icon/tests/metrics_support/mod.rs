//! What the metric-field tests share: the interpolation coefficients they take
//! (`c_lin_e`, `cells_aw_verts`, `c_bln_avg` from the interpolation fields), SLEVE
//! heights over a topography, and the metric fields over them.
#![allow(dead_code)]

use crate::fields_support;
use foehn_grid::{Connectivity, Grid};
use foehn_icon::fields::interpolation::{weights, InterpolationConfig, SparseField};
use foehn_icon::fields::metrics::{MetricFields, MetricInputs, MetricsConfig};
use foehn_icon::fields::sleve::Heights;
use foehn_icon::fields::topography::Topography;
use foehn_icon::fields::vertical::VerticalGrid;

/// The interpolation coefficients of a grid.
pub struct Coefficients {
    pub c_lin_e: SparseField,
    pub cells_aw_verts: SparseField,
    pub c_bln_avg: SparseField,
}

impl Coefficients {
    pub fn of(grid: &Grid) -> Coefficients {
        Coefficients {
            c_lin_e: weights::c_lin_e(grid).expect("c_lin_e"),
            cells_aw_verts: weights::cells_aw_verts(grid).expect("cells_aw_verts"),
            c_bln_avg: weights::c_bln_avg(grid, &InterpolationConfig::default())
                .expect("c_bln_avg"),
        }
    }

    pub fn inputs(&self) -> MetricInputs<'_> {
        MetricInputs {
            c_lin_e: self.c_lin_e.as_slice(),
            cells_aw_verts: self.cells_aw_verts.as_slice(),
            c_bln_avg: self.c_bln_avg.as_slice(),
        }
    }
}

/// A grid with its vertical grid, heights, coefficients and metric fields.
pub struct Case {
    pub grid: &'static Grid,
    pub vertical: VerticalGrid,
    pub heights: Heights,
    pub coefficients: Coefficients,
    pub metrics: MetricFields,
}

impl Case {
    /// ICON's defaults with `nlev` levels over `topography`.
    pub fn new(grid: &'static Grid, nlev: usize, topography: Topography) -> Case {
        let vertical = fields_support::vertical(nlev);
        let (_, heights) = fields_support::heights(grid, &vertical, topography);
        Case::with_heights(grid, vertical, heights, &MetricsConfig::default())
    }

    /// Over given heights, with `config`.
    pub fn with_heights(
        grid: &'static Grid,
        vertical: VerticalGrid,
        heights: Heights,
        config: &MetricsConfig,
    ) -> Case {
        let coefficients = Coefficients::of(grid);
        let metrics =
            MetricFields::compute(grid, &vertical, &heights, &coefficients.inputs(), config)
                .expect("metric fields");
        Case {
            grid,
            vertical,
            heights,
            coefficients,
            metrics,
        }
    }

    pub fn nlev(&self) -> usize {
        self.vertical.num_levels()
    }

    /// The full-level heights at edges `Σ c_lin_e·z_mc`.
    pub fn z_me(&self, e: usize, k: usize) -> f64 {
        let e2c = self.grid.topology.table(Connectivity::E2C);
        (0..2)
            .filter_map(|j| {
                e2c.neighbor(e, j)
                    .map(|c| self.coefficients.c_lin_e.get(e, j) * self.heights.z_mc.get(c, k))
            })
            .sum()
    }
}

/// SLEVE heights over `topography` (m per cell) taken as its own large-scale part
/// (no smoothing): every coordinate surface is `vct_a + topography·b₁`.
pub fn unsmoothed_heights(vertical: &VerticalGrid, topography: &[f64]) -> Heights {
    Heights::compute(vertical, topography, topography).expect("SLEVE heights")
}

/// A Gaussian mountain of `height` m and e-folding half-width `width` m centred at the
/// cell centre nearest to (lat, lon) in degrees.
pub fn mountain(grid: &Grid, height: f64, width: f64, lat: f64, lon: f64) -> Vec<f64> {
    let (lat, lon) = (lat.to_radians(), lon.to_radians());
    let centre = [lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin()];
    let r = foehn_grid::EARTH_RADIUS;
    grid.points
        .cell
        .iter()
        .map(|p| {
            let n = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
            let cos = (p[0] * centre[0] + p[1] * centre[1] + p[2] * centre[2]) / n;
            let d = r * cos.clamp(-1.0, 1.0).acos();
            height * (-(d / width).powi(2)).exp()
        })
        .collect()
}
