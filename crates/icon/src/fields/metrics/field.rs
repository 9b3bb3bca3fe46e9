//! One finished metric field as [`MetricFields::compute_each`](super::MetricFields::compute_each)
//! hands it over: which field it is ([`MetricId`]) and its owned values ([`MetricValue`]).

use super::NeighborColumns;
use crate::fields::Columns;

/// Which metric field (ICON's names), listed in [`MetricId::ALL`] in the order of
/// ICON4Py's factory, the order [`MetricFields::compute_each`](super::MetricFields::compute_each)
/// emits them and [`MetricFields::named`](super::MetricFields::named) lists them.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, strum::VariantArray)]
pub enum MetricId {
    DdqzZHalf,
    DdqzZFull,
    InvDdqzZFull,
    DdqzZFullE,
    ScalfacDd3d,
    RayleighW,
    Coeff1Dwdz,
    Coeff2Dwdz,
    ThetaRefMc,
    ExnerRefMc,
    RhoRefMc,
    RhoRefMe,
    ThetaRefMe,
    ThetaRefIc,
    DExnerDzRefIc,
    D2dexdz2Fac1Mc,
    D2dexdz2Fac2Mc,
    DdxtZHalfE,
    DdxnZHalfE,
    DdxnZFull,
    DdxtZFull,
    VwindImplWgt,
    VwindExplWgt,
    ExnerExfac,
    WgtfacC,
    WgtfacE,
    FlatIdxMax,
    NflatGradp,
    PgExdist,
    PgExdistMask,
    MaskProgHaloC,
    BdyHaloC,
    HmaskDd3d,
    ZdiffGradp,
    VertoffsetGradp,
    CoeffGradekin,
    WgtfacqC,
    WgtfacqE,
    Maxslp,
    Maxhgtd,
    MaxslpAvg,
    MaxhgtdAvg,
    MaxNbhgt,
    ZdDiffcoef,
    ZdIntcoef,
    ZdVertoffset,
}

impl MetricId {
    /// Every metric field, in the order of ICON4Py's factory (the declaration order).
    pub const ALL: &'static [MetricId] = <MetricId as strum::VariantArray>::VARIANTS;
}

/// The owned values of one metric field.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricValue {
    /// A cell or edge field over levels or interfaces (`[n, levels]`).
    Columns(Columns),
    /// Values per level, interface, cell or edge (`coeff_gradekin`: `[n_edges, 2]`).
    Values(Vec<f64>),
    /// Level indices per edge (`flat_idx_max`).
    Indices(Vec<usize>),
    /// One level index (`nflat_gradp`).
    Index(usize),
    /// A mask per point (`mask_prog_halo_c`).
    Mask(Vec<bool>),
    /// A mask over `[n, levels]` (`pg_exdist_mask`).
    MaskColumns {
        /// Horizontal points.
        n: usize,
        /// Levels per point.
        levels: usize,
        /// Row-major values.
        data: Vec<bool>,
    },
    /// A list of points out of `n` (`bdy_halo_c`).
    List {
        /// Points of the location.
        n: usize,
        /// The points listed, ascending.
        indices: Vec<usize>,
    },
    /// `[n, width, levels]` floats (`zdiff_gradp`, `zd_intcoef`).
    NeighborF64(NeighborColumns<f64>),
    /// `[n, width, levels]` level offsets (`vertoffset_gradp`, `zd_vertoffset`).
    NeighborI32(NeighborColumns<i32>),
}

/// One finished metric field.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricField {
    /// Which field.
    pub id: MetricId,
    /// Its values.
    pub value: MetricValue,
}

impl MetricField {
    /// `id` with `value`.
    pub fn new(id: MetricId, value: MetricValue) -> MetricField {
        MetricField { id, value }
    }
}
