//! Device memory buffers.

use crate::device::{drv, Gpu, GpuError};
use crate::DevicePtr;
use cudarc::driver::result;

/// A device allocation of `bytes` bytes, freed on drop, or a borrowed view of device
/// memory someone else owns (see [`DeviceBuffer::borrowed`]), never freed here.
pub struct DeviceBuffer {
    ptr: DevicePtr,
    bytes: usize,
    owned: bool,
}

impl DeviceBuffer {
    /// Allocates `bytes` bytes (at least 1) on the device.
    pub fn alloc(gpu: &Gpu, bytes: usize) -> Result<DeviceBuffer, GpuError> {
        gpu.bind()?;
        // SAFETY: plain allocation; freed in Drop.
        let ptr = drv("cuMemAlloc", unsafe { result::malloc_sync(bytes.max(1)) })?;
        Ok(DeviceBuffer {
            ptr,
            bytes,
            owned: true,
        })
    }

    /// A view of `bytes` bytes of device memory at `ptr` that the caller owns (an
    /// OpenACC/Fortran array, a CuPy buffer): read and written in place, never freed.
    ///
    /// # Safety
    /// `ptr` must point to at least `bytes` bytes of device memory of the current CUDA
    /// context, valid for as long as this buffer and whatever binds it are used.
    pub unsafe fn borrowed(ptr: DevicePtr, bytes: usize) -> DeviceBuffer {
        DeviceBuffer {
            ptr,
            bytes,
            owned: false,
        }
    }

    /// Whether this buffer owns its memory (frees it on drop).
    pub fn is_owned(&self) -> bool {
        self.owned
    }

    /// Allocates and fills from a host slice.
    pub fn from_slice<T: Copy>(gpu: &Gpu, data: &[T]) -> Result<DeviceBuffer, GpuError> {
        let buf = Self::alloc(gpu, std::mem::size_of_val(data))?;
        buf.upload(gpu, data)?;
        Ok(buf)
    }

    /// The device pointer.
    pub fn ptr(&self) -> DevicePtr {
        self.ptr
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Copies host data in (synchronously with respect to the stream).
    pub fn upload<T: Copy>(&self, gpu: &Gpu, data: &[T]) -> Result<(), GpuError> {
        assert!(
            std::mem::size_of_val(data) <= self.bytes,
            "upload larger than the buffer"
        );
        gpu.synchronize()?;
        // SAFETY: the buffer holds at least size_of_val(data) bytes.
        drv("cuMemcpyHtoD", unsafe {
            result::memcpy_htod_sync(self.ptr, data)
        })
    }

    /// Copies device data out after all queued work has finished.
    pub fn download<T: Copy>(&self, gpu: &Gpu, out: &mut [T]) -> Result<(), GpuError> {
        assert!(
            std::mem::size_of_val(out) <= self.bytes,
            "download larger than the buffer"
        );
        gpu.synchronize()?;
        // SAFETY: the buffer holds at least size_of_val(out) bytes.
        drv("cuMemcpyDtoH", unsafe {
            result::memcpy_dtoh_sync(out, self.ptr)
        })
    }

    /// Queues a device-to-device copy of the whole buffer into `dst` on the stream.
    pub fn copy_to(&self, gpu: &Gpu, dst: &DeviceBuffer) -> Result<(), GpuError> {
        assert!(dst.bytes >= self.bytes);
        // SAFETY: both allocations are at least self.bytes long.
        drv("cuMemcpyDtoDAsync", unsafe {
            result::memcpy_dtod_async(dst.ptr, self.ptr, self.bytes, gpu.raw_stream())
        })
    }

    /// Queues a byte fill of the whole buffer on the stream.
    pub fn fill_bytes(&self, gpu: &Gpu, byte: u8) -> Result<(), GpuError> {
        // SAFETY: fills exactly the allocation.
        drv("cuMemsetD8Async", unsafe {
            result::memset_d8_async(self.ptr, byte, self.bytes, gpu.raw_stream())
        })
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        // SAFETY: ptr came from malloc_sync and is freed once.
        unsafe {
            let _ = result::free_sync(self.ptr);
        }
    }
}
