//! Every static field of the dycore computed from a grid, a vertical configuration and
//! a topography ([`StaticFields`]), all at once or handed over one by one
//! ([`StaticFields::for_each_named`], for grids whose fields do not fit in memory at
//! once: R2B7 × 80 levels holds ~35 GB of metric fields), and the vertical grid's
//! summary ([`VerticalSummary`]).

use super::{geometry, to_i32, NamedField};
use crate::fields::interpolation::{
    geofac, weights, InterpolationConfig, InterpolationError, InterpolationFields, SparseField,
};
use crate::fields::metrics::{MetricFields, MetricInputs, MetricsConfig, MetricsError};
use crate::fields::sleve::{Heights, SleveError};
use crate::fields::topography::{Topography, TopographyError};
use crate::fields::vertical::{VerticalConfig, VerticalGrid, VerticalGridError};
use foehn_grid::{Grid, Location};
use std::fmt;

/// The static fields of one grid, vertical grid and topography: the interpolation
/// coefficients, the SLEVE heights and the metric fields (the geometry is the grid's).
#[derive(Debug, Clone, PartialEq)]
pub struct StaticFields {
    /// Surface height at cell centres, m.
    pub topography: Vec<f64>,
    /// The vertical grid.
    pub vertical: VerticalGrid,
    /// The interpolation coefficients.
    pub interpolation: InterpolationFields,
    /// The SLEVE heights over the topography.
    pub heights: Heights,
    /// The metric fields and the reference atmosphere.
    pub metrics: MetricFields,
}

impl StaticFields {
    /// Every field on `grid` for the vertical grid of `vertical` over `topography`,
    /// with ICON's default interpolation and metrics configurations.
    pub fn compute(
        grid: &Grid,
        vertical: VerticalConfig,
        topography: &Topography,
    ) -> Result<StaticFields, StaticFieldsError> {
        let Inputs {
            vertical,
            surface,
            interpolation,
            heights,
        } = Inputs::compute(grid, vertical, topography)?;
        StaticFields::over_heights(grid, vertical, surface, interpolation, heights)
    }

    /// The metric fields for SLEVE `heights` over `topography` (surface heights at the
    /// cells; e.g. heights built without ICON's smoothing, for tests) completing the
    /// other fields, with ICON's default metrics configuration.
    pub fn over_heights(
        grid: &Grid,
        vertical: VerticalGrid,
        topography: Vec<f64>,
        interpolation: InterpolationFields,
        heights: Heights,
    ) -> Result<StaticFields, StaticFieldsError> {
        let inputs = MetricInputs {
            c_lin_e: interpolation.c_lin_e.as_slice(),
            cells_aw_verts: interpolation.cells_aw_verts.as_slice(),
            c_bln_avg: interpolation.c_bln_avg.as_slice(),
        };
        let metrics = MetricFields::compute(
            grid,
            &vertical,
            &heights,
            &inputs,
            &MetricsConfig::default(),
        )
        .map_err(StaticFieldsError::Metrics)?;
        Ok(StaticFields {
            topography,
            vertical,
            interpolation,
            heights,
            metrics,
        })
    }

    /// Every field under ICON4Py's name, in a fixed order: the geometry of `grid` (the
    /// grid these fields were computed on), the refinement control (`int32`), the
    /// interpolation coefficients, the topography, the vertical grid, ICON4Py's helpers
    /// (owner masks, level and edge indices), the heights and the metric fields.
    pub fn named<'a>(&'a self, grid: &'a Grid) -> Vec<NamedField<'a>> {
        let mut out = leading(grid);
        out.extend(self.interpolation.named());
        out.push(super::vertical::topography(&self.topography));
        out.extend(self.vertical.named());
        out.extend(helpers(grid, self.vertical.num_levels()));
        out.extend(self.heights.named());
        out.extend(self.metrics.named());
        out
    }
}

/// The fields [`StaticFields::named`] lists first: the geometry of `grid` and the
/// refinement control of the edges (`int32`).
pub(super) fn leading(grid: &Grid) -> Vec<NamedField<'_>> {
    let mut out = geometry::named(grid);
    out.push(NamedField::one_d(
        "refinement_control_at_edges",
        "refin_ctrl",
        &["Edge"],
        grid.zones.of(Location::Edge).refin_ctrl(),
        "refinement control of the edges (lateral boundary rows and nudging zone)",
        "1",
    ));
    out
}

/// ICON4Py's helpers [`StaticFields::named`] lists after the vertical grid: the
/// refinement control, owner masks, level and edge indices.
pub(super) fn helpers(grid: &Grid, nlev: usize) -> Vec<NamedField<'_>> {
    let refin = |loc: Location| grid.zones.of(loc).refin_ctrl();
    let (n_cells, n_edges) = (grid.size(Location::Cell), grid.size(Location::Edge));
    vec![
        NamedField::one_d(
            "c_refin_ctrl",
            "refin_ctrl",
            &["Cell"],
            refin(Location::Cell),
            "refinement control of the cells (lateral boundary rows and nudging zone)",
            "1",
        ),
        NamedField::one_d(
            "e_refin_ctrl",
            "refin_ctrl",
            &["Edge"],
            refin(Location::Edge),
            "refinement control of the edges (lateral boundary rows and nudging zone)",
            "1",
        ),
        NamedField::one_d(
            "e_owner_mask",
            "",
            &["Edge"],
            vec![true; n_edges],
            "edge owned by this rank (all on one rank)",
            "1",
        ),
        NamedField::one_d(
            "c_owner_mask",
            "",
            &["Cell"],
            vec![true; n_cells],
            "cell owned by this rank (all on one rank)",
            "1",
        ),
        NamedField::one_d(
            "k_lev",
            "",
            &["KHalf"],
            to_i32(&(0..=nlev).collect::<Vec<_>>()),
            "interface index 0..nlev",
            "1",
        ),
        NamedField::one_d(
            "e_lev",
            "",
            &["Edge"],
            to_i32(&(0..n_edges).collect::<Vec<_>>()),
            "edge index 0..n_edges-1",
            "1",
        ),
    ]
}

/// What the metric fields of [`StaticFields::for_each_named`] stop on: the computation
/// or the sink.
enum Stop<E> {
    Metrics(MetricsError),
    Sink(E),
}

impl<E> From<MetricsError> for Stop<E> {
    fn from(e: MetricsError) -> Self {
        Stop::Metrics(e)
    }
}

/// The fields the metric fields are computed from: the vertical grid, the surface
/// height at cells, the interpolation coefficients and the SLEVE heights, with ICON's
/// default interpolation configuration ([`StaticFields::compute`]'s first steps).
struct Inputs {
    vertical: VerticalGrid,
    surface: Vec<f64>,
    interpolation: InterpolationFields,
    heights: Heights,
}

impl Inputs {
    fn compute(
        grid: &Grid,
        vertical: VerticalConfig,
        topography: &Topography,
    ) -> Result<Inputs, StaticFieldsError> {
        let (vertical, surface) = vertical_and_surface(grid, vertical, topography)?;
        let interpolation = InterpolationFields::compute(grid, &InterpolationConfig::default())
            .map_err(StaticFieldsError::Interpolation)?;
        let heights = Heights::on_grid(
            grid,
            &vertical,
            &surface,
            interpolation.geofac_n2s.as_slice(),
        )
        .map_err(StaticFieldsError::Heights)?;
        Ok(Inputs {
            vertical,
            surface,
            interpolation,
            heights,
        })
    }
}

impl StaticFields {
    /// Every field of [`StaticFields::compute`] handed to `sink` one by one, under the
    /// names and in the order of [`StaticFields::named`] (the same values, bit for bit):
    /// the geometry, the interpolation coefficients, the topography, the vertical grid,
    /// ICON4Py's helpers, the heights, then each metric field as soon as it is final
    /// ([`MetricFields::compute_each`]). Only what later fields need is kept: the
    /// interpolation coefficients other than `c_lin_e`, `cells_aw_verts` and
    /// `c_bln_avg` are freed once listed, and each metric field once `sink` returns
    /// (copy what you keep). The first error of `sink` stops it and is returned.
    pub fn for_each_named<E: From<StaticFieldsError>>(
        grid: &Grid,
        vertical: VerticalConfig,
        topography: &Topography,
        sink: &mut dyn FnMut(NamedField<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let Inputs {
            vertical,
            surface,
            interpolation,
            heights,
        } = Inputs::compute(grid, vertical, topography)?;
        for f in leading(grid) {
            sink(f)?;
        }
        for f in interpolation.named() {
            sink(f)?;
        }
        // The coefficients the metric fields need; the others are freed here.
        let [c_lin_e, cells_aw_verts, c_bln_avg]: [SparseField; 3] = {
            let i = interpolation;
            [i.c_lin_e, i.cells_aw_verts, i.c_bln_avg]
        };
        sink(super::vertical::topography(&surface))?;
        drop(surface);
        for f in vertical.named() {
            sink(f)?;
        }
        for f in helpers(grid, vertical.num_levels()) {
            sink(f)?;
        }
        for f in heights.named() {
            sink(f)?;
        }
        let inputs = MetricInputs {
            c_lin_e: c_lin_e.as_slice(),
            cells_aw_verts: cells_aw_verts.as_slice(),
            c_bln_avg: c_bln_avg.as_slice(),
        };
        let done = MetricFields::compute_each(
            grid,
            &vertical,
            &heights,
            &inputs,
            &MetricsConfig::default(),
            &mut |f| sink(f.named()).map_err(Stop::Sink),
        );
        match done {
            Ok(()) => Ok(()),
            Err(Stop::Sink(e)) => Err(e),
            Err(Stop::Metrics(e)) => Err(StaticFieldsError::Metrics(e).into()),
        }
    }
}

/// The vertical grid's level indices over a topography (what `foehn grid info` prints).
#[derive(Debug, Clone, PartialEq)]
pub struct VerticalSummary {
    /// The vertical grid.
    pub vertical: VerticalGrid,
    /// First level of the multi-level pressure gradient (0-based), over the topography.
    pub nflat_gradp: usize,
    /// Lowest and highest surface height, m.
    pub surface_range: (f64, f64),
}

impl VerticalSummary {
    /// The vertical grid of `vertical` on `grid` over `topography`: only the weights the
    /// heights need (`c_lin_e`, `geofac_n2s`) are computed.
    pub fn compute(
        grid: &Grid,
        vertical: VerticalConfig,
        topography: &Topography,
    ) -> Result<VerticalSummary, StaticFieldsError> {
        let (vertical, surface) = vertical_and_surface(grid, vertical, topography)?;
        let c_lin_e = weights::c_lin_e(grid).map_err(StaticFieldsError::Interpolation)?;
        let n2s =
            geofac::n2s(grid, &geofac::div(grid)).map_err(StaticFieldsError::Interpolation)?;
        let heights = Heights::on_grid(grid, &vertical, &surface, n2s.as_slice())
            .map_err(StaticFieldsError::Heights)?;
        let nflat_gradp = heights
            .nflat_gradp(grid, c_lin_e.as_slice())
            .map_err(StaticFieldsError::Heights)?;
        let surface_range = surface
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &h| {
                (lo.min(h), hi.max(h))
            });
        Ok(VerticalSummary {
            vertical,
            nflat_gradp,
            surface_range,
        })
    }
}

/// Why the static fields cannot be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum StaticFieldsError {
    /// The vertical options.
    Vertical(VerticalGridError),
    /// The topography.
    Topography(TopographyError),
    /// The interpolation coefficients.
    Interpolation(InterpolationError),
    /// The SLEVE heights.
    Heights(SleveError),
    /// The metric fields.
    Metrics(MetricsError),
}

impl fmt::Display for StaticFieldsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Vertical(e) => write!(f, "{e}"),
            Self::Topography(e) => write!(f, "{e}"),
            Self::Interpolation(e) => write!(f, "interpolation fields: {e}"),
            Self::Heights(e) => write!(f, "{e}"),
            Self::Metrics(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for StaticFieldsError {}

/// The vertical grid of `vertical` and the surface height at the cells of `grid`.
fn vertical_and_surface(
    grid: &Grid,
    vertical: VerticalConfig,
    topography: &Topography,
) -> Result<(VerticalGrid, Vec<f64>), StaticFieldsError> {
    let vertical = VerticalGrid::try_new(vertical).map_err(StaticFieldsError::Vertical)?;
    let surface = topography
        .at_cells(grid)
        .map_err(StaticFieldsError::Topography)?;
    Ok((vertical, surface))
}
