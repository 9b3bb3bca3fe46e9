//! The timers file of a model run (`foehn run jw --timers FILE.json`): the per-program
//! samples in GT4Py's metrics layout ([`crate::gt4py`]: one entry per compiled variant
//! with its static arguments, `total` = host seconds per call, `compute` = kernel
//! seconds per call where measured), plus one more entry, [`COMPONENTS_KEY`], holding
//! the component timers and the run's description:
//!
//! ```text
//! "foehn:components": {
//!     "metadata": { "name": "foehn:components", "backend": ..., "static_args": {},
//!                   "run": { grid, levels, backend, steps, dtime_s, substeps, wall_s, simulated_s } },
//!     "metrics": {},
//!     "components": [ { "name": "solve_nonhydro", "total": [s, ...] }, ... ] }
//! ```
//!
//! GT4Py-layout readers skip that entry: it has the shape of a program entry but no
//! metric (ICON4Py's `compare_icon4py_openacc.py` skips entries without the metric it
//! reads; foehn's loader finds no samples in it), and `components` is a key they do not
//! read. `foehn compare` reads it ([`crate::load`]).

use crate::error::{Error, Result};
use crate::gt4py::{Gt4pyEntry, Gt4pyMetrics};
use crate::snapshot::MetricsSnapshot;
use crate::timer_report::Timers;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::Path;

/// Source key of the component entry.
pub const COMPONENTS_KEY: &str = "foehn:components";

/// What was run: enough to turn call counts into calls per time step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Grid name or file.
    pub grid: String,
    /// Full levels.
    pub levels: usize,
    /// Backend the dycore ran on (`cpu`, `cuda`).
    pub backend: String,
    /// Time steps done.
    pub steps: u64,
    /// Time step, s.
    pub dtime_s: f64,
    /// Dynamics substeps per time step (nominal).
    pub substeps: usize,
    /// Wall time of the whole run, s.
    pub wall_s: f64,
    /// Simulated time, s.
    pub simulated_s: f64,
    /// From the run's start to the end of its first step, s (none without a step).
    #[serde(default)]
    pub cold_start_s: Option<f64>,
}

/// One component timer as written: its name and the seconds of every call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct ComponentSamples {
    name: String,
    total: Vec<f64>,
}

/// A run's timers: programs, components and the run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunTimers {
    /// Per-program samples (one entry per compiled variant).
    pub programs: MetricsSnapshot,
    /// Component timers, in the order first timed.
    pub components: Timers,
    /// The run.
    pub run: RunInfo,
}

impl RunTimers {
    /// The file's JSON (see the module doc).
    pub fn to_json(&self) -> Value {
        let mut all = serde_json::Map::new();
        for (key, entry) in self.programs.to_gt4py() {
            all.insert(key, json!(entry));
        }
        let components: Vec<ComponentSamples> = self
            .components
            .names()
            .iter()
            .map(|n| ComponentSamples {
                name: n.clone(),
                total: self.components.samples(n).to_vec(),
            })
            .collect();
        all.insert(
            COMPONENTS_KEY.to_string(),
            json!({
                "metadata": {
                    "name": COMPONENTS_KEY,
                    "backend": self.run.backend,
                    "static_args": {},
                    "run": self.run,
                },
                "metrics": {},
                "components": components,
            }),
        );
        Value::Object(all)
    }

    /// Writes the file atomically (a reader sees the old file or the whole new one).
    pub fn write_json(&self, path: &Path) -> Result<()> {
        crate::fsio::write_json_atomic(path, &self.to_json())
    }

    /// Reads a file [`RunTimers::write_json`] wrote.
    pub fn read_json(path: &Path) -> Result<RunTimers> {
        let value: Value = crate::fsio::read_json(path)?;
        let (run, components) = components_of(&value, path)?.ok_or_else(|| {
            Error::invalid(
                path,
                format!(
                    "has no `{COMPONENTS_KEY}` entry: not a foehn run's timers file \
                     (write one with `foehn run jw --timers FILE.json`)"
                ),
            )
        })?;
        let mut programs: Gt4pyMetrics = crate::gt4py::parse_gt4py(value, path)?;
        programs.remove(COMPONENTS_KEY);
        Ok(RunTimers {
            programs: MetricsSnapshot::from_gt4py(&programs),
            components,
            run,
        })
    }
}

/// The run and component timers of a parsed timers file; `None` when it has no
/// [`COMPONENTS_KEY`] entry (a plain GT4Py metrics file). A malformed entry is an error
/// naming `path`.
pub fn components_of(value: &Value, path: &Path) -> Result<Option<(RunInfo, Timers)>> {
    let Some(entry) = value.get(COMPONENTS_KEY) else {
        return Ok(None);
    };
    let bad = |what: &str, e: serde_json::Error| {
        Error::invalid(path, format!("`{COMPONENTS_KEY}`: {what}: {e}"))
    };
    let run: RunInfo = serde_json::from_value(
        entry
            .pointer("/metadata/run")
            .cloned()
            .unwrap_or(Value::Null),
    )
    .map_err(|e| bad("metadata.run", e))?;
    let list: Vec<ComponentSamples> =
        serde_json::from_value(entry.get("components").cloned().unwrap_or(Value::Null))
            .map_err(|e| bad("components", e))?;
    let mut timers = Timers::new();
    for c in list {
        if let Some(x) = c.total.iter().find(|x| !x.is_finite() || **x < 0.0) {
            return Err(Error::invalid(
                path,
                format!("component `{}` has a call of {x} s", c.name),
            ));
        }
        for s in c.total {
            timers.record(&c.name, s);
        }
    }
    Ok(Some((run, timers)))
}

/// Whether `entry` (under `key`) is the component entry rather than a program.
pub fn is_components_entry(key: &str, entry: &Gt4pyEntry) -> bool {
    key == COMPONENTS_KEY || entry.metadata.name == COMPONENTS_KEY
}
