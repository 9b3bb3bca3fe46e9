//! Lat/lon maps of output fields ([`foehn_metrics::map::CellMap`]): a cell field of a
//! [`Snapshot`] at one level, or any cell field with its description (what `foehn plot`
//! reads from a file). Pressures in Pa are shown in hPa; the title names the field, its
//! level and the time in days. [`banded`] turns a map into colour bands of fixed levels
//! (ICON's contour intervals, [`Levels`]); [`LineChart`] draws quantities over time
//! (series columns, l2 differences).

use super::{variable, OutputError, Snapshot, Vertical};
use foehn_grid::{Grid, Location};
use foehn_metrics::map::{CellMap, Region};
use std::path::{Path, PathBuf};

mod lines;
pub use lines::{Line, LineChart};

/// Fixed colour levels: bands `step` wide from `lo` to `hi`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Levels {
    /// The lowest level.
    pub lo: f64,
    /// The highest level.
    pub hi: f64,
    /// The band width.
    pub step: f64,
}

impl Levels {
    /// ICON's surface-pressure contours at `day` (hPa): 993–1005 every 1 hPa up to day 6,
    /// 940–1020 every 10 hPa later (the wave has broken).
    pub fn surface_pressure(day: u32) -> Levels {
        if day <= 6 {
            Levels {
                lo: 993.0,
                hi: 1005.0,
                step: 1.0,
            }
        } else {
            Levels {
                lo: 940.0,
                hi: 1020.0,
                step: 10.0,
            }
        }
    }

    /// ICON's 850 hPa temperature range, 230–300 K, in 5 K bands.
    pub const T850: Levels = Levels {
        lo: 230.0,
        hi: 300.0,
        step: 5.0,
    };

    /// The centre of the band of `v`; values beyond the levels take the outermost band,
    /// NaN stays NaN.
    pub fn band(&self, v: f64) -> f64 {
        let bands = ((self.hi - self.lo) / self.step).round().max(1.0);
        let i = ((v - self.lo) / self.step).floor().clamp(0.0, bands - 1.0);
        if v.is_nan() {
            v
        } else {
            self.lo + (i + 0.5) * self.step
        }
    }
}

/// `map` in colour bands of `levels` (in the map's units): every value replaced by the
/// centre of its band, the colour scale fixed to the levels, the band width in the title.
pub fn banded(mut map: CellMap, levels: &Levels) -> CellMap {
    map.values.iter_mut().for_each(|v| *v = levels.band(*v));
    map.range = Some((levels.lo, levels.hi));
    map.title
        .push_str(&format!(", bands of {} {}", levels.step, map.units));
    map
}

/// What a map shows besides the values.
#[derive(Debug, Clone, PartialEq)]
pub struct MapLabel<'a> {
    /// The variable's name.
    pub name: &'a str,
    /// Its description.
    pub long_name: &'a str,
    /// Its units.
    pub units: &'a str,
    /// The level shown (`"level 35"`, `"850 hPa"`), if any.
    pub level: Option<String>,
    /// Seconds since the start.
    pub time: f64,
}

/// `day 9`, `day 0.25`: a time in days, up to two decimals.
pub fn day_label(time: f64) -> String {
    let days = format!("{:.2}", time / 86_400.0);
    let days = days.trim_end_matches('0').trim_end_matches('.');
    format!("day {days}")
}

/// The map of `values` at cell centres `lon`, `lat` (degrees) with `label`: Pa turned
/// into hPa, the title `long name (name), level, day d`.
pub fn cell_map(lon: Vec<f64>, lat: Vec<f64>, mut values: Vec<f64>, label: &MapLabel) -> CellMap {
    let mut units = label.units.to_string();
    if units == "Pa" {
        values.iter_mut().for_each(|v| *v /= 100.0);
        units = "hPa".to_string();
    }
    let mut title = format!("{} ({})", label.long_name, label.name);
    if let Some(level) = &label.level {
        title.push_str(&format!(", {level}"));
    }
    title.push_str(&format!(", {}", day_label(label.time)));
    CellMap {
        title,
        units,
        lon,
        lat,
        values,
        region: None,
        range: None,
    }
}

/// The map of the cell field `name` of `snapshot` at level (or pressure level) index
/// `level` (ignored for a surface field) on `grid`.
pub fn snapshot_map(
    grid: &Grid,
    snapshot: &Snapshot,
    name: &str,
    level: usize,
) -> Result<CellMap, OutputError> {
    let info = variable(name)
        .filter(|v| v.location == Location::Cell)
        .ok_or_else(|| OutputError::Shape(format!("no cell field `{name}` to map")))?;
    let field = snapshot
        .field(name)
        .expect("every variable is in a snapshot");
    let k = if info.vertical == Vertical::Surface {
        0
    } else {
        level
    };
    if k >= field.levels() {
        return Err(OutputError::Shape(format!(
            "`{name}` has {} levels, not {}",
            field.levels(),
            level + 1
        )));
    }
    let level_text = match info.vertical {
        Vertical::Surface => None,
        Vertical::Pressure => Some(format!("{:.0} hPa", snapshot.pressure_levels[k] / 100.0)),
        Vertical::Full | Vertical::Half => Some(format!("level {}", k + 1)),
    };
    let g = &grid.geometry;
    let degrees = |x: &[f64]| x.iter().map(|v| v.to_degrees()).collect();
    Ok(cell_map(
        degrees(&g.cell_lon),
        degrees(&g.cell_lat),
        (0..field.len()).map(|c| field.get(c, k)).collect(),
        &MapLabel {
            name,
            long_name: info.long_name,
            units: info.units,
            level: level_text,
            time: snapshot.time,
        },
    ))
}

/// Writes the map of [`snapshot_map`] to the PNG `path` (atomically).
pub fn write_snapshot_map(
    grid: &Grid,
    snapshot: &Snapshot,
    name: &str,
    level: usize,
    path: &Path,
) -> Result<(), OutputError> {
    snapshot_map(grid, snapshot, name, level)?.render_png(path)?;
    Ok(())
}

/// A map a run draws at every output time.
#[derive(Debug, Clone, PartialEq)]
pub struct MapRequest {
    /// The cell variable (one of [`VARIABLES`](super::VARIABLES)).
    pub name: String,
    /// The level (or pressure level) index, 0-based; ignored for surface fields.
    pub level: usize,
    /// The box shown; `None`: the grid's.
    pub region: Option<Region>,
    /// The colour scale's limits in the map's units (hPa for pressures); `None`: the
    /// values' range.
    pub range: Option<(f64, f64)>,
}

impl MapRequest {
    /// The map of `name` at level index `level`, box and colour scale from the data.
    pub fn new(name: &str, level: usize) -> MapRequest {
        MapRequest {
            name: name.to_string(),
            level,
            region: None,
            range: None,
        }
    }

    /// The file name of this map at `time`: `{prefix}_{name}[_L{level + 1}]_DDDDdHHhMMmSSs.png`.
    pub fn file_name(&self, prefix: &str, time: f64) -> String {
        let surface = variable(&self.name).is_some_and(|v| v.vertical == Vertical::Surface);
        let level = if surface {
            String::new()
        } else {
            format!("_L{}", self.level + 1)
        };
        format!(
            "{prefix}_{}{level}_{}.png",
            self.name,
            super::time_label(time)
        )
    }
}

/// Draws every map of `requests` for `snapshot` into `dir` (named by
/// [`MapRequest::file_name`]); returns the paths written.
pub fn write_maps(
    grid: &Grid,
    snapshot: &Snapshot,
    requests: &[MapRequest],
    dir: &Path,
    prefix: &str,
) -> Result<Vec<PathBuf>, OutputError> {
    requests
        .iter()
        .map(|r| {
            let mut map = snapshot_map(grid, snapshot, &r.name, r.level)?;
            map.region = r.region.or(map.region);
            map.range = r.range.or(map.range);
            let path = dir.join(r.file_name(prefix, snapshot.time));
            map.render_png(&path)?;
            Ok(path)
        })
        .collect()
}
