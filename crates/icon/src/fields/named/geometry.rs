//! The horizontal grid's geometry listed under ICON4Py's names (`GridGeometry`)
//! ([`named`]), for writers of field files.

use super::NamedField;
use foehn_grid::space::Vec3;
use foehn_grid::Grid;

/// The three Cartesian components of every point.
fn components(points: &[Vec3]) -> [Vec<f64>; 3] {
    std::array::from_fn(|i| points.iter().map(|p| p[i]).collect())
}

/// The mean of the values (0 for none).
fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// A `[n, width]` field over a point's neighbours.
fn sparse<'a>(
    name: &'static str,
    icon_name: &'static str,
    dims: &'static [&'static str],
    width: usize,
    data: &'a [f64],
    long_name: &'static str,
    units: &'static str,
) -> NamedField<'a> {
    let shape = vec![data.len() / width.max(1), width];
    NamedField::new(name, icon_name, dims, shape, data, long_name, units)
}

/// Every geometry field of `grid` under ICON4Py's name (`GridGeometry`), in the order
/// of ICON4Py's listing: coordinates, lengths, areas, orientations
/// (`orientation_of_edges_around_vertex` as `int32`), the owner masks (all true: one
/// rank), inverses, Cartesian coordinates (unit vectors on the sphere, metres on the
/// torus), normals and tangents, the Coriolis parameter and the grid means (means over
/// the grid's points; the characteristic length is the square root of the mean cell
/// area).
pub fn named(grid: &Grid) -> Vec<NamedField<'_>> {
    let g = &grid.geometry;
    let p = &grid.points;
    let xyz_units = if grid.space.is_sphere() { "1" } else { "m" };
    let vertex_edge_orientation: Vec<i32> = g
        .vertex_edge_orientation
        .iter()
        .map(|&x| x.round() as i32)
        .collect();
    let t = &grid.topology;
    let (n_cells, n_edges, n_vertices) = (t.n_cells(), t.n_edges(), t.n_vertices());
    let scalar =
        |name, x: f64, long_name, units| NamedField::scalar(name, "", vec![x], long_name, units);
    let [vx, vy, vz] = components(&p.vertex);
    let [ex, ey, ez] = components(&p.edge);
    let [cx, cy, cz] = components(&p.cell);
    let [tx, ty, tz] = components(&g.dual_normal_cartesian);
    let [nx, ny, nz] = components(&g.primal_normal_cartesian);
    const C: &[&str] = &["Cell"];
    const E: &[&str] = &["Edge"];
    const V: &[&str] = &["Vertex"];
    let mut out = vec![
        NamedField::one_d(
            "grid_longitude_of_cell_center",
            "",
            C,
            g.cell_lon.as_slice(),
            "longitude of the cell centre",
            "radian",
        ),
        NamedField::one_d(
            "grid_latitude_of_cell_center",
            "",
            C,
            g.cell_lat.as_slice(),
            "latitude of the cell centre",
            "radian",
        ),
        NamedField::one_d(
            "grid_longitude_of_edge_midpoint",
            "",
            E,
            g.edge_lon.as_slice(),
            "longitude of the edge midpoint",
            "radian",
        ),
        NamedField::one_d(
            "grid_latitude_of_edge_midpoint",
            "",
            E,
            g.edge_lat.as_slice(),
            "latitude of the edge midpoint",
            "radian",
        ),
        NamedField::one_d(
            "grid_longitude_of_vertex",
            "",
            V,
            g.vertex_lon.as_slice(),
            "longitude of the vertex",
            "radian",
        ),
        NamedField::one_d(
            "grid_latitude_of_vertex",
            "",
            V,
            g.vertex_lat.as_slice(),
            "latitude of the vertex",
            "radian",
        ),
        NamedField::one_d(
            "edge_length",
            "primal_edge_length",
            E,
            g.primal_edge_length.as_slice(),
            "edge length",
            "m",
        ),
        NamedField::one_d(
            "length_of_dual_edge",
            "dual_edge_length",
            E,
            g.dual_edge_length.as_slice(),
            "length of the dual edge",
            "m",
        ),
        sparse(
            "edge_midpoint_to_cell_center_distance",
            "edge_cell_length",
            &["Edge", "E2C"],
            2,
            &g.edge_cell_distance,
            "distances between edge midpoint and adjacent triangle midpoints",
            "m",
        ),
        sparse(
            "edge_midpoint_to_vertex_distance",
            "edge_vert_length",
            &["Edge", "E2V"],
            2,
            &g.edge_vert_distance,
            "distances between edge midpoint and adjacent vertices",
            "m",
        ),
        NamedField::one_d(
            "cell_area",
            "area",
            C,
            g.cell_area.as_slice(),
            "area of a triangular cell",
            "m2",
        ),
        NamedField::one_d(
            "dual_area",
            "dual_area",
            V,
            g.dual_area.as_slice(),
            "area of the dual grid cell (hexagon cell)",
            "m2",
        ),
        NamedField::one_d(
            "edge_orientation",
            "edge_orientation",
            E,
            g.tangent_orientation.as_slice(),
            "orientation of tangent vector",
            "1",
        ),
        sparse(
            "orientation_of_normal_to_cell_edges",
            "edge_orientation",
            &["Cell", "C2E"],
            3,
            &g.cell_edge_orientation,
            "sign of the edge normal relative to the outward normal of the cell, per cell edge",
            "1",
        ),
        NamedField::new(
            "orientation_of_edges_around_vertex",
            "edge_orientation",
            &["Vertex", "V2E"],
            vec![n_vertices, 6],
            vertex_edge_orientation,
            "orientation of the edges around the vertex (0 for a missing edge)",
            "1",
        ),
        NamedField::one_d(
            "edge_owner_mask",
            "",
            E,
            vec![true; n_edges],
            "edge owned by this rank (all on one rank)",
            "1",
        ),
        NamedField::one_d(
            "vertex_owner_mask",
            "",
            V,
            vec![true; n_vertices],
            "vertex owned by this rank (all on one rank)",
            "1",
        ),
        NamedField::one_d(
            "cell_owner_mask",
            "",
            C,
            vec![true; n_cells],
            "cell owned by this rank (all on one rank)",
            "1",
        ),
        NamedField::one_d(
            "inverse_of_edge_length",
            "inv_primal_edge_length",
            E,
            g.inv_primal_edge_length.as_slice(),
            "inverse of edge length",
            "m-1",
        ),
        NamedField::one_d(
            "inverse_of_length_of_dual_edge",
            "inv_dual_edge_length",
            E,
            g.inv_dual_edge_length.as_slice(),
            "inverse of length of the dual edge",
            "m-1",
        ),
        NamedField::one_d(
            "x_component_of_vertex",
            "",
            V,
            vx,
            "x component of cartesian coordinates of vertex",
            xyz_units,
        ),
        NamedField::one_d(
            "y_component_of_vertex",
            "",
            V,
            vy,
            "y component of cartesian coordinates of vertex",
            xyz_units,
        ),
        NamedField::one_d(
            "z_component_of_vertex",
            "",
            V,
            vz,
            "z component of cartesian coordinates of vertex",
            xyz_units,
        ),
        NamedField::one_d(
            "x_coordinate_of_edge_center",
            "",
            E,
            ex,
            "x component of cartesian coordinates of edge centers",
            xyz_units,
        ),
        NamedField::one_d(
            "y_coordinate_of_edge_center",
            "",
            E,
            ey,
            "y component of cartesian coordinates of edge centers",
            xyz_units,
        ),
        NamedField::one_d(
            "z_coordinate_of_edge_center",
            "",
            E,
            ez,
            "z component of cartesian coordinates of edge centers",
            xyz_units,
        ),
        NamedField::one_d(
            "x_component_of_cell_center",
            "",
            C,
            cx,
            "x component of cartesian coordinates of cell center",
            xyz_units,
        ),
        NamedField::one_d(
            "y_component_of_cell_center",
            "",
            C,
            cy,
            "y component of cartesian coordinates of cell center",
            xyz_units,
        ),
        NamedField::one_d(
            "z_component_of_cell_center",
            "",
            C,
            cz,
            "z component of cartesian coordinates of cell center",
            xyz_units,
        ),
        NamedField::one_d(
            "vertex_vertex_length",
            "vert_vert_length",
            E,
            g.vert_vert_length.as_slice(),
            "distance between outer vertices of adjacent cells",
            "m",
        ),
        NamedField::one_d(
            "coriolis_parameter",
            "f_e",
            E,
            g.coriolis_frequency.as_slice(),
            "coriolis parameter at cell edges",
            "s-1",
        ),
        NamedField::one_d(
            "x_component_of_edge_tangential_unit_vector",
            "dual_cart_normal",
            E,
            tx,
            "x component of the Cartesian edge tangent (dual normal) unit vector",
            "1",
        ),
        NamedField::one_d(
            "y_component_of_edge_tangential_unit_vector",
            "dual_cart_normal",
            E,
            ty,
            "y component of the Cartesian edge tangent (dual normal) unit vector",
            "1",
        ),
        NamedField::one_d(
            "z_component_of_edge_tangential_unit_vector",
            "dual_cart_normal",
            E,
            tz,
            "z component of the Cartesian edge tangent (dual normal) unit vector",
            "1",
        ),
        NamedField::one_d(
            "x_component_of_edge_normal_unit_vector",
            "primal_cart_normal",
            E,
            nx,
            "x component of the Cartesian edge normal unit vector",
            "1",
        ),
        NamedField::one_d(
            "y_component_of_edge_normal_unit_vector",
            "primal_cart_normal",
            E,
            ny,
            "y component of the Cartesian edge normal unit vector",
            "1",
        ),
        NamedField::one_d(
            "z_component_of_edge_normal_unit_vector",
            "primal_cart_normal",
            E,
            nz,
            "z component of the Cartesian edge normal unit vector",
            "1",
        ),
        NamedField::one_d(
            "eastward_component_of_edge_normal",
            "primal_normal%v1",
            E,
            g.primal_normal_x.as_slice(),
            "eastward (zonal) component of edge normal",
            "1",
        ),
        NamedField::one_d(
            "northward_component_of_edge_normal",
            "primal_normal%v2",
            E,
            g.primal_normal_y.as_slice(),
            "northward (meridional) component of edge normal",
            "1",
        ),
        NamedField::one_d(
            "eastward_component_of_edge_tangent",
            "dual_normal%v1",
            E,
            g.dual_normal_x.as_slice(),
            "eastward component of the dual edge (edge tangent)",
            "1",
        ),
        NamedField::one_d(
            "northward_component_of_edge_tangent",
            "dual_normal%v2",
            E,
            g.dual_normal_y.as_slice(),
            "northward component of the dual edge (edge tangent)",
            "1",
        ),
        sparse(
            "eastward_component_of_edge_normal_on_vertex",
            "primal_normal_vert%v1",
            &["Edge", "E2C2V"],
            4,
            &g.primal_normal_vert_x,
            "eastward (zonal) component of edge normal projected to vertex locations",
            "1",
        ),
        sparse(
            "northward_component_of_edge_normal_on_vertex",
            "primal_normal_vert%v2",
            &["Edge", "E2C2V"],
            4,
            &g.primal_normal_vert_y,
            "northward (meridional) component of edge normal projected to vertex locations",
            "1",
        ),
        sparse(
            "eastward_component_of_edge_normal_on_cell",
            "primal_normal_cell%v1",
            &["Edge", "E2C"],
            2,
            &g.primal_normal_cell_x,
            "eastward (zonal) component of edge normal projected to neighbor cell centers",
            "1",
        ),
        sparse(
            "northward_component_of_edge_normal_on_cell",
            "primal_normal_cell%v2",
            &["Edge", "E2C"],
            2,
            &g.primal_normal_cell_y,
            "northward (meridional) component of edge normal projected to neighbor cell centers",
            "1",
        ),
        sparse(
            "eastward_component_of_edge_tangent_on_vertex",
            "dual_normal_vert%v1",
            &["Edge", "E2C2V"],
            4,
            &g.dual_normal_vert_x,
            "eastward (zonal) component of edge tangent projected to vertex locations",
            "1",
        ),
        sparse(
            "northward_component_of_edge_tangent_on_vertex",
            "dual_normal_vert%v2",
            &["Edge", "E2C2V"],
            4,
            &g.dual_normal_vert_y,
            "northward (meridional) component of edge tangent projected to vertex locations",
            "1",
        ),
        sparse(
            "eastward_component_of_edge_tangent_on_cell",
            "dual_normal_cell%v1",
            &["Edge", "E2C"],
            2,
            &g.dual_normal_cell_x,
            "eastward (zonal) component of edge tangent projected to neighbor cell centers",
            "1",
        ),
        sparse(
            "northward_component_of_edge_tangent_on_cell",
            "dual_normal_cell%v2",
            &["Edge", "E2C"],
            2,
            &g.dual_normal_cell_y,
            "northward (meridional) component of edge tangent projected to neighbor cell centers",
            "1",
        ),
        NamedField::one_d(
            "inverse_of_vertex_vertex_length",
            "inv_vert_vert_length",
            E,
            g.inv_vert_vert_length.as_slice(),
            "inverse of distance between outer vertices of adjacent cells",
            "m-1",
        ),
        NamedField::one_d(
            "edge_area",
            "area_edge",
            E,
            g.edge_area.as_slice(),
            "area of quadrilateral spanned by edge and associated dual edge",
            "m2",
        ),
    ];
    out.extend([
        scalar("mean_cell_area", g.mean_cell_area, "mean cell area", "m2"),
        scalar(
            "mean_dual_area",
            mean(&g.dual_area),
            "mean dual cell area",
            "m2",
        ),
        scalar(
            "mean_edge_length",
            mean(&g.primal_edge_length),
            "mean primal edge length",
            "m",
        ),
        scalar(
            "mean_dual_edge_length",
            mean(&g.dual_edge_length),
            "mean dual edge length",
            "m",
        ),
        scalar(
            "characteristic_length",
            g.mean_cell_area.sqrt(),
            "characteristic grid length sqrt(mean cell area)",
            "m",
        ),
    ]);
    out
}
