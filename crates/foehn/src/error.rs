//! Errors of every stage: building/checking a program, calling it, running it, field I/O.

use crate::ir::SrcLoc;
use std::fmt;

/// What kind of mistake a [`CheckError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckErrorKind {
    /// Two operands live on different horizontal or local dimensions (e.g. Edge + Cell).
    DimensionMismatch,
    /// A shift through a connectivity whose neighbours are not the operand's location.
    Connectivity,
    /// Element types do not agree (f32 + f64 without a cast, arithmetic on bool, ...).
    TypeMismatch,
    /// A half-level value used where full levels are expected (or the reverse).
    VerticalKind,
    /// A scan along a non-vertical dimension.
    ScanAxis,
    /// Misuse of a scan (carry outside its body, scan read through a horizontal shift, ...).
    Scan,
    /// A local (neighbour) dimension used wrongly (two of them, reduce over the wrong one, ...).
    LocalDim,
    /// A tuple used where a single value is needed, or a bad tuple index.
    Tuple,
    /// A bad field, scalar or static declaration.
    Declaration,
    /// A stencil's outputs or domain do not fit its expression.
    Output,
    /// A stencil reads a field it writes through a shift (a race in parallel backends).
    ReadWriteConflict,
}

/// An error found while building and checking a program, before any code generation.
///
/// Its message names the program, the stencil, the offending expression (printed),
/// the dimensions or types involved, and the Rust source position where the
/// expression was built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckError {
    /// The program.
    pub program: String,
    /// The stencil, when the error is inside one.
    pub stencil: Option<String>,
    /// What went wrong, by kind.
    pub kind: CheckErrorKind,
    /// The explanation (with dims/types).
    pub message: String,
    /// The offending expression, printed.
    pub expr: Option<String>,
    /// Where the expression was built.
    pub span: Option<SrcLoc>,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "program `{}`", self.program)?;
        if let Some(s) = &self.stencil {
            write!(f, ", stencil `{s}`")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(e) = &self.expr {
            write!(f, "\n  in expression: {e}")?;
        }
        if let Some(s) = &self.span {
            write!(f, "\n  built at {s}")?;
        }
        Ok(())
    }
}

impl std::error::Error for CheckError {}

/// Every error foehn reports.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A program failed to type/dimension check.
    #[error("{0}")]
    Check(Box<CheckError>),
    /// A call passed a missing, extra or wrongly shaped/typed argument.
    #[error("program `{program}`: argument `{arg}`: {message}")]
    Argument {
        /// The program.
        program: String,
        /// The argument.
        arg: String,
        /// What is wrong.
        message: String,
    },
    /// An error while running a stencil (a read through a skip value, a level out of range).
    #[error("program `{program}`, stencil `{stencil}`: {message}")]
    Runtime {
        /// The program.
        program: String,
        /// The stencil.
        stencil: String,
        /// What happened.
        message: String,
    },
    /// A static argument value is missing or not one of the declared values.
    #[error("program `{program}`: {message}")]
    Variant {
        /// The program.
        program: String,
        /// What is wrong.
        message: String,
    },
    /// Code generation, compilation or loading of a program failed.
    #[error("compiling program `{program}`: {message}")]
    Compile {
        /// Program name.
        program: String,
        /// What failed (with the compiler's output where there is one).
        message: String,
    },
    /// A malformed or unsupported field (shape/data mismatch, bad `.npy`).
    #[error("{0}")]
    Field(String),
    /// A grid error (unknown zone, bad grid file, ...).
    #[error(transparent)]
    Grid(#[from] foehn_grid::GridError),
    /// An I/O error, with the path.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

impl From<CheckError> for Error {
    fn from(e: CheckError) -> Error {
        Error::Check(Box::new(e))
    }
}

impl From<Box<CheckError>> for Error {
    fn from(e: Box<CheckError>) -> Error {
        Error::Check(e)
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
