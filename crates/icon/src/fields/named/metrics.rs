//! The metric fields and the reference atmosphere listed under ICON4Py's names
//! ([`MetricField::named`] for one field as [`MetricFields::compute_each`] hands it
//! over, [`MetricFields::named`] for all of them), for writers of field files.

use super::{to_i32, FieldData, NamedField};
use crate::fields::metrics::{MetricField, MetricFields, MetricId, MetricValue, NeighborColumns};
use crate::fields::Columns;

const CELL_K: &[&str] = &["Cell", "K"];
const CELL_KHALF: &[&str] = &["Cell", "KHalf"];
const EDGE_K: &[&str] = &["Edge", "K"];
const EDGE_KHALF: &[&str] = &["Edge", "KHalf"];

/// ICON4Py's name, ICON's name, ICON4Py's dimensions, the description and the units.
type Meta = (
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static str,
    &'static str,
);

/// The name, dimensions, description and units of a metric field.
fn meta(id: MetricId) -> Meta {
    use MetricId as I;
    match id {
        I::DdqzZHalf => (
            "functional_determinant_of_metrics_on_interface_levels",
            "ddqz_z_half",
            CELL_KHALF,
            "layer thickness between full levels, on interfaces (twice the half layer at top and bottom)",
            "m",
        ),
        I::DdqzZFull => (
            "functional_determinant_of_metrics_on_full_levels",
            "ddqz_z_full",
            CELL_K,
            "functional determinant of the metrics (is positive), full levels",
            "m",
        ),
        I::InvDdqzZFull => (
            "inverse_of_functional_determinant_of_metrics_on_full_levels",
            "inv_ddqz_z_full",
            CELL_K,
            "inverse of the functional determinant of the metrics, full levels",
            "m-1",
        ),
        I::DdqzZFullE => (
            "functional_determinant_of_metrics_on_full_levels_on_edges",
            "ddqz_z_full_e",
            EDGE_K,
            "functional determinant at full level on edges",
            "m",
        ),
        I::ScalfacDd3d => (
            "scaling_factor_for_3d_divergence_damping",
            "scalfac_dd3d",
            &["K"],
            "scaling factor for 3D divergence damping",
            "1",
        ),
        I::RayleighW => (
            "rayleigh_w",
            "rayleigh_w",
            &["KHalf"],
            "Rayleigh damping coefficient of w on interfaces",
            "s-1",
        ),
        I::Coeff1Dwdz => (
            "coeff1_dwdz",
            "coeff1_dwdz",
            CELL_K,
            "coefficient 1 of the vertical derivative of w at full levels",
            "m-1",
        ),
        I::Coeff2Dwdz => (
            "coeff2_dwdz",
            "coeff2_dwdz",
            CELL_K,
            "coefficient 2 of the vertical derivative of w at full levels",
            "m-1",
        ),
        I::ThetaRefMc => (
            "theta_ref_mc",
            "theta_ref_mc",
            CELL_K,
            "reference-atmosphere potential temperature, full levels",
            "K",
        ),
        I::ExnerRefMc => (
            "exner_ref_mc",
            "exner_ref_mc",
            CELL_K,
            "reference-atmosphere Exner pressure, full levels",
            "1",
        ),
        I::RhoRefMc => (
            "rho_ref_mc",
            "rho_ref_mc",
            CELL_K,
            "reference-atmosphere density, full levels",
            "kg m-3",
        ),
        I::RhoRefMe => (
            "rho_ref_me",
            "rho_ref_me",
            EDGE_K,
            "reference-atmosphere density at edges, full levels",
            "kg m-3",
        ),
        I::ThetaRefMe => (
            "theta_ref_me",
            "theta_ref_me",
            EDGE_K,
            "reference-atmosphere potential temperature at edges, full levels",
            "K",
        ),
        I::ThetaRefIc => (
            "theta_ref_ic",
            "theta_ref_ic",
            CELL_KHALF,
            "reference-atmosphere potential temperature, interfaces",
            "K",
        ),
        I::DExnerDzRefIc => (
            "d_exner_dz_ref_ic",
            "d_exner_dz_ref_ic",
            CELL_KHALF,
            "vertical derivative of the reference Exner pressure, interfaces",
            "m-1",
        ),
        I::D2dexdz2Fac1Mc => (
            "d2dexdz2_fac1_mc",
            "d2dexdz2_fac1_mc",
            CELL_K,
            "factor 1 of the second vertical derivative of the reference Exner pressure",
            "K-2 m-2",
        ),
        I::D2dexdz2Fac2Mc => (
            "d2dexdz2_fac2_mc",
            "d2dexdz2_fac2_mc",
            CELL_K,
            "factor 2 of the second vertical derivative of the reference Exner pressure",
            "K-1 m-2",
        ),
        I::DdxtZHalfE => (
            "ddxt_z_half_e",
            "ddxt_z_half_e",
            EDGE_KHALF,
            "terrain slope along the edge tangent, interfaces",
            "1",
        ),
        I::DdxnZHalfE => (
            "ddxn_z_half_e",
            "ddxn_z_half_e",
            EDGE_KHALF,
            "terrain slope along the edge normal, interfaces",
            "1",
        ),
        I::DdxnZFull => (
            "ddxn_z_full",
            "ddxn_z_full",
            EDGE_K,
            "terrain slope along the edge normal, full levels",
            "1",
        ),
        I::DdxtZFull => (
            "ddxt_z_full",
            "ddxt_z_full",
            EDGE_K,
            "terrain slope along the edge tangent, full levels",
            "1",
        ),
        I::VwindImplWgt => (
            "implicitness_weight_for_exner_and_w_in_vertical_dycore_solver",
            "vwind_impl_wgt",
            &["Cell"],
            "implicit weight of the vertical solver (off-centering)",
            "1",
        ),
        I::VwindExplWgt => (
            "explicitness_weight_for_exner_and_w_in_vertical_dycore_solver",
            "vwind_expl_wgt",
            &["Cell"],
            "explicit weight of the vertical solver (1 - vwind_impl_wgt)",
            "1",
        ),
        I::ExnerExfac => (
            "exner_exfac",
            "exner_exfac",
            CELL_K,
            "temporal extrapolation factor of the Exner perturbation",
            "1",
        ),
        I::WgtfacC => (
            "wgtfac_c",
            "wgtfac_c",
            CELL_KHALF,
            "interpolation to interface k: wgtfac_c*x(k) + (1-wgtfac_c)*x(k-1), cells",
            "1",
        ),
        I::WgtfacE => (
            "wgtfac_e",
            "wgtfac_e",
            EDGE_KHALF,
            "interpolation to interface k: wgtfac_e*x(k) + (1-wgtfac_e)*x(k-1), edges",
            "1",
        ),
        I::FlatIdxMax => (
            "flat_idx_max",
            "flat_idx_max",
            &["Edge"],
            "per edge, the last level flat for the pressure gradient (0-based)",
            "1",
        ),
        I::NflatGradp => (
            "nflat_gradp",
            "nflat_gradp",
            &[],
            "first level of the multi-level pressure gradient (0-based)",
            "1",
        ),
        I::PgExdist => (
            "distance_for_pressure_gradient_extrapolation",
            "pg_exdist_dsl",
            EDGE_K,
            "extrapolation distance for pressure gradient downward extrapolation",
            "m",
        ),
        I::PgExdistMask => (
            "pg_edgeidx_dsl",
            "pg_edgeidx_dsl",
            EDGE_K,
            "where the pressure gradient is extrapolated downward",
            "1",
        ),
        I::MaskProgHaloC => (
            "mask_prog_halo_c",
            "mask_prog_halo_c",
            &["Cell"],
            "cells of the halo that are updated prognostically",
            "1",
        ),
        I::BdyHaloC => (
            "bdy_halo_c",
            "bdy_halo_c",
            &["Cell"],
            "halo cells in the lateral boundary",
            "1",
        ),
        I::HmaskDd3d => (
            "horizontal_mask_for_3d_divdamp",
            "hmask_dd3d",
            &["Edge"],
            "horizontal mask for 3D divergence damping",
            "1",
        ),
        I::ZdiffGradp => (
            "zdiff_gradp",
            "zdiff_gradp",
            &["Edge", "E2C", "K"],
            "height difference between the edge's full level and the neighbour-cell level used (Taylor pressure gradient)",
            "m",
        ),
        I::VertoffsetGradp => (
            "vertoffset_gradp",
            "vertoffset_gradp",
            &["Edge", "E2C", "K"],
            "level offset of the neighbour-cell level used for the pressure gradient",
            "1",
        ),
        I::CoeffGradekin => (
            "coeff_gradekin",
            "coeff_gradekin",
            &["Edge", "E2C"],
            "coefficients of the kinetic-energy gradient per edge-adjacent cell",
            "m-1",
        ),
        I::WgtfacqC => (
            "weighting_factor_for_quadratic_interpolation_to_cell_surface",
            "wgtfacq_c",
            CELL_K,
            "weights of the 3 lowest full levels (nlev-3, nlev-2, nlev-1) for quadratic extrapolation to the surface, cells",
            "1",
        ),
        I::WgtfacqE => (
            "weighting_factor_for_quadratic_interpolation_to_edge_center",
            "wgtfacq_e",
            EDGE_K,
            "weights of the 3 lowest full levels (nlev-3, nlev-2, nlev-1) for quadratic extrapolation to the surface, edges",
            "1",
        ),
        I::Maxslp => (
            "maxslp",
            "z_maxslp",
            CELL_K,
            "maximum terrain slope around the cell",
            "1",
        ),
        I::Maxhgtd => (
            "maxhgtd",
            "z_maxhgtd",
            CELL_K,
            "maximum height difference to neighbour cells",
            "m",
        ),
        I::MaxslpAvg => (
            "maxslp_avg",
            "z_maxslp_avg",
            CELL_K,
            "maxslp averaged with the neighbours",
            "1",
        ),
        I::MaxhgtdAvg => (
            "maxhgtd_avg",
            "z_maxhgtd_avg",
            CELL_K,
            "maxhgtd averaged with the neighbours",
            "m",
        ),
        I::MaxNbhgt => (
            "max_nbhgt",
            "max_nbhgt",
            &["Cell"],
            "maximum height of the neighbour cells' lowest level",
            "m",
        ),
        I::ZdDiffcoef => (
            "zd_diffcoef",
            "zd_diffcoef",
            CELL_K,
            "coefficient of truly horizontal temperature diffusion (0 where not applied)",
            "1",
        ),
        I::ZdIntcoef => (
            "zd_intcoef",
            "zd_intcoef",
            &["Cell", "C2E2C", "K"],
            "vertical interpolation weights to the neighbour cells' height (truly horizontal diffusion)",
            "1",
        ),
        I::ZdVertoffset => (
            "zd_vertoffset",
            "zd_vertoffset",
            &["Cell", "C2E2C", "K"],
            "level offsets to the neighbour cells' height (truly horizontal diffusion)",
            "1",
        ),
    }
}

impl MetricField {
    /// The field under ICON4Py's name, with its dimensions and shape (borrowing the
    /// values where their type is stored): level offsets and `flat_idx_max`/`nflat_gradp`
    /// as 0-based `int32`, masks as booleans (`bdy_halo_c`, ICON's list of cells,
    /// becomes a mask over cells).
    pub fn named(&self) -> NamedField<'_> {
        let (name, icon_name, dims, long_name, units) = meta(self.id);
        let (shape, data): (Vec<usize>, FieldData<'_>) = match &self.value {
            MetricValue::Columns(c) => (vec![c.len(), c.levels()], c.as_slice().into()),
            MetricValue::Values(v) if self.id == MetricId::CoeffGradekin => {
                (vec![v.len() / 2, 2], v.as_slice().into())
            }
            MetricValue::Values(v) => (vec![v.len()], v.as_slice().into()),
            MetricValue::Indices(v) => (vec![v.len()], to_i32(v).into()),
            MetricValue::Index(k) => (vec![], vec![i32::try_from(*k).unwrap_or(i32::MAX)].into()),
            MetricValue::Mask(v) => (vec![v.len()], v.as_slice().into()),
            MetricValue::MaskColumns { n, levels, data } => {
                (vec![*n, *levels], data.as_slice().into())
            }
            MetricValue::List { n, indices } => (vec![*n], list_to_mask(*n, indices).into()),
            MetricValue::NeighborF64(f) => neighbor(f),
            MetricValue::NeighborI32(f) => neighbor(f),
        };
        NamedField::new(name, icon_name, dims, shape, data, long_name, units)
    }
}

impl MetricFields {
    /// Every metric field and the reference atmosphere under ICON4Py's name, with its
    /// dimensions and shape, in the order of ICON4Py's factory ([`MetricId::ALL`], the
    /// order [`MetricFields::compute_each`] emits them), as [`MetricField::named`]
    /// lists each.
    pub fn named(&self) -> Vec<NamedField<'_>> {
        MetricId::ALL.iter().map(|&id| self.named_one(id)).collect()
    }

    /// The field `id` under ICON4Py's name, borrowing the values where it can.
    fn named_one(&self, id: MetricId) -> NamedField<'_> {
        use MetricId as I;
        let (r, re) = (&self.reference, &self.reference_edges);
        let (shape, data) = match id {
            I::DdqzZHalf => cols(&self.ddqz_z_half),
            I::DdqzZFull => cols(&self.ddqz_z_full),
            I::InvDdqzZFull => cols(&self.inv_ddqz_z_full),
            I::DdqzZFullE => cols(&self.ddqz_z_full_e),
            I::ScalfacDd3d => values(&self.scalfac_dd3d),
            I::RayleighW => values(&self.rayleigh_w),
            I::Coeff1Dwdz => cols(&self.coeff1_dwdz),
            I::Coeff2Dwdz => cols(&self.coeff2_dwdz),
            I::ThetaRefMc => cols(&r.theta_ref_mc),
            I::ExnerRefMc => cols(&r.exner_ref_mc),
            I::RhoRefMc => cols(&r.rho_ref_mc),
            I::RhoRefMe => cols(&re.rho_ref_me),
            I::ThetaRefMe => cols(&re.theta_ref_me),
            I::ThetaRefIc => cols(&r.theta_ref_ic),
            I::DExnerDzRefIc => cols(&r.d_exner_dz_ref_ic),
            I::D2dexdz2Fac1Mc => cols(&r.d2dexdz2_fac1_mc),
            I::D2dexdz2Fac2Mc => cols(&r.d2dexdz2_fac2_mc),
            I::DdxtZHalfE => cols(&self.ddxt_z_half_e),
            I::DdxnZHalfE => cols(&self.ddxn_z_half_e),
            I::DdxnZFull => cols(&self.ddxn_z_full),
            I::DdxtZFull => cols(&self.ddxt_z_full),
            I::VwindImplWgt => values(&self.vwind_impl_wgt),
            I::VwindExplWgt => values(&self.vwind_expl_wgt),
            I::ExnerExfac => cols(&self.exner_exfac),
            I::WgtfacC => cols(&self.wgtfac_c),
            I::WgtfacE => cols(&self.wgtfac_e),
            I::FlatIdxMax => (
                vec![self.flat_idx_max.len()],
                to_i32(&self.flat_idx_max).into(),
            ),
            I::NflatGradp => (
                vec![],
                vec![i32::try_from(self.nflat_gradp).unwrap_or(i32::MAX)].into(),
            ),
            I::PgExdist => cols(&self.pg_exdist),
            I::PgExdistMask => (
                vec![self.pg_exdist.len(), self.pg_exdist.levels()],
                self.pg_exdist_mask.as_slice().into(),
            ),
            I::MaskProgHaloC => (
                vec![self.mask_prog_halo_c.len()],
                self.mask_prog_halo_c.as_slice().into(),
            ),
            I::BdyHaloC => {
                let n = self.mask_prog_halo_c.len();
                (vec![n], list_to_mask(n, &self.bdy_halo_c).into())
            }
            I::HmaskDd3d => values(&self.hmask_dd3d),
            I::ZdiffGradp => neighbor(&self.zdiff_gradp),
            I::VertoffsetGradp => neighbor(&self.vertoffset_gradp),
            I::CoeffGradekin => (
                vec![self.coeff_gradekin.len() / 2, 2],
                self.coeff_gradekin.as_slice().into(),
            ),
            I::WgtfacqC => cols(&self.wgtfacq_c),
            I::WgtfacqE => cols(&self.wgtfacq_e),
            I::Maxslp => cols(&self.maxslp),
            I::Maxhgtd => cols(&self.maxhgtd),
            I::MaxslpAvg => cols(&self.maxslp_avg),
            I::MaxhgtdAvg => cols(&self.maxhgtd_avg),
            I::MaxNbhgt => values(&self.max_nbhgt),
            I::ZdDiffcoef => cols(&self.zd_diffcoef),
            I::ZdIntcoef => neighbor(&self.zd_intcoef),
            I::ZdVertoffset => neighbor(&self.zd_vertoffset),
        };
        let (name, icon_name, dims, long_name, units) = meta(id);
        NamedField::new(name, icon_name, dims, shape, data, long_name, units)
    }
}

/// The shape and values of a `[n, levels]` field.
fn cols(c: &Columns) -> (Vec<usize>, FieldData<'_>) {
    (vec![c.len(), c.levels()], c.as_slice().into())
}

/// The shape and values of a field over one dimension.
fn values(v: &[f64]) -> (Vec<usize>, FieldData<'_>) {
    (vec![v.len()], v.into())
}

/// The shape and values of a `[n, width, levels]` field.
fn neighbor<'a, T>(f: &'a NeighborColumns<T>) -> (Vec<usize>, FieldData<'a>)
where
    T: Copy,
    &'a [T]: Into<FieldData<'a>>,
{
    (vec![f.len(), f.width(), f.levels()], f.as_slice().into())
}

/// ICON's list of points `indices` as a mask over `n` points.
fn list_to_mask(n: usize, indices: &[usize]) -> Vec<bool> {
    let mut mask = vec![false; n];
    for &c in indices {
        if let Some(x) = mask.get_mut(c) {
            *x = true;
        }
    }
    mask
}

impl MetricId {
    /// ICON4Py's name of the field (as [`MetricField::named`] lists it).
    pub fn name(self) -> &'static str {
        meta(self).0
    }

    /// The field under ICON4Py's name, with its dimensions, shape and element type on
    /// a grid of `n_cells` cells and `n_edges` edges with `nlev` levels, holding zeros:
    /// for writers that lay out a file before the values come
    /// ([`MetricFields::compute_each`]). The zeros are allocated zeroed and not
    /// touched, so that they take no memory on systems that map zeroed pages lazily.
    pub fn layout(self, n_cells: usize, n_edges: usize, nlev: usize) -> NamedField<'static> {
        use MetricId as I;
        let (name, icon_name, dims, long_name, units) = meta(self);
        let surface = matches!(self, I::WgtfacqC | I::WgtfacqE);
        let shape: Vec<usize> = dims
            .iter()
            .map(|d| match *d {
                "Cell" => n_cells,
                "Edge" => n_edges,
                "K" if surface => 3,
                "K" => nlev,
                "KHalf" => nlev + 1,
                "E2C" => 2,
                "C2E2C" => 3,
                _ => 0,
            })
            .collect();
        let n = shape.iter().product();
        let data: FieldData<'static> = match self {
            I::FlatIdxMax | I::NflatGradp | I::VertoffsetGradp | I::ZdVertoffset => {
                vec![0i32; n].into()
            }
            I::PgExdistMask | I::MaskProgHaloC | I::BdyHaloC => vec![false; n].into(),
            _ => vec![0.0f64; n].into(),
        };
        NamedField::new(name, icon_name, dims, shape, data, long_name, units)
    }
}
