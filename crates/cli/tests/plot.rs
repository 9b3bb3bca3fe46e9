//! `foehn plot` through the real binary on a run's NetCDF output (the
//! Jablonowski–Williamson initial state on R2B2 written by `foehn_driver::output`):
//! maps of surface and level fields, pressure levels (stored and interpolated), the
//! same bytes every time, and clear refusals of a missing file, variable, time or level.

#![cfg(feature = "netcdf")]

mod support;

use foehn_driver::initial::jw::{jablonowski_williamson, JwConfig};
use foehn_driver::output::netcdf::NetcdfOutput;
use foehn_driver::output::{Snapshot, DEFAULT_PRESSURE_LEVELS};
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::fields::topography::{JwTopography, Topography};
use foehn_icon::fields::vertical::VerticalConfig;
use std::path::{Path, PathBuf};
use support::foehn;

/// Writes the JW initial state as the output at day 1 into `dir`.
fn output(dir: &Path) -> PathBuf {
    let grid = foehn_testkit::grids::global();
    let topography = Topography::JablonowskiWilliamson(JwTopography::default());
    let fields = GridFields::compute(grid, VerticalConfig::new(10), &topography).unwrap();
    let state = jablonowski_williamson(&fields, &JwConfig::default()).unwrap();
    let snapshot = Snapshot::diagnose(
        &fields,
        &state.prognostic,
        86_400.0,
        &DEFAULT_PRESSURE_LEVELS,
    )
    .unwrap();
    NetcdfOutput::new(dir, "jw")
        .write(&fields, &snapshot)
        .unwrap()
}

fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

fn plot_ok(nc: &Path, out: &Path, extra: &[&str]) -> Vec<u8> {
    let mut args = vec!["plot", nc.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["-o", out.to_str().unwrap()]);
    let r = foehn(&args);
    assert_eq!(r.code, Some(0), "{extra:?}\n{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("wrote"), "{}", r.stdout);
    assert_eq!(png_size(out), (1100, 600));
    std::fs::read(out).unwrap()
}

fn plot_err(nc: &Path, extra: &[&str]) -> String {
    let mut args = vec!["plot", nc.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["-o", "/nonexistent-dir/never.png"]);
    let r = foehn(&args);
    assert_eq!(r.code, Some(1), "{extra:?} should fail\n{}", r.stdout);
    r.stderr
}

#[test]
fn maps_and_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let nc = output(dir.path());
    let png = |name: &str| dir.path().join(name);
    let a = plot_ok(&nc, &png("ps.png"), &["--var", "ps", "--time", "1d"]);
    let b = plot_ok(&nc, &png("ps2.png"), &["--var", "ps", "--time", "0"]);
    assert_eq!(a, b, "the same map gives the same bytes");
    plot_ok(
        &nc,
        &png("ps_nh.png"),
        &[
            "--var",
            "ps",
            "--range",
            "940,1020",
            "--region",
            "0,360,20,80",
        ],
    );
    let stored = plot_ok(
        &nc,
        &png("t850.png"),
        &["--var", "temp_p", "--pressure", "850"],
    );
    let interpolated = plot_ok(
        &nc,
        &png("t850i.png"),
        &["--var", "temp", "--pressure", "850"],
    );
    // The stored 850 hPa temperature is the same interpolation: the same picture but
    // for the title.
    assert!(!stored.is_empty() && !interpolated.is_empty());
    plot_ok(&nc, &png("vor.png"), &["--var", "vor", "--level", "10"]);
    plot_ok(
        &nc,
        &png("w.png"),
        &["--var", "w", "--level", "11", "--time", "24h"],
    );

    let missing = dir.path().join("none.nc");
    let e = plot_err(&missing, &["--var", "ps"]);
    assert!(e.contains("none.nc") && e.contains("no such file"), "{e}");
    let e = plot_err(&nc, &["--var", "psl"]);
    assert!(e.contains("no variable `psl`") && e.contains("ps"), "{e}");
    let e = plot_err(&nc, &["--var", "ps", "--time", "9d"]);
    assert!(
        e.contains("no output at day 9") && e.contains("0: day 1"),
        "{e}"
    );
    let e = plot_err(&nc, &["--var", "ps", "--time", "4"]);
    assert!(e.contains("no time index 4"), "{e}");
    let e = plot_err(&nc, &["--var", "ps", "--time", "soon"]);
    assert!(e.contains("--time `soon`"), "{e}");
    let e = plot_err(&nc, &["--var", "temp"]);
    assert!(e.contains("10 levels") && e.contains("--level"), "{e}");
    let e = plot_err(&nc, &["--var", "temp", "--level", "11"]);
    assert!(e.contains("levels 1..10"), "{e}");
    let e = plot_err(&nc, &["--var", "vn", "--level", "1"]);
    assert!(e.contains("nedges") && e.contains("cell fields"), "{e}");
    let e = plot_err(&nc, &["--var", "ps", "--level", "1"]);
    assert!(e.contains("surface field"), "{e}");
    let e = plot_err(&nc, &["--var", "temp_p", "--pressure", "500"]);
    assert!(e.contains("no 500 hPa level") && e.contains("850"), "{e}");
    let e = plot_err(&nc, &["--var", "ps"]);
    assert!(e.contains("never.png"), "{e}");
}
