//! foehn's CUDA runtime: device discovery, NVRTC compilation to CUBIN, device memory,
//! low-overhead kernel launches on one stream, and event timing.
//!
//! CUDA is loaded at run time (cudarc with dynamic loading): this crate builds and its
//! callers run on machines without CUDA; [`Gpu::open`] then answers with the reason no
//! device is available instead of failing.
#![deny(missing_docs)]

mod bandwidth;
mod compile;
mod device;
mod graph;
mod memory;
mod require;

pub use bandwidth::{copy_bandwidth, CopyBandwidth};
pub use compile::{compile_cubin, nvrtc_version, CompileError};
pub use device::{Gpu, GpuError, Kernel, Module, Timer};
pub use graph::{Graph, Recordings};
pub use memory::DeviceBuffer;
pub use require::{gpu_required, skip_without_gpu, REQUIRE_GPU_VAR};

/// A device pointer as the driver API sees it.
pub type DevicePtr = cudarc::driver::sys::CUdeviceptr;
