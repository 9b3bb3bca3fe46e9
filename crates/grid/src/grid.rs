//! The `Grid`: topology, point positions, geometry and zones, with its provenance.

use crate::error::{GridError, Result};
use crate::generate::{icosahedral_counts, icosahedral_mesh, torus_mesh, TorusLayout};
use crate::geometry::{Geometry, Points};
use crate::space::{Space, EARTH_RADIUS};
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
        if radius.is_nan() || radius <= 0.0 || radius.is_infinite() {
            return Err(GridError::InvalidParameters(format!(
                "radius {radius} must be positive"
            )));
        }
        let (verts, cells) = icosahedral_mesh(root, bisections)?;
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
            format!("r{root}b{bisections}"),
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

/// A parsed grid name: `r2b4` / `R02B04`, `torus_<L>mx<H>m_res<R>m`, or a limited area
/// `<global>:cap:<lat>,<lon>,<radius_km>` / `<global>:box:<lat0>,<lat1>,<lon0>,<lon1>` (degrees).
#[derive(Debug, Clone, PartialEq)]
pub enum GridSpec {
    /// Global icosahedral RnBk.
    Icosahedral {
        /// Root division.
        root: u32,
        /// Bisections.
        bisections: u32,
    },
    /// Torus of the given extent and resolution (m).
    Torus {
        /// Length (m).
        length: f64,
        /// Height (m).
        height: f64,
        /// Edge length (m).
        resolution: f64,
    },
    /// A limited-area region of a global grid.
    LimitedArea {
        /// Root division of the parent.
        root: u32,
        /// Bisections of the parent.
        bisections: u32,
        /// The region.
        region: crate::generate::Region,
    },
}

const NAME_HINT: &str = "expected rNbK (e.g. r2b4, R02B06), torus_<L>mx<H>m_res<R>m \
(e.g. torus_100000mx100000m_res1000m), <global>:cap:<lat>,<lon>,<radius_km> or \
<global>:box:<lat_min>,<lat_max>,<lon_min>,<lon_max> (degrees)";

impl GridSpec {
    /// Parses a grid name.
    pub fn parse(name: &str) -> Result<GridSpec> {
        let unknown = || GridError::UnknownGrid {
            name: name.to_string(),
            hint: NAME_HINT.to_string(),
        };
        let lower = name.trim().to_ascii_lowercase();
        if let Some((parent, rest)) = lower.split_once(':') {
            let GridSpec::Icosahedral { root, bisections } = GridSpec::parse(parent)? else {
                return Err(unknown());
            };
            let (shape, args) = rest.split_once(':').ok_or_else(unknown)?;
            let nums: Vec<f64> = args
                .split(',')
                .map(|s| s.trim().trim_end_matches("km").parse::<f64>())
                .collect::<std::result::Result<_, _>>()
                .map_err(|_| unknown())?;
            let region = match (shape, nums.as_slice()) {
                ("cap", &[lat, lon, radius_km]) => crate::generate::Region::Cap {
                    lat_deg: lat,
                    lon_deg: lon,
                    radius_m: radius_km * 1000.0,
                },
                ("box", &[lat_min, lat_max, lon_min, lon_max]) => {
                    crate::generate::Region::LatLonBox {
                        lat_min,
                        lat_max,
                        lon_min,
                        lon_max,
                    }
                }
                _ => return Err(unknown()),
            };
            return Ok(GridSpec::LimitedArea {
                root,
                bisections,
                region,
            });
        }
        if let Some(rest) = lower.strip_prefix("torus_") {
            let parse_m = |s: &str| s.strip_suffix('m').and_then(|s| s.parse::<f64>().ok());
            let (dims, res) = rest.split_once("_res").ok_or_else(unknown)?;
            let (l, h) = dims.split_once("mx").ok_or_else(unknown)?;
            let length = l.parse::<f64>().map_err(|_| unknown())?;
            let height = parse_m(h).ok_or_else(unknown)?;
            let resolution = parse_m(res).ok_or_else(unknown)?;
            return Ok(GridSpec::Torus {
                length,
                height,
                resolution,
            });
        }
        let rest = lower.strip_prefix('r').ok_or_else(unknown)?;
        let (n, k) = rest.split_once('b').ok_or_else(unknown)?;
        let root = n.parse::<u32>().map_err(|_| unknown())?;
        let bisections = k.parse::<u32>().map_err(|_| unknown())?;
        Ok(GridSpec::Icosahedral { root, bisections })
    }

    /// Generates the grid (Earth radius for spheres).
    pub fn build(&self) -> Result<Grid> {
        match *self {
            GridSpec::Icosahedral { root, bisections } => {
                Grid::icosahedral(root, bisections, EARTH_RADIUS)
            }
            GridSpec::Torus {
                length,
                height,
                resolution,
            } => Grid::torus(length, height, resolution),
            GridSpec::LimitedArea {
                root,
                bisections,
                region,
            } => {
                let parent = Grid::icosahedral(root, bisections, EARTH_RADIUS)?;
                crate::generate::limited_area(&parent, &region)
            }
        }
    }
}
