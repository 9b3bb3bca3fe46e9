//! Tuned programs for a run (`foehn run jw --schedule tuned`): before a component's calls
//! are compiled for the device, each call's schedule goes through the autotuner
//! ([`foehn::runtime::tune`]) when the backend was asked to tune
//! ([`CudaBackend::tune_programs`]).
//!
//! The tuner measures a program on host fields. A call is measured on the realistic
//! inputs of its own program variant that the backend's provider gives (the dycore
//! catalog's, which `foehn bench` measures on), renamed to the component's field names,
//! not on the run's state: measuring launches the kernels many times, and the state must
//! not change. The inputs are made only when a tuning is measured (at R2B6 they take
//! seconds a program), not when it is reused. The choice is persisted in the
//! compiled-program cache (keyed by the program, its schedule, the grid size and the
//! device), so only a run's first call of a program variant on a device measures; later
//! runs reuse it. Calls are tuned one after another (each tuning compiles its candidates
//! in parallel), so no two programs share the device while one is timed.

use crate::common::runner::Call;
use foehn::error::Result;
use foehn::ir::{self, Role};
use foehn::runtime::cuda::CudaBackend;
use foehn::runtime::field::Args;
use foehn::runtime::tune::{self, InputsProvider};
use foehn_grid::Grid;
use rayon::prelude::*;

/// Programs whose inputs are made side by side before they are measured one by one:
/// making realistic inputs on the host takes longer than measuring them (~16 s against
/// ~5 s a program at R2B6 × 80), and a batch's inputs stay in host memory together (up
/// to several GB a program).
const BATCH: usize = 4;

/// The schedules `calls` are compiled with (each call's own, `idx32` already decided):
/// tuned when the backend tunes programs, else `schedules` unchanged. A program called
/// several times under one schedule is tuned once. A tuning measured now prints a line
/// on stderr (a reused one says nothing: a run binds each program several times). A
/// program without inputs keeps its schedule, and a line on stderr says so.
pub(crate) fn tuned_schedules(
    cuda: &CudaBackend,
    calls: &[&Call],
    schedules: Vec<ir::Schedule>,
    grid: &Grid,
    nlev: usize,
) -> Result<Vec<ir::Schedule>> {
    let Some(provider) = cuda.tuning_inputs() else {
        return Ok(schedules);
    };
    // The distinct (program, schedule) pairs, by their first call; `of[i]`: call `i`'s.
    let hashes: Vec<_> = calls.iter().map(|c| c.program().content_hash()).collect();
    let mut distinct: Vec<usize> = Vec::new();
    let mut of = Vec::with_capacity(calls.len());
    for i in 0..calls.len() {
        let same = |&j: &usize| hashes[j] == hashes[i] && schedules[j] == schedules[i];
        of.push(distinct.iter().position(same).unwrap_or_else(|| {
            distinct.push(i);
            distinct.len() - 1
        }));
    }
    let make = |i: usize| renamed_inputs(provider, calls[i], grid, nlev);
    let mut tuned: Vec<Option<ir::Schedule>> = vec![None; distinct.len()];
    // Tunings measured before are only read; their inputs are made only should the
    // cache entry be gone by then.
    let measured_before = |i: usize| {
        let case = case_of(
            calls[i],
            &schedules[i],
            grid,
            nlev,
            tune::Inputs::Made(&Args::new),
        );
        tune::is_cached(cuda, &case)
    };
    let (hits, misses): (Vec<usize>, Vec<usize>) =
        (0..distinct.len()).partition(|&d| measured_before(distinct[d]));
    for d in hits {
        let i = distinct[d];
        let inputs = || make(i).unwrap_or_default();
        let case = case_of(
            calls[i],
            &schedules[i],
            grid,
            nlev,
            tune::Inputs::Made(&inputs),
        );
        tuned[d] = Some(tuned_schedule(cuda, &case)?);
    }
    for batch in misses.chunks(BATCH) {
        let made: Vec<Option<Args>> = batch.par_iter().map(|&d| make(distinct[d])).collect();
        for (&d, args) in batch.iter().zip(&made) {
            let i = distinct[d];
            match args {
                Some(args) => {
                    let case = case_of(
                        calls[i],
                        &schedules[i],
                        grid,
                        nlev,
                        tune::Inputs::Given(args),
                    );
                    tuned[d] = Some(tuned_schedule(cuda, &case)?);
                }
                None => eprintln!(
                    "tuning: `{}` has no inputs to measure on; it runs untuned",
                    calls[i].ir.name
                ),
            }
        }
    }
    Ok(schedules
        .into_iter()
        .zip(of)
        .map(|(schedule, d)| tuned[d].clone().unwrap_or(schedule))
        .collect())
}

/// `case` tuned (measured now, with a line on stderr, or read from the cache) and its
/// schedule with the choices applied.
fn tuned_schedule(cuda: &CudaBackend, case: &tune::Case) -> Result<ir::Schedule> {
    let tuning = tune::tune(cuda, case)?;
    if tuning.measured_now() {
        let (untuned, tuned) = tuning.total_ms();
        eprintln!(
            "tuned {} [{}]: {untuned:.3} ms → {tuned:.3} ms over its kernels",
            case.p.name, case.p.variant
        );
    }
    Ok(tune::apply(case.p, case.schedule, &tuning))
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

/// The inputs `provider` gives for the call's own program variant, under the names of
/// the component ([`Call::renamed`]; argument order is the same in both): what the
/// tuner measures the call's program on. `None` where the provider has none.
pub fn renamed_inputs(
    provider: InputsProvider,
    call: &Call,
    grid: &Grid,
    nlev: usize,
) -> Option<Args> {
    let mut own = provider(&call.ir, grid, nlev)?;
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
    Some(args)
}
