//! Tuned programs for a run (`foehn run jw --schedule tuned`): before a component's calls
//! are compiled for the device, each call's schedule goes through the autotuner
//! ([`foehn::runtime::tune`]) when the backend was asked to tune
//! ([`CudaBackend::tune_programs`]).
//!
//! The tuner measures a program on host fields. A call is measured on its program's
//! realistic catalog inputs ([`crate::catalog()`], the inputs `foehn bench` measures on),
//! generated for the call's own program variant and renamed to the component's field
//! names, not on the run's state: measuring launches the kernels many times, and the state
//! must not change. The inputs are made only when a tuning is measured (at R2B6 they take
//! seconds a program), not when it is reused. The choice is persisted in the compiled-program cache (keyed by the
//! program, its schedule, the grid size and the device), so only a run's first call of a
//! program variant on a device measures; later runs reuse it. Calls are tuned one after
//! another (each tuning compiles its candidates in parallel), so no two programs share
//! the device while one is timed.

use crate::common::runner::Call;
use foehn::error::Result;
use foehn::ir::{self, Role};
use foehn::runtime::cuda::CudaBackend;
use foehn::runtime::field::Args;
use foehn::runtime::tune;
use foehn_grid::Grid;
use foehn_testkit::catalog::Entry;
use rayon::prelude::*;

/// Seed of the tuning inputs (fixed: the same inputs, the same measurement conditions).
const SEED: u64 = 0x7u64 << 40 | 0x0075_6e65;

/// Programs whose inputs are made side by side before they are measured one by one:
/// making realistic inputs on the host takes longer than measuring them (~16 s against
/// ~5 s a program at R2B6 × 80), and a batch's inputs stay in host memory together (up
/// to several GB a program).
const BATCH: usize = 4;

/// The schedules `calls` are compiled with (each call's own, `idx32` already decided):
/// tuned when the backend tunes programs, else `schedules` unchanged. A tuning measured
/// now prints a line on stderr (a reused one says nothing: a run binds each program
/// several times). A call whose program has no catalog inputs keeps its schedule, and a
/// line on stderr says so.
pub(crate) fn tuned_schedules(
    cuda: &CudaBackend,
    calls: &[&Call],
    mut schedules: Vec<ir::Schedule>,
    grid: &Grid,
    nlev: usize,
) -> Result<Vec<ir::Schedule>> {
    if !cuda.tunes_programs() {
        return Ok(schedules);
    }
    let catalog = crate::catalog::catalog();
    let schedules_now = schedules.clone();
    let case = |i: usize, args| case_of(calls[i], &schedules_now[i], grid, nlev, args);
    let none = || Args::new();
    // The calls to tune, those measured before first (their tunings are only read).
    let mut todo: Vec<(usize, &Entry)> = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        match catalog.iter().find(|e| e.name == call.ir.name) {
            Some(entry) => todo.push((i, entry)),
            None => eprintln!(
                "tuning: `{}` has no catalog inputs to measure on; it runs untuned",
                call.ir.name
            ),
        }
    }
    todo.sort_by_key(|&(i, _)| !tune::is_cached(cuda, &case(i, tune::Inputs::Made(&none))));
    let mut tuned: Vec<(usize, ir::Schedule)> = Vec::new();
    let mut batch: Vec<(usize, &Entry, Option<Args>)> = Vec::new();
    for (n, &(i, entry)) in todo.iter().enumerate() {
        batch.push((i, entry, None));
        if batch.len() < BATCH && n + 1 < todo.len() {
            continue;
        }
        // Inputs for the batch's programs not measured before, once per program (a
        // program called twice is measured once: the second call finds the first's
        // tuning in the cache; should it not, it makes its own inputs then).
        let hashes: Vec<_> = batch
            .iter()
            .map(|b| calls[b.0].program().content_hash())
            .collect();
        batch
            .par_iter_mut()
            .enumerate()
            .for_each(|(n, (i, entry, args))| {
                let first = !hashes[..n].contains(&hashes[n]);
                if first && !tune::is_cached(cuda, &case(*i, tune::Inputs::Made(&none))) {
                    *args = Some(renamed_inputs(entry, calls[*i], grid, nlev));
                }
            });
        for (i, entry, args) in batch.drain(..) {
            let make = || renamed_inputs(entry, calls[i], grid, nlev);
            let inputs = match &args {
                Some(args) => tune::Inputs::Given(args),
                None => tune::Inputs::Made(&make),
            };
            let case = case_of(calls[i], &schedules_now[i], grid, nlev, inputs);
            let tuning = tune::tune(cuda, &case)?;
            if tuning.measured_now() {
                let (untuned, tuned) = tuning.total_ms();
                let p = case.p;
                eprintln!(
                    "tuned {} [{}]: {untuned:.3} ms → {tuned:.3} ms over its kernels",
                    p.name, p.variant
                );
            }
            tuned.push((i, tune::apply(case.p, case.schedule, &tuning)));
        }
    }
    for (i, schedule) in tuned {
        schedules[i] = schedule;
    }
    Ok(schedules)
}

/// What the tuner measures of `call` under `schedule`.
fn case_of<'a>(
    call: &'a Call,
    schedule: &'a ir::Schedule,
    grid: &'a Grid,
    nlev: usize,
    args: tune::Inputs<'a>,
) -> tune::Case<'a> {
    tune::Case {
        p: call.program(),
        schedule,
        grid,
        nlev,
        args,
    }
}

/// `entry`'s realistic inputs for the call's own program variant, under the names of
/// the component ([`Call::renamed`]; argument order is the same in both).
fn renamed_inputs(entry: &Entry, call: &Call, grid: &Grid, nlev: usize) -> Args {
    let mut own = (entry.inputs)(&call.ir, grid, nlev, SEED);
    let mut args = Args::new().with_nlev(nlev);
    let fields = call.ir.fields.iter().zip(&call.renamed.fields);
    for (from, to) in fields.filter(|(d, _)| d.role != Role::Temp) {
        if let Some(f) = own.take_field(&from.name) {
            args.set_field(&to.name, f);
        }
    }
    for (from, to) in call.ir.scalars.iter().zip(&call.renamed.scalars) {
        if let Some(x) = own.scalar(&from.name) {
            args.set_scalar(&to.name, x);
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::runner::{calls, optimised};
    use crate::fields::vertical::{VerticalConfig, VerticalGrid};
    use crate::solve_nonhydro::component::{plan, steps, SolveNonhydro, Statics, SubstepFlags};
    use crate::solve_nonhydro::config::NonHydrostaticConfig;

    /// Every optimised call of a first and a middle substep (velocity advection included)
    /// has catalog inputs, and renamed they are a complete, well-typed argument set of the
    /// program the device compiles: what the tuner measures on.
    #[test]
    fn every_substep_call_has_inputs_under_the_components_names() {
        let (grid, nlev) = (foehn_testkit::grids::global(), 10);
        let vertical = VerticalGrid::new(VerticalConfig::new(nlev));
        let config = NonHydrostaticConfig::default();
        let solver = SolveNonhydro::new(config.clone(), grid, &vertical, 5).unwrap();
        let statics = Statics::new(&config, grid, &vertical, 5);
        let catalog = crate::catalog::catalog();
        let (mut renamed, mut checked) = (0, 0);
        for first in [true, false] {
            let flags = SubstepFlags {
                at_first_substep: first,
                at_last_substep: !first,
                lprep_adv: false,
                at_initial_timestep: first,
                is_iau_active: false,
            };
            let items = steps::step_list(&solver.variants(flags, 0.0, 300.0));
            let segments = plan::unfused_segments(&statics, &items).unwrap();
            let steps: Vec<_> = segments.into_iter().flatten().map(optimised).collect();
            for call in calls(&steps) {
                let entry = catalog
                    .iter()
                    .find(|e| e.name == call.ir.name)
                    .unwrap_or_else(|| panic!("`{}` is not in the catalog", call.ir.name));
                let args = renamed_inputs(entry, call, grid, nlev);
                if let Err(e) = args.check(call.program(), grid) {
                    panic!("`{}`: {e}", call.ir.name);
                }
                renamed += usize::from(call.ir.fields != call.renamed.fields);
                checked += 1;
            }
        }
        assert!(
            renamed > 0,
            "no call renames its arguments: the test checks nothing"
        );
        assert!(checked >= 20, "{checked} calls in two substeps");
    }
}
