//! foehn's grids: ICON icosahedral, torus and limited-area grids with ICON's index
//! order, zones, connectivities, geometry, and ICON grid files (NetCDF).
//!
//! ```
//! use foehn_grid::{Grid, Connectivity, Location, Zone};
//! let grid = Grid::icosahedral(2, 0, foehn_grid::EARTH_RADIUS).unwrap();
//! assert_eq!(grid.size(Location::Cell), 80);
//! assert_eq!(grid.topology.table(Connectivity::C2E2CO).width(), 4);
//! let (start, end) = grid.zones.edge.range(Zone::Interior).unwrap();
//! assert_eq!((start, end), (0, 120));
//! ```
#![deny(missing_docs)]

pub mod connectivity;
pub mod error;
pub mod generate;
pub mod geometry;
pub mod grid;
pub mod info;
#[cfg(feature = "netcdf")]
pub mod io;
pub mod limits;
pub mod location;
pub mod space;
pub mod spec;
pub mod topology;
pub mod zones;

pub use connectivity::{Connectivity, NeighborTable, SKIP};
pub use error::{GridError, Result};
pub use geometry::{Geometry, Points};
pub use grid::{Grid, GridKind};
pub use location::Location;
pub use space::{Space, EARTH_ANGULAR_VELOCITY, EARTH_RADIUS};
pub use spec::GridSpec;
pub use topology::Topology;
pub use zones::{LocationZones, Zone, Zones};
