//! Names of the dimensions, variables and attributes of ICON grid files, shared by the
//! reader and the writer.

use crate::connectivity::Connectivity;
use crate::zones::Zone;
use crate::Location;

/// Value of `grid_geometry` for a sphere (ICON's `sphere_geometry`).
pub const GEOMETRY_SPHERE: i32 = 1;
/// Value of `grid_geometry` for a doubly periodic plane (ICON's `planar_torus_geometry`).
pub const GEOMETRY_TORUS: i32 = 2;

/// Value of `foehn_grid_kind` for [`GridKind::Icosahedral`](crate::GridKind::Icosahedral).
pub const KIND_ICOSAHEDRAL: &str = "icosahedral";
/// Value of `foehn_grid_kind` for [`GridKind::Torus`](crate::GridKind::Torus).
pub const KIND_TORUS: &str = "torus";
/// Value of `foehn_grid_kind` for [`GridKind::LimitedArea`](crate::GridKind::LimitedArea).
pub const KIND_LIMITED_AREA: &str = "limited_area";

/// The variable foehn writes last, so that it ends the file: a classic NetCDF file
/// reads data past its end as zeros, so a truncated file is recognised by this value.
pub(crate) const END_MARKER: &str = "foehn_end_of_file";
/// The value of [`END_MARKER`] ("foeh" in ASCII; every byte non-zero).
pub(crate) const END_MARKER_VALUE: i32 = 0x666f_6568;

/// Global attribute names (ICON's, then foehn's own).
pub(crate) mod attr {
    pub const TITLE: &str = "title";
    pub const GRID_GEOMETRY: &str = "grid_geometry";
    pub const GRID_CELL_TYPE: &str = "grid_cell_type";
    pub const GRID_ROOT: &str = "grid_root";
    pub const GRID_LEVEL: &str = "grid_level";
    pub const SPHERE_RADIUS: &str = "sphere_radius";
    pub const DOMAIN_LENGTH: &str = "domain_length";
    pub const DOMAIN_HEIGHT: &str = "domain_height";
    pub const DOMAIN_CENTER: &str = "domain_cartesian_center";
    pub const MEAN_EDGE_LENGTH: &str = "mean_edge_length";
    pub const MEAN_CELL_AREA: &str = "mean_cell_area";
    pub const UUID: &str = "uuidOfHGrid";
    pub const NUMBER_OF_GRID_USED: &str = "number_of_grid_used";
    pub const FOEHN_NAME: &str = "foehn_grid_name";
    pub const FOEHN_KIND: &str = "foehn_grid_kind";
    pub const FOEHN_PARENT: &str = "foehn_parent_grid";
    pub const FOEHN_VERSION: &str = "foehn_grid_file_version";
    pub const TORUS_NX: &str = "torus_nx";
    pub const TORUS_NY: &str = "torus_ny";
    pub const TORUS_DX: &str = "torus_dx";
}

/// How errors name a global attribute: `:name`, as `ncdump` prints it.
pub(crate) fn global(name: &str) -> String {
    format!(":{name}")
}

/// The dimension counting the points of a location.
pub(crate) fn count_dim(loc: Location) -> &'static str {
    match loc {
        Location::Cell => "cell",
        Location::Edge => "edge",
        Location::Vertex => "vertex",
    }
}

/// The dimension of a neighbour list of the given width (`nc`, `nv`, `no`, `ne`).
pub(crate) fn width_dim(width: usize) -> &'static str {
    match width {
        2 => "nc",
        3 => "nv",
        4 => "no",
        _ => "ne",
    }
}

/// Fixed-size dimensions every file defines, with their lengths.
pub(crate) fn fixed_dims() -> [(&'static str, usize); 8] {
    let grf = |loc| (grf_dim(loc), Zone::icon_array_len(loc));
    [
        ("nv", 3),
        ("ne", 6),
        ("nc", 2),
        ("no", 4),
        (MAX_CHDOM, 1),
        grf(Location::Cell),
        grf(Location::Edge),
        grf(Location::Vertex),
    ]
}

/// Number of child domains ICON's start/end index arrays are sized for.
pub(crate) const MAX_CHDOM: &str = "max_chdom";

/// The dimension of ICON's start/end index arrays of a location.
pub(crate) fn grf_dim(loc: Location) -> &'static str {
    match loc {
        Location::Cell => "cell_grf",
        Location::Edge => "edge_grf",
        Location::Vertex => "vert_grf",
    }
}

/// One of the eight neighbour tables a grid file stores.
pub(crate) struct TableName {
    /// ICON's variable name.
    pub name: &'static str,
    /// The connectivity it holds.
    pub conn: Connectivity,
    /// `long_name` attribute.
    pub long_name: &'static str,
}

/// The eight stored neighbour tables.
pub(crate) const TABLES: [TableName; 8] = [
    TableName {
        name: "vertex_of_cell",
        conn: Connectivity::C2V,
        long_name: "vertices of each cell",
    },
    TableName {
        name: "edge_of_cell",
        conn: Connectivity::C2E,
        long_name: "edges of each cell",
    },
    TableName {
        name: "neighbor_cell_index",
        conn: Connectivity::C2E2C,
        long_name: "cell neighbour across each edge",
    },
    TableName {
        name: "adjacent_cell_of_edge",
        conn: Connectivity::E2C,
        long_name: "cells adjacent to each edge",
    },
    TableName {
        name: "edge_vertices",
        conn: Connectivity::E2V,
        long_name: "vertices at the ends of each edge",
    },
    TableName {
        name: "edges_of_vertex",
        conn: Connectivity::V2E,
        long_name: "edges around each vertex",
    },
    TableName {
        name: "cells_of_vertex",
        conn: Connectivity::V2C,
        long_name: "cells around each vertex",
    },
    TableName {
        name: "vertices_of_vertex",
        conn: Connectivity::V2E2V,
        long_name: "vertices around each vertex",
    },
];

/// Variable names of the positions of one location.
pub(crate) struct PointNames {
    /// Longitude variable.
    pub lon: &'static str,
    /// Latitude variable.
    pub lat: &'static str,
    /// What the point is, for `long_name`.
    pub what: &'static str,
    /// Cartesian x, y, z variables.
    pub cartesian: [&'static str; 3],
}

/// Position variables of a location.
pub(crate) fn point_names(loc: Location) -> PointNames {
    match loc {
        Location::Cell => PointNames {
            lon: "clon",
            lat: "clat",
            what: "cell centre",
            cartesian: [
                "cell_circumcenter_cartesian_x",
                "cell_circumcenter_cartesian_y",
                "cell_circumcenter_cartesian_z",
            ],
        },
        Location::Edge => PointNames {
            lon: "elon",
            lat: "elat",
            what: "edge midpoint",
            cartesian: [
                "edge_middle_cartesian_x",
                "edge_middle_cartesian_y",
                "edge_middle_cartesian_z",
            ],
        },
        Location::Vertex => PointNames {
            lon: "vlon",
            lat: "vlat",
            what: "vertex",
            cartesian: [
                "cartesian_x_vertices",
                "cartesian_y_vertices",
                "cartesian_z_vertices",
            ],
        },
    }
}

/// `refin_c_ctrl`, `refin_e_ctrl`, `refin_v_ctrl`.
pub(crate) fn refin_name(loc: Location) -> &'static str {
    match loc {
        Location::Cell => "refin_c_ctrl",
        Location::Edge => "refin_e_ctrl",
        Location::Vertex => "refin_v_ctrl",
    }
}

/// `start_idx_*` and `end_idx_*` of a location.
pub(crate) fn start_end_names(loc: Location) -> (&'static str, &'static str) {
    match loc {
        Location::Cell => ("start_idx_c", "end_idx_c"),
        Location::Edge => ("start_idx_e", "end_idx_e"),
        Location::Vertex => ("start_idx_v", "end_idx_v"),
    }
}
