//! A run's series CSV (one row per step or output time, a header of column names): one
//! column against time, for `foehn plot series.csv --column l2_u`.
//!
//! The time axis is the first column whose name says it: `day`, `days`, `time_days`
//! (days) or `time`, `time_s`, `seconds`, `t` (seconds, shown as days); without one, the
//! first column as it is.

use super::{ReportError, DAY};
use std::path::Path;

/// One column of a series CSV against its time axis.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesColumn {
    /// The time axis' description (`time (days)` or the first column's name).
    pub x_desc: String,
    /// The column's name.
    pub name: String,
    /// (time, value) per row with a value; empty cells and `nan` are left out.
    pub points: Vec<(f64, f64)>,
}

/// How a column name gives time: days or seconds.
fn time_scale(name: &str) -> Option<f64> {
    match name.trim().to_ascii_lowercase().as_str() {
        "day" | "days" | "time_days" | "time_d" => Some(1.0),
        "time" | "time_s" | "seconds" | "t" | "time_seconds" => Some(1.0 / DAY),
        _ => None,
    }
}

/// Reads column `column` of the CSV file `path` against its time axis.
pub fn read_column(path: &Path, column: &str) -> Result<SeriesColumn, ReportError> {
    let fail = |message: String| ReportError::File {
        path: path.to_path_buf(),
        message,
    };
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_path(path)
        .map_err(|e| fail(format!("cannot read the CSV file: {e}")))?;
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| fail(format!("cannot read the header: {e}")))?
        .iter()
        .map(str::to_string)
        .collect();
    let y = header.iter().position(|h| h == column).ok_or_else(|| {
        fail(format!(
            "no column `{column}`; the header has: {}",
            header.join(", ")
        ))
    })?;
    let (x, scale, x_desc) = match header.iter().position(|h| time_scale(h).is_some()) {
        Some(i) => (
            i,
            time_scale(&header[i]).unwrap_or(1.0),
            "time (days)".to_string(),
        ),
        None => (0, 1.0, header[0].clone()),
    };
    if x == y {
        return Err(fail(format!(
            "`{column}` is the time axis; choose a column of values"
        )));
    }
    let mut points = vec![];
    for (row, record) in reader.records().enumerate() {
        let record = record.map_err(|e| fail(format!("row {}: {e}", row + 2)))?;
        let number = |i: usize| -> Result<Option<f64>, ReportError> {
            let text = record.get(i).unwrap_or("");
            if text.is_empty() {
                return Ok(None);
            }
            let v: f64 = text.parse().map_err(|_| {
                fail(format!(
                    "row {}, column `{}`: `{text}` is not a number",
                    row + 2,
                    header[i]
                ))
            })?;
            Ok(v.is_finite().then_some(v))
        };
        if let (Some(t), Some(v)) = (number(x)?, number(y)?) {
            points.push((t * scale, v));
        }
    }
    if points.is_empty() {
        return Err(fail(format!("column `{column}` has no values")));
    }
    Ok(SeriesColumn {
        x_desc,
        name: column.to_string(),
        points,
    })
}
