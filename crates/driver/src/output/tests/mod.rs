//! Tests of the output: the diagnostics against analytic fields, the snapshot of a
//! Jablonowski–Williamson state, the NetCDF files read back, and the maps; on the global
//! R2B2 grid (pentagons) and the limited-area test grid, with few levels.

mod diagnostics;
#[cfg(feature = "netcdf")]
mod netcdf;
mod plot;
mod snapshot;

use super::{Snapshot, DEFAULT_PRESSURE_LEVELS};
use crate::initial::jw::{jablonowski_williamson, JwConfig};
use foehn_grid::Grid;
use foehn_icon::common::state::PrognosticState;
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::fields::topography::{JwTopography, Topography};
use foehn_icon::fields::vertical::VerticalConfig;
use foehn_icon::fields::Columns;
use foehn_testkit::grids;
use std::sync::OnceLock;

/// Full levels of the test cases.
const NLEV: usize = 12;

/// A grid's static fields over the JW surface, the JW wave's initial state and its
/// snapshot at day 1 (time only: the state is the initial one).
pub(super) struct Case {
    pub name: &'static str,
    pub fields: GridFields<'static>,
    pub state: PrognosticState,
    /// The JW state's `ηv` at cells.
    pub eta_v: Columns,
    pub snapshot: Snapshot,
}

fn case_of(name: &'static str, grid: &'static Grid) -> Case {
    let topography = Topography::JablonowskiWilliamson(JwTopography::default());
    let fields = GridFields::compute(grid, VerticalConfig::new(NLEV), &topography).unwrap();
    let jw = jablonowski_williamson(&fields, &JwConfig::default()).unwrap();
    let (state, eta_v) = (jw.prognostic, jw.eta_v);
    let snapshot = Snapshot::diagnose(&fields, &state, 86_400.0, &DEFAULT_PRESSURE_LEVELS).unwrap();
    Case {
        name,
        fields,
        state,
        eta_v,
        snapshot,
    }
}

/// The global and the limited-area case.
pub(super) fn cases() -> [&'static Case; 2] {
    static G: OnceLock<Case> = OnceLock::new();
    static L: OnceLock<Case> = OnceLock::new();
    [
        G.get_or_init(|| case_of("global", grids::global())),
        L.get_or_init(|| case_of("limited area", grids::limited_area())),
    ]
}
