//! GT4Py's metrics JSON layout (`gt4py.next.instrumentation.metrics.dump_json`), which foehn
//! writes so that ICON4Py users' tooling reads it:
//!
//! ```text
//! { "<prog><<backend>>#0[<variant-hash>]": {
//!     "metadata": { "name": prog, "backend": ..., "static_args": {arg: value, ...} },
//!     "metrics": { "compute": [s, ...], "total": [s, ...] } } }
//! ```
//! One entry per program variant, one sample (seconds) per call.

use crate::error::{Error, Result};
use crate::key::ProgramKey;
use crate::variant::{json_to_static_arg, variant_hash, VariantMap};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Metric name of the host time per call.
pub const TOTAL: &str = "total";
/// Metric name of the kernel time per call.
pub const COMPUTE: &str = "compute";

/// A whole GT4Py metrics file: source key → entry.
pub type Gt4pyMetrics = BTreeMap<String, Gt4pyEntry>;

/// One program variant ("source") of a GT4Py metrics file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gt4pyEntry {
    /// Program name, backend, static arguments and whatever else the writer added.
    pub metadata: Gt4pyMetadata,
    /// Metric name (`total`, `compute`, ...) → samples in seconds, one per call.
    #[serde(default)]
    pub metrics: BTreeMap<String, Vec<f64>>,
}

/// The `metadata` object of a [`Gt4pyEntry`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gt4pyMetadata {
    /// Program name (empty when the writer left it out; see [`Gt4pyEntry::program`]).
    #[serde(default)]
    pub name: String,
    /// Backend name (non-string values are kept as their JSON text).
    #[serde(default, deserialize_with = "any_as_string")]
    pub backend: String,
    /// Static (compile-time) arguments of this variant.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub static_args: BTreeMap<String, Value>,
    /// Other metadata (GT4Py writes e.g. `compiled_program_pool_id`), kept as is.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

fn any_as_string<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    })
}

fn null_as_empty<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<BTreeMap<String, Value>, D::Error> {
    Ok(Option::<BTreeMap<String, Value>>::deserialize(d)?.unwrap_or_default())
}

impl Gt4pyEntry {
    /// The program name: `metadata.name`, else the part of the source key before `<`.
    pub fn program(&self, source_key: &str) -> String {
        if self.metadata.name.is_empty() {
            source_key
                .split('<')
                .next()
                .unwrap_or(source_key)
                .to_string()
        } else {
            self.metadata.name.clone()
        }
    }

    /// The static arguments as a normalised name → value map.
    pub fn variant(&self) -> VariantMap {
        self.metadata
            .static_args
            .iter()
            .map(|(k, v)| (k.clone(), json_to_static_arg(v)))
            .collect()
    }

    /// The samples of metric `name` (empty when absent).
    pub fn samples(&self, name: &str) -> &[f64] {
        self.metrics.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The samples a comparison uses: "compute" when present, else "total".
    pub fn preferred_samples(&self) -> &[f64] {
        match self.samples(COMPUTE) {
            [] => self.samples(TOTAL),
            s => s,
        }
    }
}

/// The source key GT4Py would write for `key`: `<prog><<backend>>#0[<variant-hash>]`.
pub fn gt4py_key(key: &ProgramKey) -> String {
    format!(
        "{}<{}>#0[{}]",
        key.program,
        key.backend,
        variant_hash(&key.variant)
    )
}

/// Parse an already-read JSON value as GT4Py metrics (errors name `path`).
pub fn parse_gt4py(value: Value, path: &Path) -> Result<Gt4pyMetrics> {
    serde_json::from_value(value).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// Read a GT4Py metrics JSON file.
pub fn read_gt4py(path: &Path) -> Result<Gt4pyMetrics> {
    crate::fsio::read_json(path)
}
