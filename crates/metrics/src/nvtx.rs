//! NVTX ranges, so that Nsight Systems shows foehn's programs and components on its
//! timeline (`nsys profile --trace=cuda,nvtx …`).
//!
//! Ranges go through the `nvtx` crate (NVTX3, header-only, compiled with the C
//! compiler: no CUDA needed to build). Without a profiler attached NVTX's calls return at
//! once, but each range still formats and allocates its name, so ranges are off unless
//! `FOEHN_NVTX=1` (or [`set_enabled`]); off, a range costs one relaxed atomic load.
//! Ranges nest per thread (push/pop), so a [`Range`] must end on the thread that
//! started it (it is not `Send`).

use std::fmt::Display;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU8, Ordering};

/// Environment variable that turns NVTX ranges on (`1`, `true`, `on`).
pub const ENV: &str = "FOEHN_NVTX";

/// 0: not read yet; 1: off; 2: on.
static STATE: AtomicU8 = AtomicU8::new(0);

fn env_on() -> bool {
    std::env::var(ENV).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "on" | "yes"
        )
    })
}

/// Whether ranges are emitted (`FOEHN_NVTX`, read on first use, or [`set_enabled`]).
pub fn enabled() -> bool {
    match STATE.load(Ordering::Relaxed) {
        0 => {
            let on = env_on();
            // A concurrent set_enabled wins over the environment.
            let _ = STATE.compare_exchange(0, 1 + on as u8, Ordering::Relaxed, Ordering::Relaxed);
            STATE.load(Ordering::Relaxed) == 2
        }
        s => s == 2,
    }
}

/// Turns ranges on or off for the whole process (e.g. from a command-line flag).
pub fn set_enabled(on: bool) {
    STATE.store(1 + on as u8, Ordering::Relaxed);
}

/// An open NVTX range, closed when dropped (see the module doc).
#[derive(Debug)]
#[must_use = "the range ends when the guard is dropped"]
pub struct Range {
    open: bool,
    /// Push/pop ranges belong to the thread that pushed them.
    _thread: PhantomData<*const ()>,
}

impl Range {
    /// Opens a range named `name` when ranges are on; otherwise does nothing. A name
    /// with a NUL byte (which NVTX cannot take) opens no range.
    pub fn new(name: impl Display) -> Range {
        let open = enabled() && push(&name.to_string());
        Range {
            open,
            _thread: PhantomData,
        }
    }

    /// Whether this guard opened a range.
    pub fn is_open(&self) -> bool {
        self.open
    }
}

fn push(name: &str) -> bool {
    if name.contains('\0') {
        return false;
    }
    // The nesting level NVTX returns (negative without a tool) does not matter: the
    // pop below pairs with this push either way.
    let _level = nvtx::range_push!("{name}");
    true
}

impl Drop for Range {
    fn drop(&mut self) {
        if self.open {
            nvtx::range_pop!();
        }
    }
}

/// Opens a range named `name` (see [`Range::new`]).
pub fn range(name: impl Display) -> Range {
    Range::new(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a profiler (and without CUDA) ranges open and close as no-ops; off, they
    /// open nothing.
    #[test]
    fn ranges_work_without_a_profiler() {
        set_enabled(true);
        assert!(enabled());
        {
            let outer = range("dycore step");
            let inner = range(format_args!("{}[{}]", "apply_diffusion_to_vn", "a=true"));
            assert!(outer.is_open() && inner.is_open());
        }
        assert!(!range("bad\0name").is_open());
        set_enabled(false);
        assert!(!enabled());
        assert!(!range("solve_nonhydro").is_open());
    }
}
