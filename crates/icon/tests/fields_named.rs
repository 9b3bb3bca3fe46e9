//! The static fields listed under ICON4Py's names ([`StaticFields::named`]): every name
//! of ICON4Py 0.4.1's geometry, interpolation and metrics factories present, names
//! unique, shapes consistent with the dimensions, the grid and the levels, on a global
//! grid and a limited area.

mod interpolation_support;

use foehn_grid::{Connectivity, Grid, Location, Zone};
use foehn_icon::fields::named::{FieldData, StaticFields};
use foehn_icon::fields::topography::Topography;
use foehn_icon::fields::vertical::VerticalConfig;
use foehn_testkit::grids;
use interpolation_support::INTERPOLATION_NAMES;

const NLEV: usize = 8;

/// ICON4Py 0.4.1's names (`GridGeometry`, `MetricsFieldsFactory`, helpers included;
/// `InterpolationFieldsFactory`'s are [`INTERPOLATION_NAMES`]).
const ICON4PY: &[&str] = &[
    "grid_longitude_of_cell_center",
    "grid_latitude_of_cell_center",
    "grid_longitude_of_edge_midpoint",
    "grid_latitude_of_edge_midpoint",
    "grid_longitude_of_vertex",
    "grid_latitude_of_vertex",
    "edge_length",
    "length_of_dual_edge",
    "edge_midpoint_to_cell_center_distance",
    "edge_midpoint_to_vertex_distance",
    "cell_area",
    "dual_area",
    "edge_orientation",
    "orientation_of_normal_to_cell_edges",
    "orientation_of_edges_around_vertex",
    "edge_owner_mask",
    "vertex_owner_mask",
    "cell_owner_mask",
    "inverse_of_edge_length",
    "inverse_of_length_of_dual_edge",
    "x_component_of_vertex",
    "y_component_of_vertex",
    "z_component_of_vertex",
    "x_coordinate_of_edge_center",
    "y_coordinate_of_edge_center",
    "z_coordinate_of_edge_center",
    "x_component_of_cell_center",
    "y_component_of_cell_center",
    "z_component_of_cell_center",
    "vertex_vertex_length",
    "coriolis_parameter",
    "x_component_of_edge_tangential_unit_vector",
    "y_component_of_edge_tangential_unit_vector",
    "z_component_of_edge_tangential_unit_vector",
    "x_component_of_edge_normal_unit_vector",
    "y_component_of_edge_normal_unit_vector",
    "z_component_of_edge_normal_unit_vector",
    "eastward_component_of_edge_normal",
    "northward_component_of_edge_normal",
    "eastward_component_of_edge_tangent",
    "northward_component_of_edge_tangent",
    "eastward_component_of_edge_normal_on_vertex",
    "northward_component_of_edge_normal_on_vertex",
    "eastward_component_of_edge_normal_on_cell",
    "northward_component_of_edge_normal_on_cell",
    "eastward_component_of_edge_tangent_on_vertex",
    "northward_component_of_edge_tangent_on_vertex",
    "eastward_component_of_edge_tangent_on_cell",
    "northward_component_of_edge_tangent_on_cell",
    "inverse_of_vertex_vertex_length",
    "edge_area",
    "mean_cell_area",
    "mean_dual_area",
    "mean_edge_length",
    "mean_dual_edge_length",
    "characteristic_length",
    "refinement_control_at_edges",
    "topography",
    "vct_a",
    "c_refin_ctrl",
    "e_refin_ctrl",
    "e_owner_mask",
    "c_owner_mask",
    "k_lev",
    "e_lev",
    "vertical_coordinates_on_half_levels",
    "height",
    "functional_determinant_of_metrics_on_interface_levels",
    "functional_determinant_of_metrics_on_full_levels",
    "inverse_of_functional_determinant_of_metrics_on_full_levels",
    "functional_determinant_of_metrics_on_full_levels_on_edges",
    "scaling_factor_for_3d_divergence_damping",
    "rayleigh_w",
    "coeff1_dwdz",
    "coeff2_dwdz",
    "theta_ref_mc",
    "exner_ref_mc",
    "rho_ref_mc",
    "rho_ref_me",
    "theta_ref_me",
    "theta_ref_ic",
    "d_exner_dz_ref_ic",
    "d2dexdz2_fac1_mc",
    "d2dexdz2_fac2_mc",
    "ddxt_z_half_e",
    "ddxn_z_half_e",
    "ddxn_z_full",
    "ddxt_z_full",
    "implicitness_weight_for_exner_and_w_in_vertical_dycore_solver",
    "explicitness_weight_for_exner_and_w_in_vertical_dycore_solver",
    "exner_exfac",
    "wgtfac_c",
    "wgtfac_e",
    "flat_idx_max",
    "nflat_gradp",
    "distance_for_pressure_gradient_extrapolation",
    "mask_prog_halo_c",
    "horizontal_mask_for_3d_divdamp",
    "zdiff_gradp",
    "vertoffset_gradp",
    "coeff_gradekin",
    "weighting_factor_for_quadratic_interpolation_to_cell_surface",
    "weighting_factor_for_quadratic_interpolation_to_edge_center",
    "maxslp",
    "maxhgtd",
    "maxslp_avg",
    "maxhgtd_avg",
    "max_nbhgt",
    "zd_diffcoef",
    "zd_intcoef",
    "zd_vertoffset",
];

fn check(grid: &Grid, topography: &Topography) {
    let fields = StaticFields::compute(grid, VerticalConfig::new(NLEV), topography).unwrap();
    let named = fields.named(grid);
    let mut names: Vec<&str> = named.iter().map(|n| n.name).collect();
    for want in ICON4PY.iter().chain(&INTERPOLATION_NAMES) {
        assert!(names.contains(want), "{}: {want} missing", grid.name);
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), named.len(), "{}: a name twice", grid.name);
    for n in &named {
        let what = format!("{}: {}", grid.name, n.name);
        assert_eq!(n.dims.len(), n.shape.len(), "{what}");
        assert_eq!(n.shape.iter().product::<usize>(), n.data.len(), "{what}");
        assert!(!n.long_name.is_empty() && !n.units.is_empty(), "{what}");
        for (d, &size) in n.dims.iter().zip(&n.shape) {
            let expected = match *d {
                "Cell" => grid.size(Location::Cell),
                "Edge" => grid.size(Location::Edge),
                "Vertex" => grid.size(Location::Vertex),
                "KHalf" => NLEV + 1,
                "K" if n.icon_name.starts_with("wgtfacq") => 3,
                "K" => NLEV,
                "LsqUnk" => 2,
                c => Connectivity::from_name(c)
                    .unwrap_or_else(|| panic!("{what}: unknown dimension {c}"))
                    .width(),
            };
            assert_eq!(size, expected, "{what}: dimension {d}");
        }
        if let FieldData::F64(d) = &n.data {
            assert!(d.iter().all(|x| x.is_finite()), "{what}");
        }
    }
    // Index fields are 0-based and in range.
    let get = |name: &str| named.iter().find(|n| n.name == name).unwrap();
    for name in ["flat_idx_max", "nflat_gradp", "nflatlev", "kstart_moist"] {
        let d = get(name).data.as_i32().unwrap();
        assert!(d.iter().all(|&k| (0..NLEV as i32).contains(&k)), "{name}");
    }
    for name in ["vertoffset_gradp", "zd_vertoffset"] {
        let d = get(name).data.as_i32().unwrap();
        for (i, o) in d.iter().enumerate() {
            assert!(
                (0..NLEV as i32).contains(&((i % NLEV) as i32 + o)),
                "{name}[{i}]"
            );
        }
    }
    let e_lev = get("e_lev").data.as_i32().unwrap();
    assert!(e_lev.iter().enumerate().all(|(i, &e)| e == i as i32));
}

#[test]
fn every_icon4py_name_is_listed_with_consistent_shapes() {
    check(grids::global(), &Topography::Flat);
    check(grids::limited_area(), &Topography::Flat);
}

/// Issue 13's limited-area check: every field on a cap cut from R2B5 (3115 cells, every
/// boundary row and both nudging rows non-empty) over the Jablonowski–Williamson surface,
/// with the nudging coefficients positive exactly on the nudged edge row (ICON4Py
/// nudges from the second nudging row of edges, `refin_ctrl` 10).
#[test]
fn every_field_on_a_cap_cut_from_r2b5_over_jw_topography() {
    let grid = foehn_grid::GridSpec::parse("r2b5:cap:46,8,2500")
        .and_then(|s| s.build())
        .unwrap();
    let zones = grid.zones.of(Location::Edge);
    for zone in (1..=8)
        .map(Zone::LateralBoundary)
        .chain([Zone::Nudging(1), Zone::Nudging(2)])
    {
        let (a, b) = (zones.start(zone).unwrap(), zones.end(zone).unwrap());
        assert!(b > a, "edge zone {zone:?} is empty");
    }
    let jw = Topography::JablonowskiWilliamson(Default::default());
    check(&grid, &jw);
    let fields = StaticFields::compute(&grid, VerticalConfig::new(NLEV), &jw).unwrap();
    let nudging = fields.interpolation.nudgecoeff_e.as_slice();
    let (n0, n1) = (
        zones.start(Zone::Nudging(2)).unwrap(),
        zones.end(Zone::Nudging(2)).unwrap(),
    );
    for (e, &c) in nudging.iter().enumerate() {
        assert_eq!(c > 0.0, (n0..n1).contains(&e), "edge {e}: nudgecoeff_e {c}");
    }
}
