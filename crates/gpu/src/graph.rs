//! CUDA graphs: a program's launches recorded once and replayed with one driver call,
//! so that the host time of a call no longer grows with its number of kernels.

use crate::device::{drv, Gpu, GpuError};
use cudarc::driver::safe::CudaGraph;
use cudarc::driver::sys;

/// Recorded work of the stream, replayed by [`Graph::launch`] (kernel arguments and
/// copies as they were when recorded).
pub struct Graph {
    graph: CudaGraph,
}

impl Gpu {
    /// Records the work `enqueue` puts on the stream into a [`Graph`] instead of running
    /// it (`None` when it put none); `map` turns driver errors into the caller's. The
    /// recording ends even when `enqueue` fails (its error is returned then).
    pub fn record<E>(
        &self,
        enqueue: impl FnOnce() -> Result<(), E>,
        map: impl Fn(GpuError) -> E,
    ) -> Result<Option<Graph>, E> {
        let stream = self.stream();
        drv(
            "cuStreamBeginCapture",
            stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
        )
        .map_err(&map)?;
        let recorded = enqueue();
        let ended = drv(
            "cuStreamEndCapture",
            stream.end_capture(sys::CUgraphInstantiate_flags(0)),
        );
        recorded?;
        Ok(ended.map_err(map)?.map(|graph| Graph { graph }))
    }
}

impl Graph {
    /// Enqueues the recorded work on the stream it was recorded from (asynchronous).
    pub fn launch(&self) -> Result<(), GpuError> {
        drv("cuGraphLaunch", self.graph.launch())
    }
}
