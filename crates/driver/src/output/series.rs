//! A run's monitoring series: the conservation budgets and the Jablonowski–Williamson
//! measures (JW06 = Jablonowski & Williamson 2006, QJRMS 132) recorded while the run goes,
//! written to `<stem>_series.csv` beside the NetCDF output and summarised at the end
//! (the choices: ADR 0017).
//!
//! # What is recorded
//!
//! A *budget* record ([`Budget`]), as ICON monitors it (`supervise_total_integrals_nh`),
//! each a sum over cells `c` and full levels `k` of the layer mass `m = ρ·A·Δz`
//! (`A` = cell area, `Δz` = `ddqz_z_full`) times a specific quantity:
//!
//! ```text
//! M = Σ ρ·A·Δz                                             total dry mass, kg
//! E = Σ ρ·( c_vd·π·θv + ½(u² + v² + w̄²) + g·z_mc )·A·Δz     total energy, J
//! ```
//!
//! with `u`, `v` at cell centres from `vn` by ICON's RBF reconstruction (as the output's
//! diagnostics), `w̄ = ½(w[k] + w[k+1])` (half levels to full) and `z_mc` the full-level
//! height; the CSV gives both and their change relative to the first record. The mass
//! sums every cell, the energy the cells where the RBF wind is defined (all of a global
//! grid). Sums are compensated, so that the relative change resolves ~1e-15.
//!
//! A *full* record adds ([`Measures`]):
//! - the minimum surface pressure (ICON's diagnosed `p_s`, [`crate::diagnostics`]) in
//!   the Northern Hemisphere (the wave's; elsewhere, and in the first days, the lowest
//!   cell is noise of tenths of a hPa; as `foehn jw-report`, ADR 0015) and its location,
//!   longitude in °E `[0, 360)` and latitude in °N as JW06 report it ([`PsMinimum`]: the
//!   lowest cell refined by a quadratic fitted over two rings of neighbours, where the
//!   fit has a minimum within a grid spacing and not above the cell);
//! - the area-weighted global mean of `p_s`;
//! - `l2(u − u(t=0))`, `l2(u − ū)` (the zonal asymmetry) and `l2(ū − ū(t=0))` (the
//!   zonal-mean drift) of the eastward wind, JW06's steady-state measures;
//! - the largest `|vn|` and `|w|`.
//!
//! # The discrete l2 norms
//!
//! JW06 integrate over the sphere and over the vertical coordinate `η ≈ p/p_s`, so a
//! volume counts with its mass. Here the weight of a cell layer is its mass `ρ·A·Δz`
//! (`= A·Δp/g` in hydrostatic balance) at the time of the record:
//!
//! ```text
//! l2(a − b) = sqrt( Σ_{c,k} m_{c,k}·(a_{c,k} − b_{c,k})² / Σ_{c,k} m_{c,k} )
//! ```
//!
//! over the cells and levels where both are defined. The zonal mean `ū` at a cell and
//! level ([`ZonalBands`]) is the area-weighted least-squares cubic in latitude fitted,
//! on that model level, to the cells of its latitude band (bands about one grid spacing
//! wide) and of the two neighbouring bands, evaluated at the cell's latitude. A plain
//! band mean would not do: across a band of width `Δφ` the jet's `u` varies by
//! `∂u/∂φ·Δφ` (tenths of m/s at R2B4), above the 0.035 m/s scale of the asymmetries
//! being measured; the cubic leaves `O(Δφ⁴)` (the analytic JW jet at R2B2: 1.7e-3 m/s,
//! where a quadratic leaves 2.6e-2). On a limited-area grid the bands are not whole
//! latitude circles and `ū` is only a meridional fit.
//!
//! # When
//!
//! [`SeriesSchedule`]: on the CPU ([`SeriesSchedule::host`]) a budget record every step
//! and a full record every 6 simulated hours; on the GPU ([`SeriesSchedule::device`]),
//! where a record needs the state copied to the host, full records only, every 6 hours.
//! Both also record fully at every output time and at the last step
//! ([`RunSeries::after_step`]'s `output_due`). Full records are echoed as one line each
//! to stderr when stderr is not a terminal (a log file; the progress bar is on stdout).
//!
//! # The file
//!
//! `<stem>_series.csv` ([`series_path`]): a header of [`COLUMNS`] (identifiers ending in
//! their unit), one row per record, flushed at each record so that an interrupted run
//! keeps every row written; budget-only rows leave the measures' cells empty. A run
//! started again writes the file anew.

mod budget;
mod csv;
mod lsq;
mod ps_min;
mod zonal;

pub use budget::{area_mean, l2_difference, max_abs, Budget, StateColumns};
pub use csv::{series_path, COLUMNS};
pub use ps_min::{ps_minimum, PsMinimum};
pub use zonal::ZonalBands;

use super::{OutputError, OutputSchedule};
use csv::CsvFile;
use foehn_icon::common::state::PrognosticState;
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::fields::Columns;
use std::io::IsTerminal;
use std::path::Path;

/// Seconds between full records by default: 6 simulated hours.
pub const DEFAULT_SERIES_INTERVAL: f64 = 21_600.0;

/// When a run records (see the [module documentation](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeriesSchedule {
    /// A budget record every this many steps; `None`: budgets only in full records.
    pub budget_every: Option<u64>,
    /// Seconds between full records (> 0), at the step nearest each multiple.
    pub interval: f64,
}

impl SeriesSchedule {
    /// The CPU run's: budgets every step, full records every 6 hours.
    pub fn host() -> SeriesSchedule {
        SeriesSchedule {
            budget_every: Some(1),
            interval: DEFAULT_SERIES_INTERVAL,
        }
    }

    /// The GPU run's: full records every 6 hours (each copies the state to the host).
    pub fn device() -> SeriesSchedule {
        SeriesSchedule {
            budget_every: None,
            interval: DEFAULT_SERIES_INTERVAL,
        }
    }

    /// What to record after `step` (ending at `time`, step length `dt`): a full record
    /// at an output time (`output_due`) or the step nearest a multiple of the interval,
    /// else a budget record when one is due, else nothing.
    pub fn due(&self, step: u64, time: f64, dt: f64, output_due: bool) -> Option<RecordKind> {
        let interval = OutputSchedule {
            interval: self.interval,
        };
        if output_due || interval.is_due(time, dt) {
            Some(RecordKind::Full)
        } else if self
            .budget_every
            .is_some_and(|n| n > 0 && step.is_multiple_of(n))
        {
            Some(RecordKind::Budget)
        } else {
            None
        }
    }
}

/// What a record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    /// The budget only.
    Budget,
    /// The budget and the [`Measures`].
    Full,
}

/// The measures of a full record (pressures in Pa; the CSV's [`COLUMNS`] give hPa).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measures {
    /// The surface-pressure minimum.
    pub ps_min: PsMinimum,
    /// Area-weighted global mean surface pressure, Pa.
    pub ps_mean: f64,
    /// `l2(u − u(t=0))`, m/s.
    pub l2_u: f64,
    /// `l2(u − ū)`, the zonal asymmetry, m/s.
    pub l2_asymmetry: f64,
    /// `l2(ū − ū(t=0))`, the zonal-mean drift, m/s.
    pub l2_zonal_drift: f64,
    /// Largest `|vn|`, m/s.
    pub max_vn: f64,
    /// Largest `|w|`, m/s.
    pub max_w: f64,
}

/// One record of the series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Record {
    /// The step it follows (0: the initial state).
    pub step: u64,
    /// Simulated seconds.
    pub time: f64,
    /// Mass and energy.
    pub budget: Budget,
    /// The measures of a full record.
    pub measures: Option<Measures>,
}

/// A state's zonal wind at cells and its zonal mean: what the l2 measures compare.
struct Winds {
    u: Columns,
    ubar: Columns,
}

/// The series of one run: fed after each step, written as it goes (see the
/// [module documentation](self)).
pub struct RunSeries<'f, 'g> {
    fields: &'f GridFields<'g>,
    bands: ZonalBands,
    schedule: SeriesSchedule,
    initial: Winds,
    first: Record,
    last: Record,
    last_full: Record,
    csv: Option<CsvFile>,
    echo: bool,
}

impl<'f, 'g> RunSeries<'f, 'g> {
    /// Starts the series at `state` (after `step`, at `time` seconds; the reference of
    /// the relative changes and of `u(t=0)`), recording it fully; with `csv`, creates
    /// that file (see [`series_path`]) and writes the first row.
    pub fn new(
        fields: &'f GridFields<'g>,
        state: &PrognosticState,
        step: u64,
        time: f64,
        schedule: SeriesSchedule,
        csv: Option<&Path>,
    ) -> Result<Self, OutputError> {
        let bands = ZonalBands::new(fields.grid());
        let mut s = StateColumns::of(fields, state)?;
        let budget = Budget::with_wind(fields, state, &s.u, &s.v)?;
        let initial = winds(&bands, s.take_u())?;
        let measures = Some(measures(fields, &s, &initial, &initial)?);
        let first = Record {
            step,
            time,
            budget,
            measures,
        };
        let mut series = RunSeries {
            fields,
            bands,
            schedule,
            initial,
            first,
            last: first,
            last_full: first,
            csv: csv.map(CsvFile::create).transpose()?,
            echo: !std::io::stderr().is_terminal(),
        };
        series.emit(&first)?;
        Ok(series)
    }

    /// Turns the one-line echo of full records to stderr on or off (default: on when
    /// stderr is not a terminal).
    pub fn set_echo(&mut self, on: bool) {
        self.echo = on;
    }

    /// After `step` (ending at `time`, step length `dt`; `output_due` at output times and
    /// the last step): records what the schedule asks for, calling `state` (which may
    /// copy it from the GPU) only then. The record is returned.
    pub fn after_step<'s, E: From<OutputError>>(
        &mut self,
        step: u64,
        time: f64,
        dt: f64,
        output_due: bool,
        state: impl FnOnce() -> Result<&'s PrognosticState, E>,
    ) -> Result<Option<Record>, E> {
        match self.schedule.due(step, time, dt, output_due) {
            Some(kind) => Ok(Some(self.record(kind, step, time, state()?)?)),
            None => Ok(None),
        }
    }

    /// Records `state` after `step` at `time` seconds.
    pub fn record(
        &mut self,
        kind: RecordKind,
        step: u64,
        time: f64,
        state: &PrognosticState,
    ) -> Result<Record, OutputError> {
        let (budget, measures) = match kind {
            RecordKind::Budget => (Budget::of(self.fields, state)?, None),
            RecordKind::Full => {
                let mut s = StateColumns::of(self.fields, state)?;
                let budget = Budget::with_wind(self.fields, state, &s.u, &s.v)?;
                let now = winds(&self.bands, s.take_u())?;
                (
                    budget,
                    Some(measures(self.fields, &s, &now, &self.initial)?),
                )
            }
        };
        let record = Record {
            step,
            time,
            budget,
            measures,
        };
        self.emit(&record)?;
        Ok(record)
    }

    /// The first record (the reference).
    pub fn first(&self) -> &Record {
        &self.first
    }

    /// The latest record.
    pub fn last(&self) -> &Record {
        &self.last
    }

    /// The latest full record.
    pub fn last_full(&self) -> &Record {
        &self.last_full
    }

    /// The series file, when there is one.
    pub fn csv_path(&self) -> Option<&Path> {
        self.csv.as_ref().map(CsvFile::path)
    }

    /// The run's summary: dry-mass and energy change (total and per simulated day) and
    /// the surface-pressure minimum of the last full record.
    pub fn summary(&self) -> String {
        let (b0, b) = (&self.first.budget, &self.last.budget);
        let days = (self.last.time - self.first.time) / 86_400.0;
        let change = |now: f64, then: f64| {
            let rel = now / then - 1.0;
            if days > 0.0 {
                format!("{rel:.2e} ({:.2e} per day)", rel / days)
            } else {
                format!("{rel:.2e}")
            }
        };
        let mut text = format!(
            "series over {days:.3} days: relative dry-mass change {}, relative total-energy \
             change {}",
            change(b.mass, b0.mass),
            change(b.energy(), b0.energy())
        );
        if let Some(m) = &self.last_full.measures {
            text += &format!(
                "; day {:.3}: ps min {:.2} hPa at {:.1}°E {:.1}°N, l2(u − u0) {:.3e} m/s",
                self.last_full.time / 86_400.0,
                m.ps_min.fitted / 100.0,
                m.ps_min.lon,
                m.ps_min.lat,
                m.l2_u
            );
        }
        if let Some(path) = self.csv_path() {
            text += &format!("; series in {}", path.display());
        }
        text
    }

    /// Keeps `record`, writes its row and echoes a full one.
    fn emit(&mut self, record: &Record) -> Result<(), OutputError> {
        if let Some(csv) = &mut self.csv {
            csv.write(record, &self.first)?;
        }
        self.last = *record;
        if record.measures.is_some() {
            self.last_full = *record;
            if self.echo {
                eprintln!("{}", line(record, &self.first));
            }
        }
        Ok(())
    }
}

/// `u` (taken, not copied: a record's `u` is hundreds of megabytes at R2B6) and its
/// zonal mean.
fn winds(bands: &ZonalBands, u: Columns) -> Result<Winds, OutputError> {
    let ubar = bands
        .zonal_mean(&u)
        .ok_or_else(|| OutputError::Shape("series: `u` is not a cell field".into()))?;
    Ok(Winds { u, ubar })
}

/// The measures of `s` with its winds `now` against the initial `then`.
fn measures(
    fields: &GridFields,
    s: &StateColumns,
    now: &Winds,
    then: &Winds,
) -> Result<Measures, OutputError> {
    let grid = fields.grid();
    let ps = crate::diagnostics::surface_pressure(
        &s.exner,
        &s.theta_v,
        &fields.statics.metrics.ddqz_z_full,
    )
    .ok_or_else(|| {
        OutputError::Shape("series: exner/theta_v do not fit the vertical grid".into())
    })?;
    let ps_min = ps_minimum(grid, &ps, |lat, _| lat >= 0.0).ok_or_else(|| {
        OutputError::Shape(
            "series: the surface pressure has no finite value in the Northern Hemisphere".into(),
        )
    })?;
    let mass = s.layer_mass(fields);
    Ok(Measures {
        ps_min,
        ps_mean: area_mean(&grid.geometry.cell_area, &ps),
        l2_u: l2_difference(&mass, &now.u, &then.u),
        l2_asymmetry: l2_difference(&mass, &now.u, &now.ubar),
        l2_zonal_drift: l2_difference(&mass, &now.ubar, &then.ubar),
        max_vn: max_abs(&s.vn),
        max_w: max_abs(&s.w),
    })
}

/// The one-line echo of a full record.
fn line(r: &Record, first: &Record) -> String {
    let (b, b0) = (&r.budget, &first.budget);
    let mut text = format!(
        "series: step {} day {:.3} | M/M0−1 {:.2e} E/E0−1 {:.2e}",
        r.step,
        r.time / 86_400.0,
        b.mass / b0.mass - 1.0,
        b.energy() / b0.energy() - 1.0
    );
    if let Some(m) = &r.measures {
        text += &format!(
            " | ps min {:.2} hPa at {:.1}°E {:.1}°N, mean {:.3} hPa | l2 u−u0 {:.2e} u−ū {:.2e} \
             m/s | max |vn| {:.1} |w| {:.3} m/s",
            m.ps_min.fitted / 100.0,
            m.ps_min.lon,
            m.ps_min.lat,
            m.ps_mean / 100.0,
            m.l2_u,
            m.l2_asymmetry,
            m.max_vn,
            m.max_w
        );
    }
    text
}
