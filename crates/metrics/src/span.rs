//! Component timers of a run: a [`Span`] around a component call (a solve_nonhydro
//! substep, the diffusion, velocity advection's predictor or corrector, a time step) opens
//! an NVTX range named after it ([`crate::nvtx`]) and records the call's host wall time
//! in a process-wide [`Timers`] that the end-of-run report and `--timers` read
//! ([`component_timers`]).
//!
//! Recording is two clock reads, a lock and a push per call, always on (component calls
//! are few: one per substep). On the GPU a component call only enqueues its kernels, so
//! its time is the host's unless something waits for the device inside it (per-program
//! kernel timing, `FOEHN_METRICS=10`, does).

use crate::nvtx::Range;
use crate::timer_report::Timers;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// Component names the dycore's spans use.
pub mod names {
    /// One time step (substeps, diffusion, swaps).
    pub const STEP: &str = "dycore step";
    /// One solve_nonhydro substep (predictor, corrector, fix-ups).
    pub const SOLVE_NONHYDRO: &str = "solve_nonhydro";
    /// One diffusion call.
    pub const DIFFUSION: &str = "diffusion";
    /// Velocity advection's predictor.
    pub const VELOCITY_ADVECTION_PREDICTOR: &str = "velocity_advection predictor";
    /// Velocity advection's corrector.
    pub const VELOCITY_ADVECTION_CORRECTOR: &str = "velocity_advection corrector";
    /// Writing one output.
    pub const OUTPUT: &str = "output";
}

fn global() -> &'static Mutex<Timers> {
    static TIMERS: OnceLock<Mutex<Timers>> = OnceLock::new();
    TIMERS.get_or_init(|| Mutex::new(Timers::new()))
}

fn with_timers<T>(f: impl FnOnce(&mut Timers) -> T) -> T {
    let mut guard = global()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    f(&mut guard)
}

/// Times one call of a component until dropped, inside an NVTX range of its name.
#[derive(Debug)]
#[must_use = "the call is timed until the guard is dropped"]
pub struct Span {
    name: &'static str,
    start: Instant,
    // Closed after `drop` has taken the time.
    _range: Range,
}

impl Span {
    /// Starts timing a call of `name`.
    pub fn new(name: &'static str) -> Span {
        Span {
            name,
            _range: Range::new(name),
            start: Instant::now(),
        }
    }

    /// Runs `f` inside this span (ends when `f` returns).
    pub fn run<T>(self, f: impl FnOnce() -> T) -> T {
        f()
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        let seconds = self.start.elapsed().as_secs_f64();
        with_timers(|t| t.record(self.name, seconds));
    }
}

/// Starts timing a call of component `name` (see [`Span`]).
pub fn span(name: &'static str) -> Span {
    Span::new(name)
}

/// A copy of the component timers recorded so far in this process.
pub fn component_timers() -> Timers {
    with_timers(|t| t.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_record_one_call_each() {
        let name = "span test component";
        let before = component_timers().samples(name).len();
        for _ in 0..3 {
            let _s = span(name);
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let t = component_timers();
        let s = t.samples(name);
        assert_eq!(s.len(), before + 3);
        assert!(s.iter().all(|&x| (0.002..1.0).contains(&x)), "{s:?}");
        assert!(t.names().iter().any(|n| n == name));
    }
}
