//! The metric fields of ICON's dycore (ICON4Py `MetricsFieldsFactory`, ICON
//! `mo_vertical_grid.f90`), computed from the grid, the vertical grid, the SLEVE heights
//! and the interpolation coefficients `c_lin_e`, `cells_aw_verts` (`c_intp`) and
//! `c_bln_avg`:
//!
//! - [`columns`]: per cell column: `ddqz_z_full`/`inv_ddqz_z_full`, `ddqz_z_half`,
//!   `coeff1/2_dwdz`, `wgtfac_c`, `wgtfacq_c`, and the K fields `rayleigh_w`,
//!   `scalfac_dd3d`;
//! - [`slopes`]: slopes of the coordinate surfaces (`ddxn/ddxt_z_half_e`,
//!   `ddxn/ddxt_z_full`), their maxima per cell (`maxslp`, `maxhgtd` and averages),
//!   `exner_exfac` and the off-centering `vwind_impl_wgt`/`vwind_expl_wgt`;
//! - [`edges`]: edge fields: `ddqz_z_full_e`, `wgtfac_e`, `wgtfacq_e`, `coeff_gradekin`,
//!   the Taylor pressure gradient `zdiff_gradp`/`vertoffset_gradp`, its downward
//!   extrapolation `pg_exdist` (and mask), `hmask_dd3d`, and the halo masks
//!   `mask_prog_halo_c`/`bdy_halo_c`;
//! - [`diffusion`]: the truly horizontal temperature diffusion over steep slopes
//!   (`max_nbhgt`, `zd_diffcoef`, `zd_intcoef`, `zd_vertoffset`).
//!
//! The reference atmosphere (cells and edges) is computed with them
//! ([`MetricFields::reference`]). The diffusion's level profiles `enh_smag_fac` and
//! `diff_multfac_n2w` belong, as in ICON4Py, to the diffusion setup
//! ([`crate::diffusion::config::DiffusionParams`]).
//!
//! [`MetricFields::compute_each`] computes them in groups and hands each field over
//! ([`MetricField`]: a [`MetricId`] and its values) as soon as it is final, freeing what
//! no later group needs, so that grids whose metric fields do not fit in memory at once
//! (R2B7 × 80 levels: ~35 GB) can be written; [`MetricFields::compute`] collects them.
//!
//! Horizontal ranges follow ICON4Py's factory (points outside them hold 0); every field
//! is computed in parallel over columns, each column by a fixed sequence of operations,
//! so the result does not depend on the number of threads.

pub mod columns;
pub mod diffusion;
mod each;
pub mod edges;
mod error;
mod field;
pub(crate) mod fill;
pub mod slopes;

pub use error::MetricsError;
pub use field::{MetricField, MetricId, MetricValue};

use super::reference_atmosphere::{ReferenceAtmosphere, ReferenceAtmosphereEdges, ReferenceConfig};
use super::sleve::Heights;
use super::vertical::VerticalGrid;
use super::Columns;
use foehn_grid::{Grid, Location, Zone};
use std::collections::HashMap;
use std::time::Duration;

/// Rayleigh damping of `w` (ICON `rayleigh_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RayleighType {
    /// Classical `sin²` profile (ICON 1).
    Classic,
    /// Klemp, Dudhia and Hassiotis (2008): `1 − tanh` profile (ICON 2, the default).
    Klemp,
}

/// The metric fields' configuration with ICON's defaults (ICON4Py `MetricsConfig`,
/// `nonhydrostatic_nml`).
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsConfig {
    /// Temporal extrapolation of the Exner perturbation, fraction of dt (`exner_expol`, ⅓).
    pub exner_expol: f64,
    /// Off-centering of the vertical wind solver (`vwind_offctr`, 0.15; ≥ 0).
    pub vwind_offctr: f64,
    /// Slope above which truly horizontal temperature diffusion applies (`thslp_zdiffu`, 0.025).
    pub thslp_zdiffu: f64,
    /// Height difference to a neighbour above which it applies, m (`thhgtd_zdiffu`, 200).
    pub thhgtd_zdiffu: f64,
    /// Rayleigh damping profile (`rayleigh_type`, Klemp).
    pub rayleigh_type: RayleighType,
    /// Rayleigh damping coefficient 1/τ₀, 1/s (`rayleigh_coeff`, 0.05).
    pub rayleigh_coeff: f64,
    /// Lower end of the 2D→3D divergence-damping transition, m (`divdamp_trans_start`, 12 500).
    pub divdamp_trans_start: f64,
    /// Upper end of that transition, m (`divdamp_trans_end`, 17 500).
    pub divdamp_trans_end: f64,
    /// Divergence damping type (`divdamp_type`, 3; 32 tapers `scalfac_dd3d`).
    pub divdamp_type: i32,
    /// Horizontal pressure gradient method (`igradp_method`, 3: Taylor expansion).
    pub igradp_method: i32,
    /// `refin_e_ctrl` value where the edges' nudging zone starts as ICON4Py counts it
    /// (8 boundary rows + 2 nudging rows = 10; ICON's `grf_nudge_start_e` is 9).
    pub grf_nudge_start_e: i32,
    /// Width of the nudging zone in edge rows (`grf_nudgezone_width`, 8).
    pub grf_nudgezone_width: i32,
    /// The reference atmosphere.
    pub reference: ReferenceConfig,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            exner_expol: 1.0 / 3.0,
            vwind_offctr: 0.15,
            thslp_zdiffu: 0.025,
            thhgtd_zdiffu: 200.0,
            rayleigh_type: RayleighType::Klemp,
            rayleigh_coeff: 0.05,
            divdamp_trans_start: 12_500.0,
            divdamp_trans_end: 17_500.0,
            divdamp_type: 3,
            igradp_method: 3,
            grf_nudge_start_e: 10,
            grf_nudgezone_width: 8,
            reference: ReferenceConfig::default(),
        }
    }
}

impl MetricsConfig {
    /// Checks the options: every number finite, `vwind_offctr` and the thresholds ≥ 0,
    /// the divergence-damping transition non-empty, the nudging width > 1.
    pub fn validate(&self) -> Result<(), MetricsError> {
        let non_negative = [
            ("exner_expol", self.exner_expol),
            ("vwind_offctr", self.vwind_offctr),
            ("thslp_zdiffu", self.thslp_zdiffu),
            ("thhgtd_zdiffu", self.thhgtd_zdiffu),
            ("rayleigh_coeff", self.rayleigh_coeff),
        ];
        for (option, value) in non_negative {
            if !(value.is_finite() && value >= 0.0) {
                return Err(MetricsError::InvalidOption {
                    option,
                    value,
                    requirement: "a finite number ≥ 0",
                });
            }
        }
        let (s, e) = (self.divdamp_trans_start, self.divdamp_trans_end);
        if !(s.is_finite() && e.is_finite() && e > s) {
            return Err(MetricsError::InvalidOption {
                option: "divdamp_trans_end",
                value: e,
                requirement: "finite and above divdamp_trans_start",
            });
        }
        if self.grf_nudgezone_width < 2 {
            return Err(MetricsError::InvalidOption {
                option: "grf_nudgezone_width",
                value: self.grf_nudgezone_width as f64,
                requirement: "at least 2",
            });
        }
        Ok(())
    }
}

/// The interpolation coefficients the metric fields need (from the interpolation
/// fields), row-major as ICON4Py orders them.
#[derive(Debug, Clone, Copy)]
pub struct MetricInputs<'a> {
    /// Cell→edge weights `[n_edges, 2]` (E2C order; ICON `c_lin_e`).
    pub c_lin_e: &'a [f64],
    /// Cell→vertex area weights `[n_vertices, 6]` (V2C order; ICON `cells_aw_verts`, `c_intp`).
    pub cells_aw_verts: &'a [f64],
    /// Cell averaging weights `[n_cells, 4]` (C2E2CO order; ICON `c_bln_avg`).
    pub c_bln_avg: &'a [f64],
}

/// A field over horizontal points, a neighbour index and levels, row-major
/// `[n, width, levels]` as ICON4Py orders `(Edge, E2C, K)` and `(Cell, C2E2C, K)`.
#[derive(Debug, Clone, PartialEq)]
pub struct NeighborColumns<T> {
    n: usize,
    width: usize,
    levels: usize,
    data: Vec<T>,
}

impl<T: Copy> NeighborColumns<T> {
    fn from_data(n: usize, width: usize, levels: usize, data: Vec<T>) -> Self {
        debug_assert_eq!(data.len(), n * width * levels);
        NeighborColumns {
            n,
            width,
            levels,
            data,
        }
    }

    /// Number of horizontal points.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when there are no points.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Neighbours per point.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Levels per neighbour.
    pub fn levels(&self) -> usize {
        self.levels
    }

    /// The value at point `i`, neighbour `j`, level `k`.
    pub fn get(&self, i: usize, j: usize, k: usize) -> T {
        self.data[(i * self.width + j) * self.levels + k]
    }

    /// The column of point `i`, neighbour `j`.
    pub fn column(&self, i: usize, j: usize) -> &[T] {
        let start = (i * self.width + j) * self.levels;
        &self.data[start..start + self.levels]
    }

    /// The data, row-major `[n, width, levels]`.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }
}

/// Every metric field (ICON4Py's `MetricsFieldsFactory` results; names are ICON's).
/// Cell and edge fields over levels are [`Columns`] (`[n, levels]`); K fields are
/// vectors; `wgtfacq_c`/`wgtfacq_e` hold the weights of levels `nlev − 3 .. nlev`
/// (ICON4Py's layout: column `j` weighs level `nlev − 3 + j`).
#[derive(Debug, Clone, PartialEq)]
pub struct MetricFields {
    /// Layer thickness `z_ifc[k] − z_ifc[k+1]`, m (`ddqz_z_full`).
    pub ddqz_z_full: Columns,
    /// Its inverse, 1/m (`inv_ddqz_z_full`).
    pub inv_ddqz_z_full: Columns,
    /// Distance between full levels at each interface (twice the half-layer at top
    /// and bottom), m, `nlev + 1` (`ddqz_z_half`).
    pub ddqz_z_half: Columns,
    /// `ddqz_z_full` at edges (`c_lin_e`), m (`ddqz_z_full_e`).
    pub ddqz_z_full_e: Columns,
    /// Second-order `∂w/∂z` at interfaces, weight of `w[k−1] − w[k]` (`coeff1_dwdz`; 0 at k = 0).
    pub coeff1_dwdz: Columns,
    /// Weight of `w[k] − w[k+1]` (`coeff2_dwdz`; 0 at k = 0).
    pub coeff2_dwdz: Columns,
    /// Full→interface weights `x_half[k] = w·x[k] + (1 − w)·x[k−1]`, `nlev + 1` (`wgtfac_c`).
    pub wgtfac_c: Columns,
    /// `wgtfac_c` at edges (`wgtfac_e`).
    pub wgtfac_e: Columns,
    /// Quadratic surface-extrapolation weights of the three lowest levels, cells (`wgtfacq_c`).
    pub wgtfacq_c: Columns,
    /// The same at edges (`wgtfacq_e`).
    pub wgtfacq_e: Columns,
    /// Rayleigh damping coefficient of `w` per interface, 1/s (`rayleigh_w`).
    pub rayleigh_w: Vec<f64>,
    /// Scaling of the 3D divergence damping per level (`scalfac_dd3d`).
    pub scalfac_dd3d: Vec<f64>,
    /// Slope of the interfaces along the edge normal, `nlev + 1` (`ddxn_z_half_e`).
    pub ddxn_z_half_e: Columns,
    /// Slope of the interfaces along the edge tangent, `nlev + 1` (`ddxt_z_half_e`).
    pub ddxt_z_half_e: Columns,
    /// Slope of the full levels along the edge normal (`ddxn_z_full`).
    pub ddxn_z_full: Columns,
    /// Slope of the full levels along the edge tangent (`ddxt_z_full`).
    pub ddxt_z_full: Columns,
    /// Largest `|ddxn_z_full|` over a cell's edges (`z_maxslp`).
    pub maxslp: Columns,
    /// Largest height difference `|ddxn_z_full|·dual_edge_length` to a neighbour, m (`z_maxhgtd`).
    pub maxhgtd: Columns,
    /// `maxslp` averaged with `c_bln_avg` (`z_maxslp_avg`).
    pub maxslp_avg: Columns,
    /// `maxhgtd` averaged with `c_bln_avg`, m (`z_maxhgtd_avg`).
    pub maxhgtd_avg: Columns,
    /// Temporal extrapolation factor of the Exner perturbation (`exner_exfac`).
    pub exner_exfac: Columns,
    /// Implicit weight of the vertical solver per cell (`vwind_impl_wgt`).
    pub vwind_impl_wgt: Vec<f64>,
    /// `1 − vwind_impl_wgt` (`vwind_expl_wgt`).
    pub vwind_expl_wgt: Vec<f64>,
    /// Kinetic-energy gradient weights `[n_edges, 2]` (`coeff_gradekin`).
    pub coeff_gradekin: Vec<f64>,
    /// Per edge, the last level flat for the pressure gradient (`flat_idx_max`; 0 in
    /// the first boundary row).
    pub flat_idx_max: Vec<usize>,
    /// First level of the multi-level pressure gradient (`nflat_gradp`).
    pub nflat_gradp: usize,
    /// Height of the edge's full level above the neighbour-cell level used by the
    /// Taylor pressure gradient, `[n_edges, 2, nlev]`, m (`zdiff_gradp`).
    pub zdiff_gradp: NeighborColumns<f64>,
    /// Level offset of that neighbour-cell level, `[n_edges, 2, nlev]` (`vertoffset_gradp`).
    pub vertoffset_gradp: NeighborColumns<i32>,
    /// Downward extrapolation distance of the pressure gradient (0 where none), m
    /// (`pg_exdist`, ICON4Py `pg_exdist_dsl`).
    pub pg_exdist: Columns,
    /// Where `pg_exdist` applies, `[n_edges, nlev]` (ICON's list `pg_edgeidx`/`pg_vertidx`).
    pub pg_exdist_mask: Vec<bool>,
    /// Horizontal mask of the 3D divergence damping per edge (`hmask_dd3d`).
    pub hmask_dd3d: Vec<f64>,
    /// Halo cells updated prognostically (`mask_prog_halo_c`; false outside the halo).
    pub mask_prog_halo_c: Vec<bool>,
    /// Halo cells in the lateral boundary (ICON's list `bdy_halo_c`).
    pub bdy_halo_c: Vec<usize>,
    /// Highest lowest-level height of a cell's neighbours, m (`max_nbhgt`).
    pub max_nbhgt: Vec<f64>,
    /// Truly horizontal temperature diffusion coefficient (0 where not applied) (`zd_diffcoef`).
    pub zd_diffcoef: Columns,
    /// Weight of the upper neighbour level at the cell's height, `[n_cells, 3, nlev]` (`zd_intcoef`).
    pub zd_intcoef: NeighborColumns<f64>,
    /// Offset of that upper neighbour level, `[n_cells, 3, nlev]` (`zd_vertoffset`).
    pub zd_vertoffset: NeighborColumns<i32>,
    /// The reference atmosphere at cells.
    pub reference: ReferenceAtmosphere,
    /// The reference atmosphere at edges.
    pub reference_edges: ReferenceAtmosphereEdges,
}

/// Zone starts and ends the fields use.
pub(crate) struct Ranges {
    pub cell_lb2: usize,
    pub cell_nudging: usize,
    pub cell_halo: usize,
    pub cell_owned: usize,
    pub edge_lb2: usize,
    pub edge_lb3: usize,
    pub edge_nudging_end: usize,
    pub edge_nudging2: usize,
    pub edge_local_end: usize,
}

impl Ranges {
    fn of(grid: &Grid) -> Result<Ranges, MetricsError> {
        let zone = |loc: Location, z: Zone, start: bool| {
            let zones = grid.zones.of(loc);
            let r = if start { zones.start(z) } else { zones.end(z) };
            r.map_err(|e| MetricsError::Zone(e.to_string()))
        };
        Ok(Ranges {
            cell_lb2: zone(Location::Cell, Zone::LateralBoundary(2), true)?,
            cell_nudging: zone(Location::Cell, Zone::Nudging(1), true)?,
            cell_halo: zone(Location::Cell, Zone::Halo(1), true)?,
            cell_owned: grid.zones.of(Location::Cell).n_owned(),
            edge_lb2: zone(Location::Edge, Zone::LateralBoundary(2), true)?,
            edge_lb3: zone(Location::Edge, Zone::LateralBoundary(3), true)?,
            edge_nudging_end: zone(Location::Edge, Zone::Nudging(1), false)?,
            edge_nudging2: zone(Location::Edge, Zone::Nudging(2), true)?,
            edge_local_end: zone(Location::Edge, Zone::Local, false)?,
        })
    }
}

/// The time each group of metric fields took, in the order they were computed
/// ([`MetricFields::compute_timed`]).
pub type StageTimes = Vec<(&'static str, Duration)>;

impl MetricFields {
    /// Every metric field on `grid` for `vertical` and the SLEVE `heights` over it
    /// (its bottom interface is the topography), with the interpolation coefficients
    /// `inputs` and `config`.
    pub fn compute(
        grid: &Grid,
        vertical: &VerticalGrid,
        heights: &Heights,
        inputs: &MetricInputs<'_>,
        config: &MetricsConfig,
    ) -> Result<MetricFields, MetricsError> {
        Self::compute_timed(grid, vertical, heights, inputs, config).map(|(m, _)| m)
    }

    /// [`MetricFields::compute`], with the wall time of each group of fields: every
    /// field of [`MetricFields::compute_each`] collected.
    pub fn compute_timed(
        grid: &Grid,
        vertical: &VerticalGrid,
        heights: &Heights,
        inputs: &MetricInputs<'_>,
        config: &MetricsConfig,
    ) -> Result<(MetricFields, StageTimes), MetricsError> {
        let mut fields = HashMap::new();
        let times = Self::compute_each_timed(grid, vertical, heights, inputs, config, &mut |f| {
            fields.insert(f.id, f.value);
            Ok::<(), MetricsError>(())
        })?;
        Ok((Collected(fields).into_fields(), times))
    }
}

/// The fields of [`MetricFields::compute_each`] by id, assembled into [`MetricFields`].
struct Collected(HashMap<MetricId, MetricValue>);

impl Collected {
    fn take(&mut self, id: MetricId) -> MetricValue {
        self.0
            .remove(&id)
            .unwrap_or_else(|| panic!("compute_each emits {id:?}"))
    }

    fn columns(&mut self, id: MetricId) -> Columns {
        match self.take(id) {
            MetricValue::Columns(c) => c,
            other => panic!("{id:?} is columns, not {other:?}"),
        }
    }

    fn values(&mut self, id: MetricId) -> Vec<f64> {
        match self.take(id) {
            MetricValue::Values(v) => v,
            other => panic!("{id:?} is values, not {other:?}"),
        }
    }

    fn neighbor_f64(&mut self, id: MetricId) -> NeighborColumns<f64> {
        match self.take(id) {
            MetricValue::NeighborF64(v) => v,
            other => panic!("{id:?} is neighbour floats, not {other:?}"),
        }
    }

    fn neighbor_i32(&mut self, id: MetricId) -> NeighborColumns<i32> {
        match self.take(id) {
            MetricValue::NeighborI32(v) => v,
            other => panic!("{id:?} is neighbour offsets, not {other:?}"),
        }
    }

    fn into_fields(mut self) -> MetricFields {
        use MetricId as I;
        let flat_idx_max = match self.take(I::FlatIdxMax) {
            MetricValue::Indices(v) => v,
            other => panic!("flat_idx_max is indices, not {other:?}"),
        };
        let nflat_gradp = match self.take(I::NflatGradp) {
            MetricValue::Index(v) => v,
            other => panic!("nflat_gradp is an index, not {other:?}"),
        };
        let pg_exdist_mask = match self.take(I::PgExdistMask) {
            MetricValue::MaskColumns { data, .. } => data,
            other => panic!("pg_exdist_mask is a mask, not {other:?}"),
        };
        let mask_prog_halo_c = match self.take(I::MaskProgHaloC) {
            MetricValue::Mask(v) => v,
            other => panic!("mask_prog_halo_c is a mask, not {other:?}"),
        };
        let bdy_halo_c = match self.take(I::BdyHaloC) {
            MetricValue::List { indices, .. } => indices,
            other => panic!("bdy_halo_c is a list, not {other:?}"),
        };
        let reference = ReferenceAtmosphere {
            theta_ref_mc: self.columns(I::ThetaRefMc),
            exner_ref_mc: self.columns(I::ExnerRefMc),
            rho_ref_mc: self.columns(I::RhoRefMc),
            theta_ref_ic: self.columns(I::ThetaRefIc),
            d_exner_dz_ref_ic: self.columns(I::DExnerDzRefIc),
            d2dexdz2_fac1_mc: self.columns(I::D2dexdz2Fac1Mc),
            d2dexdz2_fac2_mc: self.columns(I::D2dexdz2Fac2Mc),
        };
        let reference_edges = ReferenceAtmosphereEdges {
            rho_ref_me: self.columns(I::RhoRefMe),
            theta_ref_me: self.columns(I::ThetaRefMe),
        };
        MetricFields {
            ddqz_z_full: self.columns(I::DdqzZFull),
            inv_ddqz_z_full: self.columns(I::InvDdqzZFull),
            ddqz_z_half: self.columns(I::DdqzZHalf),
            ddqz_z_full_e: self.columns(I::DdqzZFullE),
            coeff1_dwdz: self.columns(I::Coeff1Dwdz),
            coeff2_dwdz: self.columns(I::Coeff2Dwdz),
            wgtfac_c: self.columns(I::WgtfacC),
            wgtfac_e: self.columns(I::WgtfacE),
            wgtfacq_c: self.columns(I::WgtfacqC),
            wgtfacq_e: self.columns(I::WgtfacqE),
            rayleigh_w: self.values(I::RayleighW),
            scalfac_dd3d: self.values(I::ScalfacDd3d),
            ddxn_z_half_e: self.columns(I::DdxnZHalfE),
            ddxt_z_half_e: self.columns(I::DdxtZHalfE),
            ddxn_z_full: self.columns(I::DdxnZFull),
            ddxt_z_full: self.columns(I::DdxtZFull),
            maxslp: self.columns(I::Maxslp),
            maxhgtd: self.columns(I::Maxhgtd),
            maxslp_avg: self.columns(I::MaxslpAvg),
            maxhgtd_avg: self.columns(I::MaxhgtdAvg),
            exner_exfac: self.columns(I::ExnerExfac),
            vwind_impl_wgt: self.values(I::VwindImplWgt),
            vwind_expl_wgt: self.values(I::VwindExplWgt),
            coeff_gradekin: self.values(I::CoeffGradekin),
            flat_idx_max,
            nflat_gradp,
            zdiff_gradp: self.neighbor_f64(I::ZdiffGradp),
            vertoffset_gradp: self.neighbor_i32(I::VertoffsetGradp),
            pg_exdist: self.columns(I::PgExdist),
            pg_exdist_mask,
            hmask_dd3d: self.values(I::HmaskDd3d),
            mask_prog_halo_c,
            bdy_halo_c,
            max_nbhgt: self.values(I::MaxNbhgt),
            zd_diffcoef: self.columns(I::ZdDiffcoef),
            zd_intcoef: self.neighbor_f64(I::ZdIntcoef),
            zd_vertoffset: self.neighbor_i32(I::ZdVertoffset),
            reference,
            reference_edges,
        }
    }
}

/// The sizes and values [`MetricFields::compute`] checks before it starts.
pub(crate) fn check_inputs(
    grid: &Grid,
    vertical: &VerticalGrid,
    heights: &Heights,
    inputs: &MetricInputs<'_>,
    config: &MetricsConfig,
) -> Result<(), MetricsError> {
    config.validate()?;
    let nlev = vertical.num_levels();
    let (n_cells, n_edges, n_vertices) = (
        grid.size(Location::Cell),
        grid.size(Location::Edge),
        grid.size(Location::Vertex),
    );
    if nlev < 3 {
        return Err(MetricsError::TooFewLevels { levels: nlev });
    }
    if heights.num_levels() != nlev {
        return Err(MetricsError::WrongLength {
            field: "heights (levels)",
            expected: nlev,
            found: heights.num_levels(),
        });
    }
    check_len("heights (cells)", heights.z_mc.len(), n_cells)?;
    check_len("heights z_ifc (cells)", heights.z_ifc.len(), n_cells)?;
    check_len("c_lin_e", inputs.c_lin_e.len(), 2 * n_edges)?;
    check_len(
        "cells_aw_verts",
        inputs.cells_aw_verts.len(),
        6 * n_vertices,
    )?;
    check_len("c_bln_avg", inputs.c_bln_avg.len(), 4 * n_cells)?;
    for (field, data) in [
        ("c_lin_e", inputs.c_lin_e),
        ("cells_aw_verts", inputs.cells_aw_verts),
        ("c_bln_avg", inputs.c_bln_avg),
    ] {
        if let Some(index) = data.iter().position(|x| !x.is_finite()) {
            return Err(MetricsError::NotFinite { field, index });
        }
    }
    Ok(())
}

fn check_len(field: &'static str, found: usize, expected: usize) -> Result<(), MetricsError> {
    if found != expected {
        return Err(MetricsError::WrongLength {
            field,
            expected,
            found,
        });
    }
    Ok(())
}
