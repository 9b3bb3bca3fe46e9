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
