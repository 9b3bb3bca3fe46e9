//! NVRTC: CUDA C source to CUBIN for a given architecture.

use cudarc::nvrtc::{result, sys};
use std::ffi::CString;

/// A failed compilation, with NVRTC's log.
#[derive(Debug, thiserror::Error)]
#[error("NVRTC failed to compile `{name}` for {arch}: {message}\n{log}")]
pub struct CompileError {
    /// Program name.
    pub name: String,
    /// Target architecture.
    pub arch: String,
    /// NVRTC's error.
    pub message: String,
    /// The compiler log.
    pub log: String,
}

/// NVRTC's version (major, minor); part of every CUDA cache key.
pub fn nvrtc_version() -> Result<(i32, i32), String> {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: plain out-parameters.
    let r = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
    if r == sys::nvrtcResult::NVRTC_SUCCESS {
        Ok((major, minor))
    } else {
        Err(format!("nvrtcVersion failed: {r:?}"))
    }
}

/// Compiles CUDA C to a CUBIN for `arch` (e.g. "sm_90"), so the driver needs no JIT;
/// always with `--fmad=false` (no contraction of `a*b+c` into FMA, as on the CPU).
pub fn compile_cubin(
    source: &str,
    name: &str,
    arch: &str,
    extra: &[String],
) -> Result<Vec<u8>, CompileError> {
    let err = |message: String, log: String| CompileError {
        name: name.to_string(),
        arch: arch.to_string(),
        message,
        log,
    };
    let src = CString::new(source).map_err(|e| err(e.to_string(), String::new()))?;
    let cname =
        CString::new(format!("{name}.cu")).map_err(|e| err(e.to_string(), String::new()))?;
    let prog = result::create_program(&src, Some(&cname))
        .map_err(|e| err(e.to_string(), String::new()))?;
    // No FMA contraction: results must match the CPU backends and the interpreter.
    let mut opts = vec![
        format!("--gpu-architecture={arch}"),
        "--std=c++17".to_string(),
        "--fmad=false".to_string(),
    ];
    opts.extend(extra.iter().cloned());
    // SAFETY: prog is a valid program handle until destroyed below.
    let out = unsafe {
        let compiled = result::compile_program(prog, &opts);
        let log = result::get_program_log(prog)
            .map(|l| {
                let bytes: Vec<u8> = l
                    .iter()
                    .take_while(|&&c| c != 0)
                    .map(|&c| c as u8)
                    .collect();
                String::from_utf8_lossy(&bytes).into_owned()
            })
            .unwrap_or_default();
        match compiled {
            Err(e) => Err(err(e.to_string(), log)),
            Ok(()) => {
                let mut size = 0usize;
                let r = sys::nvrtcGetCUBINSize(prog, &mut size);
                if r != sys::nvrtcResult::NVRTC_SUCCESS {
                    Err(err(format!("nvrtcGetCUBINSize: {r:?}"), log))
                } else {
                    let mut buf = vec![0u8; size];
                    let r = sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr() as *mut _);
                    if r != sys::nvrtcResult::NVRTC_SUCCESS {
                        Err(err(format!("nvrtcGetCUBIN: {r:?}"), log))
                    } else {
                        Ok(buf)
                    }
                }
            }
        }
    };
    // SAFETY: destroying the handle we created.
    let _ = unsafe { result::destroy_program(prog) };
    out
}
