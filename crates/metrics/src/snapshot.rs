//! A copy of collected samples: table, GT4Py-layout JSON out and back in.

use crate::error::Result;
use crate::gt4py::{gt4py_key, Gt4pyEntry, Gt4pyMetadata, Gt4pyMetrics, COMPUTE, TOTAL};
use crate::key::{ProgramKey, Samples};
use crate::stats::Summary;
use crate::table::{fmt_num, Align, Table};
use crate::variant::static_arg_to_json;
use std::collections::BTreeMap;
use std::path::Path;

/// All samples of a registry at one moment, ordered by key.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetricsSnapshot {
    /// Program variant → its samples (seconds).
    pub programs: BTreeMap<ProgramKey, Samples>,
}

impl MetricsSnapshot {
    /// Whether no call was recorded.
    pub fn is_empty(&self) -> bool {
        self.programs.is_empty()
    }

    /// The table printed at exit: program, variant, backend, calls, and median/mean/std of
    /// "total" and "compute" in milliseconds.
    pub fn table(&self) -> Table {
        let mut t = Table::new(&[
            ("program", Align::Left),
            ("variant", Align::Left),
            ("backend", Align::Left),
            ("calls", Align::Right),
            ("total med ms", Align::Right),
            ("mean", Align::Right),
            ("std", Align::Right),
            ("compute med ms", Align::Right),
            ("mean", Align::Right),
            ("std", Align::Right),
        ]);
        for (key, s) in &self.programs {
            let mut row = vec![
                key.program.clone(),
                key.variant_label(),
                key.backend.clone(),
                s.total.len().max(s.compute.len()).to_string(),
            ];
            for xs in [&s.total, &s.compute] {
                let sum = Summary::of(xs).map(|m| m.scaled(1e3));
                row.push(fmt_num(sum.map(|m| m.median), 4));
                row.push(fmt_num(sum.map(|m| m.mean), 4));
                row.push(fmt_num(sum.map(|m| m.std), 4));
            }
            t.push(row);
        }
        t
    }

    /// The samples in GT4Py's metrics layout (one entry per program variant).
    pub fn to_gt4py(&self) -> Gt4pyMetrics {
        self.programs
            .iter()
            .map(|(key, s)| {
                let static_args = key
                    .variant
                    .iter()
                    .map(|(k, v)| (k.clone(), static_arg_to_json(v)))
                    .collect();
                let mut metrics = BTreeMap::new();
                for (name, xs) in [(TOTAL, &s.total), (COMPUTE, &s.compute)] {
                    if !xs.is_empty() {
                        metrics.insert(name.to_string(), xs.clone());
                    }
                }
                let metadata = Gt4pyMetadata {
                    name: key.program.clone(),
                    backend: key.backend.clone(),
                    static_args,
                    extra: BTreeMap::new(),
                };
                (gt4py_key(key), Gt4pyEntry { metadata, metrics })
            })
            .collect()
    }

    /// Samples from GT4Py metrics (static arguments become the variant, sorted by name;
    /// entries with equal keys are merged).
    pub fn from_gt4py(metrics: &Gt4pyMetrics) -> MetricsSnapshot {
        let mut programs: BTreeMap<ProgramKey, Samples> = BTreeMap::new();
        for (source, entry) in metrics {
            let key = ProgramKey {
                program: entry.program(source),
                backend: entry.metadata.backend.clone(),
                variant: entry.variant().into_iter().collect(),
            };
            let s = programs.entry(key).or_default();
            s.total.extend_from_slice(entry.samples(TOTAL));
            s.compute.extend_from_slice(entry.samples(COMPUTE));
        }
        MetricsSnapshot { programs }
    }

    /// Write the GT4Py-layout JSON to `path` atomically.
    pub fn write_json(&self, path: &Path) -> Result<()> {
        crate::fsio::write_json_atomic(path, &self.to_gt4py())
    }

    /// Read a GT4Py-layout JSON file (ours or GT4Py's).
    pub fn read_json(path: &Path) -> Result<MetricsSnapshot> {
        Ok(Self::from_gt4py(&crate::gt4py::read_gt4py(path)?))
    }
}
