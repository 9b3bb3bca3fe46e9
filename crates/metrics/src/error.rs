//! The crate's error type: every variant that concerns a file names it.

use std::path::PathBuf;

/// Errors of metrics collection, report reading/writing, comparison and plotting.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A file is not valid JSON, or not the JSON shape expected.
    #[error("{}: invalid JSON: {source}", .path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
    /// A JSON file is none of the report formats `compare` reads.
    #[error("{}: unknown report format: {reason} (expected a foehn bench report, GT4Py metrics JSON or OpenACC/Bencher timer JSON)", .path.display())]
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// What was found instead.
        reason: String,
    },
    /// A file has a known format but its content cannot be used (e.g. a report without results).
    #[error("{}: {message}", .path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Drawing a chart failed.
    #[error("{}: cannot draw chart: {message}", .path.display())]
    Plot {
        /// The PNG being written.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// `FOEHN_METRICS` (or a level given on a command line) is not a level.
    #[error("invalid metrics level `{value}`: expected a non-negative integer (0 off, 1 total, 10 compute) or one of off, minimal, performance, info, verbose, all")]
    Level {
        /// The text that was given.
        value: String,
    },
    /// The inputs of a comparison do not allow one.
    #[error("cannot compare: {0}")]
    Compare(String),
}

/// Result with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// An [`Error::Invalid`] for `path`.
    pub fn invalid(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Invalid {
            path: path.into(),
            message: message.into(),
        }
    }
}
