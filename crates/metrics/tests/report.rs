//! Bench report: numbers, JSON round trip and shape, table, date.

mod common;

use common::close;
use foehn_metrics::report::{iso8601_from_unix, KernelTiming};
use foehn_metrics::table::{Align, Table};
use foehn_metrics::{gbs, median, pct_peak, BenchReport, BenchResult};
use serde_json::Value;

#[test]
fn bandwidth_and_median() {
    close(gbs(1_000_000_000, 1.0), 1000.0);
    close(gbs(4_300_000_000, 2.0), 2150.0);
    assert_eq!(gbs(10, 0.0), 0.0);
    close(pct_peak(1000.0, 4000.0), 25.0);
    assert_eq!(pct_peak(1000.0, 0.0), 0.0);
    assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    assert_eq!(median(&[]), None);
}

fn report() -> BenchReport {
    let mut rep = common::r2b4_report(4000.0);
    let mut r = BenchResult::new("apply_diffusion_to_vn", "", "optimised", "cuda").timed(
        vec![1.2, 1.0, 1.1],
        12.5,
        2_200_000_000,
        rep.peak_copy_gbs,
    );
    r.verified = true;
    r.calls_per_step = Some(1.0);
    r.kernels = vec![KernelTiming {
        name: "k0".into(),
        median_ms: 1.1,
        bytes: Some(2_200_000_000),
    }];
    rep.results.push(r);
    rep.results.push(
        BenchResult::new(
            "compute_averaged_vn_and_fluxes",
            "at_first_substep=true",
            "unfused",
            "cuda",
        )
        .timed(vec![0.5], 8.0, 1_000_000_000, rep.peak_copy_gbs),
    );
    rep
}

#[test]
fn timed_result_fields() {
    let rep = report();
    let r = &rep.results[0];
    close(r.median_ms, 1.1);
    close(r.gbs, 2000.0);
    close(r.pct_peak, 50.0);
    assert_eq!(r.label(), "apply_diffusion_to_vn optimised/cuda");
    assert_eq!(
        rep.results[1].label(),
        "compute_averaged_vn_and_fluxes [at_first_substep=true] unfused/cuda"
    );
    assert_eq!(rep.foehn_version, env!("CARGO_PKG_VERSION"));
}

/// The schedule's bytes give the bandwidth its kernels reach on what they move; absent,
/// the column says `-` and old reports (without the field) still read.
#[test]
fn schedule_bytes_give_the_bandwidth_on_what_the_kernels_move() {
    let mut rep = report();
    rep.results[0].schedule_bytes = Some(3_300_000_000);
    // 3.3 GB in 1.1 ms = 3000 GB/s = 75 % of 4000.
    close(
        rep.results[0].schedule_pct_peak(rep.peak_copy_gbs).unwrap(),
        75.0,
    );
    assert_eq!(rep.results[1].schedule_pct_peak(rep.peak_copy_gbs), None);
    let table = rep.table().to_string();
    assert!(
        table.contains("% peak sched") && table.contains("75.0"),
        "{table}"
    );
    let mut json = serde_json::to_value(&rep).unwrap();
    assert_eq!(json["results"][0]["schedule_bytes"], 3_300_000_000u64);
    json["results"][0]
        .as_object_mut()
        .unwrap()
        .remove("schedule_bytes");
    let old: BenchReport = serde_json::from_value(json).unwrap();
    assert_eq!(old.results[0].schedule_bytes, None);
}

#[test]
fn json_round_trip_and_shape() {
    let rep = report();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.json");
    rep.write(&path).unwrap();
    assert_eq!(BenchReport::read(&path).unwrap(), rep);

    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for k in [
        "device",
        "peak_copy_gbs",
        "grid",
        "foehn_version",
        "date",
        "results",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    for k in ["name", "cells", "edges", "vertices", "levels"] {
        assert!(v["grid"].get(k).is_some(), "missing grid.{k}");
    }
    let r = &v["results"][0];
    for k in [
        "program",
        "variant",
        "schedule",
        "backend",
        "median_ms",
        "host_us",
        "bytes",
        "gbs",
        "pct_peak",
        "verified",
    ] {
        assert!(r.get(k).is_some(), "missing results[0].{k}");
    }
    assert_eq!(r["verified"], Value::Bool(true));
    assert_eq!(r["samples_ms"].as_array().unwrap().len(), 3);
    assert!(
        v["results"][1].get("calls_per_step").is_none(),
        "optional fields are left out when absent"
    );

    // Unknown fields written by a newer version are ignored.
    let mut newer = v.clone();
    newer["gpu_clock_mhz"] = Value::from(1980);
    newer["results"][0]["sm_occupancy_pct"] = Value::from(64);
    let p2 = common::write(dir.path(), "newer.json", &newer.to_string());
    assert_eq!(BenchReport::read(&p2).unwrap(), rep);
}

#[test]
fn summary_table() {
    let text = report().summary();
    assert!(
        text.starts_with("device: NVIDIA H200 (copy 4000 GB/s)\ngrid: r2b4 (20480 cells"),
        "{text}"
    );
    assert!(
        text.contains("2000")
            && text.contains("50.0")
            && text.contains("yes")
            && text.contains("NO")
    );
}

#[test]
fn table_aligns_columns() {
    let mut t = Table::new(&[
        ("name", Align::Left),
        ("ms", Align::Right),
        ("note", Align::Left),
    ]);
    t.push(vec!["a".into(), "1.5".into(), "x".into()]);
    t.separator();
    t.push(vec!["long name".into(), "10.25".into()]);
    assert_eq!(t.len(), 2);
    let want = "\
name          ms  note
----------------------
a            1.5  x
----------------------
long name  10.25
";
    assert_eq!(t.to_string(), want);
}

#[test]
fn dates() {
    assert_eq!(iso8601_from_unix(0), "1970-01-01T00:00:00Z");
    assert_eq!(iso8601_from_unix(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(iso8601_from_unix(1_700_000_000), "2023-11-14T22:13:20Z");
    assert_eq!(iso8601_from_unix(4_107_542_399), "2100-02-28T23:59:59Z");
}
