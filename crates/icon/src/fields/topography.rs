//! The surface height at cell centres (ICON4Py `topography/analytical`): flat, or the
//! analytic surface of the Jablonowski–Williamson test (JW06 eq. 7, the surface
//! geopotential at `η_s = 1` divided by `g`):
//!
//! ```text
//! c  = u0·cos((1 − η0)·π/2)^{3/2}
//! zs = c·[ c·(−2 sin⁶φ (cos²φ + 1/3) + 10/63) + (8/5 cos³φ (sin²φ + 2/3) − π/4)·a·Ω ] / g
//! ```
//!
//! With ICON's `u0 = 35 m/s`, `η0 = 0.252` it is 112.8 m at the equator and −315.4 m at
//! the poles, independent of longitude.

use crate::common::constants::GRAV;
use foehn_grid::{Grid, Space, EARTH_ANGULAR_VELOCITY, EARTH_RADIUS};
use std::f64::consts::PI;
use std::fmt;
use std::str::FromStr;

/// The analytic Jablonowski–Williamson surface (ICON4Py `JablonowskiWilliamsonConfig`;
/// ICON `jw_u0`), on ICON's Earth (radius 6 371 229 m, Ω = 7.29212e-5 /s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JwTopography {
    /// Maximal zonal wind of the jet, m/s (`u0`, 35).
    pub u0: f64,
    /// `η` of the jet's level of maximal wind (`η0`, 0.252).
    pub eta_0: f64,
}

impl Default for JwTopography {
    fn default() -> Self {
        JwTopography {
            u0: 35.0,
            eta_0: 0.252,
        }
    }
}

impl JwTopography {
    /// The surface height (m) at latitude `lat` (rad).
    pub fn height(&self, lat: f64) -> f64 {
        let (s, c) = lat.sin_cos();
        let amp = self.u0 * ((1.0 - self.eta_0) * (PI / 2.0)).cos().powf(1.5);
        let jet = (-2.0 * s.powi(6) * (c * c + 1.0 / 3.0) + 1.0 / 6.3) * amp;
        let rotation = (1.6 * c.powi(3) * (s * s + 2.0 / 3.0) - 0.5 * (PI / 2.0))
            * EARTH_RADIUS
            * EARTH_ANGULAR_VELOCITY;
        amp * (jet + rotation) / GRAV
    }

    fn validate(&self) -> Result<(), TopographyError> {
        if !self.u0.is_finite() {
            return Err(TopographyError::InvalidOption {
                option: "u0",
                value: self.u0,
                requirement: "finite",
            });
        }
        if !(self.eta_0 > 0.0 && self.eta_0 <= 1.0) {
            return Err(TopographyError::InvalidOption {
                option: "eta_0",
                value: self.eta_0,
                requirement: "in (0, 1]",
            });
        }
        Ok(())
    }
}

/// A topography option.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Topography {
    /// Zero everywhere (ICON4Py `flat_topography`).
    #[default]
    Flat,
    /// The Jablonowski–Williamson surface (ICON4Py `jablonowski_williamson`).
    JablonowskiWilliamson(JwTopography),
}

impl Topography {
    /// The surface height (m) at every cell centre of `grid`.
    pub fn at_cells(&self, grid: &Grid) -> Result<Vec<f64>, TopographyError> {
        match self {
            Topography::Flat => Ok(vec![0.0; grid.topology.n_cells()]),
            Topography::JablonowskiWilliamson(jw) => {
                jw.validate()?;
                if !matches!(grid.space, Space::Sphere { .. }) {
                    return Err(TopographyError::NotOnSphere {
                        grid: grid.name.clone(),
                    });
                }
                Ok(grid
                    .geometry
                    .cell_lat
                    .iter()
                    .map(|&lat| jw.height(lat))
                    .collect())
            }
        }
    }
}

impl FromStr for Topography {
    type Err = TopographyError;

    /// `flat` (or `none`) and `jw` (or `jablonowski_williamson`, ICON's defaults).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "flat" | "none" => Ok(Topography::Flat),
            "jw" | "jablonowski_williamson" => {
                Ok(Topography::JablonowskiWilliamson(JwTopography::default()))
            }
            _ => Err(TopographyError::Unknown(s.to_string())),
        }
    }
}

/// Why a topography cannot be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum TopographyError {
    /// An analytic surface of the sphere asked for on a plane (torus) grid.
    NotOnSphere {
        /// The grid's name.
        grid: String,
    },
    /// An option outside its valid range.
    InvalidOption {
        /// The option.
        option: &'static str,
        /// Its value.
        value: f64,
        /// What it must be.
        requirement: &'static str,
    },
    /// A topography name that is not known.
    Unknown(String),
}

impl fmt::Display for TopographyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotOnSphere { grid } => write!(
                f,
                "the Jablonowski–Williamson topography needs a grid on the sphere; {grid} is plane"
            ),
            Self::InvalidOption {
                option,
                value,
                requirement,
            } => write!(f, "topography: {option} = {value} must be {requirement}"),
            Self::Unknown(name) => {
                write!(f, "unknown topography `{name}` (flat or jw)")
            }
        }
    }
}

impl std::error::Error for TopographyError {}
