//! One row of a comparison ([`crate::compare`]): a program variant or Fortran timer with
//! its time per call, calls and speedup per column, and where its call weight came from.
//! Its own module so that both the comparison and the run-timer rows
//! ([`crate::compare_run`]) use it without importing each other.

use serde::Serialize;

/// Where a row's weight came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WeightSource {
    /// `num_calls` of an OpenACC timer.
    NumCalls,
    /// `calls_per_step` of a bench report.
    CallsPerStep,
    /// No call count known: 1.
    One,
}

/// One compared program variant or Fortran timer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// Program name, or Fortran timer name when an OpenACC file takes part.
    pub name: String,
    /// Variant label (the static arguments that tell the baseline's variants apart).
    pub variant: String,
    /// For a Fortran timer: the programs (and variant filters) it stands for, `a + b` when
    /// their times add up; empty otherwise.
    pub covers: String,
    /// Call weight for the overall speedup.
    pub weight: f64,
    /// Where `weight` came from.
    pub weight_source: WeightSource,
    /// Time per call per column, ms (`None`: not in that column).
    pub ms: Vec<Option<f64>>,
    /// Calls per column (OpenACC `num_calls`, GT4Py samples; `None`: unknown).
    pub calls: Vec<Option<f64>>,
    /// Speedup per column versus column 0 (column 0 itself: 1).
    pub speedup: Vec<Option<f64>>,
    /// Per column: programs of a multi-program timer that the column lacks (its time is
    /// the sum of the others).
    pub missing_parts: Vec<Vec<String>>,
}
