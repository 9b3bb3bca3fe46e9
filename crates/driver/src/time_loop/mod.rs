//! The dycore's time loop (ICON `mo_nh_stepping::integrate_nh`, ICON4Py's driver
//! `TimeLoop`): per time step of `dtime` seconds, `ndyn_substeps_var` substeps of the
//! nonhydrostatic solver, then the horizontal diffusion once, then the swap of the
//! prognostic pair; the CFL watch mode adapts the substep count between steps.
//!
//! ```text
//! step (dtime, n = ndyn_substeps_var):
//!   first step, if diffuse_before_loop: diffusion (initial run) on the current state
//!   divdamp_fac_o2 from the simulated time at the step's midpoint
//!   substep s = 0..n (dt = dtime/n):
//!     swap the w tendencies     unless (first step and s = 0)
//!     swap the vn tendencies    unless s = 0
//!     SolveNonhydro.time_step(at_first_substep = s = 0, at_last_substep = s = n − 1,
//!                             at_initial_timestep = first step, lprep_adv)
//!     swap current/next         unless s = n − 1
//!   diffusion (dtime) on next
//!   swap current/next
//!   CFL watch mode on the step's largest vertical CFL number; reset it
//! ```
//!
//! The diffusion's state shares the prognostic fields: they are moved into it for its
//! call and back (no copies). Halo exchanges go through the
//! [`Exchange`] hook (a no-op on one process).
//!
//! [`DeviceDycore`] runs the same step with the whole state on a CUDA device (the
//! solver's device state, the diffusion bound to its prognostic buffers, swaps without
//! copies); both loops share the step (`run_step`).

use foehn::error::{Error, Result};
use foehn_icon::common::exchange::{Exchange, NoExchange};
use foehn_icon::common::state::PrognosticState;
use foehn_icon::diffusion::component::state::DiffusionState;
use foehn_icon::diffusion::component::Diffusion;
use foehn_icon::solve_nonhydro::component::{SolveNonhydro, SolveNonhydroState, SubstepFlags};
use foehn_icon::solve_nonhydro::config::{second_order_divdamp_factor, NonHydrostaticConfig};

mod device;
pub use device::DeviceDycore;

/// ICON's factor of `vcfl_threshold` above which the CFL watch mode starts.
pub const CFL_ENTER_WATCH_MODE: f64 = 0.81;
/// ICON's factor of `vcfl_threshold` below which one substep less still keeps the CFL
/// number under it (`mvcfl·n/(n − 1) < 0.9·vcfl_threshold`).
pub const CFL_DECREASE: f64 = 0.9;
/// ICON's factor of `vcfl_threshold` below which the watch mode ends (at the nominal
/// substep count).
pub const CFL_LEAVE_WATCH_MODE: f64 = 0.76;

/// The loop's settings (ICON's `dtime`, `ndyn_substeps`, `ndyn_substeps_max`,
/// `vcfl_threshold`, the diffusion switches and `lprep_adv`).
#[derive(Debug, Clone, PartialEq)]
pub struct LoopSettings {
    /// Time step, s (ICON `dtime`).
    pub dtime: f64,
    /// Nominal substeps per step (ICON `ndyn_substeps`, default 5).
    pub ndyn_substeps: usize,
    /// Most substeps the CFL watch mode may use (ICON `ndyn_substeps_max`).
    pub ndyn_substeps_max: usize,
    /// The vertical CFL number the watch mode keeps under (ICON `vcfl_threshold`, 0.85).
    pub vcfl_threshold: f64,
    /// Horizontal diffusion once per step (ICON `lhdiff_rcf` with diffusion on).
    pub apply_diffusion: bool,
    /// Diffusion with the initial-run coefficients before the first step (ICON4Py's
    /// driver `apply_initial_stabilization`).
    pub diffuse_before_loop: bool,
    /// Prepare the tracer advection's fluxes (ICON `lprep_adv`; false without tracers).
    pub lprep_adv: bool,
}

impl LoopSettings {
    /// ICON's defaults for a time step of `dtime` seconds: 5 substeps (at most 8), CFL
    /// threshold 0.85, diffusion every step and before the loop, no tracer fluxes.
    pub fn icon(dtime: f64) -> LoopSettings {
        LoopSettings {
            dtime,
            ndyn_substeps: 5,
            ndyn_substeps_max: 8,
            vcfl_threshold: 0.85,
            apply_diffusion: true,
            diffuse_before_loop: true,
            lprep_adv: false,
        }
    }

    /// Refuses settings the loop cannot run, saying which and why.
    pub fn validate(&self) -> Result<()> {
        let bad = |message: String| Err(Error::Field(format!("time loop: {message}")));
        if !(self.dtime.is_finite() && self.dtime > 0.0) {
            return bad(format!("dtime = {} s must be positive", self.dtime));
        }
        if self.ndyn_substeps == 0 {
            return bad("ndyn_substeps must be at least 1".into());
        }
        if self.ndyn_substeps_max < self.ndyn_substeps {
            return bad(format!(
                "ndyn_substeps_max = {} is below ndyn_substeps = {}",
                self.ndyn_substeps_max, self.ndyn_substeps
            ));
        }
        if !(self.vcfl_threshold.is_finite() && self.vcfl_threshold > 0.0) {
            return bad(format!(
                "vcfl_threshold = {} must be positive",
                self.vcfl_threshold
            ));
        }
        Ok(())
    }
}

/// ICON's CFL watch mode: the substep count `ndyn_substeps_var` between the nominal
/// and the largest, raised when the vertical CFL number exceeds the threshold and
/// lowered again when one substep less keeps it below.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CflWatch {
    /// Whether the watch mode is on (ICON `lcfl_watch_mode`).
    pub active: bool,
    /// Substeps of the next step (ICON `ndyn_substeps_var`).
    pub ndyn_substeps_var: usize,
    nominal: usize,
    max: usize,
    threshold: f64,
}

impl CflWatch {
    /// Off, at the nominal substep count of `settings`.
    pub fn new(settings: &LoopSettings) -> CflWatch {
        CflWatch {
            active: false,
            ndyn_substeps_var: settings.ndyn_substeps,
            nominal: settings.ndyn_substeps,
            max: settings.ndyn_substeps_max,
            threshold: settings.vcfl_threshold,
        }
    }

    /// Updates the mode and the substep count after a step whose largest vertical CFL
    /// number was `cfl` (ICON `mo_nh_stepping`, after the dynamics of a step).
    pub fn update(&mut self, cfl: f64) {
        let thr = self.threshold;
        if !self.active {
            self.active = cfl > CFL_ENTER_WATCH_MODE * thr;
            return;
        }
        let n = self.ndyn_substeps_var;
        if cfl > thr {
            let add = ((n as f64) * (cfl - thr) / thr).round().max(1.0) as usize;
            self.ndyn_substeps_var = (n + add).min(self.max);
        } else if n > self.nominal && cfl * (n as f64) / ((n - 1) as f64) < CFL_DECREASE * thr {
            self.ndyn_substeps_var = n - 1;
        }
        if self.ndyn_substeps_var == self.nominal && cfl < CFL_LEAVE_WATCH_MODE * thr {
            self.active = false;
        }
    }
}

/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepSummary {
    /// The step's number (0 = the first).
    pub step: u64,
    /// Simulated time at its end, s.
    pub time: f64,
    /// Substeps it took.
    pub substeps: usize,
    /// Its largest vertical CFL number (ICON `max_vcfl_dyn`).
    pub max_vertical_cfl: f64,
}

/// The loop's bookkeeping, the same on the host and on a device: its settings, the CFL
/// watch mode, the steps done and the simulated time.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopClock {
    pub(crate) settings: LoopSettings,
    pub(crate) watch: CflWatch,
    pub(crate) step: u64,
    pub(crate) time: f64,
}

impl LoopClock {
    /// At time 0 with `settings` (validated).
    pub(crate) fn new(settings: LoopSettings) -> Result<LoopClock> {
        settings.validate()?;
        Ok(LoopClock {
            watch: CflWatch::new(&settings),
            settings,
            step: 0,
            time: 0.0,
        })
    }

    /// The settings.
    pub fn settings(&self) -> &LoopSettings {
        &self.settings
    }

    /// The CFL watch mode.
    pub fn cfl_watch(&self) -> CflWatch {
        self.watch
    }

    /// Steps done.
    pub fn steps_done(&self) -> u64 {
        self.step
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.time
    }
}

/// Refuses a loop that would diffuse without a diffusion component.
fn check_diffusion(settings: &LoopSettings, given: bool) -> Result<()> {
    if !given && (settings.apply_diffusion || settings.diffuse_before_loop) {
        return Err(Error::Field(
            "time loop: diffusion is switched on but no diffusion component was given".into(),
        ));
    }
    Ok(())
}

/// The dycore on its state: the solver, the diffusion (with its own state, whose
/// prognostic fields are the solver's for the time of its call) and the loop's
/// counters.
pub struct Dycore<'a> {
    pub(crate) solver: SolveNonhydro<'a>,
    diffusion: Option<(Diffusion<'a>, DiffusionState)>,
    pub(crate) state: SolveNonhydroState,
    pub(crate) clock: LoopClock,
    exchange: Box<dyn Exchange + 'a>,
}

impl<'a> Dycore<'a> {
    /// The loop of `settings` (validated) over `solver` and `diffusion` (required when
    /// `settings.apply_diffusion` or `diffuse_before_loop`), starting from `state`'s
    /// current prognostic fields at time 0, on one process.
    pub fn new(
        solver: SolveNonhydro<'a>,
        diffusion: Option<(Diffusion<'a>, DiffusionState)>,
        state: SolveNonhydroState,
        settings: LoopSettings,
    ) -> Result<Dycore<'a>> {
        let clock = LoopClock::new(settings)?;
        check_diffusion(&clock.settings, diffusion.is_some())?;
        if let Some((_, d)) = &diffusion {
            if d.nlev() != state.nlev() {
                return Err(Error::Field(format!(
                    "time loop: the diffusion state has {} levels, the solver's {}",
                    d.nlev(),
                    state.nlev()
                )));
            }
        }
        Ok(Dycore {
            solver,
            diffusion,
            state,
            clock,
            exchange: Box::new(NoExchange),
        })
    }

    /// Halo exchanges through `exchange` instead of the single-process no-op.
    pub fn with_exchange(mut self, exchange: Box<dyn Exchange + 'a>) -> Dycore<'a> {
        self.exchange = exchange;
        self
    }

    /// The prognostic state at the current time.
    pub fn prognostic(&self) -> &PrognosticState {
        &self.state.current
    }

    /// The solver's whole state.
    pub fn state(&self) -> &SolveNonhydroState {
        &self.state
    }

    /// The solver's whole state, mutably: for a caller that changes the state between
    /// steps (a forcing, a perturbation in a test).
    pub fn state_mut(&mut self) -> &mut SolveNonhydroState {
        &mut self.state
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.clock.time
    }

    /// The settings, the CFL watch mode and the steps done.
    pub fn clock(&self) -> &LoopClock {
        &self.clock
    }

    /// One time step (see the module doc).
    pub fn step(&mut self) -> Result<StepSummary> {
        run_step(self)
    }

    /// The diffusion on the state the step is writing (`next`), or on `current` before
    /// the first step (`initial_run`).
    fn diffuse(&mut self, initial_run: bool, dtime: f64) -> Result<()> {
        let Some((diffusion, dstate)) = &mut self.diffusion else {
            return Ok(());
        };
        let target = if initial_run {
            &mut self.state.current
        } else {
            &mut self.state.next
        };
        std::mem::swap(&mut dstate.prognostic, target);
        let result = diffusion.run(dstate, dtime, initial_run);
        std::mem::swap(&mut dstate.prognostic, target);
        result
    }
}

/// What a time step does to a dycore's state, on the host ([`Dycore`]) or with the
/// state on a device ([`DeviceDycore`]); [`run_step`] calls them in ICON's order.
trait StepOps {
    /// The loop's bookkeeping.
    fn clock(&mut self) -> &mut LoopClock;
    /// The solver's configuration (for the divergence-damping schedule).
    fn config(&self) -> &NonHydrostaticConfig;
    /// Swaps the vertical-wind tendency slots.
    fn swap_vertical_wind_tendency(&mut self);
    /// Swaps the normal-wind tendency slots.
    fn swap_normal_wind_tendency(&mut self);
    /// Swaps the prognostic pair.
    fn swap_prognostic(&mut self);
    /// One substep of the solver.
    fn substep(&mut self, fac: f64, dt: f64, n: usize, flags: SubstepFlags) -> Result<()>;
    /// The diffusion on `next`, or on `current` before the first step (`initial_run`).
    fn diffuse(&mut self, initial_run: bool, dtime: f64) -> Result<()>;
    /// The step's largest vertical CFL number, reset to 0.
    fn take_max_vertical_cfl(&mut self) -> Result<f64>;
}

/// One time step (see the module doc) of the dycore `d`, advancing its clock.
/// Each step, substep and diffusion call is a component span (timer and NVTX range,
/// [`foehn_metrics::span`]).
fn run_step(d: &mut impl StepOps) -> Result<StepSummary> {
    use foehn_metrics::span::{names, span};
    let _step = span(names::STEP);
    let (settings, step, time) = {
        let c = d.clock();
        (c.settings.clone(), c.step, c.time)
    };
    let dtime = settings.dtime;
    let first_step = step == 0;
    if first_step && settings.diffuse_before_loop {
        let _span = span(names::DIFFUSION);
        d.diffuse(true, dtime)?;
    }
    let n = d.clock().watch.ndyn_substeps_var;
    let dt = dtime / n as f64;
    let divdamp_fac_o2 = second_order_divdamp_factor(d.config(), time + 0.5 * dtime, dtime);
    for s in 0..n {
        let flags = SubstepFlags {
            at_first_substep: s == 0,
            at_last_substep: s + 1 == n,
            lprep_adv: settings.lprep_adv,
            at_initial_timestep: first_step,
            is_iau_active: false,
        };
        if !(first_step && s == 0) {
            d.swap_vertical_wind_tendency();
        }
        if s != 0 {
            d.swap_normal_wind_tendency();
        }
        span(names::SOLVE_NONHYDRO).run(|| d.substep(divdamp_fac_o2, dt, n, flags))?;
        if s + 1 != n {
            d.swap_prognostic();
        }
    }
    if settings.apply_diffusion {
        let _span = span(names::DIFFUSION);
        d.diffuse(false, dtime)?;
    }
    d.swap_prognostic();
    let cfl = d.take_max_vertical_cfl()?;
    let clock = d.clock();
    clock.watch.update(cfl);
    clock.step += 1;
    clock.time += dtime;
    Ok(StepSummary {
        step,
        time: time + dtime,
        substeps: n,
        max_vertical_cfl: cfl,
    })
}

impl StepOps for Dycore<'_> {
    fn clock(&mut self) -> &mut LoopClock {
        &mut self.clock
    }

    fn config(&self) -> &NonHydrostaticConfig {
        self.solver.config()
    }

    fn swap_vertical_wind_tendency(&mut self) {
        self.state.diagnostic.swap_vertical_wind_tendency();
    }

    fn swap_normal_wind_tendency(&mut self) {
        self.state.diagnostic.swap_normal_wind_tendency();
    }

    fn swap_prognostic(&mut self) {
        self.state.swap_prognostic();
    }

    fn substep(&mut self, fac: f64, dt: f64, n: usize, flags: SubstepFlags) -> Result<()> {
        let exchange = self.exchange.as_mut();
        self.solver
            .time_step(&mut self.state, fac, dt, n, flags, 0.0, exchange)
    }

    fn diffuse(&mut self, initial_run: bool, dtime: f64) -> Result<()> {
        Dycore::diffuse(self, initial_run, dtime)
    }

    fn take_max_vertical_cfl(&mut self) -> Result<f64> {
        Ok(std::mem::take(&mut self.state.max_vertical_cfl))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watch() -> CflWatch {
        CflWatch::new(&LoopSettings::icon(300.0))
    }

    #[test]
    fn the_watch_mode_starts_above_0_81_of_the_threshold_without_changing_the_substeps() {
        let mut w = watch();
        w.update(0.81 * 0.85);
        assert!(!w.active, "exactly 0.81·threshold does not start it");
        w.update(0.70);
        assert!(w.active);
        assert_eq!(w.ndyn_substeps_var, 5);
    }

    #[test]
    fn above_the_threshold_substeps_grow_by_icons_rule_up_to_the_maximum() {
        let mut w = watch();
        w.update(0.8);
        // n·(cfl − thr)/thr = 5·0.05/0.85 = 0.29 → at least one more.
        w.update(0.9);
        assert_eq!(w.ndyn_substeps_var, 6);
        // 6·(1.7 − 0.85)/0.85 = 6 more, capped at 8.
        w.update(1.7);
        assert_eq!(w.ndyn_substeps_var, 8);
    }

    #[test]
    fn substeps_fall_one_at_a_time_and_the_mode_ends_at_the_nominal_count() {
        let mut w = watch();
        w.update(0.8);
        // 5·(1.2 − 0.85)/0.85 = 2.06 → 2 more.
        w.update(1.2);
        assert_eq!(w.ndyn_substeps_var, 7);
        // 0.7·7/6 = 0.817 ≥ 0.9·0.85 = 0.765: keep 7.
        w.update(0.7);
        assert_eq!((w.ndyn_substeps_var, w.active), (7, true));
        // 0.65·7/6 = 0.758 < 0.765: one less, still watching.
        w.update(0.65);
        assert_eq!((w.ndyn_substeps_var, w.active), (6, true));
        // 0.6·6/5 = 0.72 < 0.765: back at 5, and 0.6 < 0.76·0.85 = 0.646 ends the mode.
        w.update(0.6);
        assert_eq!((w.ndyn_substeps_var, w.active), (5, false));
    }

    #[test]
    fn settings_the_loop_cannot_run_are_refused_by_name() {
        let ok = LoopSettings::icon(300.0);
        assert!(ok.validate().is_ok());
        for (bad, word) in [
            (
                LoopSettings {
                    dtime: 0.0,
                    ..ok.clone()
                },
                "dtime",
            ),
            (
                LoopSettings {
                    dtime: f64::NAN,
                    ..ok.clone()
                },
                "dtime",
            ),
            (
                LoopSettings {
                    ndyn_substeps: 0,
                    ..ok.clone()
                },
                "ndyn_substeps",
            ),
            (
                LoopSettings {
                    ndyn_substeps_max: 4,
                    ..ok.clone()
                },
                "ndyn_substeps_max",
            ),
            (
                LoopSettings {
                    vcfl_threshold: -1.0,
                    ..ok.clone()
                },
                "vcfl_threshold",
            ),
        ] {
            let e = bad.validate().unwrap_err().to_string();
            assert!(e.contains(word), "{e}");
        }
    }
}
