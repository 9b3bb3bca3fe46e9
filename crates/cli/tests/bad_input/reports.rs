//! Timing reports given to `compare` and `bench --from`: absurd or non-finite times,
//! files that are not reports, and charts that cannot be written are clear errors
//! (before, a `median_ms` of 1.7e308 hung the chart's axis code).

use super::{foehn, refused};
use std::path::Path;

/// A GT4Py metrics report with one program of `seconds` per call (kernel time).
fn gt4py(dir: &Path, name: &str, seconds: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    let text = format!(
        r#"{{"divergence<gtfn>#0[]": {{"metadata": {{"name": "divergence", "backend": "gtfn", "static_args": {{}}}}, "metrics": {{"compute": [{seconds}, {seconds}], "total": [{seconds}, {seconds}]}}}}}}"#
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn absurd_times_and_non_reports_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let good = gt4py(dir.path(), "good.json", "0.002");
    let huge = gt4py(dir.path(), "huge.json", "1.7e305");
    let negative = gt4py(dir.path(), "negative.json", "-0.001");
    let binary = dir.path().join("binary.json");
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x93]).unwrap();
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"nh_solve\": ").unwrap();
    let png = dir.path().join("png");
    let cases = [
        (vec![&good, &huge], vec!["huge.json", "finite number"]),
        (
            vec![&negative, &good],
            vec!["negative.json", "finite number"],
        ),
        (vec![&good, &binary], vec!["binary.json", "not a text file"]),
        (vec![&good, &broken], vec!["broken.json", "JSON"]),
    ];
    for (files, words) in cases {
        let mut args: Vec<&std::ffi::OsStr> = vec!["compare".as_ref()];
        args.extend(files.iter().map(|p| p.as_os_str()));
        args.push("--png".as_ref());
        args.push(png.as_os_str());
        refused(&foehn(&args), &words);
    }
    assert!(!png.exists(), "no chart from refused reports");
}

#[test]
fn a_chart_that_cannot_be_written_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let a = gt4py(dir.path(), "a.json", "0.002");
    let b = gt4py(dir.path(), "b.json", "0.001");
    let nowhere = dir.path().join("no/such/folder/chart.png");
    let r = foehn(&[
        "compare".as_ref(),
        a.as_os_str(),
        b.as_os_str(),
        "--png".as_ref(),
        nowhere.as_os_str(),
    ]);
    refused(&r, &["chart.png", "folder does not exist"]);
}
