//! The `Grid`: topology, point positions, geometry and zones, with its provenance.

use crate::error::{GridError, Result};
use crate::generate::{
    icosahedral_counts, icosahedral_mesh_optimised, torus_mesh, Optimisation, TorusLayout,
};
use crate::geometry::{Geometry, Points};
use crate::space::Space;
use crate::topology::Topology;
use crate::zones::{LocationZones, Zones};
use crate::Location;

/// How a grid was made.
#[derive(Debug, Clone, PartialEq)]
pub enum GridKind {
    /// Global icosahedral grid RnBk.
    Icosahedral {
        /// Root division `n`.
        root: u32,
        /// Number of bisections `k`.
        bisections: u32,
    },
    /// Doubly periodic plane of equilateral triangles.
    Torus(TorusLayout),
    /// A region cut out of a global grid.
    LimitedArea {
        /// Name of the parent grid.
        parent: String,
        /// Root division of the parent.
        root: u32,
        /// Bisections of the parent.
        bisections: u32,
    },
}

impl std::fmt::Display for GridKind {
    /// E.g. `global icosahedral R02B04`, `limited area cut from r2b5 (R02B05)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GridKind::Icosahedral { root, bisections } => {
                write!(f, "global icosahedral R{root:02}B{bisections:02}")
            }
            GridKind::Torus(t) => write!(
                f,
                "doubly periodic torus, {} vertices per row, {} rows, {} m edges",
                t.nx,
                t.ny,
                fmt_num(t.dx)
            ),
            GridKind::LimitedArea {
                parent,
                root,
                bisections,
            } => write!(
                f,
                "limited area cut from {parent} (R{root:02}B{bisections:02})"
            ),
        }
    }
}

/// A complete horizontal grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// Short name (e.g. "r2b4", "torus_100000mx100000m_res1000m").
    pub name: String,
    /// Provenance.
    pub kind: GridKind,
    /// The surface.
    pub space: Space,
    /// Counts and neighbour tables.
    pub topology: Topology,
    /// Positions of vertices, cell centres and edge midpoints.
    pub points: Points,
    /// Geometry fields.
    pub geometry: Geometry,
    /// Zones and refinement control.
    pub zones: Zones,
}

impl Grid {
    /// Global icosahedral grid RnBk on a sphere of the given radius.
    pub fn icosahedral(root: u32, bisections: u32, radius: f64) -> Result<Grid> {
        Self::icosahedral_optimised(root, bisections, radius, Optimisation::Plain)
    }

    /// Global icosahedral grid RnBk with vertex positions placed by `optimisation`
    /// (same topology and numbering as the plain grid; named e.g. `r2b4:spring`).
    pub fn icosahedral_optimised(
        root: u32,
        bisections: u32,
        radius: f64,
        optimisation: Optimisation,
    ) -> Result<Grid> {
        if radius.is_nan() || radius <= 0.0 || radius.is_infinite() {
            return Err(GridError::InvalidParameters(format!(
                "radius {radius} must be positive"
            )));
        }
        // 20·n²·4^k cells, checked before any allocation (as a float: no overflow).
        let estimate = 20.0 * f64::from(root).powi(2) * 4f64.powi(bisections as i32);
        crate::limits::check_cells(&format!("R{root}B{bisections}"), estimate)?;
        let (verts, cells) = icosahedral_mesh_optimised(root, bisections, optimisation)?;
        let space = Space::Sphere { radius };
        let topology = Topology::from_cells(verts.len(), &cells)?;
        debug_assert_eq!(
            (
                topology.n_cells(),
                topology.n_edges(),
                topology.n_vertices()
            ),
            icosahedral_counts(root, bisections)
        );
        Ok(Self::assemble(
            format!("r{root}b{bisections}{}", optimisation.name_suffix()),
            GridKind::Icosahedral { root, bisections },
            space,
            topology,
            verts,
            None,
        ))
    }

    /// Torus grid close to `length × height` metres with edges of `resolution` metres.
    pub fn torus(length: f64, height: f64, resolution: f64) -> Result<Grid> {
        let layout = TorusLayout::for_extent(length, height, resolution)?;
        let (verts, cells) = torus_mesh(&layout);
        let (length_p, height_p) = layout.extent();
        let space = Space::Torus {
            length: length_p,
            height: height_p,
        };
        let topology = Topology::from_cells(verts.len(), &cells)?;
        Ok(Self::assemble(
            format!(
                "torus_{}mx{}m_res{}m",
                fmt_num(length),
                fmt_num(height),
                fmt_num(resolution)
            ),
            GridKind::Torus(layout),
            space,
            topology,
            verts,
            None,
        ))
    }

    /// Builds points and geometry; `zones` default to all-interior.
    pub(crate) fn assemble(
        name: String,
        kind: GridKind,
        space: Space,
        topology: Topology,
        verts: Vec<crate::space::Vec3>,
        zones: Option<Zones>,
    ) -> Grid {
        let points = Points::from_vertices(&space, &topology, verts);
        let geometry = Geometry::compute(&space, &topology, &points);
        let zones = zones.unwrap_or_else(|| Zones {
            cell: LocationZones::global(Location::Cell, topology.n_cells()),
            edge: LocationZones::global(Location::Edge, topology.n_edges()),
            vertex: LocationZones::global(Location::Vertex, topology.n_vertices()),
        });
        Grid::from_parts(name, kind, space, topology, points, geometry, zones)
    }

    /// A grid of its parts (the generators' `assemble` and the NetCDF reader).
    pub(crate) fn from_parts(
        name: String,
        kind: GridKind,
        space: Space,
        topology: Topology,
        points: Points,
        geometry: Geometry,
        zones: Zones,
    ) -> Grid {
        Grid {
            name,
            kind,
            space,
            topology,
            points,
            geometry,
            zones,
        }
    }

    /// Number of points of a location.
    pub fn size(&self, loc: Location) -> usize {
        self.topology.size(loc)
    }

    /// True for limited-area grids (non-empty boundary zones).
    pub fn is_limited_area(&self) -> bool {
        self.zones.is_limited_area()
    }
}

/// Formats a length without a trailing ".0".
pub(crate) fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}
