//! Shared by the fuzz targets: a scratch file for the input bytes and the checks every
//! error message of a reader must pass (`foehn_testkit::fuzz`, which the regression
//! tests in `crates/foehn/tests/fuzz_regressions.rs` and
//! `crates/grid/tests/fuzz_regressions.rs` use too).


use std::path::PathBuf;
use std::sync::OnceLock;

pub use foehn_testkit::fuzz::message_problems;

/// A scratch file `name` in a directory of its own, made once per process.
pub fn scratch(name: &str) -> PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        tempfile::Builder::new()
            .prefix("foehn-fuzz-")
            .tempdir()
            .expect("a scratch directory")
    })
    .path()
    .join(name)
}
