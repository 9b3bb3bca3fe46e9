//! Reading timing files of three formats into one shape: a list of [`Column`]s (one per
//! backend/schedule found in the file), each a list of per-program [`Entry`]s with the
//! per-call time in milliseconds.
//!
//! Formats (detected from the JSON itself, see [`detect_format`]):
//! - [`Format::Bench`]: foehn's [`BenchReport`];
//! - [`Format::Gt4pyMetrics`]: GT4Py's metrics JSON (median of "compute", else of "total");
//! - [`Format::OpenAcc`]: ICON's OpenACC timers in Bencher Metric Format
//!   (`{timer: {latency: {value: ms}, latency_total: {value: ms}, num_calls: {value: n}}}`).

use crate::error::{Error, Result};
use crate::gt4py::parse_gt4py;
use crate::report::BenchReport;
use crate::stats::median;
use crate::variant::{parse_variant, VariantMap};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The format of a timing file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// foehn's benchmark report.
    Bench,
    /// GT4Py's metrics JSON (also what foehn's `FOEHN_METRICS` writes).
    Gt4pyMetrics,
    /// ICON OpenACC timers in Bencher Metric Format.
    OpenAcc,
}

impl Format {
    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Format::Bench => "foehn bench",
            Format::Gt4pyMetrics => "gt4py metrics",
            Format::OpenAcc => "openacc timers",
        }
    }
}

/// One program variant (or Fortran timer) of a column.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Program name (for OpenACC files: the Fortran timer name).
    pub program: String,
    /// Static-argument variant (normalised values).
    pub variant: VariantMap,
    /// Time per call, ms (median where samples exist).
    pub ms: f64,
    /// Number of samples behind `ms` (1 when only a summary was given).
    pub samples: usize,
    /// Calls counted by the run (OpenACC `num_calls`; GT4Py: number of samples).
    pub calls: Option<f64>,
    /// Calls per model time step, if the report says (foehn bench `calls_per_step`).
    pub calls_per_step: Option<f64>,
}

/// The timings of one file for one backend and schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Name shown in tables and legends (file stem, plus backend/schedule when the file has
    /// several).
    pub label: String,
    /// The file read.
    pub file: PathBuf,
    /// Its format.
    pub format: Format,
    /// Backend (`openacc` for OpenACC timers).
    pub backend: String,
    /// Schedule (bench reports; empty otherwise).
    pub schedule: String,
    /// The entries, in file order.
    pub entries: Vec<Entry>,
    /// Component timers (a foehn run's timers file: solve_nonhydro, diffusion, …; time
    /// per call is the mean, as ICON's timers give it); empty for other files.
    pub components: Vec<Entry>,
    /// Time steps the file's run made, where known (a foehn run's timers file; OpenACC:
    /// calls of `integrate_nh`, else of `nh_hdiff`).
    pub steps: Option<f64>,
}

fn has_any(obj: &Map<String, Value>, keys: &[&str]) -> bool {
    keys.iter().any(|k| obj.contains_key(*k))
}

/// Detect the format of a parsed JSON document; the error says why it is none of them.
pub fn detect_format(value: &Value) -> std::result::Result<Format, String> {
    let obj = value
        .as_object()
        .ok_or("the top level is not a JSON object")?;
    if obj.get("results").is_some_and(Value::is_array)
        || has_any(obj, &["peak_copy_gbs", "foehn_version"])
    {
        return Ok(Format::Bench);
    }
    let (first_key, _) = obj.iter().next().ok_or("the JSON object is empty")?;
    let shape_of = |v: &Value| -> Option<Format> {
        let o = v.as_object()?;
        if o.contains_key("metadata") && o.contains_key("metrics") {
            Some(Format::Gt4pyMetrics)
        } else if has_any(o, &["latency", "latency_total", "num_calls"]) {
            Some(Format::OpenAcc)
        } else {
            None
        }
    };
    let format = shape_of(&obj[first_key]).ok_or_else(|| {
        format!("entry `{first_key}` has neither metadata+metrics (GT4Py) nor latency/num_calls (OpenACC)")
    })?;
    match obj.iter().find(|(_, v)| shape_of(v) != Some(format)) {
        None => Ok(format),
        Some((k, _)) => Err(format!(
            "entry `{k}` does not have the shape of entry `{first_key}` ({})",
            format.name()
        )),
    }
}

/// Read `path`, detect its format and return its columns (at least one, none empty).
pub fn load_file(path: &Path) -> Result<Vec<Column>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::InvalidData {
            Error::invalid(
                path,
                "is not a text file; give a JSON timing report (foehn bench, GT4Py metrics or \
                 ICON's OpenACC timers)",
            )
        } else {
            Error::io(path, e)
        }
    })?;
    let value: Value = serde_json::from_str(&text).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })?;
    let format = detect_format(&value).map_err(|reason| Error::UnknownFormat {
        path: path.to_path_buf(),
        reason,
    })?;
    let (components, steps) = run_components(&value, format, path)?;
    let groups = match format {
        Format::Bench => bench_groups(value, path)?,
        Format::Gt4pyMetrics => gt4py_groups(value, path)?,
        Format::OpenAcc => vec![(
            ("openacc".to_string(), String::new()),
            openacc_entries(&value),
        )],
    };
    let mut groups: Vec<_> = groups.into_iter().filter(|(_, e)| !e.is_empty()).collect();
    for (_, entries) in &groups {
        for e in entries {
            check_time(path, e)?;
        }
    }
    for e in &components {
        check_time(path, e)?;
    }
    if groups.is_empty() && !components.is_empty() {
        // A run's timers file without per-program samples still has its components.
        groups.push((("foehn".to_string(), String::new()), Vec::new()));
    }
    if groups.is_empty() {
        return Err(Error::invalid(
            path,
            format!("{} has no usable timings", format.name()),
        ));
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let several = groups.len() > 1;
    Ok(groups
        .into_iter()
        .map(|((backend, schedule), entries)| Column {
            label: match (several, schedule.is_empty()) {
                (false, _) => stem.clone(),
                (true, true) => format!("{stem}:{backend}"),
                (true, false) => format!("{stem}:{backend}/{schedule}"),
            },
            file: path.to_path_buf(),
            format,
            backend,
            schedule,
            entries,
            components: components.clone(),
            steps,
        })
        .collect())
}

/// The component timers and the number of time steps of a file (see [`Column`]).
fn run_components(value: &Value, format: Format, path: &Path) -> Result<(Vec<Entry>, Option<f64>)> {
    match format {
        Format::Bench => Ok((Vec::new(), None)),
        Format::OpenAcc => {
            let calls = |t: &str| value.get(t).and_then(|m| bencher_value(m, "num_calls"));
            Ok((
                Vec::new(),
                calls("integrate_nh").or_else(|| calls("nh_hdiff")),
            ))
        }
        Format::Gt4pyMetrics => {
            let Some((run, timers)) = crate::run_timers::components_of(value, path)? else {
                return Ok((Vec::new(), None));
            };
            let entries = timers
                .names()
                .iter()
                .filter_map(|name| {
                    let s = timers.samples(name);
                    let n = s.len();
                    (n > 0).then(|| Entry {
                        program: name.clone(),
                        variant: VariantMap::new(),
                        ms: 1e3 * s.iter().sum::<f64>() / n as f64,
                        samples: n,
                        calls: Some(n as f64),
                        calls_per_step: (run.steps > 0).then(|| n as f64 / run.steps as f64),
                    })
                })
                .collect();
            Ok((entries, Some(run.steps as f64).filter(|s| *s > 0.0)))
        }
    }
}

/// The longest time one call may take in a report (about 2.8 hours): a larger, negative
/// or non-finite time is a broken report, refused with the entry's name.
pub const MAX_CALL_MS: f64 = 1e7;

fn check_time(path: &Path, e: &Entry) -> Result<()> {
    if e.ms.is_finite() && (0.0..=MAX_CALL_MS).contains(&e.ms) {
        return Ok(());
    }
    Err(Error::invalid(
        path,
        format!(
            "`{}` has a time of {} ms per call; a time must be a finite number from 0 to {MAX_CALL_MS} ms",
            e.program, e.ms
        ),
    ))
}

type Groups = Vec<((String, String), Vec<Entry>)>;

/// Append `entry` to the group `key`, creating groups in order of first appearance.
fn push_grouped(groups: &mut Groups, key: (String, String), entry: Entry) {
    match groups.iter_mut().find(|(k, _)| *k == key) {
        Some((_, v)) => v.push(entry),
        None => groups.push((key, vec![entry])),
    }
}

fn bench_groups(value: Value, path: &Path) -> Result<Groups> {
    let report: BenchReport = serde_json::from_value(value).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })?;
    if report.results.is_empty() {
        return Err(Error::invalid(path, "bench report has no results"));
    }
    let mut groups = Groups::new();
    for r in report.results {
        let entry = Entry {
            program: r.program,
            variant: parse_variant(&r.variant),
            ms: r.median_ms,
            samples: r.samples_ms.len().max(1),
            calls: None,
            calls_per_step: r.calls_per_step,
        };
        push_grouped(&mut groups, (r.backend, r.schedule), entry);
    }
    Ok(groups)
}

fn gt4py_groups(value: Value, path: &Path) -> Result<Groups> {
    let metrics = parse_gt4py(value, path)?;
    let mut by_backend: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    for (source, entry) in &metrics {
        if crate::run_timers::is_components_entry(source, entry) {
            continue;
        }
        let samples = entry.preferred_samples();
        let Some(med) = median(samples) else { continue };
        by_backend
            .entry(entry.metadata.backend.clone())
            .or_default()
            .push(Entry {
                program: entry.program(source),
                variant: entry.variant(),
                ms: med * 1e3,
                samples: samples.len(),
                calls: Some(samples.len() as f64),
                calls_per_step: None,
            });
    }
    Ok(by_backend
        .into_iter()
        .map(|(b, e)| ((b, String::new()), e))
        .collect())
}

/// `obj[name]["value"]` as a number.
fn bencher_value(obj: &Value, name: &str) -> Option<f64> {
    obj.get(name)?.get("value")?.as_f64()
}

fn openacc_entries(value: &Value) -> Vec<Entry> {
    let obj = value.as_object().into_iter().flatten();
    obj.filter_map(|(timer, m)| {
        let calls = bencher_value(m, "num_calls");
        let ms = bencher_value(m, "latency").or_else(|| {
            let n = calls.filter(|n| *n > 0.0)?;
            Some(bencher_value(m, "latency_total")? / n)
        })?;
        Some(Entry {
            program: timer.clone(),
            variant: VariantMap::new(),
            ms,
            samples: 1,
            calls,
            calls_per_step: None,
        })
    })
    .collect()
}
