//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Write `text` to `dir/name` and return the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Assert `a` and `b` agree to a relative 1e-9.
pub fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
}

/// Unwrap an optional value and compare.
pub fn close_opt(a: Option<f64>, b: f64) {
    close(a.unwrap_or_else(|| panic!("expected {b}, got None")), b);
}
