//! Checkpoint/restart of the time loop: a restart continues bit-for-bit as if the run
//! had never stopped (ADR 0013).
//!
//! A [`Checkpoint`] holds everything the next step reads that a fresh loop on the same
//! grid and configuration does not already have:
//!
//! - the solver's carried fields ([`carried_slots`]): both prognostic states as the loop
//!   holds them (`current` and `next`, the slots as they point after the step's swaps),
//!   the diagnostic state (both slots of each advective tendency, the mass fluxes, `vn_ie`,
//!   `exner_pr`, …), the tracer-advection fluxes and the solver's intermediate fields
//!   (the Rayleigh factor among them); the constant slots (interpolation, metric and
//!   geometry fields) are not saved but digested into the [`Identity`];
//! - the solver's own work fields (velocity advection's `z_v_grad_w`, `z_w_con_c_full`,
//!   `vertical_cfl`), its `dtime` of the previous substep and the running CFL maximum;
//! - the loop's clock ([`ClockState`]): steps done (which also says whether the first
//!   step and the initial diffusion are done), simulated time, the CFL watch mode and
//!   its substep count;
//! - the [`Identity`] of the run: grid, levels, loop settings, solver configuration, a
//!   digest of the constant fields and the caller's description of the rest of the
//!   configuration, so that a restart of another run is refused, saying what differs.
//!
//! The diffusion keeps nothing between calls (its work fields are constant profiles or
//! written before they are read within a call; its diagnostic outputs are written, never
//! read, and are placeholders for `shear_type = 0`), so it is not part of a checkpoint.
//!
//! The file ([`Checkpoint::write`], [`Checkpoint::read`]; format in [`file`](mod@file)): a TOML
//! header, the fields' raw little-endian bytes and a BLAKE3 checksum, written atomically
//! (a temporary beside the target, fsynced and renamed); an existing file that is not
//! a foehn checkpoint is never overwritten.

mod compare;
pub mod file;
mod resume;

use crate::time_loop::{LoopClock, LoopSettings};
use foehn::error::{Error, Result};
use foehn::runtime::field::{Field, FieldData};
use foehn_grid::Location;
use foehn_icon::solve_nonhydro::component::{SolveNonhydro, SolveNonhydroState};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The prefix of the solver's work fields among a checkpoint's field names.
pub const WORKSPACE_PREFIX: &str = "workspace/";

/// What a checkpoint belongs to: a restart must match every member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// The grid's name.
    pub grid: String,
    /// Its cells.
    pub cells: usize,
    /// Its edges.
    pub edges: usize,
    /// Its vertices.
    pub vertices: usize,
    /// Full levels.
    pub levels: usize,
    /// The loop's settings (`dtime`, substeps, CFL threshold, diffusion switches).
    pub settings: String,
    /// The solver's configuration.
    pub solver: String,
    /// BLAKE3 digest of the solver's constant fields (interpolation, metric and geometry:
    /// the grid's geometry, the vertical grid and the topography).
    pub constants: String,
    /// The caller's description of the rest of the run's configuration (the JW run's
    /// spec: diffusion, vertical grid, initial state).
    pub run: String,
}

impl Identity {
    /// The identity of a loop of `settings` over `solver` and `state` (its constant
    /// fields), with the caller's description `run`.
    pub fn of(
        solver: &SolveNonhydro,
        state: &SolveNonhydroState,
        settings: &LoopSettings,
        run: &str,
    ) -> Identity {
        let grid = solver.grid();
        let mut hasher = blake3::Hasher::new();
        for name in SolveNonhydroState::constant_names() {
            let f = state.field(name).expect("a slot");
            hasher.update(name.as_bytes());
            hasher.update(format!("{:?}", f.shape()).as_bytes());
            file::for_each_chunk(f.data(), |bytes| {
                hasher.update(bytes);
            });
        }
        Identity {
            grid: grid.name.clone(),
            cells: grid.size(Location::Cell),
            edges: grid.size(Location::Edge),
            vertices: grid.size(Location::Vertex),
            levels: state.nlev(),
            settings: format!("{settings:?}"),
            solver: format!("{:?}", solver.config()),
            constants: hasher.finalize().to_hex().to_string(),
            run: run.to_string(),
        }
    }

    /// Refuses a checkpoint (from `source`) of this identity for a run of `this`,
    /// naming the first thing that differs and what to do.
    pub fn check(&self, this: &Identity, source: &str) -> Result<()> {
        let refuse = |what: String| {
            Err(Error::Field(format!(
                "checkpoint {source}: {what}; restart with the configuration the checkpoint \
                 was written with"
            )))
        };
        let grid = |i: &Identity| {
            format!(
                "grid {} ({} cells, {} edges, {} vertices) × {} levels",
                i.grid, i.cells, i.edges, i.vertices, i.levels
            )
        };
        if grid(self) != grid(this) {
            return refuse(format!(
                "it was written on {}, this run is on {}",
                grid(self),
                grid(this)
            ));
        }
        let pairs = [
            ("time-loop settings", &self.settings, &this.settings),
            ("solver configuration", &self.solver, &this.solver),
            ("run configuration", &self.run, &this.run),
        ];
        for (what, saved, now) in pairs {
            if saved != now {
                return refuse(format!(
                    "the {what} differs: the checkpoint's is {saved}, this run's is {now}"
                ));
            }
        }
        if self.constants != this.constants {
            return refuse(format!(
                "the grid's constant fields differ (geometry, vertical grid or topography: \
                 digest {} in the checkpoint, {} here)",
                self.constants, this.constants
            ));
        }
        Ok(())
    }
}

/// The loop's clock in a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockState {
    /// Steps done (0: the first step, with the initial diffusion, is still to come).
    pub steps_done: u64,
    /// Simulated time, s.
    pub time: f64,
    /// Whether the CFL watch mode is on.
    pub cfl_watch_active: bool,
    /// Substeps of the next step.
    pub ndyn_substeps_var: usize,
}

impl ClockState {
    /// The state of `clock`.
    pub fn of(clock: &LoopClock) -> ClockState {
        let watch = clock.cfl_watch();
        ClockState {
            steps_done: clock.steps_done(),
            time: clock.time(),
            cfl_watch_active: watch.active,
            ndyn_substeps_var: watch.ndyn_substeps_var,
        }
    }
}

/// One saved field: its name (a slot, or [`WORKSPACE_PREFIX`] and a work field), shape
/// and values.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedField {
    /// Slot name, or `workspace/<name>`.
    pub name: String,
    /// The shape.
    pub shape: Vec<usize>,
    /// The values.
    pub data: FieldData,
}

/// Everything a restart needs (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    /// What run it belongs to.
    pub identity: Identity,
    /// The loop's clock.
    pub clock: ClockState,
    /// The solver's running CFL maximum (ICON `max_vcfl_dyn`; 0 between steps).
    pub max_vertical_cfl: f64,
    /// The `dtime` of the solver's previous substep.
    pub dtime_previous_substep: f64,
    /// The carried fields, then the work fields.
    pub fields: Vec<SavedField>,
    /// The file it was read from (for messages).
    pub source: Option<PathBuf>,
}

/// The slots a checkpoint saves: the prognostic pair, the diagnostic state, the
/// tracer-advection fluxes and the intermediate fields.
pub fn carried_slots() -> impl Iterator<Item = &'static str> {
    SolveNonhydroState::carried_names()
}

impl Checkpoint {
    /// The checkpoint of a loop: `solver` with its work fields `workspace` (the host's,
    /// or downloaded from a device), `state` and `clock`, described by `run`.
    pub fn capture<'f>(
        solver: &SolveNonhydro,
        state: &SolveNonhydroState,
        workspace: impl IntoIterator<Item = (&'f str, &'f Field)>,
        clock: &LoopClock,
        run: &str,
    ) -> Checkpoint {
        let saved = |name: String, f: &Field| SavedField {
            name,
            shape: f.shape().to_vec(),
            data: f.data().clone(),
        };
        let mut fields: Vec<SavedField> = carried_slots()
            .map(|n| saved(n.to_string(), state.field(n).expect("a slot")))
            .collect();
        fields.extend(
            workspace
                .into_iter()
                .map(|(n, f)| saved(format!("{WORKSPACE_PREFIX}{n}"), f)),
        );
        Checkpoint {
            identity: Identity::of(solver, state, clock.settings(), run),
            clock: ClockState::of(clock),
            max_vertical_cfl: state.max_vertical_cfl,
            dtime_previous_substep: solver.dtime_previous_substep(),
            fields,
            source: None,
        }
    }

    /// Where it came from, for messages.
    pub fn source_name(&self) -> String {
        self.source
            .as_ref()
            .map_or_else(|| "(in memory)".into(), |p| p.display().to_string())
    }

    /// Puts this checkpoint into a fresh loop's `solver` and `state` (its constant
    /// fields already there) after checking it belongs to the run of `settings` and
    /// `run`; returns the clock to continue with. Refuses, naming the checkpoint and
    /// the field, a checkpoint whose fields do not match this build's.
    pub fn restore_into(
        self,
        solver: &mut SolveNonhydro,
        state: &mut SolveNonhydroState,
        settings: &LoopSettings,
        run: &str,
    ) -> Result<LoopClock> {
        let source = self.source_name();
        self.identity
            .check(&Identity::of(solver, state, settings, run), &source)?;
        let clock = LoopClock::resumed(settings.clone(), &self.clock)
            .map_err(|e| Error::Field(format!("checkpoint {source}: {e}")))?;
        let mut saved: BTreeMap<String, SavedField> = self
            .fields
            .into_iter()
            .map(|f| (f.name.clone(), f))
            .collect();
        let bad = |what: String| Error::Field(format!("checkpoint {source}: {what}"));
        let mut take = |name: &str, target: &mut Field| -> Result<()> {
            let f = saved.remove(name).ok_or_else(|| {
                bad(format!(
                    "no field `{name}` (written by another version of foehn?)"
                ))
            })?;
            if f.shape != target.shape() || f.data.dtype() != target.dtype() {
                return Err(bad(format!(
                    "field `{name}` is {:?} {:?}, this run's is {:?} {:?}",
                    f.data.dtype(),
                    f.shape,
                    target.dtype(),
                    target.shape()
                )));
            }
            *target.data_mut() = f.data;
            Ok(())
        };
        for name in carried_slots() {
            take(name, state.field_mut(name).expect("a slot"))?;
        }
        let work: Vec<String> = solver.workspace().keys().map(|n| n.to_string()).collect();
        for name in work {
            let target = solver.workspace_field_mut(&name).expect("a work field");
            take(&format!("{WORKSPACE_PREFIX}{name}"), target)?;
        }
        if let Some(extra) = saved.keys().next() {
            return Err(bad(format!(
                "field `{extra}` is not one this foehn restores (written by another version?)"
            )));
        }
        state.max_vertical_cfl = self.max_vertical_cfl;
        solver.set_dtime_previous_substep(self.dtime_previous_substep);
        Ok(clock)
    }

    /// The first of [`Checkpoint::differences`] (`None`: identical bit for bit), for
    /// tests and checks of a restart.
    pub fn first_difference(&self, other: &Checkpoint) -> Option<String> {
        self.differences(other).into_iter().next()
    }

    /// Writes it to `path` atomically (see [`file`](mod@file)); refuses to replace a file that is
    /// not a foehn checkpoint.
    pub fn write(&self, path: &Path) -> Result<()> {
        file::write(self, path)
    }

    /// Reads the checkpoint at `path`, checking its format and checksum.
    pub fn read(path: &Path) -> Result<Checkpoint> {
        file::read(path)
    }
}

/// When and where a run writes its checkpoint: every `every` steps (if given) and at
/// the end of the run, to `path` (replaced each time).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointPlan {
    /// The checkpoint file.
    pub path: PathBuf,
    /// Steps between checkpoints; `None`: only at the end.
    pub every: Option<u64>,
}

impl CheckpointPlan {
    /// The file a run writes when `--checkpoint-interval` is given without a file.
    pub const DEFAULT_FILE: &'static str = "foehn_jw.ckpt";

    /// The plan of `--checkpoint <path>` and `--checkpoint-interval <interval>` for steps
    /// of `dtime` seconds: none when neither is given; an interval that is not a whole
    /// number of steps, or a file that exists and is not a checkpoint, is refused
    /// before the run starts, saying so.
    pub fn new(
        path: Option<PathBuf>,
        interval: Option<crate::config::interval::Interval>,
        dtime: f64,
    ) -> std::result::Result<Option<CheckpointPlan>, String> {
        if path.is_none() && interval.is_none() {
            return Ok(None);
        }
        let every = interval
            .map(|i| i.steps(dtime, "--checkpoint-interval"))
            .transpose()?;
        let path = path.unwrap_or_else(|| PathBuf::from(Self::DEFAULT_FILE));
        file::refuse_foreign(&path).map_err(|e| e.to_string())?;
        Ok(Some(CheckpointPlan { path, every }))
    }

    /// Whether a checkpoint is due after step `step` (1-based) of a run of `last` steps.
    pub fn due(&self, step: u64, last: u64) -> bool {
        step == last || self.every.is_some_and(|n| step.is_multiple_of(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::interval::Interval;
    use foehn_icon::solve_nonhydro::component::state::{CURRENT, NEXT};

    #[test]
    fn a_plan_writes_every_interval_and_at_the_end() {
        assert_eq!(CheckpointPlan::new(None, None, 300.0), Ok(None));
        let p = CheckpointPlan::new(None, Some(Interval::Seconds(3600.0)), 300.0)
            .unwrap()
            .unwrap();
        assert_eq!(p.path, PathBuf::from(CheckpointPlan::DEFAULT_FILE));
        let due: Vec<u64> = (1..=30).filter(|&s| p.due(s, 30)).collect();
        assert_eq!(due, [12, 24, 30]);
        let end = CheckpointPlan::new(Some("a.ckpt".into()), None, 300.0)
            .unwrap()
            .unwrap();
        assert!(!end.due(12, 30) && end.due(30, 30));
        let e = CheckpointPlan::new(None, Some(Interval::Seconds(450.0)), 300.0).unwrap_err();
        assert!(e.contains("--checkpoint-interval"), "{e}");
    }

    #[test]
    fn every_slot_is_carried_or_constant_and_the_prognostic_pair_is_carried() {
        let all: Vec<&str> = SolveNonhydroState::names().collect();
        let carried: Vec<&str> = carried_slots().collect();
        let constant: Vec<&str> = SolveNonhydroState::constant_names().collect();
        assert_eq!(carried.len() + constant.len(), all.len());
        for n in CURRENT.iter().chain(NEXT.iter()) {
            assert!(carried.contains(n), "{n}");
        }
        for n in [
            "normal_wind_advective_tendency_predictor",
            "normal_wind_advective_tendency_corrector",
            "vertical_wind_advective_tendency_predictor",
            "vertical_wind_advective_tendency_corrector",
            "mass_flux_at_edges_on_model_levels",
            "rayleigh_damping_factor",
        ] {
            assert!(carried.contains(&n), "{n}");
        }
        for n in ["geofac_div", "wgtfac_c", "cell_area"] {
            assert!(constant.contains(&n), "{n}");
        }
    }
}
