//! Helpers shared by the test binaries that run programs on the native CPU backend.

use foehn::codegen::Sizes;
use foehn::ir::{Program, Schedule};
use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::field::Args;
use foehn::runtime::interp::Interpreter;
use foehn_cache::Cache;
use foehn_grid::Grid;
use std::sync::OnceLock;

/// One CPU backend per test binary, with its compiled-program cache in a temporary
/// directory.
pub fn cpu() -> &'static CpuBackend {
    static B: OnceLock<(tempfile::TempDir, CpuBackend)> = OnceLock::new();
    &B.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let b = CpuBackend::new(Cache::at(d.path()));
        (d, b)
    })
    .1
}

/// `p` compiled as `schedule` says and run natively on a copy of `args` (sized for
/// `grid` and the arguments' levels): the results.
#[allow(dead_code)] // not every test binary runs whole programs through it
pub fn run_cpu(p: &Program, schedule: &Schedule, grid: &Grid, args: &Args) -> Args {
    let mut got = args.clone();
    let nlev = got.check(p, grid).unwrap();
    let c = cpu().compile(p, schedule, Sizes::of(grid, nlev)).unwrap();
    cpu().run_compiled(p, &c, grid, &mut got).unwrap();
    got
}

/// On every compiler grid (global with pentagons, limited area), random arguments of `p`
/// with `nlev` levels (seed `seed` plus the grid's number): each `(program, schedule)` of
/// `runs` (`p` optimised, or as written) on the CPU backend gives what the interpreter
/// gives on `p` as written.
#[allow(dead_code)] // not every test binary compares schedules with the interpreter
pub fn assert_cpu_agrees(
    what: &str,
    p: &Program,
    runs: &[(&Program, &Schedule)],
    nlev: usize,
    seed: u64,
) {
    for (g, grid) in foehn_testkit::grids::compiler_grids().iter().enumerate() {
        let args = foehn_testkit::random_args(p, grid, nlev, seed + g as u64);
        let mut want = args.clone();
        Interpreter.run_ir(p, grid, &mut want).unwrap();
        for (program, schedule) in runs {
            let got = run_cpu(program, schedule, grid, &args);
            foehn_testkit::assert_same_where_defined(what, p, &want, &got);
        }
    }
}
