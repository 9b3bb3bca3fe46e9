//! PNG charts are written, are valid PNGs, and are not trivially small.

mod common;

use foehn_metrics::{
    compare_files, render_bench_png, render_comparison_png, BenchReport, BenchResult,
};
use std::path::Path;

fn check_png(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert!(
        bytes.len() > 5_000,
        "{} is only {} bytes",
        path.display(),
        bytes.len()
    );
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

fn report() -> BenchReport {
    let mut rep = common::r2b4_report(4300.0);
    for (i, (p, s)) in [
        ("apply_diffusion_to_vn", "optimised"),
        ("apply_diffusion_to_vn", "unfused"),
        ("compute_averaged_vn_and_fluxes", "optimised"),
    ]
    .into_iter()
    .enumerate()
    {
        let ms = 0.2 + 0.1 * i as f64;
        rep.results.push(BenchResult::new(p, "", s, "cuda").timed(
            vec![ms],
            10.0,
            500_000_000,
            4300.0,
        ));
    }
    rep
}

#[test]
fn bench_png() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out/bench.png");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    render_bench_png(&report(), &path).unwrap();
    let (w, h) = check_png(&path);
    assert!(w > 900 && h > 150, "{w}x{h}");
}

#[test]
fn comparison_png() {
    let dir = tempfile::tempdir().unwrap();
    let mut fast = report();
    for r in &mut fast.results {
        r.median_ms /= 2.0;
    }
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    report().write(&a).unwrap();
    fast.write(&b).unwrap();
    let cmp = compare_files(&[a, b]).unwrap();
    let path = dir.path().join("cmp.png");
    render_comparison_png(&cmp, &path).unwrap();
    let (w, h) = check_png(&path);
    assert!(w > 900 && h > 150, "{w}x{h}");
    if let Ok(keep) = std::env::var("FOEHN_KEEP_PNG") {
        std::fs::copy(&path, Path::new(&keep).join("cmp.png")).unwrap();
        render_bench_png(&report(), &Path::new(&keep).join("bench.png")).unwrap();
    }
}

#[test]
fn png_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no_such_dir/x.png");
    let e = render_bench_png(&report(), &path).unwrap_err().to_string();
    assert!(e.contains("x.png"), "{e}");
}
