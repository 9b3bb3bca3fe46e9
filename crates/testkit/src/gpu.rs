//! The CUDA backend of a GPU test, or the test's skip where no GPU can be used.

use foehn::runtime::cuda::CudaBackend;
use foehn_cache::Cache;

/// A CUDA backend whose compiled-program cache lies in a fresh temporary directory
/// (returned with it: keep it alive as long as the backend), or `None` after saying why
/// `what` is skipped — a failure instead when `FOEHN_REQUIRE_GPU` is set
/// ([`foehn_gpu::skip_without_gpu`]).
pub fn cuda_backend(what: &str) -> Option<(tempfile::TempDir, CudaBackend)> {
    let dir = tempfile::tempdir().expect("a temporary directory for the GPU test's cache");
    match CudaBackend::open(Cache::at(dir.path())) {
        Ok(cuda) => Some((dir, cuda)),
        Err(e) => {
            foehn_gpu::skip_without_gpu(what, &e);
            None
        }
    }
}

/// On every compiler grid (global with pentagons, limited area), random arguments of `p`
/// with `nlev` levels (seed `seed` plus the grid's number): `cuda` running `opt` as
/// `schedule` says gives what the interpreter gives on `p` as written.
pub fn assert_gpu_agrees(
    what: &str,
    cuda: &CudaBackend,
    p: &foehn::ir::Program,
    (opt, schedule): (&foehn::ir::Program, &foehn::ir::Schedule),
    nlev: usize,
    seed: u64,
) {
    for (g, grid) in crate::grids::compiler_grids().iter().enumerate() {
        let args = crate::random_args(p, grid, nlev, seed + g as u64);
        let mut want = args.clone();
        foehn::runtime::interp::Interpreter
            .run_ir(p, grid, &mut want)
            .unwrap();
        let mut got = args;
        cuda.run_scheduled(opt, schedule, grid, &mut got).unwrap();
        crate::assert_same_where_defined(what, p, &want, &got);
    }
}
