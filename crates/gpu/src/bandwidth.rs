//! The built-in copy kernel that measures the device's memory bandwidth, the peak every
//! benchmark's "% of peak" refers to.

use crate::device::{Gpu, GpuError};
use crate::memory::DeviceBuffer;
use std::ffi::c_void;

const COPY_KERNEL: &str = r#"
extern "C" __global__ void foehn_copy(const double2* __restrict__ src, double2* __restrict__ dst, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (; i < n; i += stride) dst[i] = src[i];
}
"#;

/// Measured copy bandwidth, counting bytes read plus bytes written.
#[derive(Debug, Clone, Copy)]
pub struct CopyBandwidth {
    /// Our copy kernel (median of the runs), GB/s.
    pub kernel_gbs: f64,
    /// The driver's device-to-device copy (median), GB/s.
    pub memcpy_gbs: f64,
    /// Bytes per direction.
    pub bytes: usize,
}

/// Measures copy bandwidth on `bytes`-sized buffers (median of `runs` after warm-up).
pub fn copy_bandwidth(gpu: &Gpu, bytes: usize, runs: usize) -> Result<CopyBandwidth, GpuError> {
    let bytes = bytes / 16 * 16;
    let src = DeviceBuffer::alloc(gpu, bytes)?;
    let dst = DeviceBuffer::alloc(gpu, bytes)?;
    src.fill_bytes(gpu, 0x3f)?;
    let module = gpu.compile(COPY_KERNEL, "foehn_copy", &[])?;
    let kernel = module.kernel("foehn_copy")?;
    let n = (bytes / 16) as i64;
    let sms = gpu.multiprocessors()? as u32;
    let timer = gpu.timer()?;
    let median = |mut v: Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let mut kernel_times = Vec::new();
    for i in 0..runs + 3 {
        let (mut s, mut d, mut nn) = (src.ptr(), dst.ptr(), n);
        let mut params = [
            &mut s as *mut _ as *mut c_void,
            &mut d as *mut _ as *mut c_void,
            &mut nn as *mut _ as *mut c_void,
        ];
        timer.start()?;
        // SAFETY: parameters match foehn_copy's signature; buffers outlive the sync below.
        unsafe { gpu.launch(&kernel, (sms * 8, 1, 1), (512, 1, 1), &mut params)? };
        timer.stop()?;
        let t = timer.seconds()?;
        if i >= 3 {
            kernel_times.push(t);
        }
    }
    let mut memcpy_times = Vec::new();
    for i in 0..runs + 3 {
        timer.start()?;
        src.copy_to(gpu, &dst)?;
        timer.stop()?;
        let t = timer.seconds()?;
        if i >= 3 {
            memcpy_times.push(t);
        }
    }
    let gbs = |t: f64| 2.0 * bytes as f64 / t / 1e9;
    Ok(CopyBandwidth {
        kernel_gbs: gbs(median(kernel_times)),
        memcpy_gbs: gbs(median(memcpy_times)),
        bytes,
    })
}
