//! The largest magnitude of a device field over a range of horizontal indices and every
//! level, reduced on the device into one running maximum ([`MaxAbs`], [`RunningMax`]):
//! a component that keeps a maximum of a field across steps (velocity advection's
//! `max_vertical_cfl`) queues the reduction on the stream after the kernels that write
//! the field and reads the 8 bytes of the maximum when it needs them, instead of
//! downloading the field.
//!
//! One kernel, compiled by NVRTC once per architecture and process: a grid-stride loop
//! over the horizontal range (blocks along x) and the levels (blocks along y) takes
//! `fmax` of `fabs` of the values, a warp and then a block reduce it, and one thread per
//! block folds it into the running maximum with `atomicMax` on the bit pattern (for
//! non-negative doubles, +∞ included, the order of the bit patterns as unsigned integers
//! is the numeric order). The maximum does not depend on the order in which blocks
//! finish, so the result is deterministic and equal, bit for bit, to the host's
//! `f64::max` over the same values: both ignore NaN (`fmax`, `f64::max`), and `-0.0`
//! counts as `0.0`.

use foehn::error::{Error, Result};
use foehn_gpu::{DeviceBuffer, DevicePtr, Gpu, GpuError, Kernel, Module};
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::Mutex;

/// The kernel's name.
const KERNEL: &str = "foehn_max_abs_f64";

/// Threads per block (a multiple of 32, at most 1024).
const BLOCK: u32 = 256;

/// The most blocks along the horizontal range (each thread then loops).
const MAX_BLOCKS_X: usize = 64;

/// The most blocks along the levels (CUDA's limit of the grid's y dimension).
const MAX_BLOCKS_Y: usize = 65_535;

const SOURCE: &str = r#"
extern "C" __global__ void foehn_max_abs_f64(
    const double* __restrict__ x, long long lo, long long hi, long long levels,
    long long stride, unsigned long long* out)
{
    double m = 0.0;
    for (long long k = blockIdx.y; k < levels; k += gridDim.y) {
        const double* column = x + k * stride;
        for (long long h = lo + (long long)blockIdx.x * blockDim.x + threadIdx.x; h < hi;
             h += (long long)gridDim.x * blockDim.x) {
            m = fmax(m, fabs(column[h]));
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        m = fmax(m, __shfl_down_sync(0xffffffffu, m, o));
    }
    __shared__ double warps[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
        warps[warp] = m;
    }
    __syncthreads();
    if (warp == 0) {
        m = lane < (int)((blockDim.x + 31) / 32) ? warps[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) {
            m = fmax(m, __shfl_down_sync(0xffffffffu, m, o));
        }
        if (lane == 0 && m > 0.0) {
            atomicMax(out, (unsigned long long)__double_as_longlong(m));
        }
    }
}
"#;

fn gpu_err(e: GpuError) -> Error {
    Error::Compile {
        program: KERNEL.into(),
        message: e.to_string(),
    }
}

/// The compiled reduction kernel, loaded on a device.
pub struct MaxAbs {
    kernel: Kernel,
    // Declared after `kernel`: the function belongs to the module.
    _module: Module,
}

impl MaxAbs {
    /// Compiles the kernel for `gpu`'s architecture (NVRTC, once per architecture and
    /// process) and loads it.
    pub fn new(gpu: &Gpu) -> Result<MaxAbs> {
        static CUBINS: Mutex<BTreeMap<String, Vec<u8>>> = Mutex::new(BTreeMap::new());
        let arch = gpu.arch();
        let cubin = {
            let mut cubins = CUBINS.lock().unwrap_or_else(|p| p.into_inner());
            match cubins.get(&arch) {
                Some(c) => c.clone(),
                None => {
                    let c = foehn_gpu::compile_cubin(SOURCE, KERNEL, &arch, &[])
                        .map_err(|e| gpu_err(e.into()))?;
                    cubins.insert(arch, c.clone());
                    c
                }
            }
        };
        let module = gpu.load(cubin).map_err(gpu_err)?;
        Ok(MaxAbs {
            kernel: module.kernel(KERNEL).map_err(gpu_err)?,
            _module: module,
        })
    }

    /// A running maximum on `gpu`, starting at 0.
    pub fn running(&self, gpu: &Gpu) -> Result<RunningMax> {
        let max = RunningMax {
            buf: DeviceBuffer::alloc(gpu, 8).map_err(gpu_err)?,
        };
        max.reset(gpu)?;
        Ok(max)
    }

    /// Queues `into = max(into, |x[h + k·stride]|)` over `h` in `lo..hi` and `k` in
    /// `0..levels` on `gpu`'s stream (nothing waits).
    ///
    /// # Safety
    /// `x` must be device memory of `gpu` holding at least `(levels − 1)·stride + hi`
    /// doubles (when the range is not empty), valid until the kernel has run.
    pub unsafe fn enqueue(
        &self,
        gpu: &Gpu,
        x: DevicePtr,
        (lo, hi): (usize, usize),
        levels: usize,
        stride: usize,
        into: &RunningMax,
    ) -> Result<()> {
        if hi <= lo || levels == 0 {
            return Ok(());
        }
        let blocks_x = (hi - lo).div_ceil(BLOCK as usize).min(MAX_BLOCKS_X) as u32;
        let blocks_y = levels.min(MAX_BLOCKS_Y) as u32;
        let (mut x, mut out) = (x, into.buf.ptr());
        let mut ints = [lo, hi, levels, stride].map(|v| v as i64);
        let mut params: Vec<*mut c_void> = [&mut x as *mut DevicePtr as *mut c_void]
            .into_iter()
            .chain(ints.iter_mut().map(|v| v as *mut i64 as *mut c_void))
            .chain([&mut out as *mut DevicePtr as *mut c_void])
            .collect();
        // SAFETY: the parameters match the kernel's signature; `x` as the caller
        // promises, `out` is this running maximum's 8 bytes.
        unsafe {
            gpu.launch(
                &self.kernel,
                (blocks_x, blocks_y, 1),
                (BLOCK, 1, 1),
                &mut params,
            )
        }
        .map_err(gpu_err)
    }
}

/// A running maximum of non-negative doubles in 8 bytes of device memory.
pub struct RunningMax {
    buf: DeviceBuffer,
}

impl RunningMax {
    /// Waits for the device and downloads the maximum (8 bytes).
    pub fn get(&self, gpu: &Gpu) -> Result<f64> {
        let mut bits = [0u64];
        self.buf.download(gpu, &mut bits).map_err(gpu_err)?;
        Ok(f64::from_bits(bits[0]))
    }

    /// Sets the maximum back to 0 (the bit pattern of `0.0`).
    pub fn reset(&self, gpu: &Gpu) -> Result<()> {
        self.buf.upload(gpu, &[0u64]).map_err(gpu_err)
    }
}
