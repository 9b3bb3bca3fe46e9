//! The one list of test grids: small global icosahedral grids (with their 12 pentagons),
//! a limited-area grid cut from a global grid (boundary rows, nudging zone, halo) and a
//! doubly periodic torus, built once per test process.

use foehn_grid::{Grid, GridSpec, EARTH_RADIUS};
use std::sync::OnceLock;

/// R2B2 (1280 cells, 12 pentagon vertices): the global grid of the program tests.
pub fn global() -> &'static Grid {
    static G: OnceLock<Grid> = OnceLock::new();
    G.get_or_init(|| Grid::icosahedral(2, 2, EARTH_RADIUS).expect("R2B2"))
}

/// A cap of 1500 km radius cut from R2B4 at 46°N 8°E: the limited-area grid of the
/// program tests (boundary zones, nudging zone and lateral boundary all non-empty).
pub fn limited_area() -> &'static Grid {
    static G: OnceLock<Grid> = OnceLock::new();
    G.get_or_init(|| {
        GridSpec::parse("r2b4:cap:46,8,1500")
            .and_then(|s| s.build())
            .expect("limited-area test grid")
    })
}

/// R2B1 (320 cells, 12 pentagon vertices): the global grid of the compiler's property
/// tests, which run many random programs.
pub fn small_global() -> &'static Grid {
    static G: OnceLock<Grid> = OnceLock::new();
    G.get_or_init(|| Grid::icosahedral(2, 1, EARTH_RADIUS).expect("R2B1"))
}

/// A 10 km × 10 km doubly periodic torus with 1 km cells (no pentagons, no boundary).
pub fn torus() -> &'static Grid {
    static G: OnceLock<Grid> = OnceLock::new();
    G.get_or_init(|| Grid::torus(10000.0, 10000.0, 1000.0).expect("torus"))
}

/// The global and the limited-area grid: every program is tested on both.
pub fn program_grids() -> [&'static Grid; 2] {
    [global(), limited_area()]
}

/// The grids of the compiler's backend-agreement property tests: small global and torus.
pub fn compiler_grids() -> [&'static Grid; 2] {
    [small_global(), torus()]
}

/// The compiler's grids and the limited-area grid (optimiser tests: domains clipped at
/// boundary zones).
pub fn compiler_grids_with_limited_area() -> [&'static Grid; 3] {
    [small_global(), torus(), limited_area()]
}
