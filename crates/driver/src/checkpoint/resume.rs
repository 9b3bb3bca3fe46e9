//! The time loops' side of a checkpoint: a [`Checkpoint`] taken of a [`Dycore`] or a
//! [`DeviceDycore`], and a loop continued from one with its [`LoopClock`] restored from
//! the saved [`ClockState`]. Kept beside the checkpoint, not in `time_loop`, so that the
//! loop does not depend on the checkpoint's module.

use super::{Checkpoint, ClockState};
use crate::time_loop::{DeviceDycore, Dycore, LoopClock, LoopSettings};
use foehn::error::{Error, Result};
use foehn::runtime::cuda::CudaBackend;
use foehn_icon::diffusion::component::cuda::CudaDiffusion;
use foehn_icon::diffusion::component::state::DiffusionState;
use foehn_icon::solve_nonhydro::component::{SolveNonhydro, SolveNonhydroState};

impl LoopClock {
    /// The clock of `settings` (validated) continued from a checkpoint's `saved` clock;
    /// refuses a substep count outside `ndyn_substeps..=ndyn_substeps_max` or a time
    /// that is not finite and non-negative.
    pub fn resumed(settings: LoopSettings, saved: &ClockState) -> Result<LoopClock> {
        let mut clock = LoopClock::new(settings)?;
        let s = &clock.settings;
        if !(s.ndyn_substeps..=s.ndyn_substeps_max).contains(&saved.ndyn_substeps_var) {
            return Err(Error::Field(format!(
                "time loop: {} substeps of the CFL watch mode, outside {}..={}",
                saved.ndyn_substeps_var, s.ndyn_substeps, s.ndyn_substeps_max
            )));
        }
        if !(saved.time.is_finite() && saved.time >= 0.0) {
            return Err(Error::Field(format!(
                "time loop: simulated time {} s",
                saved.time
            )));
        }
        clock.watch.active = saved.cfl_watch_active;
        clock.watch.ndyn_substeps_var = saved.ndyn_substeps_var;
        clock.step = saved.steps_done;
        clock.time = saved.time;
        Ok(clock)
    }
}

impl Dycore<'_> {
    /// A checkpoint of the loop ([`crate::checkpoint`]); `run` describes the rest of the
    /// run's configuration (for a JW run, [`crate::jw_run::description`]).
    pub fn checkpoint(&self, run: &str) -> Checkpoint {
        let work = self.solver.workspace();
        Checkpoint::capture(&self.solver, &self.state, work, &self.clock, run)
    }

    /// Continues from `checkpoint`: this loop, a fresh one of the same run (grid,
    /// configuration and `run` as the checkpoint's, else refused naming what differs),
    /// takes its state, work fields and clock. After an error about the checkpoint's
    /// fields the loop is not fit to run.
    pub fn restore(&mut self, checkpoint: Checkpoint, run: &str) -> Result<()> {
        let settings = self.clock.settings.clone();
        self.clock = checkpoint.restore_into(&mut self.solver, &mut self.state, &settings, run)?;
        Ok(())
    }
}

impl<'a> DeviceDycore<'a> {
    /// A checkpoint of the loop ([`crate::checkpoint`], `run` as for
    /// [`Dycore::checkpoint`]): waits and downloads the whole state into `host` (a state
    /// of the run's shapes, such as the one uploaded) and the solver's work fields.
    pub fn checkpoint(&self, host: &mut SolveNonhydroState, run: &str) -> Result<Checkpoint> {
        self.dev.download(host)?;
        let work = self.dev.download_workspace(&self.solver)?;
        let work = work.iter().map(|(n, f)| (n.as_str(), f));
        Ok(Checkpoint::capture(
            &self.solver,
            host,
            work,
            &self.clock,
            run,
        ))
    }

    /// The loop of [`DeviceDycore::new`] continued from `checkpoint`: restored into the
    /// fresh run's `solver` and host `state` (which then holds the checkpoint's state),
    /// uploaded, with the checkpoint's clock; a checkpoint of another run is refused
    /// as by [`Dycore::restore`].
    pub fn resume(
        mut solver: SolveNonhydro<'a>,
        cuda: &'a CudaBackend,
        diffusion: Option<(&'a CudaDiffusion<'a>, &DiffusionState)>,
        state: &mut SolveNonhydroState,
        settings: LoopSettings,
        checkpoint: Checkpoint,
        run: &str,
    ) -> Result<DeviceDycore<'a>> {
        let clock = checkpoint.restore_into(&mut solver, state, &settings, run)?;
        let mut d = DeviceDycore::new(solver, cuda, diffusion, state, settings)?;
        d.clock = clock;
        Ok(d)
    }
}
