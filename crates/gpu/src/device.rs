//! Device, context, stream, modules, kernels and launches.

use crate::compile::{compile_cubin, nvrtc_version, CompileError};
use cudarc::driver::{result, sys, CudaContext, CudaFunction, CudaModule, CudaStream};
use cudarc::nvrtc::Ptx;
use std::ffi::c_void;
use std::sync::Arc;

/// Errors of the GPU runtime.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No usable CUDA device (no driver, no NVRTC, no device, or initialisation failed).
    #[error("no CUDA device found: {0}")]
    NoDevice(String),
    /// A CUDA driver call failed.
    #[error("CUDA driver error in {what}: {source}")]
    Driver {
        /// What was being done.
        what: String,
        /// The driver's error.
        source: result::DriverError,
    },
    /// NVRTC compilation failed.
    #[error(transparent)]
    Compile(#[from] CompileError),
}

pub(crate) fn drv<T>(what: &str, r: Result<T, result::DriverError>) -> Result<T, GpuError> {
    r.map_err(|source| GpuError::Driver {
        what: what.to_string(),
        source,
    })
}

/// One CUDA device with its primary context and the stream all work goes to.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    arch: (i32, i32),
    nvrtc: (i32, i32),
}

impl Gpu {
    /// Opens device 0, or explains why there is none. Never panics: a missing
    /// libcuda/libnvrtc or a failing initialisation becomes [`GpuError::NoDevice`].
    pub fn open() -> Result<Gpu, GpuError> {
        // SAFETY: these only try to dlopen the libraries.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(GpuError::NoDevice(
                "libcuda (the NVIDIA driver) is not installed".into(),
            ));
        }
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return Err(GpuError::NoDevice(
                "libnvrtc (CUDA's run-time compiler) is not installed".into(),
            ));
        }
        let opened = std::panic::catch_unwind(|| -> Result<Gpu, String> {
            let n = CudaContext::device_count().map_err(|e| e.to_string())?;
            if n < 1 {
                return Err("the driver reports no devices".into());
            }
            let ctx = CudaContext::new(0).map_err(|e| e.to_string())?;
            // foehn orders all work on one stream itself; skip cudarc's per-buffer events.
            unsafe { ctx.disable_event_tracking() };
            let stream = ctx.new_stream().map_err(|e| e.to_string())?;
            let name = ctx.name().map_err(|e| e.to_string())?;
            let arch = ctx.compute_capability().map_err(|e| e.to_string())?;
            let nvrtc = nvrtc_version().map_err(|e| e.to_string())?;
            Ok(Gpu {
                ctx,
                stream,
                name,
                arch,
                nvrtc,
            })
        });
        match opened {
            Ok(Ok(gpu)) => Ok(gpu),
            Ok(Err(e)) => Err(GpuError::NoDevice(e)),
            Err(_) => Err(GpuError::NoDevice("CUDA initialisation panicked".into())),
        }
    }

    /// Device name (e.g. "NVIDIA H100 80GB HBM3").
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Compute capability as `sm_XY`.
    pub fn arch(&self) -> String {
        format!("sm_{}{}", self.arch.0, self.arch.1)
    }

    /// NVRTC version (major, minor).
    pub fn nvrtc_version(&self) -> (i32, i32) {
        self.nvrtc
    }

    /// Free and total device memory in bytes.
    pub fn memory(&self) -> Result<(usize, usize), GpuError> {
        drv("cuMemGetInfo", self.ctx.mem_get_info())
    }

    /// Number of streaming multiprocessors.
    pub fn multiprocessors(&self) -> Result<i32, GpuError> {
        drv(
            "cuDeviceGetAttribute",
            self.ctx
                .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
        )
    }

    pub(crate) fn bind(&self) -> Result<(), GpuError> {
        drv("cuCtxSetCurrent", self.ctx.bind_to_thread())
    }

    pub(crate) fn stream(&self) -> &std::sync::Arc<CudaStream> {
        &self.stream
    }

    pub(crate) fn raw_stream(&self) -> sys::CUstream {
        self.stream.cu_stream()
    }

    /// Compiles CUDA C for this device's architecture and loads it.
    pub fn compile(&self, source: &str, name: &str, extra: &[String]) -> Result<Module, GpuError> {
        let cubin = compile_cubin(source, name, &self.arch(), extra)?;
        self.load(cubin)
    }

    /// Loads a CUBIN (e.g. from the compiled-program cache).
    pub fn load(&self, cubin: Vec<u8>) -> Result<Module, GpuError> {
        let module = drv(
            "cuModuleLoadData",
            self.ctx.load_module(Ptx::from_binary(cubin)),
        )?;
        Ok(Module { module })
    }

    /// Waits until all work on the stream has finished.
    pub fn synchronize(&self) -> Result<(), GpuError> {
        drv("cuStreamSynchronize", self.stream.synchronize())
    }

    /// Queues a device-to-device copy of `bytes` bytes on the stream.
    ///
    /// # Safety
    /// Both pointers must be device allocations of at least `bytes` bytes.
    pub unsafe fn copy_raw(
        &self,
        src: crate::DevicePtr,
        dst: crate::DevicePtr,
        bytes: usize,
    ) -> Result<(), GpuError> {
        drv(
            "cuMemcpyDtoDAsync",
            result::memcpy_dtod_async(dst, src, bytes, self.raw_stream()),
        )
    }

    /// A timer: a pair of timing events on the stream.
    pub fn timer(&self) -> Result<Timer, GpuError> {
        let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        Ok(Timer {
            start: drv("cuEventCreate", self.ctx.new_event(flags))?,
            stop: drv("cuEventCreate", self.ctx.new_event(flags))?,
            stream: self.stream.clone(),
        })
    }

    /// Launches `kernel` on the stream, asynchronously. `params` holds one pointer per
    /// kernel parameter, pointing at its value (a device pointer, an int, a double …).
    ///
    /// # Safety
    /// The parameters must match the kernel's signature and every device pointer must
    /// stay valid until the kernel has finished.
    pub unsafe fn launch(
        &self,
        kernel: &Kernel,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        params: &mut [*mut c_void],
    ) -> Result<(), GpuError> {
        self.launch_shared(kernel, grid, block, 0, params)
    }

    /// [`Gpu::launch`] with `shared_bytes` of dynamic shared memory per block.
    ///
    /// # Safety
    /// As [`Gpu::launch`]; `shared_bytes` must not exceed the device's per-block limit.
    pub unsafe fn launch_shared(
        &self,
        kernel: &Kernel,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared_bytes: u32,
        params: &mut [*mut c_void],
    ) -> Result<(), GpuError> {
        drv(
            "cuLaunchKernel",
            result::launch_kernel(
                kernel.raw,
                grid,
                block,
                shared_bytes,
                self.raw_stream(),
                params,
            ),
        )
    }
}

/// A loaded CUDA module.
pub struct Module {
    module: Arc<CudaModule>,
}

impl Module {
    /// A kernel of the module by its (`extern "C"`) name.
    pub fn kernel(&self, name: &str) -> Result<Kernel, GpuError> {
        let f = drv(
            &format!("cuModuleGetFunction({name})"),
            self.module.load_function(name),
        )?;
        Ok(Kernel {
            raw: f.cu_function(),
            _f: f,
        })
    }
}

/// A kernel ready to launch.
pub struct Kernel {
    raw: sys::CUfunction,
    _f: CudaFunction,
}

extern "C" fn no_dynamic_shared_memory(_block: std::ffi::c_int) -> usize {
    0
}

impl Kernel {
    /// The CUDA occupancy calculator's block size for this kernel (the largest that
    /// reaches the best occupancy given its registers), at most `limit` threads.
    pub fn occupancy_block_size(&self, limit: u32) -> Result<u32, GpuError> {
        let (_, block) = drv(
            "cuOccupancyMaxPotentialBlockSize",
            self._f
                .occupancy_max_potential_block_size(no_dynamic_shared_memory, 0, limit, None),
        )?;
        Ok(block)
    }

    /// Registers per thread.
    pub fn registers(&self) -> Result<i32, GpuError> {
        drv("cuFuncGetAttribute(NUM_REGS)", self._f.num_regs())
    }

    /// The most threads a block of this kernel may have (its registers and the
    /// device's limits).
    pub fn max_threads_per_block(&self) -> Result<u32, GpuError> {
        drv(
            "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)",
            self._f.max_threads_per_block(),
        )
        .map(|n| n.max(1) as u32)
    }
}

// SAFETY: a CUfunction handle may be used from any thread with its context bound.
unsafe impl Send for Kernel {}
unsafe impl Sync for Kernel {}

/// Two timing events around work on the stream.
pub struct Timer {
    start: cudarc::driver::CudaEvent,
    stop: cudarc::driver::CudaEvent,
    stream: Arc<CudaStream>,
}

impl Timer {
    /// Records the start event.
    pub fn start(&self) -> Result<(), GpuError> {
        drv("cuEventRecord", self.start.record(&self.stream))
    }

    /// Records the stop event.
    pub fn stop(&self) -> Result<(), GpuError> {
        drv("cuEventRecord", self.stop.record(&self.stream))
    }

    /// Waits for the stop event and returns the elapsed time in seconds.
    pub fn seconds(&self) -> Result<f64, GpuError> {
        drv("cuEventSynchronize", self.stop.synchronize())?;
        Ok(drv("cuEventElapsedTime", self.start.elapsed_ms(&self.stop))? as f64 * 1e-3)
    }
}
