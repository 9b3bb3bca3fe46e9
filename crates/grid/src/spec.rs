//! `GridSpec`: parsing grid names and building the grid they name.

use crate::error::{GridError, Result};
use crate::generate::{limited_area, Cap, LatLonBox, Region};
use crate::grid::Grid;
use crate::space::EARTH_RADIUS;

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
        region: Region,
    },
}

/// The grid names foehn builds, for error messages.
pub(crate) const NAME_HINT: &str = "expected rNbK (e.g. r2b4, R02B06), torus_<L>mx<H>m_res<R>m \
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
                ("cap", &[lat, lon, radius_km]) => Region::Cap(Cap {
                    lat_deg: lat,
                    lon_deg: lon,
                    radius_m: radius_km * 1000.0,
                }),
                ("box", &[lat_min, lat_max, lon_min, lon_max]) => Region::LatLonBox(LatLonBox {
                    lat_min,
                    lat_max,
                    lon_min,
                    lon_max,
                }),
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
                limited_area(&parent, &region)
            }
        }
    }
}
