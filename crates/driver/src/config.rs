//! The configuration of a Jablonowski–Williamson run (`foehn run jw`): a TOML file with
//! ICON's JW defaults, overridden by command-line flags, validated as a whole.
//!
//! ```toml
//! [run]            # the run itself (ICON run_nml / ICON4Py DriverConfig)
//! grid = "r2b4"    # a grid name or an ICON grid file; global or limited-area, on the sphere
//! levels = 35      # full levels (ICON num_lev)
//! steady = false   # true: the steady state (jw_up = 0); false: the baroclinic wave
//! dtime = 300.0    # s; left out: 300 s at R2B4, halved per bisection (9600 s/(n·2^k) at RnBk)
//! ndyn_substeps = 5
//! days = 9.0       # or steps = N (not both); left out: 9 days
//! output = "jw.nc" # NetCDF output (left out: none)
//! output_interval = "6h"   # "1d", "30m", "300s", "10 steps": a multiple of dtime
//! backend = "auto"         # auto, cpu or cuda
//! diffuse_before_time_loop = false   # ICON's initial diffusion (ltestcase and linit_dyn)
//! [cfl]            # the vertical-CFL watch mode of ICON's driver
//! vertical_cfl_threshold = 0.85
//! max_ndyn_substeps = 12   # left out: ndyn_substeps + 7 (ICON4Py)
//! [vertical]       # VerticalConfig: ICON's sleve_nml / nonhydrostatic_nml heights
//! [diffusion]      # DiffusionConfig: type 5, hdiff_efdt_ratio 10, smag 0.025, no θv diffusion
//! [nonhydrostatic] # NonHydrostaticConfig: divdamp_fac 0.0025, divdamp_order 24, …
//! [jw]             # JwConfig: u0 35 m/s, T0 288 K, jw_up 1 m/s, …
//! ```
//!
//! Reading ([`RunConfig::from_toml`]) refuses an unknown or misspelt key, naming it, the
//! file, the line and the valid keys of its section; a value of the wrong type names the
//! line. [`RunConfig::resolve`] then fills in what depends on the grid (dtime) and checks
//! every value ([`RunSetup`] holds the result and the components' configurations);
//! [`RunConfig::to_toml`] writes the effective configuration back (`--print-config`),
//! which reads back to the same configuration.

mod checks;
pub mod interval;
mod parse;
pub mod schedule;
pub mod sections;

use crate::initial::jw::JwConfig;
use crate::jw_run::JwRunSpec;
use crate::time_loop::LoopSettings;
use foehn_grid::{GridKind, GridSpec};
use foehn_icon::diffusion::config::DiffusionConfig;
use foehn_icon::fields::vertical::VerticalConfig;
use foehn_icon::solve_nonhydro::config::NonHydrostaticConfig;
use interval::Interval;
use schedule::ProgramSchedule;
use sections::{DiffusionSection, JwSection, NonhydrostaticSection, VerticalSection};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The largest number of full levels (as the command line's `--levels`, docs/limits.md).
pub const MAX_LEVELS: usize = 1000;
/// The largest number of time steps of a run.
pub const MAX_STEPS: u64 = 1_000_000_000;
/// ICON's time step at R2B4 for the JW test, s.
pub const R2B4_DTIME: f64 = 300.0;
/// The run length when neither days nor steps are given (the baroclinic wave's day 9).
pub const DEFAULT_DAYS: f64 = 9.0;
/// ICON4Py's largest number of substeps in CFL watch mode: `ndyn_substeps` + this.
pub const EXTRA_WATCH_MODE_SUBSTEPS: usize = 7;

/// Why a configuration is refused; every message says what to change.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("{file}: {message}")]
    Read {
        /// The file.
        file: String,
        /// The reason.
        message: String,
    },
    /// Not TOML, or a value of the wrong type.
    #[error("{file}:{line}: {message}{}", quote(text))]
    Syntax {
        /// The file.
        file: String,
        /// The line (from 1).
        line: usize,
        /// The line's text.
        text: String,
        /// What is wrong.
        message: String,
    },
    /// A key (or section) that the configuration does not have.
    #[error(
        "{file}:{line}: unknown key `{key}` in {section}; the valid keys there are: {}",
        valid.join(", ")
    )]
    UnknownKey {
        /// The file.
        file: String,
        /// The line (from 1).
        line: usize,
        /// `[name]`, or "the top level" for a section name.
        section: String,
        /// The unknown key.
        key: String,
        /// The keys allowed there.
        valid: Vec<String>,
    },
    /// A value outside its valid range, or options that contradict each other.
    #[error("{key} = {value}: {message}")]
    Invalid {
        /// The option, `[section] key` (and its flag).
        key: String,
        /// Its value.
        value: String,
        /// What it must be.
        message: String,
    },
}

fn quote(text: &str) -> String {
    if text.trim().is_empty() {
        String::new()
    } else {
        format!(" (in `{}`)", text.trim())
    }
}

pub(crate) fn invalid(key: &str, value: impl ToString, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        value: value.to_string(),
        message: message.into(),
    }
}

/// Where the programs run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The GPU when one is present, else the CPU.
    #[default]
    Auto,
    /// All CPU cores.
    Cpu,
    /// The GPU (CUDA).
    Cuda,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Auto => "auto",
            Backend::Cpu => "cpu",
            Backend::Cuda => "cuda",
        })
    }
}

impl std::str::FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> Result<Backend, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Backend::Auto),
            "cpu" => Ok(Backend::Cpu),
            "cuda" => Ok(Backend::Cuda),
            _ => Err(format!("unknown backend `{s}` (auto, cpu or cuda)")),
        }
    }
}

/// `[run]`: the run itself (ICON `run_nml`, ICON4Py `DriverConfig`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunSection {
    /// A grid name (`r2b4`, `r2b6:cap:46,8,800`) or an ICON grid file (`--grid`).
    pub grid: String,
    /// Full levels (`--levels`; ICON `num_lev`).
    pub levels: usize,
    /// The steady state (no perturbation) instead of the baroclinic wave (`--steady`).
    pub steady: bool,
    /// Time step, s (`--dtime`; ICON `dtime`); `None`: ICON's for the grid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dtime: Option<f64>,
    /// Dynamics substeps per time step (`--substeps`; ICON `ndyn_substeps`).
    pub ndyn_substeps: usize,
    /// Run length in simulated days (`--days`); exclusive with `steps`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days: Option<f64>,
    /// Run length in time steps (`--steps`); exclusive with `days`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<u64>,
    /// The NetCDF output file (`--output`); `None`: no output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Time between outputs (`--output-interval`).
    pub output_interval: Interval,
    /// The variables the output files carry (`--output-vars`, ICON4Py's names as in
    /// [`crate::output::VARIABLES`]); `None`: all of them. A selection leaves out the
    /// cell bounds and the coordinates no chosen variable needs (small files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_variables: Option<Vec<String>>,
    /// Where the programs run (`--backend`).
    pub backend: Backend,
    /// How the programs are compiled (`--schedule`): `optimised` (default), `tuned`
    /// (optimised, and tuned on the GPU before each program's first call) or `unfused`
    /// (one loop nest per stencil, as the programs are written).
    pub schedule: ProgramSchedule,
    /// ICON's initial diffusion before the time loop (`linit_dyn` with `ltestcase`;
    /// ICON4Py's JW experiment leaves it off).
    pub diffuse_before_time_loop: bool,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            grid: "r2b4".into(),
            levels: 35,
            steady: false,
            dtime: None,
            ndyn_substeps: 5,
            days: None,
            steps: None,
            output: None,
            output_interval: Interval::Seconds(6.0 * 3600.0),
            output_variables: None,
            backend: Backend::Auto,
            schedule: ProgramSchedule::Optimised,
            diffuse_before_time_loop: false,
        }
    }
}

/// `[cfl]`: the vertical-CFL watch mode of ICON's driver (ICON4Py
/// `vertical_cfl_threshold`, `max_ndyn_substeps`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CflSection {
    /// The vertical CFL number the substeps adapt to.
    pub vertical_cfl_threshold: f64,
    /// The most substeps watch mode may use; `None`: `ndyn_substeps` + 7.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_ndyn_substeps: Option<usize>,
}

impl Default for CflSection {
    fn default() -> Self {
        CflSection {
            vertical_cfl_threshold: 0.85,
            max_ndyn_substeps: None,
        }
    }
}

/// A run's whole configuration, as read from TOML (see the module doc); the
/// [`Default`] is ICON's JW experiment at R2B4 × 35 levels.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// `[run]`.
    pub run: RunSection,
    /// `[cfl]`.
    pub cfl: CflSection,
    /// `[vertical]`.
    pub vertical: VerticalSection,
    /// `[diffusion]`.
    pub diffusion: DiffusionSection,
    /// `[nonhydrostatic]`.
    pub nonhydrostatic: NonhydrostaticSection,
    /// `[jw]`.
    pub jw: JwSection,
}

/// A validated configuration resolved for a grid: the numbers the time loop needs and
/// the components' configurations.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSetup {
    /// The effective configuration (every default filled in; what `--print-config`
    /// prints).
    pub config: RunConfig,
    /// Time step, s.
    pub dtime: f64,
    /// Number of time steps.
    pub steps: u64,
    /// Time steps between outputs, when there is an output file.
    pub output_every: Option<u64>,
    /// The most substeps of the CFL watch mode.
    pub max_ndyn_substeps: usize,
    /// The vertical grid's configuration.
    pub vertical: VerticalConfig,
    /// The diffusion's configuration (`limited_area` from the grid).
    pub diffusion: DiffusionConfig,
    /// The nonhydrostatic solver's configuration.
    pub nonhydrostatic: NonHydrostaticConfig,
    /// The initial state's configuration (amplitude 0 for the steady state).
    pub jw: JwConfig,
}

impl RunSetup {
    /// Simulated seconds of the run.
    pub fn simulated_seconds(&self) -> f64 {
        self.steps as f64 * self.dtime
    }

    /// The time loop's settings: dtime, substeps, the CFL watch mode, diffusion every
    /// step (and before the loop when configured), no tracer fluxes.
    pub fn loop_settings(&self) -> LoopSettings {
        LoopSettings {
            dtime: self.dtime,
            ndyn_substeps: self.config.run.ndyn_substeps,
            ndyn_substeps_max: self.max_ndyn_substeps,
            vcfl_threshold: self.config.cfl.vertical_cfl_threshold,
            apply_diffusion: true,
            diffuse_before_loop: self.config.run.diffuse_before_time_loop,
            lprep_adv: false,
        }
    }

    /// What [`crate::jw_run`] builds a run from.
    pub fn jw_run_spec(&self) -> JwRunSpec {
        JwRunSpec {
            vertical: self.vertical.clone(),
            initial: self.jw,
            settings: self.loop_settings(),
            nonhydro: self.nonhydrostatic.clone(),
            diffusion: self.diffusion.clone(),
            schedule: self.config.run.schedule.components(),
        }
    }
}

/// ICON's JW time step for a grid: 300 s at R2B4, scaled with the resolution
/// (`9600 s/(n·2^k)` at RnBk, the parent's for a limited area); the test needs the sphere.
pub fn default_dtime(kind: &GridKind) -> Result<f64, ConfigError> {
    match *kind {
        GridKind::Icosahedral { root, bisections }
        | GridKind::LimitedArea {
            root, bisections, ..
        } => Ok(R2B4_DTIME * 32.0 / (f64::from(root) * 2f64.powi(bisections as i32))),
        GridKind::Torus(_) => Err(not_on_sphere()),
    }
}

fn not_on_sphere() -> ConfigError {
    invalid(
        "[run] grid (--grid)",
        "a torus",
        "the Jablonowski–Williamson test needs a grid on the sphere (rNbK, or a limited \
         area of one)",
    )
}

/// Whether `grid` names a file (it exists, or ends in `.nc`) rather than a grid to
/// generate (as `foehn`'s other commands decide).
pub fn is_grid_file(grid: &str) -> bool {
    Path::new(grid).exists() || grid.ends_with(".nc")
}

/// The kind of a grid given by name (`None` for a file, whose kind is known once it is
/// read); an unknown name is refused.
pub fn grid_kind_of_name(grid: &str) -> Result<Option<GridKind>, ConfigError> {
    if is_grid_file(grid) {
        return Ok(None);
    }
    let spec =
        GridSpec::parse(grid).map_err(|e| invalid("[run] grid (--grid)", grid, e.to_string()))?;
    Ok(Some(match spec {
        GridSpec::Icosahedral {
            root, bisections, ..
        } => GridKind::Icosahedral { root, bisections },
        GridSpec::LimitedArea {
            root, bisections, ..
        } => GridKind::LimitedArea {
            parent: format!("r{root}b{bisections}"),
            root,
            bisections,
        },
        GridSpec::Torus { .. } => return Err(not_on_sphere()),
    }))
}

impl RunConfig {
    /// The configuration in the TOML `text` of `file` (a name for messages); keys left
    /// out keep their defaults.
    pub fn from_toml(text: &str, file: &str) -> Result<RunConfig, ConfigError> {
        toml::from_str(text).map_err(|e| parse::parse_error(&e, text, file))
    }

    /// The configuration in the TOML file `path`.
    pub fn from_file(path: &Path) -> Result<RunConfig, ConfigError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            file: file.clone(),
            message: format!("cannot read the configuration file: {e}"),
        })?;
        RunConfig::from_toml(&text, &file)
    }

    /// The configuration as TOML with a header comment: every option, defaults filled
    /// in (call on [`RunSetup::config`] for the effective values); reads back to `self`.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_else(|e| format!("# not printable: {e}\n"));
        format!(
            "# foehn run jw: the effective configuration (edit it and pass it back with \
             --config FILE;\n# command-line flags override the file)\n\n{body}"
        )
    }

    /// Sets the run length to `days` simulated days (what `--days` does: `steps` is
    /// dropped).
    pub fn set_days(&mut self, days: f64) {
        self.run.days = Some(days);
        self.run.steps = None;
    }

    /// Sets the run length to `steps` time steps (what `--steps` does: `days` is
    /// dropped).
    pub fn set_steps(&mut self, steps: u64) {
        self.run.steps = Some(steps);
        self.run.days = None;
    }

    /// Checks every option for a grid of `kind` (the named grid's, from
    /// [`grid_kind_of_name`], or the grid file's once read) and fills in the defaults that
    /// depend on it (dtime, the watch mode's substeps, the run length): the first problem
    /// found, naming the option and what to do.
    pub fn resolve(&self, kind: &GridKind) -> Result<RunSetup, ConfigError> {
        let mut config = self.clone();
        let run = &mut config.run;
        let dtime = *run.dtime.get_or_insert(default_dtime(kind)?);
        checks::check_run(run, dtime)?;
        let steps = match (run.days, run.steps) {
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "[run] days and steps (--days, --steps)",
                    "both given",
                    "give the run length either in days or in steps",
                ))
            }
            (_, Some(n)) => n,
            (days, None) => {
                let days = *run.days.get_or_insert(days.unwrap_or(DEFAULT_DAYS));
                checks::days_to_steps(days, dtime)?
            }
        };
        if !(1..=MAX_STEPS).contains(&steps) {
            return Err(invalid(
                "[run] steps (--steps)",
                steps,
                format!("a run has 1 to {MAX_STEPS} time steps"),
            ));
        }
        let output_every = match &run.output {
            None => None,
            Some(path) => Some(checks::check_output(path, &run.output_interval, dtime)?),
        };
        if let Some(names) = &run.output_variables {
            checks::check_output_variables(names)?;
        }
        let ndyn = run.ndyn_substeps;
        let max_ndyn_substeps = *config
            .cfl
            .max_ndyn_substeps
            .get_or_insert(ndyn + EXTRA_WATCH_MODE_SUBSTEPS);
        checks::check_cfl(&config.cfl, ndyn)?;
        let vertical = checks::vertical_config(&config)?;
        let limited_area = matches!(kind, GridKind::LimitedArea { .. });
        let diffusion = checks::diffusion_config(&config, limited_area)?;
        let nonhydrostatic = checks::nonhydrostatic_config(&config)?;
        let jw = checks::jw_config(&config)?;
        Ok(RunSetup {
            dtime,
            steps,
            output_every,
            max_ndyn_substeps,
            vertical,
            diffusion,
            nonhydrostatic,
            jw,
            config,
        })
    }
}
