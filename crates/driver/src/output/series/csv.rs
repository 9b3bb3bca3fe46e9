//! The series file: `<stem>_series.csv`, a header naming each column with its unit, one
//! row per record, flushed at each record; the budget-only rows leave the other columns
//! empty.

use super::Record;
use crate::output::OutputError;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The columns of the series file, `name[unit]`, in order.
pub const COLUMNS: [&str; 17] = [
    "step[1]",
    "time[s]",
    "day[d]",
    "mass[kg]",
    "mass_rel[1]",
    "energy[J]",
    "energy_rel[1]",
    "ps_min[hPa]",
    "ps_min_fit[hPa]",
    "ps_min_lon[degE]",
    "ps_min_lat[degN]",
    "ps_mean[hPa]",
    "l2_u_u0[m/s]",
    "l2_u_ubar[m/s]",
    "l2_ubar_ubar0[m/s]",
    "max_abs_vn[m/s]",
    "max_abs_w[m/s]",
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
