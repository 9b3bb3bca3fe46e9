//! The numbers of the report: minima against the bands, l2 differences between
//! successive resolutions, and whether they shrink with refinement.

use super::latlon::LatLonGrid;
use super::reference::{
    convergence_band, minimum_band, r2b_level, reference, MinimumBand, ReferenceDay,
};
use super::{whole_day, Minimum, ReportError, RunData, DAY};
use serde::Serialize;

/// A run as the report lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    /// The label.
    pub name: String,
    /// Where it was read from.
    pub source: String,
    /// Its cells.
    pub cells: usize,
    /// `n` of R2B`n`, when the grid is one.
    pub bisections: Option<u32>,
    /// Its output times, days.
    pub days: Vec<f64>,
}

/// The p_s minimum of one run at one day, against the reference and the band.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MinimumRow {
    /// The run.
    pub run: String,
    /// The day.
    pub day: u32,
    /// The minimum (`None`: the run has no output at that day).
    pub minimum: Option<Minimum>,
    /// The reference solution at that day, if tabulated.
    pub reference: Option<ReferenceDay>,
    /// The acceptance band, if there is one for that day and resolution.
    pub band: Option<MinimumBand>,
    /// Whether the value lies in the band.
    pub value_ok: Option<bool>,
    /// Whether the location lies in the band.
    pub location_ok: Option<bool>,
}

impl MinimumRow {
    /// Pass when both value and location lie in the band; `None` without a band or value.
    pub fn pass(&self) -> Option<bool> {
        Some(self.value_ok? && self.location_ok?)
    }
}

/// The l2 difference of p_s between two runs at one output time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DifferencePoint {
    /// Days since the start.
    pub day: f64,
    /// Global area-weighted l2 of p_s(coarse) − p_s(fine) on the lat/lon grid, hPa.
    pub l2_hpa: f64,
}

/// The l2 differences of p_s between two successive resolutions over time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    /// The coarser run.
    pub coarse: String,
    /// The finer run.
    pub fine: String,
    /// One point per common output time.
    pub points: Vec<DifferencePoint>,
}

impl Difference {
    /// The difference at `day` (days, within half a second).
    pub fn at(&self, day: f64) -> Option<f64> {
        self.points
            .iter()
            .find(|p| ((p.day - day) * DAY).abs() <= 0.5)
            .map(|p| p.l2_hpa)
    }
}

/// The l2 differences of all successive pairs at one output time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConvergenceRow {
    /// Days since the start.
    pub day: f64,
    /// The difference of each pair (in [`Report::differences`] order); `None` where the
    /// pair has no common output at that time.
    pub l2_hpa: Vec<Option<f64>>,
    /// Whether each pair's difference is below the previous pair's (`None` with fewer
    /// than two pairs or a missing one).
    pub shrinks: Option<bool>,
    /// The reference's own uncertainty there (l2 T85 − T170), hPa.
    pub reference_uncertainty_hpa: Option<f64>,
    /// The R2B5–R2B6 band there and whether that pair meets it.
    pub band: Option<ConvergenceBand>,
}

/// The band of the R2B5–R2B6 difference at one day.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ConvergenceBand {
    /// The largest accepted difference, hPa.
    pub max_hpa: f64,
    /// The R2B5–R2B6 difference, hPa.
    pub l2_hpa: f64,
    /// Whether it is within the band.
    pub pass: bool,
}

/// Every number of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Spacing of the lat/lon grid of the differences, degrees.
    pub grid_step_deg: f64,
    /// How cell p_s reaches the lat/lon grid.
    pub interpolation: String,
    /// The days of the minimum table and the maps.
    pub days: Vec<u32>,
    /// The runs, coarse to fine.
    pub runs: Vec<RunSummary>,
    /// Minimum per run and day.
    pub minima: Vec<MinimumRow>,
    /// Differences between successive runs.
    pub differences: Vec<Difference>,
    /// The differences per output time common to every pair.
    pub convergence: Vec<ConvergenceRow>,
    /// The figures written, relative to the report's folder.
    pub figures: Vec<String>,
}

/// What [`Report::interpolation`] says.
pub const INTERPOLATION: &str = "each lat/lon point from its 10 nearest cell centres, weights of least (distance-weighted) norm that are exact for fields linear in (x, y, z) — second order (foehn_driver::report::latlon)";

/// The report of `runs` (any order: sorted coarse to fine by cell count; names must
/// differ) on `grid` for `days`.
pub fn analyse(
    runs: &mut [RunData],
    grid: &LatLonGrid,
    days: &[u32],
) -> Result<Report, ReportError> {
    if runs.is_empty() {
        return Err(ReportError::Input(
            "no runs: give at least one --run NAME=DIR_OR_STEM".to_string(),
        ));
    }
    for (i, r) in runs.iter().enumerate() {
        if runs[..i].iter().any(|s| s.name == r.name) {
            return Err(ReportError::Input(format!(
                "two runs are named `{}`: give each --run its own name",
                r.name
            )));
        }
    }
    runs.sort_by_key(RunData::cells);
    let summaries = runs
        .iter()
        .map(|r| RunSummary {
            name: r.name.clone(),
            source: r.source.clone(),
            cells: r.cells(),
            bisections: r2b_level(r.cells()),
            days: r.times.iter().map(|t| t.time / DAY).collect(),
        })
        .collect();
    let minima = runs
        .iter()
        .flat_map(|r| days.iter().map(move |&d| minimum_row(r, d)))
        .collect();
    let differences = runs
        .windows(2)
        .map(|w| difference(&w[0], &w[1], grid))
        .collect::<Result<Vec<_>, _>>()?;
    let convergence = convergence(runs, &differences);
    Ok(Report {
        grid_step_deg: grid.step,
        interpolation: INTERPOLATION.to_string(),
        days: days.to_vec(),
        runs: summaries,
        minima,
        differences,
        convergence,
        figures: vec![],
    })
}

fn minimum_row(run: &RunData, day: u32) -> MinimumRow {
    let minimum = run.at(day as f64 * DAY).map(|t| t.minimum);
    let band = minimum_band(day, r2b_level(run.cells()));
    let check = |f: &dyn Fn(&MinimumBand, &Minimum) -> bool| Some(f(band.as_ref()?, &minimum?));
    MinimumRow {
        run: run.name.clone(),
        day,
        minimum,
        reference: reference(day).copied(),
        band,
        value_ok: check(&|b, m| b.value_ok(m.hpa)),
        location_ok: check(&|b, m| b.location_ok(m.lon, m.lat)),
    }
}

fn difference(
    coarse: &RunData,
    fine: &RunData,
    grid: &LatLonGrid,
) -> Result<Difference, ReportError> {
    let points = coarse
        .times
        .iter()
        .filter_map(|a| fine.at(a.time).map(|b| (a, b)))
        .map(|(a, b)| {
            Ok(DifferencePoint {
                day: a.time / DAY,
                l2_hpa: grid.l2_difference(&a.ps_latlon, &b.ps_latlon)?,
            })
        })
        .collect::<Result<Vec<_>, ReportError>>()?;
    if points.is_empty() {
        return Err(ReportError::Input(format!(
            "runs `{}` and `{}` have no output time in common: write both with the same --output-interval",
            coarse.name, fine.name
        )));
    }
    Ok(Difference {
        coarse: coarse.name.clone(),
        fine: fine.name.clone(),
        points,
    })
}

fn convergence(runs: &[RunData], differences: &[Difference]) -> Vec<ConvergenceRow> {
    let Some(first) = differences.first() else {
        return vec![];
    };
    let fine_pair = runs
        .windows(2)
        .position(|w| r2b_level(w[0].cells()) == Some(5) && r2b_level(w[1].cells()) == Some(6));
    let mut days: Vec<f64> = first.points.iter().map(|p| p.day).collect();
    for d in &differences[1..] {
        days.retain(|&day| d.at(day).is_some());
    }
    days.into_iter()
        .map(|day| {
            let l2: Vec<Option<f64>> = differences.iter().map(|d| d.at(day)).collect();
            let shrinks = (l2.len() >= 2)
                .then(|| l2.windows(2).map(|w| Some(w[1]? < w[0]?)).collect())
                .flatten()
                .map(|v: Vec<bool>| v.iter().all(|&s| s));
            let whole = whole_day(day * DAY);
            let band = whole
                .and_then(convergence_band)
                .zip(fine_pair.and_then(|i| l2[i]))
                .map(|(max_hpa, l2_hpa)| ConvergenceBand {
                    max_hpa,
                    l2_hpa,
                    pass: l2_hpa <= max_hpa,
                });
            ConvergenceRow {
                day,
                l2_hpa: l2,
                shrinks,
                reference_uncertainty_hpa: whole.and_then(reference).map(|r| r.l2_t85_t170_hpa),
                band,
            }
        })
        .collect()
}
