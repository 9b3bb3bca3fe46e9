//! Why the metric fields cannot be computed.

use crate::fields::reference_atmosphere::EdgeFieldError;
use crate::fields::sleve::SleveError;
use std::fmt;

/// Why the metric fields cannot be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricsError {
    /// An input of the wrong size for the grid or the vertical grid.
    WrongLength {
        /// The input.
        field: &'static str,
        /// The size expected.
        expected: usize,
        /// Its size.
        found: usize,
    },
    /// A non-finite interpolation coefficient.
    NotFinite {
        /// The input.
        field: &'static str,
        /// The first bad entry.
        index: usize,
    },
    /// Fewer than 3 levels (the surface extrapolation needs three).
    TooFewLevels {
        /// The number of levels.
        levels: usize,
    },
    /// An option outside its valid range.
    InvalidOption {
        /// The [`MetricsConfig`](super::MetricsConfig) field.
        option: &'static str,
        /// Its value.
        value: f64,
        /// What it must be.
        requirement: &'static str,
    },
    /// The grid lacks a zone the fields need.
    Zone(String),
    /// The flat levels of the heights could not be found.
    Sleve(SleveError),
    /// The reference atmosphere at edges failed.
    ReferenceEdges(EdgeFieldError),
}

impl fmt::Display for MetricsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::WrongLength {
                field,
                expected,
                found,
            } => write!(
                f,
                "metric fields: {field} has {found} values, {expected} expected"
            ),
            Self::NotFinite { field, index } => {
                write!(f, "metric fields: {field}[{index}] is not finite")
            }
            Self::TooFewLevels { levels } => write!(
                f,
                "metric fields: {levels} levels; at least 3 are needed (surface extrapolation)"
            ),
            Self::InvalidOption {
                option,
                value,
                requirement,
            } => write!(
                f,
                "metric fields: {option} = {value}, must be {requirement}"
            ),
            Self::Zone(e) => write!(f, "metric fields: {e}"),
            Self::Sleve(e) => write!(f, "metric fields: {e}"),
            Self::ReferenceEdges(e) => write!(f, "metric fields: {e}"),
        }
    }
}

impl std::error::Error for MetricsError {}
