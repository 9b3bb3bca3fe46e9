//! The series file: `<stem>_series.csv`, a header naming each column with its unit
//! ([`COLUMNS`]), one row per record, flushed at each record; the budget-only rows leave the other columns
//! empty.

use super::Record;
use crate::output::OutputError;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The columns of the series file, in order: plain identifiers (what `foehn plot
/// --column` and dataframe readers take), each ending in its unit where it has one
/// (`_s`, `_kg`, `_J`, `_hPa`, `_degE`, `_degN`, `_m_s` for m/s; `_rel`: relative to the
/// first record, dimensionless).
pub const COLUMNS: [&str; 17] = [
    "step",
    "time_s",
    "day",
    "mass_kg",
    "mass_rel",
    "energy_J",
    "energy_rel",
    "ps_min_hPa",
    "ps_min_fit_hPa",
    "ps_min_lon_degE",
    "ps_min_lat_degN",
    "ps_mean_hPa",
    "l2_u_m_s",
    "l2_u_asym_m_s",
    "l2_ubar_m_s",
    "max_vn_m_s",
    "max_w_m_s",
];

/// `<stem>_series.csv` beside the run's output `output` (`DIR/NAME.nc` →
/// `DIR/NAME_series.csv`).
pub fn series_path(output: &Path) -> PathBuf {
    let stem = output
        .file_stem()
        .map_or_else(|| "output".into(), |s| s.to_string_lossy().into_owned());
    output.with_file_name(format!("{stem}_series.csv"))
}

/// The open series file.
#[derive(Debug)]
pub(super) struct CsvFile {
    path: PathBuf,
    out: BufWriter<File>,
}

impl CsvFile {
    /// Creates (or truncates) `path` and writes the header.
    pub(super) fn create(path: &Path) -> Result<CsvFile, OutputError> {
        let error = |e: std::io::Error| OutputError::File {
            path: path.to_path_buf(),
            message: format!("cannot create the series file: {e}"),
        };
        let mut file = CsvFile {
            path: path.to_path_buf(),
            out: BufWriter::new(File::create(path).map_err(error)?),
        };
        file.line(&COLUMNS.join(","))?;
        Ok(file)
    }

    /// The file's path.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Appends the row of `record` (`first`: the first record, what the relative
    /// changes refer to) and flushes it.
    pub(super) fn write(&mut self, record: &Record, first: &Record) -> Result<(), OutputError> {
        self.line(&row(record, first))
    }

    fn line(&mut self, line: &str) -> Result<(), OutputError> {
        writeln!(self.out, "{line}")
            .and_then(|()| self.out.flush())
            .map_err(|e| OutputError::File {
                path: self.path.clone(),
                message: format!("cannot write the series file: {e}"),
            })
    }
}

/// The CSV row of `record`.
fn row(r: &Record, first: &Record) -> String {
    let (b, b0) = (&r.budget, &first.budget);
    let mut cells = vec![
        r.step.to_string(),
        format!("{}", r.time),
        format!("{:.6}", r.time / 86_400.0),
        format!("{:e}", b.mass),
        format!("{:e}", b.mass / b0.mass - 1.0),
        format!("{:e}", b.energy()),
        format!("{:e}", b.energy() / b0.energy() - 1.0),
    ];
    match &r.measures {
        Some(m) => cells.extend([
            format!("{:.4}", m.ps_min.value / 100.0),
            format!("{:.4}", m.ps_min.fitted / 100.0),
            format!("{:.3}", m.ps_min.lon),
            format!("{:.3}", m.ps_min.lat),
            format!("{:.6}", m.ps_mean / 100.0),
            format!("{:e}", m.l2_u),
            format!("{:e}", m.l2_asymmetry),
            format!("{:e}", m.l2_zonal_drift),
            format!("{:e}", m.max_vn),
            format!("{:e}", m.max_w),
        ]),
        None => cells.resize(COLUMNS.len(), String::new()),
    }
    cells.join(",")
}
