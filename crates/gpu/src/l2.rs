//! Persisting L2 accesses: part of the L2 cache set aside for the accesses to one
//! address window, so a buffer that the next kernels write and read back stays on chip
//! instead of going to memory (ADR 0034: the ring temporaries of slab groups).

use crate::device::{drv, Gpu, Kernel};
use crate::{DevicePtr, GpuError};
use cudarc::driver::sys;
use std::ffi::c_void;

impl Gpu {
    /// Sets aside as much of the L2 cache for persisting accesses as the device allows,
    /// and returns how many bytes that is (0 where the device has no such accesses).
    /// Other accesses still use the set-aside part while persisting ones do not.
    pub fn reserve_persisting_l2(&self) -> Result<usize, GpuError> {
        let attr = sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE;
        let most = drv("cuDeviceGetAttribute", self.ctx.attribute(attr))?.max(0) as usize;
        if most > 0 {
            self.bind()?;
            let limit = sys::CUlimit::CU_LIMIT_PERSISTING_L2_CACHE_SIZE;
            // SAFETY: a driver call on the context bound to this thread.
            drv(
                "cuCtxSetLimit",
                unsafe { sys::cuCtxSetLimit(limit, most) }.result(),
            )?;
        }
        Ok(most)
    }

    /// [`Gpu::launch_shared`] with an access window: the kernel's accesses to `bytes`
    /// bytes from `ptr` persist in the set-aside L2 (a `hit_ratio` share of them where
    /// the window exceeds it). The window is the launch's own, so a CUDA graph recording
    /// the launch keeps it. Persisting lines stay so after the kernel: return them to
    /// normal with [`Gpu::end_persisting_window`] once the window's work is done.
    ///
    /// # Safety
    /// As [`Gpu::launch_shared`].
    pub unsafe fn launch_in_window(
        &self,
        kernel: &Kernel,
        launch: Launch,
        params: &mut [*mut c_void],
        window: (DevicePtr, usize, f32),
    ) -> Result<(), GpuError> {
        let persisting = sys::CUaccessProperty::CU_ACCESS_PROPERTY_PERSISTING;
        // SAFETY: as the caller guarantees.
        unsafe { self.launch_with_policy(kernel, launch, params, window, persisting) }
    }

    /// Returns the L2 lines of `[ptr, ptr + bytes)` that persist to normal, in stream
    /// order: a kernel touches one byte of each 128-byte line under a window that
    /// resets them. Without it, lines a window left persisting would hold the set-aside
    /// L2 from every later kernel.
    pub fn end_persisting_window(&self, ptr: DevicePtr, bytes: usize) -> Result<(), GpuError> {
        const LINE: usize = 128;
        const THREADS: u32 = 256;
        let (_, kernel) = match self.l2_reset.get() {
            Some(k) => k,
            None => {
                let module = self.compile(RESET_SOURCE, "foehn_l2_reset.cu", &[])?;
                let kernel = module.kernel("foehn_l2_reset")?;
                let _ = self.l2_reset.set((module, kernel));
                self.l2_reset.get().expect("just set")
            }
        };
        let lines = bytes.div_ceil(LINE);
        let blocks = u32::try_from(lines.div_ceil(THREADS as usize)).unwrap_or(u32::MAX);
        let (mut p, mut n) = (ptr, bytes as u64);
        let mut params = [
            &mut p as *mut DevicePtr as *mut c_void,
            &mut n as *mut u64 as *mut c_void,
        ];
        let normal = sys::CUaccessProperty::CU_ACCESS_PROPERTY_NORMAL;
        let launch = Launch {
            grid: (blocks.max(1), 1, 1),
            block: (THREADS, 1, 1),
            shared_bytes: 0,
        };
        // SAFETY: the kernel's two parameters are a pointer and a byte count; it reads
        // only inside `[ptr, ptr + bytes)`, which the caller's allocation holds.
        unsafe { self.launch_with_policy(kernel, launch, &mut params, (ptr, bytes, 1.0), normal) }
    }

    /// A launch with an access-policy window whose hits get `hit_prop`.
    unsafe fn launch_with_policy(
        &self,
        kernel: &Kernel,
        launch: Launch,
        params: &mut [*mut c_void],
        window: (DevicePtr, usize, f32),
        hit_prop: sys::CUaccessProperty,
    ) -> Result<(), GpuError> {
        let (ptr, bytes, hit_ratio) = window;
        // SAFETY: an all-zero attribute is valid; its window is set below.
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
        attr.value.accessPolicyWindow = sys::CUaccessPolicyWindow {
            base_ptr: ptr as *mut c_void,
            num_bytes: bytes,
            hitRatio: hit_ratio.clamp(0.0, 1.0),
            hitProp: hit_prop,
            missProp: sys::CUaccessProperty::CU_ACCESS_PROPERTY_NORMAL,
        };
        let config = sys::CUlaunchConfig {
            gridDimX: launch.grid.0,
            gridDimY: launch.grid.1,
            gridDimZ: launch.grid.2,
            blockDimX: launch.block.0,
            blockDimY: launch.block.1,
            blockDimZ: launch.block.2,
            sharedMemBytes: launch.shared_bytes,
            hStream: self.raw_stream(),
            attrs: &mut attr,
            numAttrs: 1,
        };
        // SAFETY: the caller guarantees the parameters (as for `launch_shared`); the
        // configuration and its attribute outlive the call.
        let r = unsafe {
            sys::cuLaunchKernelEx(
                &config,
                kernel.raw,
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        drv("cuLaunchKernelEx", r.result())
    }
}

/// A launch's shape: blocks, threads per block, dynamic shared memory per block.
#[derive(Debug, Clone, Copy)]
pub struct Launch {
    /// Blocks.
    pub grid: (u32, u32, u32),
    /// Threads per block.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block (bytes).
    pub shared_bytes: u32,
}

/// Touches one byte of every 128-byte line of `[p, p + n)`.
const RESET_SOURCE: &str = r#"
extern "C" __global__ void foehn_l2_reset(const volatile unsigned char* p, unsigned long long n) {
    const unsigned long long i = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * 128ull;
    if (i < n) { (void)p[i]; }
}
"#;
