//! A run's output: the prognostic state and its diagnostics at chosen times, written as
//! CF-1.8 NetCDF (one file per output time) and as lat/lon map PNGs.
//!
//! - [`diagnostics`]: pressure, temperature, surface pressure, `u`/`v` at cells (RBF),
//!   relative vorticity (vertices → cells), fields on pressure levels (linear in `ln p`);
//! - [`Snapshot`]: all of them for one output time, under the names of [`VARIABLES`]
//!   (the prognostics under ICON4Py's names `vn`, `w`, `rho`, `exner`, `theta_v`);
//! - [`OutputSchedule`]: which steps are output times;
//! - `netcdf` (feature `netcdf`): the NetCDF writer (`NetcdfOutput`; a run's `DIR/NAME.nc`
//!   becomes `DIR/NAME_DDDDdHHhMMmSSs.nc`, one file per output time) and reader;
//! - [`plot`]: a cell field of a snapshot as a lat/lon map PNG (`foehn_metrics::map`),
//!   and the maps a run draws at each output time ([`plot::write_maps`]);
//! - [`series`]: the run's monitoring series (mass and energy budgets, the surface-pressure
//!   minimum, JW06's l2 measures), written as `<stem>_series.csv`.
//!
//! Why one file per output time: each file is written to a temporary beside its name and
//! renamed into place when complete ([`foehn_fsio::Staged`]), so every write is atomic
//! and a run interrupted at any moment keeps every output time already written, whole;
//! appending to one file could leave it unreadable. Each file has an unlimited `time`
//! dimension of length 1, so `cdo mergetime` or `ncrcat` join them.

pub mod diagnostics;
#[cfg(feature = "netcdf")]
pub mod netcdf;
pub mod plot;
pub mod series;
#[cfg(test)]
mod tests;

use crate::layout::columns_of;
use foehn_grid::Location;
use foehn_icon::common::state::PrognosticState;
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::fields::Columns;
use std::path::PathBuf;

/// The pressure levels diagnosed by default: 850 hPa, in Pa.
pub const DEFAULT_PRESSURE_LEVELS: [f64; 1] = [85_000.0];

/// Why an output cannot be computed or written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The state does not fit the grid or the static fields.
    #[error("output: {0}")]
    Shape(String),
    /// A file could not be written or read.
    #[error("{}: {message}", .path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A map could not be drawn.
    #[error(transparent)]
    Plot(#[from] foehn_metrics::Error),
}

/// The vertical axis of a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vertical {
    /// One value per column (a surface field).
    Surface,
    /// Full levels (NetCDF `height`).
    Full,
    /// Half levels (NetCDF `height_2`).
    Half,
    /// Pressure levels (NetCDF `plev`).
    Pressure,
}

/// What a snapshot variable is: names, units and where it lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VariableInfo {
    /// The variable's name.
    pub name: &'static str,
    /// Its CF standard name; empty where CF has none (the normal wind).
    pub standard_name: &'static str,
    /// A description.
    pub long_name: &'static str,
    /// UDUNITS units.
    pub units: &'static str,
    /// Cells or edges.
    pub location: Location,
    /// Its vertical axis.
    pub vertical: Vertical,
}

const fn var(
    name: &'static str,
    standard_name: &'static str,
    long_name: &'static str,
    units: &'static str,
    location: Location,
    vertical: Vertical,
) -> VariableInfo {
    VariableInfo {
        name,
        standard_name,
        long_name,
        units,
        location,
        vertical,
    }
}

use Location::{Cell, Edge};
use Vertical::{Full, Half, Pressure, Surface};

/// Every variable of a [`Snapshot`], in file order.
pub const VARIABLES: [VariableInfo; 13] = [
    var("vn", "", "velocity normal to edge", "m s-1", Edge, Full),
    var(
        "w",
        "upward_air_velocity",
        "vertical velocity",
        "m s-1",
        Cell,
        Half,
    ),
    var("rho", "air_density", "density", "kg m-3", Cell, Full),
    var(
        "exner",
        "dimensionless_exner_function",
        "Exner pressure",
        "1",
        Cell,
        Full,
    ),
    var(
        "theta_v",
        "virtual_potential_temperature",
        "virtual potential temperature",
        "K",
        Cell,
        Full,
    ),
    var("pres", "air_pressure", "pressure", "Pa", Cell, Full),
    var("temp", "air_temperature", "temperature", "K", Cell, Full),
    var("u", "eastward_wind", "zonal wind", "m s-1", Cell, Full),
    var(
        "v",
        "northward_wind",
        "meridional wind",
        "m s-1",
        Cell,
        Full,
    ),
    var(
        "vor",
        "atmosphere_relative_vorticity",
        "relative vorticity",
        "s-1",
        Cell,
        Full,
    ),
    var(
        "ps",
        "surface_air_pressure",
        "surface pressure",
        "Pa",
        Cell,
        Surface,
    ),
    var(
        "temp_p",
        "air_temperature",
        "temperature on pressure levels",
        "K",
        Cell,
        Pressure,
    ),
    var(
        "vor_p",
        "atmosphere_relative_vorticity",
        "relative vorticity on pressure levels",
        "s-1",
        Cell,
        Pressure,
    ),
];

/// The [`VariableInfo`] of `name`.
pub fn variable(name: &str) -> Option<&'static VariableInfo> {
    VARIABLES.iter().find(|v| v.name == name)
}

/// The prognostic state and its diagnostics at one output time, every field as
/// `[n, levels]` columns in the order of [`VARIABLES`]; missing values are NaN.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// Seconds since the start of the run.
    pub time: f64,
    /// The pressure levels of `temp_p` and `vor_p`, Pa.
    pub pressure_levels: Vec<f64>,
    fields: Vec<Columns>,
}

impl Snapshot {
    /// Diagnoses `state` at `time` (seconds since the start) on the grid and static
    /// fields of `fields`, with `temp_p`/`vor_p` at `pressure_levels` (Pa).
    pub fn diagnose(
        fields: &GridFields,
        state: &PrognosticState,
        time: f64,
        pressure_levels: &[f64],
    ) -> Result<Snapshot, OutputError> {
        let grid = fields.grid();
        let i = &fields.statics.interpolation;
        let cols = |name: &str, f| {
            columns_of(f)
                .ok_or_else(|| OutputError::Shape(format!("`{name}` is not a column field")))
        };
        let shape = |what: &str| OutputError::Shape(format!("{what} does not fit the grid"));
        let vn = cols("vn", &state.vn)?;
        let (w, rho) = (cols("w", &state.w)?, cols("rho", &state.rho)?);
        let (exner, theta_v) = (
            cols("exner", &state.exner)?,
            cols("theta_v", &state.theta_v)?,
        );
        let pres = diagnostics::pressure(&exner);
        let temp = diagnostics::temperature(&exner, &theta_v).ok_or_else(|| shape("theta_v"))?;
        let (u, v) = diagnostics::cell_wind(grid, &i.rbf_vec_coeff_c1, &i.rbf_vec_coeff_c2, &vn)
            .ok_or_else(|| shape("vn"))?;
        let vor_v =
            diagnostics::vertex_vorticity(grid, &i.geofac_rot, &vn).ok_or_else(|| shape("vn"))?;
        let weights = diagnostics::verts_aw_cells(grid, &i.cells_aw_verts);
        let vor = diagnostics::cell_vorticity(grid, &weights, &vor_v).ok_or_else(|| shape("vn"))?;
        let ps = crate::diagnostics::surface_pressure(
            &exner,
            &theta_v,
            &fields.statics.metrics.ddqz_z_full,
        )
        .ok_or_else(|| shape("exner/theta_v"))?;
        let ps = Columns::from_vec(ps.len(), 1, ps).expect("one level");
        let on_p = |f: &Columns| {
            diagnostics::at_pressure_levels(f, &pres, pressure_levels)
                .ok_or_else(|| shape("a field"))
        };
        let (temp_p, vor_p) = (on_p(&temp)?, on_p(&vor)?);
        Ok(Snapshot {
            time,
            pressure_levels: pressure_levels.to_vec(),
            fields: vec![
                vn, w, rho, exner, theta_v, pres, temp, u, v, vor, ps, temp_p, vor_p,
            ],
        })
    }

    /// The field `name` (one of [`VARIABLES`]) as `[n, levels]` columns.
    pub fn field(&self, name: &str) -> Option<&Columns> {
        let i = VARIABLES.iter().position(|v| v.name == name)?;
        self.fields.get(i)
    }

    /// Every variable with its field, in [`VARIABLES`] order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static VariableInfo, &Columns)> {
        VARIABLES.iter().zip(&self.fields)
    }
}

/// When a run writes output: every `interval` seconds from the start (the start
/// included), at the step whose time is nearest to each output time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutputSchedule {
    /// Seconds between output times (> 0).
    pub interval: f64,
}

impl OutputSchedule {
    /// True when the step ending at `time` (seconds since the start) with step length
    /// `dt` is the step nearest an output time: `time` is within `dt/2` of a multiple of
    /// the interval (a tie goes to the later step).
    pub fn is_due(&self, time: f64, dt: f64) -> bool {
        if self.interval.is_nan() || self.interval <= 0.0 {
            return false;
        }
        let nearest = (time / self.interval).round() * self.interval;
        let off = time - nearest;
        -0.5 * dt < off && off <= 0.5 * dt
    }
}

/// The file name of the output at `time` seconds: `{prefix}_DDDDdHHhMMmSSs.nc` (days,
/// hours, minutes and whole seconds since the start; names sort by time).
pub fn file_name(prefix: &str, time: f64) -> String {
    format!("{prefix}_{}.nc", time_label(time))
}

/// `DDDDdHHhMMmSSs` for `time` seconds (rounded to whole seconds).
pub fn time_label(time: f64) -> String {
    let s = time.round().max(0.0) as u64;
    format!(
        "{:04}d{:02}h{:02}m{:02}s",
        s / 86_400,
        s / 3600 % 24,
        s / 60 % 60,
        s % 60
    )
}
