//! `foehn plot FILE.nc --var NAME [--time T] [--level K | --pressure HPA] -o OUT.png`: a
//! lat/lon map of a cell field of a run's NetCDF output (`foehn_driver::output`) or any
//! CF file with `clon`/`clat` and variables over `(time, [level,] ncells)`.
//!
//! - `--time`: an index into the time axis (`0`, `3`) or a time since the start with a
//!   unit (`9d`, `36h`, `90m`, `600s`); default the last time;
//! - `--level K`: the level number of the file's vertical axis (1 at the model top);
//! - `--pressure HPA`: a pressure level of a `plev` variable, or a height-level variable
//!   interpolated linearly in `ln p` with the file's `pres` (missing below ground);
//! - `--range LO,HI` and `--region W,E,S,N` (degrees) fix the colour scale and the box.
//!
//! The map is a nearest-cell raster with axes in degrees, a colour bar with the units
//! (Pa shown as hPa) and a title; drawn with the embedded font, the same input always
//! gives the same bytes.
//!
//! `foehn plot SERIES.csv --column NAME [--log-y] -o OUT.png`: a line chart of one column
//! of a run's series CSV over time (the column names come from the CSV header;
//! [`foehn_driver::report::series`] says which column is the time axis).

use anyhow::{bail, Result};
use clap::Args as ClapArgs;
use std::path::PathBuf;

/// Options of `foehn plot`.
#[derive(ClapArgs)]
#[cfg_attr(not(feature = "netcdf"), allow(dead_code))]
pub struct PlotArgs {
    /// The NetCDF output file, or a series CSV (with --column).
    file: PathBuf,
    /// The cell variable to map (e.g. ps, temp, temp_p, vor, u).
    #[arg(long = "var", conflicts_with = "column")]
    var: Option<String>,
    /// The column of a series CSV to draw over time (e.g. l2_u).
    #[arg(long)]
    column: Option<String>,
    /// A logarithmic y axis for a series chart.
    #[arg(long, requires = "column")]
    log_y: bool,
    /// The time: an index (0, 1, …) or a time since the start (9d, 36h, 90m, 600s).
    #[arg(long)]
    time: Option<String>,
    /// The level number (1 at the model top) of a variable on model levels.
    #[arg(long, conflicts_with = "pressure")]
    level: Option<usize>,
    /// A pressure level in hPa (e.g. 850).
    #[arg(long)]
    pressure: Option<f64>,
    /// The colour scale's limits, LO,HI (in the map's units: hPa for pressures).
    #[arg(long, value_parser = parse_pair)]
    range: Option<(f64, f64)>,
    /// The box shown, W,E,S,N in degrees (e.g. 0,360,20,80).
    #[arg(long, value_parser = parse_region)]
    region: Option<foehn_metrics::map::Region>,
    /// The PNG to write.
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
}

fn numbers(s: &str, n: usize) -> std::result::Result<Vec<f64>, String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|x| x.trim().parse::<f64>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| format!("`{s}`: {e}"))?;
    if v.len() != n || v.iter().any(|x| !x.is_finite()) {
        return Err(format!(
            "`{s}`: expected {n} finite numbers separated by commas"
        ));
    }
    Ok(v)
}

fn parse_pair(s: &str) -> std::result::Result<(f64, f64), String> {
    let v = numbers(s, 2)?;
    if v[1] <= v[0] {
        return Err(format!("`{s}`: LO must be below HI"));
    }
    Ok((v[0], v[1]))
}

fn parse_region(s: &str) -> std::result::Result<foehn_metrics::map::Region, String> {
    let v = numbers(s, 4)?;
    if v[1] <= v[0] || v[3] <= v[2] || v[2] < -90.0 || v[3] > 90.0 {
        return Err(format!("`{s}`: expected W < E and −90 ≤ S < N ≤ 90"));
    }
    Ok(foehn_metrics::map::Region {
        lon: (v[0], v[1]),
        lat: (v[2], v[3]),
    })
}

/// Which time of the axis `--time` asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(not(feature = "netcdf"), allow(dead_code))]
enum TimeChoice {
    /// An index into the time axis.
    Index(usize),
    /// Seconds since the start.
    Seconds(f64),
}

#[cfg_attr(not(feature = "netcdf"), allow(dead_code))]
fn parse_time(s: &str) -> Result<TimeChoice> {
    let s = s.trim();
    if let Ok(i) = s.parse::<usize>() {
        return Ok(TimeChoice::Index(i));
    }
    let units = [("d", 86_400.0), ("h", 3600.0), ("m", 60.0), ("s", 1.0)];
    for (suffix, scale) in units {
        if let Some(x) = s.strip_suffix(suffix).and_then(|x| x.parse::<f64>().ok()) {
            if x.is_finite() && x >= 0.0 {
                return Ok(TimeChoice::Seconds(x * scale));
            }
        }
    }
    bail!("--time `{s}`: give an index (0, 1, …) or a time with a unit (9d, 36h, 90m, 600s)")
}

/// Runs `foehn plot`: a series chart with `--column`, else a map.
pub fn run(a: PlotArgs) -> Result<()> {
    match (&a.column, &a.var) {
        (Some(column), _) => series_chart(&a, column)?,
        (None, Some(var)) => map(&a, var)?,
        (None, None) => bail!(
            "{}: say what to draw: --var NAME (a NetCDF cell field) or --column NAME (a series CSV column)",
            a.file.display()
        ),
    }
    println!("wrote {}", a.output.display());
    Ok(())
}

/// The chart of column `column` of the series CSV `a.file` over time.
fn series_chart(a: &PlotArgs, column: &str) -> Result<()> {
    use foehn_driver::output::plot::{Line, LineChart};
    let s = foehn_driver::report::series::read_column(&a.file, column)?;
    let stem = a
        .file
        .file_stem()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    LineChart {
        title: format!("{column} ({stem})"),
        x_desc: s.x_desc,
        y_desc: column.to_string(),
        lines: vec![Line {
            name: column.to_string(),
            points: s.points,
            markers_only: false,
        }],
        log_y: a.log_y,
    }
    .render_png(&a.output)?;
    Ok(())
}

#[cfg(not(feature = "netcdf"))]
fn map(_a: &PlotArgs, _var: &str) -> Result<()> {
    bail!("foehn plot --var reads NetCDF files: this foehn was built without the `netcdf` feature")
}

#[cfg(feature = "netcdf")]
fn map(a: &PlotArgs, var: &str) -> Result<()> {
    read::map(a, var)?.render_png(&a.output)?;
    Ok(())
}

#[cfg(feature = "netcdf")]
mod read {
    use super::{parse_time, PlotArgs, TimeChoice};
    use anyhow::{anyhow, bail, Result};
    use foehn_driver::output::diagnostics::column_at_pressure;
    use foehn_driver::output::netcdf::OutputFile;
    use foehn_driver::output::plot::{cell_map, day_label, MapLabel};
    use foehn_driver::report::input::cell_slice as slice;
    use foehn_metrics::map::CellMap;

    /// The index of the time `--time` asks for (default the last one) and its seconds.
    fn time_index(file: &OutputFile, a: &PlotArgs) -> Result<(usize, f64)> {
        let times = file.times()?;
        let list = || {
            times
                .iter()
                .enumerate()
                .map(|(i, t)| format!("{i}: {}", day_label(*t)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some(last) = times.len().checked_sub(1) else {
            bail!("{}: the time axis is empty", a.file.display());
        };
        let i = match a.time.as_deref().map(parse_time).transpose()? {
            None => last,
            Some(TimeChoice::Index(i)) if i <= last => i,
            Some(TimeChoice::Index(i)) => bail!(
                "{}: no time index {i}; the file has {} time(s) ({})",
                a.file.display(),
                times.len(),
                list()
            ),
            Some(TimeChoice::Seconds(s)) => times
                .iter()
                .position(|t| (t - s).abs() <= 0.5)
                .ok_or_else(|| {
                    anyhow!(
                        "{}: no output at {} ({s} s); the file has {}",
                        a.file.display(),
                        day_label(s),
                        list()
                    )
                })?,
        };
        Ok((i, times[i]))
    }

    /// The map `a` asks for.
    pub fn map(a: &PlotArgs, var: &str) -> Result<CellMap> {
        let file = OutputFile::open(&a.file)?;
        let v = file.variable(var)?;
        let names: Vec<&str> = v.dims.iter().map(|d| d.0.as_str()).collect();
        if names.first() != Some(&"time") || names.last() != Some(&"ncells") || names.len() > 3 {
            bail!(
                "{}: `{}` has dimensions ({}); foehn plot maps cell fields over (time, [level,] ncells)",
                a.file.display(),
                var,
                names.join(", ")
            );
        }
        let (t, seconds) = time_index(&file, a)?;
        let vertical = (names.len() == 3).then(|| v.dims[1].clone());
        let (values, level) = match (&vertical, a.level, a.pressure) {
            (None, None, None) => (slice(&v, t, 0), None),
            (None, _, _) => bail!(
                "`{}` is a surface field: it has no --level or --pressure",
                var
            ),
            (Some((dim, n)), None, None) => bail!(
                "`{}` has {n} levels ({dim}): choose one with --level K (1..{n}) or --pressure HPA",
                var
            ),
            (Some((dim, n)), Some(k), _) => {
                if k == 0 || k > *n {
                    bail!("--level {k}: `{}` has levels 1..{n} ({dim})", var);
                }
                (slice(&v, t, k - 1), Some(format!("level {k}")))
            }
            (Some((dim, _)), None, Some(hpa)) if dim == "plev" => {
                let plev = file.variable("plev")?.values;
                let k = plev
                    .iter()
                    .position(|p| (p - hpa * 100.0).abs() < 0.5)
                    .ok_or_else(|| {
                        let have: Vec<String> =
                            plev.iter().map(|p| format!("{}", p / 100.0)).collect();
                        anyhow!(
                            "`{}` has no {hpa} hPa level (it has {} hPa)",
                            var,
                            have.join(", ")
                        )
                    })?;
                (slice(&v, t, k), Some(format!("{hpa} hPa")))
            }
            (Some((dim, n)), None, Some(hpa)) => {
                let pres = file.variable("pres")?;
                if pres.dims != v.dims {
                    bail!("--pressure needs `pres` on the levels of `{}` ({dim}); it has other dimensions", var);
                }
                let columns: Vec<Vec<f64>> = (0..*n).map(|k| slice(&v, t, k)).collect();
                let p: Vec<Vec<f64>> = (0..*n).map(|k| slice(&pres, t, k)).collect();
                let values = (0..columns[0].len())
                    .map(|c| {
                        let f: Vec<f64> = columns.iter().map(|l| l[c]).collect();
                        let pc: Vec<f64> = p.iter().map(|l| l[c]).collect();
                        column_at_pressure(&f, &pc, hpa * 100.0)
                    })
                    .collect();
                (values, Some(format!("{hpa} hPa")))
            }
        };
        let (lon, lat) = file.cell_lon_lat()?;
        if lon.len() != values.len() {
            bail!(
                "{}: `clon` has {} cells, `{}` {}",
                a.file.display(),
                lon.len(),
                var,
                values.len()
            );
        }
        let long_name = if v.long_name.is_empty() {
            var
        } else {
            v.long_name.as_str()
        };
        let label = MapLabel {
            name: var,
            long_name,
            units: &v.units,
            level,
            time: seconds,
        };
        let mut map = cell_map(lon, lat, values, &label);
        map.range = a.range;
        map.region = a.region;
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(parse_time("3").unwrap(), TimeChoice::Index(3));
        assert_eq!(parse_time("9d").unwrap(), TimeChoice::Seconds(777_600.0));
        assert_eq!(parse_time("1.5h").unwrap(), TimeChoice::Seconds(5400.0));
        assert_eq!(parse_time("600s").unwrap(), TimeChoice::Seconds(600.0));
        assert!(parse_time("9x").is_err());
        assert!(parse_time("-1d").is_err());
    }

    #[test]
    fn pairs_and_regions() {
        assert_eq!(parse_pair("940,1020").unwrap(), (940.0, 1020.0));
        assert!(parse_pair("1020,940").is_err());
        assert!(parse_pair("1").is_err());
        let r = parse_region("0,360,20,80").unwrap();
        assert_eq!((r.lon, r.lat), ((0.0, 360.0), (20.0, 80.0)));
        assert!(parse_region("0,360,20,95").is_err());
    }
}
