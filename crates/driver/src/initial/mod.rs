//! Initial conditions: a prognostic state (ICON4Py `PrognosticState`: `vn`, `w`,
//! `rho`, `exner`, `theta_v`) computed on a grid from its static fields
//! ([`GridFields`](foehn_icon::fields::static_fields::GridFields): the SLEVE heights,
//! the interpolation coefficients and the metric fields with the reference atmosphere).
//!
//! - [`jw`]: the Jablonowski–Williamson baroclinic-wave test (steady state and wave);
//! - [`hydrostatic`]: ICON's discrete hydrostatic adjustment, shared by the analytic
//!   initial conditions;
//! - [`wind`]: cell→edge interpolation, zonal to normal wind, the surface-following `w`.

pub mod hydrostatic;
pub mod jw;
pub mod wind;

/// Why an initial state cannot be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InitialError {
    /// An analytic state of the sphere asked for on a plane (torus) grid.
    #[error("the {case} initial state needs a grid on the sphere; {grid} is plane")]
    NotOnSphere {
        /// The test case.
        case: &'static str,
        /// The grid's name.
        grid: String,
    },
    /// An option outside its valid range.
    #[error("initial state: {option} = {value} must be {requirement}")]
    InvalidOption {
        /// The option (the configuration's field name).
        option: &'static str,
        /// Its value.
        value: f64,
        /// What it must be.
        requirement: &'static str,
    },
    /// A horizontal zone the grid does not have.
    #[error("initial state: {0}")]
    Zone(String),
    /// The static fields do not fit the grid (computed on another grid).
    #[error("initial state: the static fields have {fields} cells but the grid has {grid}")]
    OtherGrid {
        /// Cells of the grid.
        grid: usize,
        /// Cells of the static fields.
        fields: usize,
    },
    /// A vertical coordinate that does not converge to a finite positive value (a
    /// level far outside the atmosphere of the test case).
    #[error(
        "initial state: the Newton iteration for the vertical coordinate gives {eta} at \
         cell {cell}, level {level} (height {height} m)"
    )]
    NotConverged {
        /// The cell.
        cell: usize,
        /// The full level.
        level: usize,
        /// Its height, m.
        height: f64,
        /// The value reached.
        eta: f64,
    },
}
