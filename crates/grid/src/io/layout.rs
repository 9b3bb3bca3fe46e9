//! What a grid file holds: dimensions, global attributes and variables, each variable
//! with a closure that produces its values in file order.

use super::digest::grid_uuid;
use super::names::{self, attr, count_dim, width_dim, TABLES};
use crate::error::{GridError, Result};
use crate::grid::{Grid, GridKind};
use crate::space::{Space, Vec3};
use crate::Location;
use netcdf::AttributeValue;
use std::path::Path;

/// Values of one variable, in file order.
pub(super) enum Data {
    /// `int` values.
    Int(Vec<i32>),
    /// `double` values.
    Real(Vec<f64>),
}

/// A variable to write: its layout, attributes, and a closure producing its values
/// (run only while writing, so at most one extra array lives at a time).
pub(super) struct Var<'g> {
    pub name: &'static str,
    pub dims: Vec<&'static str>,
    /// `double` rather than `int`.
    pub real: bool,
    pub attrs: Vec<(&'static str, String)>,
    pub data: Box<dyn Fn() -> Data + 'g>,
}

impl<'g> Var<'g> {
    fn new(
        name: &'static str,
        dims: &[&'static str],
        real: bool,
        data: Box<dyn Fn() -> Data + 'g>,
    ) -> Self {
        Var {
            name,
            dims: dims.to_vec(),
            real,
            attrs: vec![],
            data,
        }
    }

    fn ints(name: &'static str, dims: &[&'static str], f: impl Fn() -> Vec<i32> + 'g) -> Self {
        Self::new(name, dims, false, Box::new(move || Data::Int(f())))
    }

    fn reals(name: &'static str, dims: &[&'static str], f: impl Fn() -> Vec<f64> + 'g) -> Self {
        Self::new(name, dims, true, Box::new(move || Data::Real(f())))
    }

    /// The values of a location, one per point.
    fn of_points(name: &'static str, loc: Location, values: &'g [f64]) -> Self {
        Self::reals(name, &[count_dim(loc)], move || values.to_vec())
    }

    /// The x, y and z components of Cartesian vectors of a location, as three variables.
    fn cartesian(
        names: [&'static str; 3],
        loc: Location,
        values: &'g [Vec3],
        what: &str,
        units: &str,
    ) -> [Self; 3] {
        let axis = ["x", "y", "z"];
        [0, 1, 2].map(|k| {
            Self::reals(names[k], &[count_dim(loc)], move || {
                values.iter().map(|v| v[k]).collect()
            })
            .long_name(format!("{what}, Cartesian {}", axis[k]))
            .attr("units", units)
        })
    }

    /// A `[n, width]` row-major table of a location, stored as ICON does: `(width, n)`.
    fn int_table(
        name: &'static str,
        loc: Location,
        width: usize,
        f: impl Fn() -> Vec<i32> + 'g,
    ) -> Self {
        Self::ints(name, &[width_dim(width), count_dim(loc)], move || {
            transposed(&f(), width)
        })
    }

    /// Like [`Var::int_table`] for real values.
    fn real_table(
        name: &'static str,
        loc: Location,
        width: usize,
        f: impl Fn() -> Vec<f64> + 'g,
    ) -> Self {
        Self::reals(name, &[width_dim(width), count_dim(loc)], move || {
            transposed(&f(), width)
        })
    }

    fn attr(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.attrs.push((key, value.into()));
        self
    }

    fn long_name(self, value: impl Into<String>) -> Self {
        self.attr("long_name", value)
    }
}

/// ICON's `(width, n)` layout of a row-major `[n, width]` array.
fn transposed<T: Copy>(data: &[T], width: usize) -> Vec<T> {
    (0..width)
        .flat_map(|k| data.chunks_exact(width).map(move |row| row[k]))
        .collect()
}

/// 0-based indices with [`SKIP`](crate::SKIP) to ICON's 1-based ones with 0 for "none".
fn one_based(data: &[i32]) -> Vec<i32> {
    data.iter()
        .map(|&v| if v < 0 { 0 } else { v + 1 })
        .collect()
}

fn to_ints(data: &[f64]) -> Vec<i32> {
    data.iter().map(|&x| x as i32).collect()
}

/// The dimensions with their lengths.
pub(super) fn dimensions(grid: &Grid) -> Vec<(&'static str, usize)> {
    let mut dims: Vec<_> = Location::ALL
        .iter()
        .map(|&l| (count_dim(l), grid.size(l)))
        .collect();
    dims.extend(names::fixed_dims());
    dims
}

/// The global attributes; `path` only names the file in errors.
pub(super) fn global_attributes(
    grid: &Grid,
    path: &Path,
) -> Result<Vec<(&'static str, AttributeValue)>> {
    let g = &grid.geometry;
    let mean_edge =
        g.primal_edge_length.iter().sum::<f64>() / g.primal_edge_length.len().max(1) as f64;
    let mut a: Vec<(&'static str, AttributeValue)> = vec![
        (attr::TITLE, "ICON grid file written by foehn".into()),
        (attr::FOEHN_VERSION, 1i32.into()),
        (attr::FOEHN_NAME, grid.name.as_str().into()),
        (attr::UUID, grid_uuid(grid).into()),
        (attr::NUMBER_OF_GRID_USED, 0i32.into()),
        (attr::GRID_CELL_TYPE, 3i32.into()),
        (attr::MEAN_EDGE_LENGTH, mean_edge.into()),
        (attr::MEAN_CELL_AREA, g.mean_cell_area.into()),
        (attr::DOMAIN_CENTER, vec![0.0f64; 3].into()),
    ];
    match grid.space {
        Space::Sphere { radius } => a.extend([
            (attr::GRID_GEOMETRY, names::GEOMETRY_SPHERE.into()),
            (attr::SPHERE_RADIUS, radius.into()),
            (
                attr::DOMAIN_LENGTH,
                (2.0 * std::f64::consts::PI * radius).into(),
            ),
            (
                attr::DOMAIN_HEIGHT,
                (2.0 * std::f64::consts::PI * radius).into(),
            ),
        ]),
        Space::Torus { length, height } => a.extend([
            (attr::GRID_GEOMETRY, names::GEOMETRY_TORUS.into()),
            (attr::DOMAIN_LENGTH, length.into()),
            (attr::DOMAIN_HEIGHT, height.into()),
        ]),
    }
    // Classic NetCDF has no 64-bit integer attributes.
    let int = |x: usize| {
        i32::try_from(x)
            .map(AttributeValue::Int)
            .map_err(|_| GridError::File {
                path: path.to_path_buf(),
                message: format!("torus size {x} does not fit a NetCDF int"),
            })
    };
    let as_int = |x: u32| AttributeValue::Int(x as i32);
    match &grid.kind {
        GridKind::Icosahedral { root, bisections } => a.extend([
            (attr::FOEHN_KIND, names::KIND_ICOSAHEDRAL.into()),
            (attr::GRID_ROOT, as_int(*root)),
            (attr::GRID_LEVEL, as_int(*bisections)),
        ]),
        GridKind::Torus(t) => a.extend([
            (attr::FOEHN_KIND, names::KIND_TORUS.into()),
            (attr::TORUS_NX, int(t.nx)?),
            (attr::TORUS_NY, int(t.ny)?),
            (attr::TORUS_DX, t.dx.into()),
        ]),
        GridKind::LimitedArea {
            parent,
            root,
            bisections,
        } => a.extend([
            (attr::FOEHN_KIND, names::KIND_LIMITED_AREA.into()),
            (attr::FOEHN_PARENT, parent.as_str().into()),
            (attr::GRID_ROOT, as_int(*root)),
            (attr::GRID_LEVEL, as_int(*bisections)),
        ]),
    }
    Ok(a)
}

fn positions(grid: &Grid, loc: Location) -> (&[Vec3], &[f64], &[f64]) {
    let (p, g) = (&grid.points, &grid.geometry);
    match loc {
        Location::Cell => (&p.cell, &g.cell_lat, &g.cell_lon),
        Location::Edge => (&p.edge, &g.edge_lat, &g.edge_lon),
        Location::Vertex => (&p.vertex, &g.vertex_lat, &g.vertex_lon),
    }
}

/// Every variable, in file order (non-record variables of classic NetCDF files are
/// stored in the order they are defined); [`names::END_MARKER`] comes last.
pub(super) fn variables(grid: &Grid) -> Vec<Var<'_>> {
    let mut vars = Vec::new();
    let cartesian_units = if grid.space.is_sphere() { "1" } else { "m" };
    for loc in Location::ALL {
        let n = names::point_names(loc);
        let (pts, lat, lon) = positions(grid, loc);
        for (name, values, what) in [(n.lon, lon, "longitude"), (n.lat, lat, "latitude")] {
            vars.push(
                Var::of_points(name, loc, values)
                    .long_name(format!("{} {what}", n.what))
                    .attr("standard_name", what)
                    .attr("units", "radian"),
            );
        }
        let what = format!("{} position", n.what);
        vars.extend(Var::cartesian(
            n.cartesian,
            loc,
            pts,
            &what,
            cartesian_units,
        ));
    }
    for t in &TABLES {
        let table = grid.topology.table(t.conn);
        vars.push(
            Var::int_table(t.name, t.conn.from(), t.conn.width(), move || {
                one_based(table.as_slice())
            })
            .long_name(t.long_name)
            .attr("cdi", "ignore"),
        );
    }
    for loc in Location::ALL {
        let zones = grid.zones.of(loc);
        let refin = zones.refin_ctrl();
        vars.push(
            Var::ints(names::refin_name(loc), &[count_dim(loc)], move || {
                refin.to_vec()
            })
            .long_name(format!("refinement control flag ({loc})"))
            .attr("cdi", "ignore"),
        );
        let dims = [names::MAX_CHDOM, names::grf_dim(loc)];
        let (start, end) = names::start_end_names(loc);
        vars.push(
            Var::ints(start, &dims, move || zones.icon_arrays().0)
                .long_name("start indices of zones"),
        );
        vars.push(
            Var::ints(end, &dims, move || zones.icon_arrays().1).long_name("end indices of zones"),
        );
    }
    vars.extend(geometry_variables(grid));
    vars.push(
        Var::ints(names::END_MARKER, &[names::MAX_CHDOM], || {
            vec![names::END_MARKER_VALUE]
        })
        .long_name(format!(
            "end of file marker: {:#x} unless the file is truncated",
            names::END_MARKER_VALUE
        )),
    );
    vars
}

fn geometry_variables(grid: &Grid) -> Vec<Var<'_>> {
    use Location::{Cell, Edge, Vertex};
    let g = &grid.geometry;
    let real = [
        ("cell_area", Cell, &g.cell_area, "area of grid cell", "m2"),
        ("cell_area_p", Cell, &g.cell_area, "area of grid cell", "m2"),
        (
            "dual_area",
            Vertex,
            &g.dual_area,
            "areas of dual hexagonal/pentagonal cells",
            "m2",
        ),
        (
            "dual_area_p",
            Vertex,
            &g.dual_area,
            "areas of dual hexagonal/pentagonal cells",
            "m2",
        ),
        (
            "edge_length",
            Edge,
            &g.primal_edge_length,
            "lengths of edges of triangular cells",
            "m",
        ),
        (
            "dual_edge_length",
            Edge,
            &g.dual_edge_length,
            "lengths of dual edges",
            "m",
        ),
        (
            "zonal_normal_primal_edge",
            Edge,
            &g.primal_normal_x,
            "zonal component of primal normal",
            "1",
        ),
        (
            "meridional_normal_primal_edge",
            Edge,
            &g.primal_normal_y,
            "meridional component of primal normal",
            "1",
        ),
        (
            "zonal_normal_dual_edge",
            Edge,
            &g.dual_normal_x,
            "zonal component of dual normal",
            "1",
        ),
        (
            "meridional_normal_dual_edge",
            Edge,
            &g.dual_normal_y,
            "meridional component of dual normal",
            "1",
        ),
    ];
    let mut vars: Vec<Var<'_>> = real
        .into_iter()
        .map(|(name, loc, values, long_name, units)| {
            Var::of_points(name, loc, values)
                .long_name(long_name)
                .attr("units", units)
        })
        .collect();
    vars.extend([
        Var::real_table("edge_vert_distance", Edge, 2, || {
            g.edge_vert_distance.clone()
        })
        .long_name("distances between edge midpoint and the vertices of that edge")
        .attr("units", "m"),
        Var::real_table("edge_cell_distance", Edge, 2, || {
            g.edge_cell_distance.clone()
        })
        .long_name("distances between edge midpoint and adjacent cell centres")
        .attr("units", "m"),
        Var::int_table("orientation_of_normal", Cell, 3, || {
            to_ints(&g.cell_edge_orientation)
        })
        .long_name("orientations of normals to triangular cell edges"),
        Var::int_table("edge_orientation", Vertex, 6, || {
            to_ints(&g.vertex_edge_orientation)
        })
        .long_name("edge orientation around each vertex"),
        Var::ints("edge_system_orientation", &[count_dim(Edge)], || {
            to_ints(&g.tangent_orientation)
        })
        .long_name("edge system orientation"),
    ]);
    vars.extend(Var::cartesian(
        [
            "edge_primal_normal_cartesian_x",
            "edge_primal_normal_cartesian_y",
            "edge_primal_normal_cartesian_z",
        ],
        Edge,
        &g.primal_normal_cartesian,
        "primal normal of edge",
        "1",
    ));
    vars.extend(Var::cartesian(
        [
            "edge_dual_normal_cartesian_x",
            "edge_dual_normal_cartesian_y",
            "edge_dual_normal_cartesian_z",
        ],
        Edge,
        &g.dual_normal_cartesian,
        "dual normal of edge",
        "1",
    ));
    vars
}
