//! The Jablonowski–Williamson baroclinic-wave report across resolutions (`foehn
//! jw-report`): from the NetCDF output of runs on several grids,
//!
//! - the minimum surface pressure and its location at chosen days, against the
//!   reference solution and the acceptance bands ([`reference`](mod@reference));
//! - the global l2 difference of p_s between successive resolutions at every common
//!   output time, on a regular lat/lon grid ([`latlon`]: each run's cell p_s is
//!   interpolated there), against the reference's own uncertainty, and whether it shrinks
//!   with refinement;
//! - a Markdown summary, a JSON file with every number and the figures ([`write`](mod@write)).
//!
//! A run is read output time by output time ([`RunBuilder`]): only its p_s on the
//! lat/lon grid and its minimum are kept, and the cell fields of the days that get maps.
//! [`series`] reads a run's series CSV (for `foehn plot series.csv --column …`).

pub mod analysis;
#[cfg(feature = "netcdf")]
pub mod input;
pub mod latlon;
pub mod reference;
pub mod series;
pub mod write;

pub use analysis::{analyse, Report};
use latlon::{Interpolator, LatLonGrid};
use serde::Serialize;
use std::path::PathBuf;

/// Seconds per day.
pub const DAY: f64 = 86_400.0;

/// Why a report cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// An argument or the data do not fit (the text says which and what to do).
    #[error("{0}")]
    Input(String),
    /// A file could not be read or written.
    #[error("{}: {message}", .path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// An output file could not be read.
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    /// A figure could not be drawn.
    #[error(transparent)]
    Plot(#[from] foehn_metrics::Error),
}

/// The minimum of a surface-pressure field and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Minimum {
    /// The value, hPa.
    pub hpa: f64,
    /// Longitude of the cell centre, °E in [0, 360).
    pub lon: f64,
    /// Latitude, °N.
    pub lat: f64,
}

/// Where the report looks for the p_s minimum: the Northern Hemisphere, the wave's
/// domain (JW06 and the reference table track the low there; elsewhere the early days'
/// minima are noise of a few tenths of a hPa).
pub const MINIMUM_LATITUDES: (f64, f64) = (0.0, 90.0);

/// The minimum of `ps` (Pa, one value per cell at `lon`, `lat` in degrees) over cells
/// with latitudes in `lats` (°N, inclusive), ignoring missing values; `None` when there
/// is no such value.
pub fn minimum(lon: &[f64], lat: &[f64], ps: &[f64], lats: (f64, f64)) -> Option<Minimum> {
    let (i, v) = ps
        .iter()
        .enumerate()
        .filter(|&(i, v)| v.is_finite() && lat[i] >= lats.0 && lat[i] <= lats.1)
        .min_by(|a, b| a.1.total_cmp(b.1))?;
    Some(Minimum {
        hpa: v / 100.0,
        lon: lon[i].rem_euclid(360.0),
        lat: lat[i],
    })
}

/// One output time of a run, reduced to what the report needs.
#[derive(Debug, Clone, PartialEq)]
pub struct RunTime {
    /// Seconds since the start.
    pub time: f64,
    /// The p_s minimum on the cells.
    pub minimum: Minimum,
    /// p_s on the lat/lon grid, hPa.
    pub ps_latlon: Vec<f64>,
}

/// The cell fields of a run at a day that gets maps.
#[derive(Debug, Clone, PartialEq)]
pub struct DayFields {
    /// The day.
    pub day: u32,
    /// Surface pressure, Pa, per cell.
    pub ps: Vec<f64>,
    /// Temperature at 850 hPa, K, per cell (`None` when the output has none).
    pub t850: Option<Vec<f64>>,
}

/// What the report knows of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunData {
    /// The run's label (`r2b5`).
    pub name: String,
    /// Where it was read from (for messages and the report).
    pub source: String,
    /// Cell-centre longitudes, degrees.
    pub lon: Vec<f64>,
    /// Cell-centre latitudes, degrees.
    pub lat: Vec<f64>,
    /// Every output time, in order.
    pub times: Vec<RunTime>,
    /// The cell fields at the days that get maps.
    pub days: Vec<DayFields>,
}

impl RunData {
    /// The number of cells.
    pub fn cells(&self) -> usize {
        self.lon.len()
    }

    /// The output at `time` seconds (within half a second).
    pub fn at(&self, time: f64) -> Option<&RunTime> {
        self.times.iter().find(|t| (t.time - time).abs() <= 0.5)
    }
}

/// The whole day `time` seconds is (within half a second), if it is one.
pub fn whole_day(time: f64) -> Option<u32> {
    let d = (time / DAY).round();
    ((time - d * DAY).abs() <= 0.5 && d >= 0.0).then_some(d as u32)
}

/// Collects a run output time by output time.
pub struct RunBuilder {
    data: RunData,
    interpolator: Interpolator,
    map_days: Vec<u32>,
}

impl RunBuilder {
    /// A run `name` read from `source` on cells at `lon`, `lat` (degrees), reduced onto
    /// `grid`; the cell fields of `map_days` are kept.
    pub fn new(
        name: &str,
        source: &str,
        lon: Vec<f64>,
        lat: Vec<f64>,
        grid: &LatLonGrid,
        map_days: &[u32],
    ) -> Result<RunBuilder, ReportError> {
        let interpolator = Interpolator::new(&lon, &lat, &grid.points())
            .map_err(|e| ReportError::Input(format!("run `{name}` ({source}): {e}")))?;
        Ok(RunBuilder {
            data: RunData {
                name: name.to_string(),
                source: source.to_string(),
                lon,
                lat,
                times: vec![],
                days: vec![],
            },
            interpolator,
            map_days: map_days.to_vec(),
        })
    }

    /// The day whose maps the output at `time` gives, if any (so a reader loads the
    /// 850 hPa temperature only there).
    pub fn map_day(&self, time: f64) -> Option<u32> {
        whole_day(time).filter(|d| self.map_days.contains(d))
    }

    /// Adds the output at `time` (seconds, after every earlier one): `ps` in Pa per
    /// cell, and the 850 hPa temperature where [`RunBuilder::map_day`] asks for it.
    pub fn push(
        &mut self,
        time: f64,
        ps: Vec<f64>,
        t850: Option<Vec<f64>>,
    ) -> Result<(), ReportError> {
        let d = &self.data;
        let err = |m: String| ReportError::Input(format!("run `{}` ({}): {m}", d.name, d.source));
        if let Some(last) = d.times.last() {
            if time <= last.time + 0.5 {
                return Err(err(format!(
                    "output times must increase; {time} s comes after {} s (two outputs at one time?)",
                    last.time
                )));
            }
        }
        if t850.as_ref().is_some_and(|t| t.len() != ps.len()) {
            return Err(err(
                "t850 and ps have different numbers of cells".to_string()
            ));
        }
        if ps.len() != d.lon.len() {
            return Err(err(format!(
                "ps at {time} s has {} values on a grid of {} cells",
                ps.len(),
                d.lon.len()
            )));
        }
        let minimum = minimum(&d.lon, &d.lat, &ps, MINIMUM_LATITUDES).ok_or_else(|| {
            err(format!(
                "the surface pressure at {time} s is missing everywhere in the Northern Hemisphere"
            ))
        })?;
        let ps_latlon: Vec<f64> = self
            .interpolator
            .apply(&ps)
            .map_err(|e| err(format!("ps at {time} s: {e}")))?
            .into_iter()
            .map(|p| p / 100.0)
            .collect();
        if let Some(day) = self.map_day(time) {
            self.data.days.push(DayFields { day, ps, t850 });
        }
        self.data.times.push(RunTime {
            time,
            minimum,
            ps_latlon,
        });
        Ok(())
    }

    /// The run; fails without any output time.
    pub fn finish(self) -> Result<RunData, ReportError> {
        if self.data.times.is_empty() {
            return Err(ReportError::Input(format!(
                "run `{}` ({}): no output times",
                self.data.name, self.data.source
            )));
        }
        Ok(self.data)
    }
}
