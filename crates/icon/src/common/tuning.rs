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
/// tuned when the backend tunes programs, else `schedules` unchanged. A tuning measured
/// now prints a line on stderr (a reused one says nothing: a run binds each program
/// several times). A call whose program has no inputs keeps its schedule, and a line on
/// stderr says so.
pub(crate) fn tuned_schedules(
    cuda: &CudaBackend,
    calls: &[&Call],
    mut schedules: Vec<ir::Schedule>,
    grid: &Grid,
    nlev: usize,
) -> Result<Vec<ir::Schedule>> {
    let Some(provider) = cuda.tuning_inputs() else {
        return Ok(schedules);
    };
    let fixed = schedules.clone();
    let case = |i: usize, args| case_of(calls[i], &fixed[i], grid, nlev, args);
    let none = Args::new;
    let cached = |i: usize| tune::is_cached(cuda, &case(i, tune::Inputs::Made(&none)));
    // Those measured before first: their tunings are only read.
    let mut order: Vec<usize> = (0..calls.len()).collect();
    order.sort_by_key(|&i| !cached(i));
    for chunk in order.chunks(BATCH) {
        // Inputs for the batch's programs not measured before, once per program (a
        // program called twice is measured once: the second call finds the first's
        // tuning in the cache; should it not, it makes its own inputs then).
        let hashes: Vec<_> = chunk
            .iter()
            .map(|&i| calls[i].program().content_hash())
            .collect();
        let made: Vec<Option<Option<Args>>> = chunk
            .par_iter()
            .enumerate()
            .map(|(n, &i)| {
                let first = !hashes[..n].contains(&hashes[n]);
                (first && !cached(i)).then(|| renamed_inputs(provider, calls[i], grid, nlev))
            })
            .collect();
        // Programs the provider has no inputs for run untuned (said once a batch).
        let without: Vec<_> = (0..chunk.len())
            .filter(|&n| matches!(made[n], Some(None)))
            .map(|n| hashes[n])
            .collect();
        for (n, (&i, made)) in chunk.iter().zip(made).enumerate() {
            if without.contains(&hashes[n]) {
                if matches!(made, Some(None)) {
                    eprintln!(
                        "tuning: `{}` has no inputs to measure on; it runs untuned",
                        calls[i].ir.name
                    );
                }
                continue;
            }
            let make = || renamed_inputs(provider, calls[i], grid, nlev).unwrap_or_default();
            let inputs = match &made {
                Some(Some(args)) => tune::Inputs::Given(args),
                _ => tune::Inputs::Made(&make),
            };
            let case = case_of(calls[i], &fixed[i], grid, nlev, inputs);
            let tuning = tune::tune(cuda, &case)?;
            if tuning.measured_now() {
                let (untuned, tuned) = tuning.total_ms();
                let p = case.p;
                eprintln!(
                    "tuned {} [{}]: {untuned:.3} ms → {tuned:.3} ms over its kernels",
                    p.name, p.variant
                );
            }
            schedules[i] = tune::apply(case.p, case.schedule, &tuning);
        }
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
