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
    /// the launch keeps it.
    ///
    /// # Safety
    /// As [`Gpu::launch_shared`].
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn launch_in_window(
        &self,
        kernel: &Kernel,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared_bytes: u32,
        params: &mut [*mut c_void],
        window: (DevicePtr, usize, f32),
    ) -> Result<(), GpuError> {
        let (ptr, bytes, hit_ratio) = window;
        // SAFETY: an all-zero attribute is valid; its window is set below.
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
        attr.value.accessPolicyWindow = sys::CUaccessPolicyWindow {
            base_ptr: ptr as *mut c_void,
            num_bytes: bytes,
            hitRatio: hit_ratio.clamp(0.0, 1.0),
            hitProp: sys::CUaccessProperty::CU_ACCESS_PROPERTY_PERSISTING,
            missProp: sys::CUaccessProperty::CU_ACCESS_PROPERTY_NORMAL,
        };
        let config = sys::CUlaunchConfig {
            gridDimX: grid.0,
            gridDimY: grid.1,
            gridDimZ: grid.2,
            blockDimX: block.0,
            blockDimY: block.1,
            blockDimZ: block.2,
            sharedMemBytes: shared_bytes,
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
