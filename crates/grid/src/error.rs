//! Errors of grid generation, validation and grid-file input/output.

use std::path::PathBuf;

/// Everything that can go wrong when building, reading or writing a grid.
#[derive(Debug, thiserror::Error)]
pub enum GridError {
    /// A grid name that is not one of the known forms.
    #[error("unknown grid `{name}`: {hint}")]
    UnknownGrid {
        /// The name as given.
        name: String,
        /// What forms are accepted.
        hint: String,
    },
    /// Parameters that do not describe a valid grid.
    #[error("invalid grid parameters: {0}")]
    InvalidParameters(String),
    /// Topology that violates a structural invariant (e.g. an edge with three cells).
    #[error("inconsistent grid topology: {0}")]
    Topology(String),
    /// A grid file lacks a variable foehn needs.
    #[error("grid file {path}: missing variable `{variable}`")]
    MissingVariable {
        /// The file.
        path: PathBuf,
        /// The variable name.
        variable: String,
    },
    /// A grid-file variable has the wrong shape, type or contents.
    #[error("grid file {path}: variable `{variable}`: {message}")]
    BadVariable {
        /// The file.
        path: PathBuf,
        /// The variable name.
        variable: String,
        /// What is wrong.
        message: String,
    },
    /// The underlying NetCDF library failed.
    #[error("grid file {path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// The library's message.
        message: String,
    },
}

/// Result alias for grid operations.
pub type Result<T> = std::result::Result<T, GridError>;
