//! `GridSpec`: parsing grid names and building the grid they name.

use crate::error::{GridError, Result};
use crate::generate::{limited_area, Cap, LatLonBox, Optimisation, Region, ICON_BETA_SPRING};
use crate::grid::Grid;
use crate::space::EARTH_RADIUS;

/// A parsed grid name: `r2b4` / `R02B04`, `torus_<L>mx<H>m_res<R>m`, or a limited area
/// `<global>:cap:<lat>,<lon>,<radius_km>` / `<global>:box:<lat0>,<lat1>,<lon0>,<lon1>` (degrees).
/// A global grid is `rNbK` (plain bisection), `rNbK:spring` (spring dynamics with ICON's
/// `beta_spring` 0.9) or `rNbK:spring:<beta>` (beta in (0, 2]).
#[derive(Debug, Clone, PartialEq)]
pub enum GridSpec {
    /// Global icosahedral RnBk.
    Icosahedral {
        /// Root division.
        root: u32,
        /// Bisections.
        bisections: u32,
        /// How the vertices are placed.
        optimisation: Optimisation,
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
        /// How the parent's vertices are placed.
        optimisation: Optimisation,
        /// The region.
        region: Region,
    },
}

/// The grid names foehn builds, for error messages.
pub(crate) const NAME_HINT: &str = "expected rNbK (e.g. r2b4, R02B06), rNbK:spring or \
rNbK:spring:<beta> (spring-dynamics optimised, beta in (0, 2], ICON's 0.9 by default), \
torus_<L>mx<H>m_res<R>m (e.g. torus_100000mx100000m_res1000m), \
<global>:cap:<lat>,<lon>,<radius_km> or <global>:box:<lat_min>,<lat_max>,<lon_min>,<lon_max> \
(degrees; <global> is any of the rNbK forms)";

impl GridSpec {
    /// Parses a grid name.
    pub fn parse(name: &str) -> Result<GridSpec> {
        let unknown = || GridError::UnknownGrid {
            name: name.to_string(),
            hint: NAME_HINT.to_string(),
        };
        let lower = name.trim().to_ascii_lowercase();
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
        let mut parts = lower.split(':').peekable();
        let global = parts.next().unwrap_or_default();
        let rest = global.strip_prefix('r').ok_or_else(unknown)?;
        let (n, k) = rest.split_once('b').ok_or_else(unknown)?;
        let root = n.parse::<u32>().map_err(|_| unknown())?;
        let bisections = k.parse::<u32>().map_err(|_| unknown())?;
        let mut optimisation = Optimisation::Plain;
        if parts.next_if_eq(&"spring").is_some() {
            let beta = match parts.next_if(|p| !matches!(*p, "cap" | "box")) {
                Some(b) => b.parse::<f64>().map_err(|_| {
                    GridError::InvalidParameters(format!(
                        "grid `{name}`: spring-dynamics beta `{b}` is not a number \
                         (e.g. {global}:spring:1.0; in (0, 2], ICON's default \
                         {ICON_BETA_SPRING})"
                    ))
                })?,
                None => ICON_BETA_SPRING,
            };
            optimisation = Optimisation::spring(beta)?;
        }
        let Some(shape) = parts.next() else {
            return Ok(GridSpec::Icosahedral {
                root,
                bisections,
                optimisation,
            });
        };
        let args = parts.next().ok_or_else(unknown)?;
        if parts.next().is_some() {
            return Err(unknown());
        }
        let region = parse_region(shape, args).ok_or_else(unknown)?;
        Ok(GridSpec::LimitedArea {
            root,
            bisections,
            optimisation,
            region,
        })
    }

    /// Generates the grid (Earth radius for spheres).
    pub fn build(&self) -> Result<Grid> {
        self.build_with_radius(None)
    }

    /// Generates the grid; spheres (global and limited-area grids) of `radius` metres
    /// (the Earth's if `None`; ignored for a torus).
    pub fn build_with_radius(&self, radius: Option<f64>) -> Result<Grid> {
        let radius = radius.unwrap_or(EARTH_RADIUS);
        match *self {
            GridSpec::Icosahedral {
                root,
                bisections,
                optimisation,
            } => Grid::icosahedral_optimised(root, bisections, radius, optimisation),
            GridSpec::Torus {
                length,
                height,
                resolution,
            } => Grid::torus(length, height, resolution),
            GridSpec::LimitedArea {
                root,
                bisections,
                optimisation,
                region,
            } => {
                let parent = Grid::icosahedral_optimised(root, bisections, radius, optimisation)?;
                limited_area(&parent, &region)
            }
        }
    }
}

/// The region of `cap` / `box` and its comma-separated numbers (degrees, km).
fn parse_region(shape: &str, args: &str) -> Option<Region> {
    let nums: Vec<f64> = args
        .split(',')
        .map(|s| s.trim().trim_end_matches("km").parse::<f64>())
        .collect::<std::result::Result<_, _>>()
        .ok()?;
    match (shape, nums.as_slice()) {
        ("cap", &[lat, lon, radius_km]) => Some(Region::Cap(Cap {
            lat_deg: lat,
            lon_deg: lon,
            radius_m: radius_km * 1000.0,
        })),
        ("box", &[lat_min, lat_max, lon_min, lon_max]) => Some(Region::LatLonBox(LatLonBox {
            lat_min,
            lat_max,
            lon_min,
            lon_max,
        })),
        _ => None,
    }
}
