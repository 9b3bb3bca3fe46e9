//! The metric fields and the reference atmosphere listed under ICON4Py's names
//! ([`MetricFields::named`]), for writers of field files.

use super::{to_i32, NamedField};
use crate::fields::metrics::{MetricFields, NeighborColumns};
use crate::fields::Columns;

/// A `[n, levels]` field (cells or edges × full levels or interfaces).
fn cols<'a>(
    name: &'static str,
    icon_name: &'static str,
    dims: &'static [&'static str],
    f: &'a Columns,
    long_name: &'static str,
    units: &'static str,
) -> NamedField<'a> {
    NamedField::new(
        name,
        icon_name,
        dims,
        vec![f.len(), f.levels()],
        f.as_slice(),
        long_name,
        units,
    )
}

/// A `[n, width, levels]` field of floats.
fn neighbor_f64<'a>(
    name: &'static str,
    dims: &'static [&'static str],
    f: &'a NeighborColumns<f64>,
    long_name: &'static str,
    units: &'static str,
) -> NamedField<'a> {
    NamedField::new(
        name,
        name,
        dims,
        vec![f.len(), f.width(), f.levels()],
        f.as_slice(),
        long_name,
        units,
    )
}

/// A `[n, width, levels]` field of level offsets.
fn neighbor_i32<'a>(
    name: &'static str,
    dims: &'static [&'static str],
    f: &'a NeighborColumns<i32>,
    long_name: &'static str,
) -> NamedField<'a> {
    NamedField::new(
        name,
        name,
        dims,
        vec![f.len(), f.width(), f.levels()],
        f.as_slice(),
        long_name,
        "1",
    )
}

const CELL_K: &[&str] = &["Cell", "K"];
const CELL_KHALF: &[&str] = &["Cell", "KHalf"];
const EDGE_K: &[&str] = &["Edge", "K"];
const EDGE_KHALF: &[&str] = &["Edge", "KHalf"];

impl MetricFields {
    /// Every metric field and the reference atmosphere under ICON4Py's name, with its
    /// dimensions and shape, in the order of ICON4Py's factory: level offsets and
    /// `flat_idx_max`/`nflat_gradp` as 0-based `int32`, masks as booleans
    /// (`bdy_halo_c`, ICON's list of cells, becomes a mask over cells).
    pub fn named(&self) -> Vec<NamedField<'_>> {
        let r = &self.reference;
        let re = &self.reference_edges;
        let n_cells = self.mask_prog_halo_c.len();
        let mut bdy_halo_c = vec![false; n_cells];
        for &c in &self.bdy_halo_c {
            if let Some(x) = bdy_halo_c.get_mut(c) {
                *x = true;
            }
        }
        let nflat_gradp = i32::try_from(self.nflat_gradp).unwrap_or(i32::MAX);
        vec![
            cols(
                "functional_determinant_of_metrics_on_interface_levels",
                "ddqz_z_half",
                CELL_KHALF,
                &self.ddqz_z_half,
                "layer thickness between full levels, on interfaces (twice the half layer at top and bottom)",
                "m",
            ),
            cols(
                "functional_determinant_of_metrics_on_full_levels",
                "ddqz_z_full",
                CELL_K,
                &self.ddqz_z_full,
                "functional determinant of the metrics (is positive), full levels",
                "m",
            ),
            cols(
                "inverse_of_functional_determinant_of_metrics_on_full_levels",
                "inv_ddqz_z_full",
                CELL_K,
                &self.inv_ddqz_z_full,
                "inverse of the functional determinant of the metrics, full levels",
                "m-1",
            ),
            cols(
                "functional_determinant_of_metrics_on_full_levels_on_edges",
                "ddqz_z_full_e",
                EDGE_K,
                &self.ddqz_z_full_e,
                "functional determinant at full level on edges",
                "m",
            ),
            NamedField::one_d(
                "scaling_factor_for_3d_divergence_damping",
                "scalfac_dd3d",
                &["K"],
                self.scalfac_dd3d.as_slice(),
                "scaling factor for 3D divergence damping",
                "1",
            ),
            NamedField::one_d(
                "rayleigh_w",
                "rayleigh_w",
                &["KHalf"],
                self.rayleigh_w.as_slice(),
                "Rayleigh damping coefficient of w on interfaces",
                "s-1",
            ),
            cols(
                "coeff1_dwdz",
                "coeff1_dwdz",
                CELL_K,
                &self.coeff1_dwdz,
                "coefficient 1 of the vertical derivative of w at full levels",
                "m-1",
            ),
            cols(
                "coeff2_dwdz",
                "coeff2_dwdz",
                CELL_K,
                &self.coeff2_dwdz,
                "coefficient 2 of the vertical derivative of w at full levels",
                "m-1",
            ),
            cols(
                "theta_ref_mc",
                "theta_ref_mc",
                CELL_K,
                &r.theta_ref_mc,
                "reference-atmosphere potential temperature, full levels",
                "K",
            ),
            cols(
                "exner_ref_mc",
                "exner_ref_mc",
                CELL_K,
                &r.exner_ref_mc,
                "reference-atmosphere Exner pressure, full levels",
                "1",
            ),
            cols(
                "rho_ref_mc",
                "rho_ref_mc",
                CELL_K,
                &r.rho_ref_mc,
                "reference-atmosphere density, full levels",
                "kg m-3",
            ),
            cols(
                "rho_ref_me",
                "rho_ref_me",
                EDGE_K,
                &re.rho_ref_me,
                "reference-atmosphere density at edges, full levels",
                "kg m-3",
            ),
            cols(
                "theta_ref_me",
                "theta_ref_me",
                EDGE_K,
                &re.theta_ref_me,
                "reference-atmosphere potential temperature at edges, full levels",
                "K",
            ),
            cols(
                "theta_ref_ic",
                "theta_ref_ic",
                CELL_KHALF,
                &r.theta_ref_ic,
                "reference-atmosphere potential temperature, interfaces",
                "K",
            ),
            cols(
                "d_exner_dz_ref_ic",
                "d_exner_dz_ref_ic",
                CELL_KHALF,
                &r.d_exner_dz_ref_ic,
                "vertical derivative of the reference Exner pressure, interfaces",
                "m-1",
            ),
            cols(
                "d2dexdz2_fac1_mc",
                "d2dexdz2_fac1_mc",
                CELL_K,
                &r.d2dexdz2_fac1_mc,
                "factor 1 of the second vertical derivative of the reference Exner pressure",
                "K-2 m-2",
            ),
            cols(
                "d2dexdz2_fac2_mc",
                "d2dexdz2_fac2_mc",
                CELL_K,
                &r.d2dexdz2_fac2_mc,
                "factor 2 of the second vertical derivative of the reference Exner pressure",
                "K-1 m-2",
            ),
            cols(
                "ddxt_z_half_e",
                "ddxt_z_half_e",
                EDGE_KHALF,
                &self.ddxt_z_half_e,
                "terrain slope along the edge tangent, interfaces",
                "1",
            ),
            cols(
                "ddxn_z_half_e",
                "ddxn_z_half_e",
                EDGE_KHALF,
                &self.ddxn_z_half_e,
                "terrain slope along the edge normal, interfaces",
                "1",
            ),
            cols(
                "ddxn_z_full",
                "ddxn_z_full",
                EDGE_K,
                &self.ddxn_z_full,
                "terrain slope along the edge normal, full levels",
                "1",
            ),
            cols(
                "ddxt_z_full",
                "ddxt_z_full",
                EDGE_K,
                &self.ddxt_z_full,
                "terrain slope along the edge tangent, full levels",
                "1",
            ),
            NamedField::one_d(
                "implicitness_weight_for_exner_and_w_in_vertical_dycore_solver",
                "vwind_impl_wgt",
                &["Cell"],
                self.vwind_impl_wgt.as_slice(),
                "implicit weight of the vertical solver (off-centering)",
                "1",
            ),
            NamedField::one_d(
                "explicitness_weight_for_exner_and_w_in_vertical_dycore_solver",
                "vwind_expl_wgt",
                &["Cell"],
                self.vwind_expl_wgt.as_slice(),
                "explicit weight of the vertical solver (1 - vwind_impl_wgt)",
                "1",
            ),
            cols(
                "exner_exfac",
                "exner_exfac",
                CELL_K,
                &self.exner_exfac,
                "temporal extrapolation factor of the Exner perturbation",
                "1",
            ),
            cols(
                "wgtfac_c",
                "wgtfac_c",
                CELL_KHALF,
                &self.wgtfac_c,
                "interpolation to interface k: wgtfac_c*x(k) + (1-wgtfac_c)*x(k-1), cells",
                "1",
            ),
            cols(
                "wgtfac_e",
                "wgtfac_e",
                EDGE_KHALF,
                &self.wgtfac_e,
                "interpolation to interface k: wgtfac_e*x(k) + (1-wgtfac_e)*x(k-1), edges",
                "1",
            ),
            NamedField::one_d(
                "flat_idx_max",
                "flat_idx_max",
                &["Edge"],
                to_i32(&self.flat_idx_max),
                "per edge, the last level flat for the pressure gradient (0-based)",
                "1",
            ),
            NamedField::scalar(
                "nflat_gradp",
                "nflat_gradp",
                vec![nflat_gradp],
                "first level of the multi-level pressure gradient (0-based)",
                "1",
            ),
            cols(
                "distance_for_pressure_gradient_extrapolation",
                "pg_exdist_dsl",
                EDGE_K,
                &self.pg_exdist,
                "extrapolation distance for pressure gradient downward extrapolation",
                "m",
            ),
            NamedField::new(
                "pg_edgeidx_dsl",
                "pg_edgeidx_dsl",
                EDGE_K,
                vec![self.pg_exdist.len(), self.pg_exdist.levels()],
                self.pg_exdist_mask.as_slice(),
                "where the pressure gradient is extrapolated downward",
                "1",
            ),
            NamedField::one_d(
                "mask_prog_halo_c",
                "mask_prog_halo_c",
                &["Cell"],
                self.mask_prog_halo_c.as_slice(),
                "cells of the halo that are updated prognostically",
                "1",
            ),
            NamedField::one_d(
                "bdy_halo_c",
                "bdy_halo_c",
                &["Cell"],
                bdy_halo_c,
                "halo cells in the lateral boundary",
                "1",
            ),
            NamedField::one_d(
                "horizontal_mask_for_3d_divdamp",
                "hmask_dd3d",
                &["Edge"],
                self.hmask_dd3d.as_slice(),
                "horizontal mask for 3D divergence damping",
                "1",
            ),
            neighbor_f64(
                "zdiff_gradp",
                &["Edge", "E2C", "K"],
                &self.zdiff_gradp,
                "height difference between the edge's full level and the neighbour-cell level used (Taylor pressure gradient)",
                "m",
            ),
            neighbor_i32(
                "vertoffset_gradp",
                &["Edge", "E2C", "K"],
                &self.vertoffset_gradp,
                "level offset of the neighbour-cell level used for the pressure gradient",
            ),
            NamedField::new(
                "coeff_gradekin",
                "coeff_gradekin",
                &["Edge", "E2C"],
                vec![self.coeff_gradekin.len() / 2, 2],
                self.coeff_gradekin.as_slice(),
                "coefficients of the kinetic-energy gradient per edge-adjacent cell",
                "m-1",
            ),
            cols(
                "weighting_factor_for_quadratic_interpolation_to_cell_surface",
                "wgtfacq_c",
                CELL_K,
                &self.wgtfacq_c,
                "weights of the 3 lowest full levels (nlev-3, nlev-2, nlev-1) for quadratic extrapolation to the surface, cells",
                "1",
            ),
            cols(
                "weighting_factor_for_quadratic_interpolation_to_edge_center",
                "wgtfacq_e",
                EDGE_K,
                &self.wgtfacq_e,
                "weights of the 3 lowest full levels (nlev-3, nlev-2, nlev-1) for quadratic extrapolation to the surface, edges",
                "1",
            ),
            cols(
                "maxslp",
                "z_maxslp",
                CELL_K,
                &self.maxslp,
                "maximum terrain slope around the cell",
                "1",
            ),
            cols(
                "maxhgtd",
                "z_maxhgtd",
                CELL_K,
                &self.maxhgtd,
                "maximum height difference to neighbour cells",
                "m",
            ),
            cols(
                "maxslp_avg",
                "z_maxslp_avg",
                CELL_K,
                &self.maxslp_avg,
                "maxslp averaged with the neighbours",
                "1",
            ),
            cols(
                "maxhgtd_avg",
                "z_maxhgtd_avg",
                CELL_K,
                &self.maxhgtd_avg,
                "maxhgtd averaged with the neighbours",
                "m",
            ),
            NamedField::one_d(
                "max_nbhgt",
                "max_nbhgt",
                &["Cell"],
                self.max_nbhgt.as_slice(),
                "maximum height of the neighbour cells' lowest level",
                "m",
            ),
            cols(
                "zd_diffcoef",
                "zd_diffcoef",
                CELL_K,
                &self.zd_diffcoef,
                "coefficient of truly horizontal temperature diffusion (0 where not applied)",
                "1",
            ),
            neighbor_f64(
                "zd_intcoef",
                &["Cell", "C2E2C", "K"],
                &self.zd_intcoef,
                "vertical interpolation weights to the neighbour cells' height (truly horizontal diffusion)",
                "1",
            ),
            neighbor_i32(
                "zd_vertoffset",
                &["Cell", "C2E2C", "K"],
                &self.zd_vertoffset,
                "level offsets to the neighbour cells' height (truly horizontal diffusion)",
            ),
        ]
    }
}
