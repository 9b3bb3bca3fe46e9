//! [`DeviceDycore`]: the time loop with the whole state on a CUDA device (the step it
//! shares with the host loop is `super::run_step`).

use super::{check_diffusion, run_step, LoopClock, LoopSettings, StepOps, StepSummary};
use foehn::error::Result;
use foehn::runtime::cuda::CudaBackend;
use foehn_icon::common::exchange::NoExchange;
use foehn_icon::diffusion::component::cuda::CudaDiffusion;
use foehn_icon::diffusion::component::state::DiffusionState;
use foehn_icon::solve_nonhydro::component::cuda::{DeviceExchange, DeviceSolveNonhydroState};
use foehn_icon::solve_nonhydro::component::{SolveNonhydro, SolveNonhydroState, SubstepFlags};
use foehn_icon::solve_nonhydro::config::NonHydrostaticConfig;

/// The dycore with the whole state on a CUDA device for the run: the solver's state
/// uploaded once ([`SolveNonhydro::upload`]), the diffusion bound to the solver's device
/// prognostic buffers
/// ([`attach_diffusion`](foehn_icon::solve_nonhydro::component::cuda::DeviceSolveNonhydroState::attach_diffusion)),
/// the substeps, the diffusion and every swap on the device (the swaps flip which
/// buffer a slot points at; nothing is copied). A step downloads only the CFL maximum
/// (8 bytes); [`DeviceDycore::download`] copies the state back on request. The same
/// step as [`Dycore::step`](super::Dycore::step).
pub struct DeviceDycore<'a> {
    pub(crate) dev: DeviceSolveNonhydroState<'a>,
    pub(crate) solver: SolveNonhydro<'a>,
    pub(crate) clock: LoopClock,
    exchange: Box<dyn DeviceExchange + 'a>,
}

impl<'a> DeviceDycore<'a> {
    /// The loop of `settings` (validated) over `solver` with `state` uploaded to
    /// `cuda`'s device and `diffusion` (its device step, compiled by `Diffusion::cuda`,
    /// and a diffusion state with its constant fields; required when the settings
    /// diffuse) on the solver's prognostic buffers, at time 0, on one process.
    pub fn new(
        solver: SolveNonhydro<'a>,
        cuda: &'a CudaBackend,
        diffusion: Option<(&'a CudaDiffusion<'a>, &DiffusionState)>,
        state: &SolveNonhydroState,
        settings: LoopSettings,
    ) -> Result<DeviceDycore<'a>> {
        let clock = LoopClock::new(settings)?;
        check_diffusion(&clock.settings, diffusion.is_some())?;
        let mut dev = solver.upload(cuda, state)?;
        if let Some((d, dstate)) = diffusion {
            dev.attach_diffusion(d, dstate, solver.grid())?;
        }
        Ok(DeviceDycore {
            dev,
            solver,
            clock,
            exchange: Box::new(NoExchange),
        })
    }

    /// Halo exchanges of device fields through `exchange` instead of the
    /// single-process no-op.
    pub fn with_exchange(mut self, exchange: Box<dyn DeviceExchange + 'a>) -> DeviceDycore<'a> {
        self.exchange = exchange;
        self
    }

    /// Substeps recorded as CUDA graphs and replayed (`on`, the default), or enqueued
    /// program by program (see `DeviceSolveNonhydroState::record_substeps`, ADR 0028).
    pub fn record_substeps(mut self, on: bool) -> DeviceDycore<'a> {
        self.dev.record_substeps(on);
        self
    }

    /// One time step (see the module doc): kernels enqueued, the CFL maximum read.
    pub fn step(&mut self) -> Result<StepSummary> {
        run_step(self)
    }

    /// Waits and copies the solver's state (as its slots point now) into `state`.
    pub fn download(&self, state: &mut SolveNonhydroState) -> Result<()> {
        self.dev.download(state)
    }

    /// Waits and copies only the current prognostic state (as the slots point now)
    /// into `state.current`; the rest of `state` is left as it was.
    pub fn download_current(&self, state: &mut SolveNonhydroState) -> Result<()> {
        self.dev.download_current(state)
    }

    /// The device state.
    pub fn device_state(&self) -> &DeviceSolveNonhydroState<'a> {
        &self.dev
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.clock.time
    }

    /// The settings, the CFL watch mode and the steps done.
    pub fn clock(&self) -> &LoopClock {
        &self.clock
    }
}

impl StepOps for DeviceDycore<'_> {
    fn clock(&mut self) -> &mut LoopClock {
        &mut self.clock
    }

    fn config(&self) -> &NonHydrostaticConfig {
        self.solver.config()
    }

    fn swap_vertical_wind_tendency(&mut self) {
        self.dev.swap_vertical_wind_tendency();
    }

    fn swap_normal_wind_tendency(&mut self) {
        self.dev.swap_normal_wind_tendency();
    }

    fn swap_prognostic(&mut self) {
        self.dev.swap_prognostic();
    }

    fn substep(&mut self, fac: f64, dt: f64, n: usize, flags: SubstepFlags) -> Result<()> {
        let exchange = self.exchange.as_mut();
        self.solver
            .time_step_on_device(&mut self.dev, fac, dt, n, flags, 0.0, exchange)
    }

    fn diffuse(&mut self, initial_run: bool, dtime: f64) -> Result<()> {
        self.dev.diffuse(dtime, initial_run, initial_run)
    }

    fn take_max_vertical_cfl(&mut self) -> Result<f64> {
        let cfl = self.dev.max_vertical_cfl()?;
        self.dev.set_max_vertical_cfl(0.0)?;
        Ok(cfl)
    }
}
