//! Reading runs for the report: `NAME=DIR_OR_STEM` arguments, the output files of a run
//! (`STEM_DDDDdHHhMMmSSs.nc`, see [`crate::output`]) and their p_s and 850 hPa
//! temperature.

use super::latlon::LatLonGrid;
use super::{ReportError, RunBuilder, RunData};
use crate::output::netcdf::{OutputFile, VariableData};
use std::path::{Path, PathBuf};

/// A run named on the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    /// Its label.
    pub name: String,
    /// A folder with one run's files, a run's output path or stem (`out/jw.nc`,
    /// `out/jw`), or one NetCDF file (with any number of times).
    pub path: PathBuf,
}

impl std::str::FromStr for RunSpec {
    type Err = String;

    /// `NAME=PATH`.
    fn from_str(s: &str) -> Result<RunSpec, String> {
        match s.split_once('=') {
            Some((name, path)) if !name.trim().is_empty() && !path.trim().is_empty() => {
                Ok(RunSpec {
                    name: name.trim().to_string(),
                    path: PathBuf::from(path.trim()),
                })
            }
            _ => Err(format!(
                "`{s}`: expected NAME=DIR_OR_STEM (e.g. r2b5=runs/r2b5/jw.nc)"
            )),
        }
    }
}

/// The prefix of an output file name `PREFIX_DDDDdHHhMMmSSs.nc`, if it is one.
fn prefix_of(name: &str) -> Option<&str> {
    let stem = name.strip_suffix(".nc")?;
    let (prefix, label) = stem.rsplit_once('_')?;
    let b = label.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let ok = b.len() == 14
        && digits(0..4)
        && b[4] == b'd'
        && digits(5..7)
        && b[7] == b'h'
        && digits(8..10)
        && b[10] == b'm'
        && digits(11..13)
        && b[13] == b's';
    ok.then_some(prefix)
}

/// The files of the run at `path` (see [`RunSpec::path`]), in time order.
pub fn run_files(path: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let fail = |p: &Path, message: String| ReportError::File {
        path: p.to_path_buf(),
        message,
    };
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let (dir, wanted) = if path.is_dir() {
        (path.to_path_buf(), None)
    } else {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let stem = name
            .as_deref()
            .map(|n| n.strip_suffix(".nc").unwrap_or(n).to_string());
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        (dir, stem)
    };
    let entries = std::fs::read_dir(&dir).map_err(|e| {
        fail(
            path,
            format!("no such run: {e} (give a run's output folder, its --output path or one NetCDF file)"),
        )
    })?;
    let mut files: Vec<(String, PathBuf)> = vec![];
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(prefix) = prefix_of(&name) {
            if wanted.as_deref().is_none_or(|w| w == prefix) {
                files.push((prefix.to_string(), entry.path()));
            }
        }
    }
    let mut prefixes: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    prefixes.sort_unstable();
    prefixes.dedup();
    match prefixes.len() {
        0 => Err(fail(
            path,
            "no output files NAME_DDDDdHHhMMmSSs.nc there (give a run's output folder, its --output path or one NetCDF file)".to_string(),
        )),
        1 => {
            let mut paths: Vec<PathBuf> = files.into_iter().map(|(_, p)| p).collect();
            paths.sort();
            Ok(paths)
        }
        _ => Err(fail(
            path,
            format!(
                "the folder holds the output of several runs ({}): give one as FOLDER/NAME",
                prefixes.join(", ")
            ),
        )),
    }
}

/// `[ncells]` of `v` at time index `t` and vertical index `k` (dims `(time, [vertical,]
/// ncells)`).
pub fn cell_slice(v: &VariableData, t: usize, k: usize) -> Vec<f64> {
    let n = v.dims.last().map_or(0, |d| d.1);
    let levels: usize = v.dims[1..v.dims.len() - 1].iter().map(|d| d.1).product();
    let start = (t * levels + k) * n;
    v.values[start..start + n].to_vec()
}

/// Checks that `v` of `path` has dimensions `(time, [vertical,] ncells)` with `times`
/// times and `cells` cells.
fn check_dims(
    v: &VariableData,
    path: &Path,
    times: usize,
    cells: usize,
    vertical: bool,
) -> Result<(), ReportError> {
    let names: Vec<&str> = v.dims.iter().map(|d| d.0.as_str()).collect();
    let want = if vertical { 3 } else { 2 };
    if names.len() != want || names[0] != "time" || names[want - 1] != "ncells" {
        return Err(ReportError::File {
            path: path.to_path_buf(),
            message: format!(
                "`{}` has dimensions ({}); the report needs (time, {}ncells)",
                v.name,
                names.join(", "),
                if vertical { "plev, " } else { "" }
            ),
        });
    }
    if v.dims[0].1 != times || v.dims[want - 1].1 != cells {
        return Err(ReportError::File {
            path: path.to_path_buf(),
            message: format!(
                "`{}` has {} times and {} cells; the file has {times} times and {cells} cells (clon)",
                v.name,
                v.dims[0].1,
                v.dims[want - 1].1
            ),
        });
    }
    Ok(())
}

/// The 850 hPa temperature of `file` at time index `t`, if it has `temp_p` on an
/// 850 hPa level.
fn t850(
    file: &OutputFile,
    path: &Path,
    t: usize,
    times: usize,
    cells: usize,
) -> Result<Option<Vec<f64>>, ReportError> {
    if !file.names().iter().any(|n| n == "temp_p") {
        return Ok(None);
    }
    let temp = file.variable("temp_p")?;
    check_dims(&temp, path, times, cells, true)?;
    let plev = file.variable("plev")?.values;
    Ok(plev
        .iter()
        .position(|p| (p - 85_000.0).abs() < 0.5)
        .map(|k| cell_slice(&temp, t, k)))
}

/// Reads the run `spec` onto `grid`, keeping the cell fields of `map_days`.
pub fn load_run(
    spec: &RunSpec,
    grid: &LatLonGrid,
    map_days: &[u32],
) -> Result<RunData, ReportError> {
    let files = run_files(&spec.path)?;
    let source = spec.path.display().to_string();
    let mut builder: Option<(RunBuilder, usize, PathBuf)> = None;
    for path in &files {
        let file = OutputFile::open(path)?;
        let times = file.times()?;
        let ps = file.variable("ps")?;
        let (b, cells, first) = match &mut builder {
            Some(b) => b,
            None => {
                let (lon, lat) = file.cell_lon_lat()?;
                let cells = lon.len();
                let b = RunBuilder::new(&spec.name, &source, lon, lat, grid, map_days)?;
                builder.insert((b, cells, path.clone()))
            }
        };
        let n = ps.dims.last().map_or(0, |d| d.1);
        if n != *cells {
            return Err(ReportError::File {
                path: path.clone(),
                message: format!(
                    "{n} cells, but the run's first file {} has {cells}: one run's files must come from one grid",
                    first.display()
                ),
            });
        }
        check_dims(&ps, path, times.len(), *cells, false)?;
        for (t, &time) in times.iter().enumerate() {
            let temp = match b.map_day(time) {
                Some(_) => t850(&file, path, t, times.len(), *cells)?,
                None => None,
            };
            b.push(time, cell_slice(&ps, t, 0), temp)?;
        }
    }
    match builder {
        Some((b, _, _)) => b.finish(),
        None => Err(ReportError::Input(format!(
            "run `{}` ({source}): no files",
            spec.name
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(prefix_of("jw_0009d00h00m00s.nc"), Some("jw"));
        assert_eq!(prefix_of("a_b_0000d06h00m00s.nc"), Some("a_b"));
        assert_eq!(prefix_of("jw_0009d00h00m00s.png"), None);
        assert_eq!(prefix_of("jw_series.nc"), None);
        let r: RunSpec = "r2b4=out/jw.nc".parse().unwrap();
        assert_eq!(
            (r.name.as_str(), r.path.as_path()),
            ("r2b4", Path::new("out/jw.nc"))
        );
        assert!("out/jw.nc".parse::<RunSpec>().is_err());
        assert!("=x".parse::<RunSpec>().is_err());
    }
}
