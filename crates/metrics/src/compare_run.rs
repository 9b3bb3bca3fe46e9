//! What a comparison against ICON's OpenACC timers adds to the per-program rows of
//! [`crate::compare`]:
//!
//! - component rows: ICON's `nh_solve`, `nh_hdiff`, `nh_solve.veltend` against the
//!   component timers of a foehn run's timers file ([`crate::run_timers`]), per call and
//!   per time step;
//! - per-step totals: for each column, Σ over the program rows it shares with the
//!   baseline of (ms per call × its own calls ÷ its own time steps), i.e. the
//!   call-weighted time of those programs in one time step (5 substeps in ICON's
//!   ch1_medium), when both files say how many steps they ran;
//! - what could not be mapped, and why: OpenACC timers without a foehn counterpart, and
//!   rows a column has no call for.

use crate::compare_row::Row;
use crate::load::{Column, Entry, Format};
use crate::openacc_map::{lookup, lookup_component, unmapped_reason};
use crate::table::{fmt_num, Align, Table};
use crate::variant::{compatible, variant_label};
use serde::Serialize;
use std::collections::BTreeMap;

/// An ICON component timer compared with foehn's component timers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComponentRow {
    /// ICON's timer.
    pub timer: String,
    /// The foehn components it stands for, `+`-joined.
    pub covers: String,
    /// What one call is.
    pub what: String,
    /// Mean time per call per column, ms (`None`: the column has no such timer).
    pub ms: Vec<Option<f64>>,
    /// Calls per time step per column, where the column says how many steps it ran.
    pub calls_per_step: Vec<Option<f64>>,
    /// Speedup per column versus column 0.
    pub speedup: Vec<Option<f64>>,
}

/// The call-weighted time per time step of the program rows a column shares with the
/// baseline.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PerStep {
    /// Rows summed over.
    pub rows: usize,
    /// The baseline's ms per time step over those rows.
    pub baseline_ms: f64,
    /// The column's ms per time step over those rows.
    pub ms: f64,
}

/// Timers of an OpenACC file that no row or component row uses, grouped by reason.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unmapped {
    /// Why they are not compared.
    pub reason: String,
    /// The timers (sorted).
    pub timers: Vec<String>,
}

/// Mean ms per call and calls of `col`'s timer or pooled components `names`.
fn component_value(col: &Column, timer: &str, names: &[&str]) -> Option<(f64, f64)> {
    let pool: Vec<&Entry> = match col.format {
        Format::OpenAcc => col.entries.iter().filter(|e| e.program == timer).collect(),
        _ => col
            .components
            .iter()
            .filter(|e| names.contains(&e.program.as_str()))
            .collect(),
    };
    let calls: f64 = pool.iter().map(|e| e.calls.unwrap_or(1.0)).sum();
    (calls > 0.0).then(|| {
        let ms = pool
            .iter()
            .map(|e| e.ms * e.calls.unwrap_or(1.0))
            .sum::<f64>();
        (ms / calls, calls)
    })
}

/// The component rows of `columns` (none unless an OpenACC file has a mapped timer and
/// another column has component timers).
pub(crate) fn component_rows(columns: &[Column]) -> Vec<ComponentRow> {
    let mut timers: Vec<&str> = columns
        .iter()
        .filter(|c| c.format == Format::OpenAcc)
        .flat_map(|c| c.entries.iter().map(|e| e.program.as_str()))
        .filter(|t| lookup_component(t).is_some())
        .collect();
    timers.sort_unstable();
    timers.dedup();
    if !columns.iter().any(|c| !c.components.is_empty()) {
        return Vec::new();
    }
    timers
        .into_iter()
        .filter_map(lookup_component)
        .map(|m| {
            let values: Vec<Option<(f64, f64)>> = columns
                .iter()
                .map(|c| component_value(c, m.timer, m.components))
                .collect();
            let ms: Vec<Option<f64>> = values.iter().map(|v| v.map(|v| v.0)).collect();
            ComponentRow {
                timer: m.timer.to_string(),
                covers: m.components.join(" + "),
                what: m.what.to_string(),
                calls_per_step: values
                    .iter()
                    .zip(columns)
                    .map(|(v, c)| Some(v.as_ref()?.1 / c.steps?))
                    .collect(),
                speedup: ratios(&ms),
                ms,
            }
        })
        .collect()
}

/// ms[0] / ms[j] per column.
pub(crate) fn ratios(ms: &[Option<f64>]) -> Vec<Option<f64>> {
    ms.iter()
        .map(|m| match (ms[0], *m) {
            (Some(b), Some(x)) if x > 0.0 => Some(b / x),
            _ => None,
        })
        .collect()
}

/// Per column: the per-step totals versus the baseline (`None` for the baseline and
/// where a file does not say how many steps it ran or no row is shared).
pub(crate) fn per_step(columns: &[Column], rows: &[Row]) -> Vec<Option<PerStep>> {
    let step_ms = |r: &Row, j: usize| Some(r.ms[j]? * r.calls[j]? / columns[j].steps?);
    (0..columns.len())
        .map(|j| {
            if j == 0 {
                return None;
            }
            let (mut n, mut base, mut other) = (0, 0.0, 0.0);
            for r in rows {
                if let (Some(b), Some(x)) = (step_ms(r, 0), step_ms(r, j)) {
                    n += 1;
                    base += b;
                    other += x;
                }
            }
            (n > 0).then_some(PerStep {
                rows: n,
                baseline_ms: base,
                ms: other,
            })
        })
        .collect()
}

/// OpenACC timers used by no row, grouped by [`unmapped_reason`].
pub(crate) fn unmapped(columns: &[Column], components_compared: bool) -> Vec<Unmapped> {
    let mut by_reason: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for c in columns.iter().filter(|c| c.format == Format::OpenAcc) {
        for e in &c.entries {
            let t = e.program.as_str();
            if lookup(t).is_some() || (components_compared && lookup_component(t).is_some()) {
                continue;
            }
            let reason = match lookup_component(t) {
                Some(_) => {
                    "component timers: compared against a foehn run's timers file \
                     (`foehn run jw --timers`), which no other file here is"
                }
                None => unmapped_reason(t),
            };
            by_reason.entry(reason).or_default().push(t.to_string());
        }
    }
    by_reason
        .into_iter()
        .map(|(reason, mut timers)| {
            timers.sort();
            timers.dedup();
            Unmapped {
                reason: reason.to_string(),
                timers,
            }
        })
        .collect()
}

/// Why column `j` has no value for the program row `r` (a Fortran timer's row), if so.
pub(crate) fn missing_notes(columns: &[Column], rows: &[Row]) -> Vec<String> {
    let mut notes = Vec::new();
    for r in rows {
        let Some(m) = lookup(&r.name) else { continue };
        let main = &m.parts[0];
        for (j, col) in columns.iter().enumerate() {
            if r.ms[j].is_some() || col.format == Format::OpenAcc {
                continue;
            }
            let variants: Vec<String> = col
                .entries
                .iter()
                .filter(|e| e.program == main.program)
                .map(|e| {
                    let v: Vec<(String, String)> = e
                        .variant
                        .iter()
                        .filter(|(k, _)| main.filter.iter().any(|(f, _)| f == k))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    variant_label(&v)
                })
                .collect();
            let filter: crate::variant::VariantMap = main
                .filter
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let why = if variants.is_empty() {
                format!(
                    "no call of {} (not called in that run: LAM-only, or an option such as \
                     lprep_adv off)",
                    main.program
                )
            } else if col
                .entries
                .iter()
                .any(|e| e.program == main.program && compatible(&filter, &e.variant))
            {
                continue;
            } else {
                let mut v = variants;
                v.sort();
                v.dedup();
                format!(
                    "{} called only as {} (this timer is the variant {})",
                    main.program,
                    v.join("; "),
                    variant_label(&filter.into_iter().collect::<Vec<_>>())
                )
            };
            notes.push(format!("[{j}] {}: {why}", r.name));
        }
    }
    notes
}

/// Why a column with component timers has no value for a component row.
pub(crate) fn component_missing(columns: &[Column], rows: &[ComponentRow]) -> Vec<String> {
    let mut notes = Vec::new();
    for r in rows {
        let Some(m) = lookup_component(&r.timer) else {
            continue;
        };
        for (j, c) in columns.iter().enumerate() {
            if r.ms[j].is_none() && c.format != Format::OpenAcc && !c.components.is_empty() {
                notes.push(format!("[{j}] {}: {}", r.timer, m.missing));
            }
        }
    }
    notes
}

/// The component table: timer, covers, then per column ms per call, calls per step and
/// (after the baseline) speedup.
pub(crate) fn component_table(rows: &[ComponentRow], columns: usize) -> Table {
    let mut heads: Vec<(String, Align)> = vec![("timer".into(), Align::Left)];
    for j in 0..columns {
        heads.push((format!("[{j}] ms"), Align::Right));
        heads.push((format!("[{j}] /step"), Align::Right));
        if j > 0 {
            heads.push((format!("[{j}] x"), Align::Right));
        }
    }
    heads.push(("foehn components".into(), Align::Left));
    let refs: Vec<(&str, Align)> = heads.iter().map(|(h, a)| (h.as_str(), *a)).collect();
    let mut t = Table::new(&refs);
    for r in rows {
        let mut cells = vec![r.timer.clone()];
        for j in 0..columns {
            cells.push(fmt_num(r.ms[j], 4));
            cells.push(fmt_num(r.calls_per_step[j], 2));
            if j > 0 {
                cells.push(fmt_num(r.speedup[j], 2));
            }
        }
        cells.push(r.covers.clone());
        t.push(cells);
    }
    t
}
