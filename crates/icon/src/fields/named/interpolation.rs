//! The interpolation fields listed under ICON4Py's names, with dimensions, shapes,
//! descriptions and units ([`InterpolationFields::named`]), for writers of field files.

use super::NamedField;
use crate::fields::interpolation::{InterpolationFields, SparseField};

impl InterpolationFields {
    /// Every field under ICON4Py's name, with its dimensions and shape, in the order
    /// of ICON4Py's factory.
    pub fn named(&self) -> Vec<NamedField<'_>> {
        use std::slice::from_ref;
        fn sparse<'a>(
            name: &'static str,
            icon_name: &'static str,
            dims: &'static [&'static str],
            f: &'a SparseField,
            long_name: &'static str,
            units: &'static str,
        ) -> NamedField<'a> {
            NamedField {
                name,
                icon_name,
                dims,
                shape: vec![f.len(), f.width()],
                data: f.as_slice().into(),
                long_name,
                units,
            }
        }
        fn scalar<'a>(
            name: &'static str,
            icon_name: &'static str,
            x: &'a f64,
            long_name: &'static str,
            units: &'static str,
        ) -> NamedField<'a> {
            NamedField {
                name,
                icon_name,
                dims: &[],
                shape: vec![],
                data: from_ref(x).into(),
                long_name,
                units,
            }
        }
        vec![
            NamedField {
                name: "nudging_coefficients_for_edges",
                icon_name: "nudgecoeff_e",
                dims: &["Edge"],
                shape: vec![self.nudgecoeff_e.len()],
                data: self.nudgecoeff_e.as_slice().into(),
                long_name:
                    "lateral-boundary nudging coefficient per edge (0 outside the nudging zone)",
                units: "1",
            },
            sparse(
                "geometrical_factor_for_divergence",
                "geofac_div",
                &["Cell", "C2E"],
                &self.geofac_div,
                "geometrical factor for divergence",
                "m-1",
            ),
            sparse(
                "geometrical_factor_for_curl",
                "geofac_rot",
                &["Vertex", "V2E"],
                &self.geofac_rot,
                "geometrical factor for curl",
                "m-1",
            ),
            sparse(
                "geometrical_factor_for_nabla_2_scalar",
                "geofac_n2s",
                &["Cell", "C2E2CO"],
                &self.geofac_n2s,
                "geometrical factor nabla-2 scalar",
                "m-2",
            ),
            sparse(
                "geometrical_factor_for_gradient_of_divergence",
                "geofac_grdiv",
                &["Edge", "E2C2EO"],
                &self.geofac_grdiv,
                "geometrical factor for gradient of divergence",
                "m-2",
            ),
            scalar(
                "rbf_scale_cell",
                "rbf_vec_scale_c",
                &self.rbf_scale_cell,
                "RBF shape parameter (scale) for cell reconstruction",
                "1",
            ),
            scalar(
                "rbf_scale_edge",
                "rbf_vec_scale_e",
                &self.rbf_scale_edge,
                "RBF shape parameter (scale) for edge reconstruction",
                "1",
            ),
            scalar(
                "rbf_scale_vertex",
                "rbf_vec_scale_v",
                &self.rbf_scale_vertex,
                "RBF shape parameter (scale) for vertex reconstruction",
                "1",
            ),
            NamedField {
                name: "lsq_interpolation_coefficient",
                icon_name: "lsq_pseudoinv",
                dims: &["Cell", "LsqUnk", "C2E2C"],
                shape: vec![self.lsq_pseudoinv.len(), 2, 3],
                data: self.lsq_pseudoinv.as_slice().into(),
                long_name: "pseudo (or Moore-Penrose) inverse of least squares matrix A",
                units: "m-1",
            },
            sparse(
                "bilinear_cell_average_weight",
                "c_bln_avg",
                &["Cell", "C2E2CO"],
                &self.c_bln_avg,
                "mass conserving bilinear cell average weight",
                "1",
            ),
            sparse(
                "bilinear_edge_cell_weight",
                "e_bln_c_s",
                &["Cell", "C2E"],
                &self.e_bln_c_s,
                "mass conserving bilinear edge cell weight",
                "1",
            ),
            sparse(
                "pos_on_tplane_e_x",
                "pos_on_tplane_e_x",
                &["Edge", "E2C"],
                &self.pos_on_tplane_e_x,
                "position on tplane x",
                "m",
            ),
            sparse(
                "pos_on_tplane_e_y",
                "pos_on_tplane_e_y",
                &["Edge", "E2C"],
                &self.pos_on_tplane_e_y,
                "position on tplane y",
                "m",
            ),
            sparse(
                "interpolation_coefficient_from_cell_to_edge",
                "c_lin_e",
                &["Edge", "E2C"],
                &self.c_lin_e,
                "interpolation coefficient from cell to edges",
                "1",
            ),
            sparse(
                "geometrical_factor_for_green_gauss_gradient_x",
                "geofac_grg_x",
                &["Cell", "C2E2CO"],
                &self.geofac_grg_x,
                "geometrical factor for Green Gauss gradient (first component)",
                "m-1",
            ),
            sparse(
                "geometrical_factor_for_green_gauss_gradient_y",
                "geofac_grg_y",
                &["Cell", "C2E2CO"],
                &self.geofac_grg_y,
                "geometrical factor for Green Gauss gradient (second component)",
                "m-1",
            ),
            sparse(
                "e_flux_average",
                "e_flx_avg",
                &["Edge", "E2C2EO"],
                &self.e_flx_avg,
                "e flux average",
                "1",
            ),
            sparse(
                "cell_to_vertex_interpolation_factor_by_area_weighting",
                "cells_aw_verts",
                &["Vertex", "V2C"],
                &self.cells_aw_verts,
                "coefficient for interpolation from cells to verts by area weighting",
                "1",
            ),
            sparse(
                "rbf_interpolation_coefficient_cell_1",
                "rbf_vec_coeff_c1",
                &["Cell", "C2E2C2E"],
                &self.rbf_vec_coeff_c1,
                "rbf interpolation coefficient from cells to edges 1",
                "1",
            ),
            sparse(
                "rbf_interpolation_coefficient_cell_2",
                "rbf_vec_coeff_c2",
                &["Cell", "C2E2C2E"],
                &self.rbf_vec_coeff_c2,
                "rbf interpolation coefficient from cells to edges 2",
                "1",
            ),
            sparse(
                "rbf_interpolation_coefficient_edge",
                "rbf_vec_coeff_e",
                &["Edge", "E2C2E"],
                &self.rbf_vec_coeff_e,
                "rbf interpolation coefficient from edges to edges",
                "1",
            ),
            sparse(
                "rbf_interpolation_coefficient_vertex_1",
                "rbf_vec_coeff_v1",
                &["Vertex", "V2E"],
                &self.rbf_vec_coeff_v1,
                "rbf interpolation coefficient from vertices to edges 1",
                "1",
            ),
            sparse(
                "rbf_interpolation_coefficient_vertex_2",
                "rbf_vec_coeff_v2",
                &["Vertex", "V2E"],
                &self.rbf_vec_coeff_v2,
                "rbf interpolation coefficient from vertices to edges 2",
                "1",
            ),
        ]
    }
}
