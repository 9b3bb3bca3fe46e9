//! `compare` on small hand-written files of all three formats: detection, matching,
//! speedups, call-weighted overall speedups, and errors naming the file.

mod common;

use common::{close, close_opt, write};
use foehn_metrics::compare::WeightSource;
use foehn_metrics::openacc_map::{lookup, FORTRAN_TIMERS};
use foehn_metrics::{compare_files, detect_format, load_file, Error, Format};
use serde_json::json;
use std::path::{Path, PathBuf};

const AVG: &str = "compute_averaged_vn_and_fluxes_and_prepare_tracer_advection";
const AVG_FIRST: &str = "compute_averaged_vn_and_fluxes_and_prepare_tracer_advection_first";
const RHO: &str = "compute_rho_theta_pgrad_and_update_vn";
const DIAG_SKIP: &str = "compute_diagnostics_from_normal_wind_skip";

fn bencher(latency: Option<f64>, total: f64, calls: f64) -> serde_json::Value {
    let mut v = json!({ "latency_total": { "value": total }, "num_calls": { "value": calls } });
    if let Some(l) = latency {
        v["latency"] = json!({ "lower_value": l * 0.9, "upper_value": l * 1.5, "value": l });
    }
    v
}

fn openacc(dir: &Path) -> PathBuf {
    let v = json!({
        AVG: bencher(Some(0.28), 403.0, 1440.0),
        AVG_FIRST: bencher(Some(0.24), 85.0, 360.0),
        RHO: bencher(Some(0.60), 1081.0, 1800.0),
        // No per-call latency: 76 ms over 380 calls = 0.2 ms.
        DIAG_SKIP: bencher(None, 76.0, 380.0),
        // Not a program timer: ignored.
        "nh_solve": bencher(Some(4.6), 8357.0, 1800.0),
    });
    write(dir, "acc.json", &v.to_string())
}

fn gt4py_entry(
    name: &str,
    args: serde_json::Value,
    compute: &[f64],
    total: &[f64],
) -> serde_json::Value {
    let mut metrics = json!({});
    if !compute.is_empty() {
        metrics["compute"] = json!(compute);
    }
    metrics["total"] = json!(total);
    json!({
        "metadata": { "name": name, "backend": "dace_gpu", "compiled_program_pool_id": 0, "static_args": args },
        "metrics": metrics,
    })
}

fn gt4py(dir: &Path) -> PathBuf {
    let avg = "compute_averaged_vn_and_fluxes";
    let v = json!({
        "a<dace_gpu>#0[1]": gt4py_entry(avg, json!({"at_first_substep": false, "prepare_advection": true, "horizontal_start": 10}),
            &[0.00014, 0.00020, 0.00014], &[0.001, 0.001, 0.001]),
        "a<dace_gpu>#0[2]": gt4py_entry(avg, json!({"at_first_substep": true, "prepare_advection": true, "horizontal_start": 10}),
            &[0.00012], &[0.001]),
        "b<dace_gpu>#0[3]": gt4py_entry(RHO, json!({}), &[0.0005, 0.0004, 0.0003], &[0.001, 0.001, 0.001]),
        // Only "total": its median is used.
        "c<dace_gpu>#0[4]": gt4py_entry("compute_hydrostatic_correction_term", json!(null), &[], &[0.0001, 0.0001]),
        // Python-style boolean written as a string.
        "d<dace_gpu>#0[5]": gt4py_entry("compute_diagnostics_from_normal_wind",
            json!({"skip_compute_predictor_vertical_advection": "True"}), &[0.0001], &[0.001]),
        "e<dace_gpu>#0[6]": gt4py_entry("some_other_program", json!({}), &[0.1], &[0.1]),
    });
    write(dir, "gt4py.json", &v.to_string())
}

fn bench_result(
    program: &str,
    variant: &str,
    schedule: &str,
    ms: f64,
    calls: Option<f64>,
) -> serde_json::Value {
    let mut r = json!({
        "program": program, "variant": variant, "schedule": schedule, "backend": "cuda",
        "median_ms": ms, "host_us": 5.0, "bytes": 1000000, "gbs": 1.0, "pct_peak": 0.1, "verified": true,
    });
    if let Some(c) = calls {
        r["calls_per_step"] = json!(c);
    }
    r
}

fn bench(dir: &Path, name: &str, results: Vec<serde_json::Value>) -> PathBuf {
    let v = json!({
        "device": "NVIDIA H200", "peak_copy_gbs": 4300.0,
        "grid": {"name": "r2b4", "cells": 20480, "edges": 30720, "vertices": 10242, "levels": 80},
        "foehn_version": "0.1.0", "date": "2026-11-20T10:00:00Z", "results": results,
    });
    write(dir, name, &v.to_string())
}

fn foehn_vs_icon(dir: &Path) -> PathBuf {
    let avg = "compute_averaged_vn_and_fluxes";
    bench(
        dir,
        "foehn.json",
        vec![
            bench_result(
                avg,
                "at_first_substep=false,prepare_advection=true",
                "optimised",
                0.07,
                Some(4.0),
            ),
            bench_result(
                avg,
                "at_first_substep=true,prepare_advection=true",
                "optimised",
                0.06,
                None,
            ),
            // compute_hydrostatic_correction_term is absent (e.g. fused): the row is partial.
            bench_result(RHO, "", "optimised", 0.3, None),
            bench_result(
                "compute_diagnostics_from_normal_wind",
                "skip_compute_predictor_vertical_advection=True",
                "optimised",
                0.05,
                None,
            ),
        ],
    )
}

#[test]
fn detects_formats() {
    let dir = tempfile::tempdir().unwrap();
    for (path, want) in [
        (openacc(dir.path()), Format::OpenAcc),
        (gt4py(dir.path()), Format::Gt4pyMetrics),
        (foehn_vs_icon(dir.path()), Format::Bench),
    ] {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(detect_format(&v), Ok(want));
        assert_eq!(load_file(&path).unwrap()[0].format, want);
    }
    for bad in [
        json!([1, 2]),
        json!({}),
        json!({"x": 1}),
        json!({"x": {"y": 2}}),
    ] {
        assert!(detect_format(&bad).is_err(), "{bad}");
    }
    let mixed = json!({"a": {"latency": {"value": 1.0}}, "b": {"metadata": {}, "metrics": {}}});
    assert!(detect_format(&mixed).unwrap_err().contains("`b`"));
}

#[test]
fn openacc_baseline_with_gt4py_and_bench() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        openacc(dir.path()),
        gt4py(dir.path()),
        foehn_vs_icon(dir.path()),
    ];
    let cmp = compare_files(&files).unwrap();
    let labels: Vec<&str> = cmp.columns.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["acc", "gt4py", "foehn"]);

    // Rows by weighted baseline time: rho 1800·0.6, avg 1440·0.28, avg_first 360·0.24, diag 380·0.2.
    let names: Vec<&str> = cmp.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, [RHO, AVG, AVG_FIRST, DIAG_SKIP]);
    let expect = [
        // (weight, baseline ms, gt4py ms, foehn ms)
        (1800.0, 0.60, 0.4 + 0.1, 0.3),
        (1440.0, 0.28, 0.14, 0.07),
        (360.0, 0.24, 0.12, 0.06),
        (380.0, 0.2, 0.1, 0.05),
    ];
    for (r, (w, b, g, f)) in cmp.rows.iter().zip(expect) {
        assert_eq!(
            (r.weight, r.weight_source),
            (w, WeightSource::NumCalls),
            "{}",
            r.name
        );
        close_opt(r.ms[0], b);
        close_opt(r.ms[1], g);
        close_opt(r.ms[2], f);
        close_opt(r.speedup[0], 1.0);
        close_opt(r.speedup[1], b / g);
        close_opt(r.speedup[2], b / f);
    }
    assert_eq!(
        cmp.rows[0].missing_parts[2],
        vec!["compute_hydrostatic_correction_term".to_string()]
    );
    assert!(cmp.rows[0].missing_parts[1].is_empty());

    // Σw·t: acc 1080 + 403.2 + 86.4 + 76 = 1645.6; gt4py 900 + 201.6 + 43.2 + 38 = 1182.8;
    // foehn 540 + 100.8 + 21.6 + 19 = 681.4.
    close_opt(cmp.overall[1], 1645.6 / 1182.8);
    close_opt(cmp.overall[2], 1645.6 / 681.4);
    assert_eq!(cmp.overall_rows, [4, 4, 4]);
    assert_eq!(cmp.unmatched[1], vec!["some_other_program".to_string()]);
    assert_eq!(
        cmp.rows[0].covers,
        format!("{RHO} + compute_hydrostatic_correction_term")
    );
    assert_eq!(
        cmp.rows[1].covers,
        "compute_averaged_vn_and_fluxes [at_first_substep=false,prepare_advection=true]"
    );

    let text = cmp.to_text();
    assert!(text.contains("[0] acc (baseline)"), "{text}");
    assert!(text.contains("overall speedup [1] vs [0]: 1.391"), "{text}");
    assert!(text.contains("overall speedup [2] vs [0]: 2.415"), "{text}");
    assert!(
        text.contains("without compute_hydrostatic_correction_term"),
        "{text}"
    );
    assert!(text.contains("0.3000*"), "{text}");
    let overall_row = text
        .lines()
        .find(|l| l.starts_with("overall (weighted)"))
        .unwrap();
    let cells: Vec<&str> = overall_row.split_whitespace().collect();
    assert_eq!(cells[2..], ["1.39", "2.42"], "{text}");
}

#[test]
fn bench_schedules_are_columns_and_calls_per_step_weights() {
    let dir = tempfile::tempdir().unwrap();
    let base = bench(
        dir.path(),
        "base.json",
        vec![
            bench_result("p1", "", "optimised", 1.0, Some(2.0)),
            bench_result("p1", "", "unfused", 2.0, Some(2.0)),
            bench_result("p2", "a=true", "optimised", 0.5, None),
            bench_result("p2", "a=true", "unfused", 1.0, None),
            bench_result("p2", "a=false", "optimised", 0.25, None),
            bench_result("p2", "a=false", "unfused", 0.25, None),
        ],
    );
    let peer = |name: &str, a: Option<bool>, ms: f64| {
        let args = a.map_or(json!({"n": 5}), |a| json!({"a": a, "n": 5}));
        gt4py_entry(name, args, &[ms * 1e-3], &[1.0])
    };
    let gt = json!({
        "p1<g>#0[1]": peer("p1", None, 4.0),
        "p2<g>#0[2]": peer("p2", Some(true), 1.0),
        "p2<g>#0[3]": peer("p2", Some(false), 0.5),
    });
    let gt = write(dir.path(), "peer.json", &gt.to_string());
    let cmp = compare_files(&[base, gt]).unwrap();
    let labels: Vec<&str> = cmp.columns.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["base:cuda/optimised", "base:cuda/unfused", "peer"]);
    let rows: Vec<(&str, &str, f64)> = cmp
        .rows
        .iter()
        .map(|r| (r.name.as_str(), r.variant.as_str(), r.weight))
        .collect();
    assert_eq!(
        rows,
        [
            ("p1", "", 2.0),
            ("p2", "a=true", 1.0),
            ("p2", "a=false", 1.0)
        ]
    );
    assert_eq!(cmp.rows[0].weight_source, WeightSource::CallsPerStep);
    assert_eq!(cmp.rows[1].weight_source, WeightSource::One);
    close_opt(cmp.rows[0].speedup[1], 0.5);
    close_opt(cmp.rows[1].speedup[2], 0.5);
    close_opt(cmp.rows[2].speedup[2], 0.5);
    // Σw·t: optimised 2·1 + 0.5 + 0.25 = 2.75; unfused 4 + 1 + 0.25 = 5.25; peer 8 + 1 + 0.5 = 9.5.
    close_opt(cmp.overall[1], 2.75 / 5.25);
    close_opt(cmp.overall[2], 2.75 / 9.5);
}

#[test]
fn variants_without_arguments_are_pooled() {
    let dir = tempfile::tempdir().unwrap();
    let base = bench(
        dir.path(),
        "one.json",
        vec![bench_result("p", "", "s", 1.0, None)],
    );
    let gt = json!({
        "p<g>#0[1]": gt4py_entry("p", json!({"a": true}), &[0.001, 0.001, 0.001], &[]),
        "p<g>#0[2]": gt4py_entry("p", json!({"a": false}), &[0.003], &[]),
    });
    let gt = write(dir.path(), "two.json", &gt.to_string());
    let cmp = compare_files(&[base, gt]).unwrap();
    // Mean weighted by samples: (3·1 + 1·3) / 4 = 1.5 ms.
    close_opt(cmp.rows[0].ms[1], 1.5);
    close(cmp.overall[1].unwrap(), 1.0 / 1.5);
}

#[test]
fn timer_table_is_sorted_and_complete() {
    let names: Vec<&str> = FORTRAN_TIMERS.iter().map(|m| m.timer).collect();
    assert!(
        names.windows(2).all(|w| w[0] < w[1]),
        "sorted, no duplicates"
    );
    for m in FORTRAN_TIMERS {
        assert_eq!(lookup(m.timer), Some(m));
        assert!(!m.parts.is_empty());
    }
    assert_eq!(lookup("nh_solve"), None);
    let first = lookup(AVG_FIRST).unwrap().parts;
    assert_eq!(first[0].program, "compute_averaged_vn_and_fluxes");
    assert_eq!(
        first[0].filter,
        [("at_first_substep", "true"), ("prepare_advection", "true")]
    );
    let last = lookup("vertically_implicit_solver_at_corrector_step_last")
        .unwrap()
        .parts;
    assert_eq!(
        last[0].filter,
        [("at_first_substep", "false"), ("at_last_substep", "true")]
    );
}

fn error_of(files: &[PathBuf]) -> Error {
    compare_files(files).unwrap_err()
}

#[test]
fn bad_input_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = openacc(dir.path());
    let missing = dir.path().join("does_not_exist.json");
    let e = error_of(&[good.clone(), missing.clone()]);
    assert!(
        matches!(e, Error::Io { .. }) && e.to_string().contains("does_not_exist.json"),
        "{e}"
    );

    let unknown = write(dir.path(), "unknown.json", r#"{"foo": {"bar": 1}}"#);
    let e = error_of(&[good.clone(), unknown]);
    assert!(matches!(e, Error::UnknownFormat { .. }), "{e}");
    assert!(
        e.to_string().contains("unknown.json") && e.to_string().contains("unknown report format"),
        "{e}"
    );

    let not_json = write(dir.path(), "garbage.json", "not json at all");
    let e = error_of(&[good.clone(), not_json]);
    assert!(
        matches!(e, Error::Json { .. }) && e.to_string().contains("garbage.json"),
        "{e}"
    );

    let empty = bench(dir.path(), "empty_bench.json", vec![]);
    let e = error_of(&[good.clone(), empty]);
    assert!(
        e.to_string().contains("empty_bench.json") && e.to_string().contains("no results"),
        "{e}"
    );

    let no_results = write(
        dir.path(),
        "no_results.json",
        r#"{"device": "x", "peak_copy_gbs": 1.0}"#,
    );
    let e = error_of(&[good.clone(), no_results]);
    assert!(
        e.to_string().contains("no_results.json") && e.to_string().contains("results"),
        "{e}"
    );

    let e = error_of(&[good]);
    assert!(matches!(e, Error::Compare(_)), "{e}");
}

/// Absurd and non-finite times are refused when a report is loaded, naming the program,
/// instead of hanging the chart's axis code (a bad-input report: 1.7e308 ms).
#[test]
fn absurd_times_are_refused_when_loaded() {
    let dir = tempfile::tempdir().unwrap();
    for ms in [1.7e308, -1.0] {
        let f = bench(
            dir.path(),
            "absurd.json",
            vec![bench_result("p1", "", "unfused", ms, None)],
        );
        let e = load_file(&f).unwrap_err().to_string();
        assert!(e.contains("`p1`") && e.contains("finite number"), "{e}");
    }
}
