//! Helpers shared by the integration tests.
#![allow(dead_code)]

use foehn_metrics::{BenchReport, GridInfo};
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

/// An empty report for an r2b4 grid with 80 levels on an H200 with the given peak copy
/// bandwidth (GB/s).
pub fn r2b4_report(peak_copy_gbs: f64) -> BenchReport {
    let grid = GridInfo {
        name: "r2b4".into(),
        cells: 20480,
        edges: 30720,
        vertices: 10242,
        levels: 80,
    };
    BenchReport::new("NVIDIA H200", peak_copy_gbs, grid)
}
