//! `foehn run jw` through the real binary: the configuration's refusals (a misspelt key
//! in a file named with its line, `--days` with `--steps`, a bad duration, invalid
//! values), `--print-config` output that reads back, flags over the file, and a short
//! run on R2B2 that writes its NetCDF files (t = 0 and every step) and the
//! surface-pressure map and keeps the dry mass; `--backend cuda` without a GPU is a clear error.

mod support;

use std::path::Path;
use support::{foehn, Run};

fn jw(extra: &[&str]) -> Run {
    let mut args = vec!["run", "jw"];
    args.extend_from_slice(extra);
    foehn(&args)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// A refusal: status 1 and every part in the message on stderr.
fn assert_refused(r: &Run, parts: &[&str]) {
    assert_eq!(
        r.code,
        Some(1),
        "stdout: {}\nstderr: {}",
        r.stdout,
        r.stderr
    );
    for p in parts {
        assert!(r.stderr.contains(p), "`{p}` missing from: {}", r.stderr);
    }
}

#[test]
fn misspelt_key_in_a_file_names_key_file_line_and_valid_keys() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "jw.toml",
        "[run]\nlevels = 35\n\n[nonhydrostatic]\ndivdamp_fc = 0.004\n",
    );
    let r = jw(&["--config", &file, "--print-config"]);
    assert_refused(
        &r,
        &[
            &format!("{file}:5"),
            "unknown key `divdamp_fc`",
            "[nonhydrostatic]",
            "divdamp_fac",
        ],
    );
    assert!(r.stdout.is_empty());
}

#[test]
fn days_with_steps_is_refused() {
    let r = jw(&["--days", "1", "--steps", "3"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("--days") && r.stderr.contains("--steps"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("cannot be used with"), "{}", r.stderr);
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "both.toml", "[run]\ndays = 1.0\nsteps = 3\n");
    assert_refused(&jw(&["--config", &file]), &["days and steps", "either"]);
}

#[test]
fn bad_durations_and_values_are_refused() {
    let r = jw(&["--output-interval", "6 hours"]);
    assert_eq!(r.code, Some(2));
    assert!(
        r.stderr.contains("not a duration") && r.stderr.contains("\"10 steps\""),
        "{}",
        r.stderr
    );
    let r = jw(&[
        "--output",
        "jw.nc",
        "--output-interval",
        "7m",
        "--print-config",
    ]);
    assert_refused(&r, &["--output-interval", "7m", "multiple of dtime"]);
    assert_refused(&jw(&["--dtime", "-300"]), &["--dtime", "-300", "positive"]);
    assert_refused(&jw(&["--days", "0.001"]), &["--days", "0.288 time steps"]);
    assert_refused(&jw(&["--substeps", "0"]), &["--substeps", "at least one"]);
    assert_refused(
        &jw(&["--grid", "torus_100000mx100000m_res1000m"]),
        &["sphere"],
    );
    let r = jw(&["--levels", "0"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("1 to 1000"), "{}", r.stderr);
    let r = jw(&["--backend", "gpu"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("auto, cpu or cuda"), "{}", r.stderr);
    let r = jw(&["--schedule", "fused"]);
    assert_eq!(r.code, Some(2));
    assert!(
        r.stderr.contains("optimised, tuned or unfused"),
        "{}",
        r.stderr
    );
}

#[test]
fn printed_configuration_parses_back() {
    let dir = tempfile::tempdir().unwrap();
    let r = jw(&[
        "--grid",
        "r2b5",
        "--levels",
        "40",
        "--steady",
        "--steps",
        "12",
        "--output",
        "out.nc",
        "--output-interval",
        "1h",
        "--schedule",
        "tuned",
        "--print-config",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    for line in [
        "grid = \"r2b5\"",
        "levels = 40",
        "steady = true",
        "dtime = 150.0",
        "steps = 12",
        "output = \"out.nc\"",
        "output_interval = \"1h\"",
        "divdamp_fac = 0.0025",
        "hdiff_efdt_ratio = 10.0",
        "schedule = \"tuned\"",
    ] {
        assert!(
            r.stdout.contains(line),
            "`{line}` missing from:\n{}",
            r.stdout
        );
    }
    let file = write(dir.path(), "printed.toml", &r.stdout);
    let again = jw(&["--config", &file, "--print-config"]);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert_eq!(again.stdout, r.stdout);
    // Flags override the file.
    let over = jw(&["--config", &file, "--days", "2", "--print-config"]);
    assert_eq!(over.code, Some(0), "{}", over.stderr);
    assert!(over.stdout.contains("days = 2.0") && !over.stdout.contains("\nsteps = 12"));
    assert!(over.stdout.contains("levels = 40"));
}

#[test]
fn a_short_run_writes_its_outputs_and_keeps_the_dry_mass() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("jw.nc");
    let out = out.to_str().unwrap();
    let r = jw(&[
        "--grid",
        "r2b2",
        "--levels",
        "10",
        "--steps",
        "2",
        "--backend",
        "cpu",
        "--output",
        out,
        "--output-interval",
        "1 steps",
        // Tuning is for the GPU: on the CPU the optimised programs run, and it says so.
        "--schedule",
        "tuned",
    ]);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("2 steps"), "{}", r.stdout);
    assert!(r.stderr.contains("tuning is for the GPU"), "{}", r.stderr);
    let drift: f64 = r
        .stdout
        .split("relative dry-mass change ")
        .nth(1)
        .and_then(|t| t.split(';').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no dry-mass change in {}", r.stdout));
    assert!(drift.abs() < 1e-12, "dry mass changed by {drift:e}");
    assert!(
        r.stdout.contains("dycore step"),
        "the timer table: {}",
        r.stdout
    );
    let mut written: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    if cfg!(feature = "netcdf") {
        assert_eq!(
            written,
            [
                "jw_0000d00h00m00s.nc",
                "jw_0000d00h20m00s.nc",
                "jw_0000d00h40m00s.nc",
                "jw_ps.png",
                "jw_series.csv"
            ],
        );
    }
    // Without a GPU, `--backend cuda` is an error naming the missing device.
    let gpu = jw(&[
        "--grid",
        "r2b2",
        "--levels",
        "10",
        "--steps",
        "1",
        "--backend",
        "cuda",
    ]);
    if gpu.code != Some(0) {
        assert_refused(&gpu, &["CUDA"]);
    }
}

#[test]
fn limited_area_and_grid_files() {
    let r = jw(&["--grid", "r2b6:cap:46,8,800", "--print-config"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("dtime = 75.0"), "{}", r.stdout);
    assert_refused(
        &jw(&["--grid", "/nonexistent/grid.nc"]),
        &["/nonexistent/grid.nc"],
    );
}

#[test]
fn missing_config_file_is_named() {
    assert_refused(
        &jw(&["--config", "/nonexistent/jw.toml"]),
        &["/nonexistent/jw.toml", "cannot read"],
    );
}

#[test]
fn series_interval_sets_the_full_records() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("jw.nc");
    let out = out.to_str().unwrap();
    let full_records = |interval: Option<&str>| {
        let mut args = vec![
            "--grid",
            "r2b2",
            "--levels",
            "10",
            "--steps",
            "3",
            "--backend",
            "cpu",
            "--output",
            out,
        ];
        if let Some(i) = interval {
            args.extend(["--series-interval", i]);
        }
        let r = jw(&args);
        assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
        let csv = std::fs::read_to_string(dir.path().join("jw_series.csv")).unwrap();
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let ps = header.iter().position(|h| *h == "ps_min_hPa").unwrap();
        let rows: Vec<Vec<String>> = lines
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        assert_eq!(rows.len(), 4, "a record each step on the CPU: {csv}");
        rows.iter().filter(|r| !r[ps].is_empty()).count()
    };
    // Default 6 h: the start and the end only (3 steps are less than 6 h on R2B2).
    assert_eq!(full_records(None), 2);
    assert_eq!(full_records(Some("1 steps")), 4);
    assert_refused(
        &jw(&["--grid", "r2b2", "--steps", "3", "--series-interval", "7s"]),
        &["--series-interval", "multiple of dtime"],
    );
}
