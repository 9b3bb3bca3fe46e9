//! Speedups between timing files: per program (or Fortran timer) and overall, weighted by
//! how often each is called.
//!
//! The first column (first file) is the baseline; speedup = baseline time / column time, so
//! values above 1 mean "faster than the baseline". The overall speedup of a column is
//! Σ w·t_baseline / Σ w·t_column over the rows both have, with w the row's call weight:
//! OpenACC `num_calls` where an OpenACC file has the row, else a bench report's
//! `calls_per_step`, else 1.
//!
//! Rows: when an OpenACC file takes part, one row per Fortran timer it has that
//! [`crate::openacc_map`] knows (other files contribute the sum of the timer's programs);
//! otherwise one row per program variant of the baseline. Programs match by name and, where
//! both sides have static arguments, by the arguments they share.

pub use crate::compare_row::{Row, WeightSource};
use crate::compare_run::{ComponentRow, PerStep, Unmapped};
use crate::error::{Error, Result};
use crate::load::{load_file, Column, Entry, Format};
use crate::openacc_map::{lookup, ProgramPart};
use crate::table::{fmt_count, fmt_num, Align, Table};
use crate::variant::{compatible, contains_all, variant_label, VariantMap};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One compared column (a file, or one backend/schedule of a file).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ColumnInfo {
    /// Legend label.
    pub label: String,
    /// The file it came from.
    pub file: PathBuf,
    /// The file's format.
    pub format: Format,
}

/// The result of comparing columns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The columns; 0 is the baseline.
    pub columns: Vec<ColumnInfo>,
    /// The rows, by weighted baseline time, largest first.
    pub rows: Vec<Row>,
    /// Per column: weighted overall speedup versus column 0 (`None`: no common row).
    pub overall: Vec<Option<f64>>,
    /// Per column: number of rows the overall speedup is over.
    pub overall_rows: Vec<usize>,
    /// Per column: programs it has that no row uses (sorted).
    pub unmatched: Vec<Vec<String>>,
    /// ICON component timers against a foehn run's component timers
    /// ([`crate::compare_run`]).
    pub components: Vec<ComponentRow>,
    /// Per column: the call-weighted time per time step of the rows it shares with
    /// the baseline (`None`: baseline, or steps unknown).
    pub per_step: Vec<Option<PerStep>>,
    /// OpenACC timers not compared, grouped by why.
    pub unmapped: Vec<Unmapped>,
    /// Why a column has no value for a Fortran timer's row.
    pub missing: Vec<String>,
}

struct Part {
    program: String,
    filter: VariantMap,
}

struct RowSpec {
    name: String,
    variant: String,
    covers: String,
    timer: Option<String>,
    parts: Vec<Part>,
}

#[derive(Clone, Copy)]
struct Matched {
    ms: f64,
    calls: Option<f64>,
    calls_per_step: Option<f64>,
}

/// The static arguments of `e` whose values differ among `col`'s variants of the program
/// (GT4Py records every static argument, sizes included; only these tell variants apart).
fn distinguishing(col: &Column, e: &Entry) -> VariantMap {
    let same: Vec<&Entry> = col
        .entries
        .iter()
        .filter(|o| o.program == e.program)
        .collect();
    e.variant
        .iter()
        .filter(|(k, v)| same.iter().any(|o| o.variant.get(*k) != Some(*v)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn row_specs(columns: &[Column]) -> Vec<RowSpec> {
    if columns.iter().any(|c| c.format == Format::OpenAcc) {
        let timers: BTreeSet<&str> = columns
            .iter()
            .filter(|c| c.format == Format::OpenAcc)
            .flat_map(|c| c.entries.iter().map(|e| e.program.as_str()))
            .collect();
        return timers
            .into_iter()
            .filter_map(lookup)
            .map(|m| RowSpec {
                name: m.timer.to_string(),
                variant: String::new(),
                covers: describe_parts(m.parts),
                timer: Some(m.timer.to_string()),
                parts: m
                    .parts
                    .iter()
                    .map(|p| Part {
                        program: p.program.to_string(),
                        filter: p
                            .filter
                            .iter()
                            .map(|(k, v)| (k.to_string(), v.to_string()))
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
    }
    let base = &columns[0];
    let mut seen = BTreeSet::new();
    let mut specs = Vec::new();
    for e in &base.entries {
        let shown = if base.format == Format::Gt4pyMetrics {
            distinguishing(base, e)
        } else {
            e.variant.clone()
        };
        let label = variant_label(&shown.into_iter().collect::<Vec<_>>());
        if seen.insert((e.program.clone(), label.clone())) {
            let part = Part {
                program: e.program.clone(),
                filter: e.variant.clone(),
            };
            specs.push(RowSpec {
                name: e.program.clone(),
                variant: label,
                covers: String::new(),
                timer: None,
                parts: vec![part],
            });
        }
    }
    specs
}

/// `program [filter] + ...` for a Fortran timer's programs.
fn describe_parts(parts: &[ProgramPart]) -> String {
    let each: Vec<String> = parts
        .iter()
        .map(|p| {
            let f: Vec<String> = p.filter.iter().map(|(k, v)| format!("{k}={v}")).collect();
            match f.is_empty() {
                true => p.program.to_string(),
                false => format!("{} [{}]", p.program, f.join(",")),
            }
        })
        .collect();
    each.join(" + ")
}

/// The entries of `col` that can be `part`; several are pooled (mean weighted by samples).
fn match_part(col: &Column, part: &Part) -> Option<Matched> {
    let cands: Vec<&Entry> = col
        .entries
        .iter()
        .filter(|e| e.program == part.program && compatible(&part.filter, &e.variant))
        .collect();
    let exact: Vec<&Entry> = cands
        .iter()
        .copied()
        .filter(|e| contains_all(&e.variant, &part.filter))
        .collect();
    let chosen = if exact.is_empty() { cands } else { exact };
    if chosen.is_empty() {
        return None;
    }
    let n: f64 = chosen.iter().map(|e| e.samples.max(1) as f64).sum();
    Some(Matched {
        ms: chosen
            .iter()
            .map(|e| e.ms * e.samples.max(1) as f64)
            .sum::<f64>()
            / n,
        calls: chosen.iter().map(|e| e.calls).sum(),
        calls_per_step: chosen.iter().map(|e| e.calls_per_step).sum(),
    })
}

/// The time of row `spec` in `col`, and the parts `col` lacks.
fn column_value(col: &Column, spec: &RowSpec) -> (Option<Matched>, Vec<String>) {
    if col.format == Format::OpenAcc {
        let e = spec
            .timer
            .as_ref()
            .and_then(|t| col.entries.iter().find(|e| &e.program == t));
        let m = e.map(|e| Matched {
            ms: e.ms,
            calls: e.calls,
            calls_per_step: None,
        });
        return (m, Vec::new());
    }
    let found: Vec<(&Part, Option<Matched>)> =
        spec.parts.iter().map(|p| (p, match_part(col, p))).collect();
    let hits: Vec<Matched> = found.iter().filter_map(|(_, m)| *m).collect();
    let Some(first) = hits.first().copied() else {
        return (None, Vec::new());
    };
    let missing = found
        .iter()
        .filter(|(_, m)| m.is_none())
        .map(|(p, _)| p.program.clone())
        .collect();
    let ms = hits.iter().map(|m| m.ms).sum();
    (Some(Matched { ms, ..first }), missing)
}

fn build_row(columns: &[Column], spec: &RowSpec) -> Row {
    let (matched, missing_parts): (Vec<Option<Matched>>, Vec<Vec<String>>) =
        columns.iter().map(|c| column_value(c, spec)).unzip();
    let num_calls = columns.iter().zip(&matched).find_map(|(c, m)| {
        m.filter(|_| c.format == Format::OpenAcc)
            .and_then(|m| m.calls)
    });
    let per_step = matched
        .iter()
        .find_map(|m| m.and_then(|m| m.calls_per_step));
    let (weight, weight_source) = match (num_calls, per_step) {
        (Some(n), _) => (n, WeightSource::NumCalls),
        (None, Some(c)) => (c, WeightSource::CallsPerStep),
        (None, None) => (1.0, WeightSource::One),
    };
    let ms: Vec<Option<f64>> = matched.iter().map(|m| m.map(|m| m.ms)).collect();
    let speedup = crate::compare_run::ratios(&ms);
    let calls = matched.iter().map(|m| m.and_then(|m| m.calls)).collect();
    Row {
        name: spec.name.clone(),
        variant: spec.variant.clone(),
        covers: spec.covers.clone(),
        weight,
        weight_source,
        ms,
        calls,
        speedup,
        missing_parts,
    }
}

/// Compare columns already loaded (column 0 is the baseline).
pub fn compare_columns(columns: Vec<Column>) -> Result<Comparison> {
    if columns.len() < 2 {
        return Err(Error::Compare(format!(
            "need at least two timing columns, got {}",
            columns.len()
        )));
    }
    let specs = row_specs(&columns);
    if specs.is_empty() {
        return Err(Error::Compare(
            "no comparable program: the OpenACC file(s) have no dycore timer of the known mapping"
                .into(),
        ));
    }
    let mut rows: Vec<Row> = specs.iter().map(|s| build_row(&columns, s)).collect();
    rows.sort_by(|a, b| {
        let key = |r: &Row| r.ms[0].map(|t| t * r.weight);
        match (key(a), key(b)) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
        .then_with(|| (&a.name, &a.variant).cmp(&(&b.name, &b.variant)))
    });
    let (overall, overall_rows) = (0..columns.len())
        .map(|j| overall_speedup(&rows, j))
        .unzip();
    let used: BTreeSet<&str> = specs
        .iter()
        .flat_map(|s| s.parts.iter().map(|p| p.program.as_str()))
        .collect();
    let unmatched = columns
        .iter()
        .map(|c| match c.format {
            Format::OpenAcc => Vec::new(),
            _ => c
                .entries
                .iter()
                .map(|e| e.program.as_str())
                .filter(|p| !used.contains(p))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .map(str::to_string)
                .collect(),
        })
        .collect();
    let components = crate::compare_run::component_rows(&columns);
    let per_step = crate::compare_run::per_step(&columns, &rows);
    let unmapped = crate::compare_run::unmapped(&columns, !components.is_empty());
    let mut missing = crate::compare_run::missing_notes(&columns, &rows);
    missing.extend(crate::compare_run::component_missing(&columns, &components));
    let columns = columns
        .into_iter()
        .map(|c| ColumnInfo {
            label: c.label,
            file: c.file,
            format: c.format,
        })
        .collect();
    Ok(Comparison {
        columns,
        rows,
        overall,
        overall_rows,
        unmatched,
        components,
        per_step,
        unmapped,
        missing,
    })
}

/// Σ w·t₀ / Σ w·tⱼ over the rows that have both, and how many rows that is.
fn overall_speedup(rows: &[Row], j: usize) -> (Option<f64>, usize) {
    let (mut base, mut other, mut n) = (0.0, 0.0, 0);
    for r in rows {
        if let (Some(b), Some(x)) = (r.ms[0], r.ms[j]) {
            base += r.weight * b;
            other += r.weight * x;
            n += 1;
        }
    }
    ((n > 0 && other > 0.0).then(|| base / other), n)
}

/// Load every file (in order; its columns in file order) and compare them.
pub fn compare_files<P: AsRef<Path>>(paths: &[P]) -> Result<Comparison> {
    let mut columns = Vec::new();
    for p in paths {
        columns.extend(load_file(p.as_ref())?);
    }
    compare_columns(columns)
}

impl Comparison {
    /// The table: name, variant, weight, then per column ms and (after the baseline) speedup,
    /// with a last line of weighted overall speedups. Rows of Fortran timers show the
    /// programs they stand for in a last column instead of a variant.
    pub fn table(&self) -> Table {
        let timers = self.rows.iter().any(|r| !r.covers.is_empty());
        let second = if timers { "covers" } else { "variant" };
        let mut heads: Vec<(String, Align)> = vec![
            ("program".into(), Align::Left),
            ("weight".into(), Align::Right),
        ];
        for j in 0..self.columns.len() {
            heads.push((format!("[{j}] ms"), Align::Right));
            if j > 0 {
                heads.push((format!("[{j}] x"), Align::Right));
            }
        }
        heads.insert(
            if timers { heads.len() } else { 1 },
            (second.into(), Align::Left),
        );
        let refs: Vec<(&str, Align)> = heads.iter().map(|(h, a)| (h.as_str(), *a)).collect();
        let mut t = Table::new(&refs);
        let line = |name: String, weight: String, cells: Vec<String>, text: String| {
            let mut all = vec![name, weight];
            all.extend(cells);
            all.insert(if timers { all.len() } else { 1 }, text);
            all
        };
        for r in &self.rows {
            let mut cells = Vec::new();
            for j in 0..self.columns.len() {
                let star = if r.missing_parts[j].is_empty() {
                    ""
                } else {
                    "*"
                };
                cells.push(format!("{}{star}", fmt_num(r.ms[j], 4)));
                if j > 0 {
                    cells.push(fmt_num(r.speedup[j], 2));
                }
            }
            let text = if timers {
                r.covers.clone()
            } else {
                r.variant.clone()
            };
            t.push(line(r.name.clone(), fmt_count(r.weight), cells, text));
        }
        let mut cells = Vec::new();
        for j in 0..self.columns.len() {
            cells.push(String::new());
            if j > 0 {
                cells.push(fmt_num(self.overall[j], 2));
            }
        }
        t.separator();
        let label = "overall (weighted)".to_string();
        t.push(line(label, String::new(), cells, String::new()));
        t
    }

    /// Legend, table, notes on partial matches, overall speedups and unmatched programs.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for (j, c) in self.columns.iter().enumerate() {
            let role = if j == 0 { " (baseline)" } else { "" };
            s += &format!(
                "[{j}] {}{role}: {} ({})\n",
                c.label,
                c.file.display(),
                c.format.name()
            );
        }
        s += &format!(
            "\ntime per call in ms; x = speedup versus [0]\n{}",
            self.table()
        );
        for r in &self.rows {
            for (j, m) in r
                .missing_parts
                .iter()
                .enumerate()
                .filter(|(_, m)| !m.is_empty())
            {
                s += &format!(
                    "* [{j}] {}: without {} (not in the file)\n",
                    r.name,
                    m.join(", ")
                );
            }
        }
        for j in 1..self.columns.len() {
            s += &format!(
                "overall speedup [{j}] vs [0]: {} over {} programs (weights: calls)\n",
                fmt_num(self.overall[j], 3),
                self.overall_rows[j]
            );
        }
        for (j, u) in self
            .unmatched
            .iter()
            .enumerate()
            .filter(|(_, u)| !u.is_empty())
        {
            s += &format!("[{j}] not compared: {}\n", u.join(", "));
        }
        s + &self.run_text()
    }

    /// The per-step totals, component rows and what could not be mapped.
    fn run_text(&self) -> String {
        let mut s = String::new();
        for (j, p) in self.per_step.iter().enumerate() {
            if let Some(p) = p {
                s += &format!(
                    "per time step, {} programs, each file's calls per step: [0] {:.3} ms, \
                     [{j}] {:.3} ms, x {}\n",
                    p.rows,
                    p.baseline_ms,
                    p.ms,
                    fmt_num((p.ms > 0.0).then(|| p.baseline_ms / p.ms), 2)
                );
            }
        }
        if !self.components.is_empty() {
            s += "\ncomponents (mean ms per call, calls per time step):\n";
            s += &crate::compare_run::component_table(&self.components, self.columns.len())
                .to_string();
        }
        for m in &self.missing {
            s += &format!("no value: {m}\n");
        }
        for u in &self.unmapped {
            s += &format!("not mapped ({}): {}\n", u.reason, u.timers.join(", "));
        }
        s
    }
}
