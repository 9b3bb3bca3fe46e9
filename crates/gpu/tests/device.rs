//! GPU runtime tests: skip (saying so) where no CUDA device is present.

use foehn_gpu::{copy_bandwidth, DeviceBuffer, Gpu, GpuError};
use std::ffi::c_void;

fn gpu() -> Option<Gpu> {
    match Gpu::open() {
        Ok(g) => Some(g),
        Err(e @ GpuError::NoDevice(_)) => {
            foehn_gpu::skip_without_gpu("GPU test", &e);
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn no_device_is_reported_not_panicked() {
    // Either a device opens, or the error says why; both are fine, a panic is not.
    match Gpu::open() {
        Ok(g) => assert!(g.arch().starts_with("sm_")),
        Err(e) => assert!(e.to_string().starts_with("no CUDA device found")),
    }
}

#[test]
fn compile_launch_and_copy_back() {
    let Some(gpu) = gpu() else { return };
    let src = r#"extern "C" __global__ void axpy(double a, const double* x, double* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }"#;
    let module = gpu.compile(src, "axpy", &[]).unwrap();
    let k = module.kernel("axpy").unwrap();
    let n = 10_000usize;
    let x: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
    let y: Vec<f64> = (0..n).map(|i| (i as f64).cos()).collect();
    let (dx, dy) = (
        DeviceBuffer::from_slice(&gpu, &x).unwrap(),
        DeviceBuffer::from_slice(&gpu, &y).unwrap(),
    );
    let (mut a, mut px, mut py, mut nn) = (2.5f64, dx.ptr(), dy.ptr(), n as i32);
    let mut params = [
        &mut a as *mut _ as *mut c_void,
        &mut px as *mut _ as *mut c_void,
        &mut py as *mut _ as *mut c_void,
        &mut nn as *mut _ as *mut c_void,
    ];
    unsafe {
        gpu.launch(&k, (n.div_ceil(256) as u32, 1, 1), (256, 1, 1), &mut params)
            .unwrap()
    };
    let mut out = vec![0.0; n];
    dy.download(&gpu, &mut out).unwrap();
    for i in 0..n {
        assert_eq!(out[i], 2.5 * x[i] + y[i]);
    }
}

#[test]
fn compile_errors_carry_the_log() {
    let Some(gpu) = gpu() else { return };
    let err = gpu
        .compile(
            "extern \"C\" __global__ void k() { undefined_thing(); }",
            "bad",
            &[],
        )
        .err()
        .unwrap();
    assert!(err.to_string().contains("undefined_thing"), "{err}");
}

#[test]
fn copy_kernel_measures_bandwidth() {
    let Some(gpu) = gpu() else { return };
    let bw = copy_bandwidth(&gpu, 256 << 20, 10).unwrap();
    eprintln!(
        "{}: copy kernel {:.0} GB/s, memcpy {:.0} GB/s",
        gpu.name(),
        bw.kernel_gbs,
        bw.memcpy_gbs
    );
    assert!(bw.kernel_gbs > 100.0 && bw.memcpy_gbs > 100.0);
}
