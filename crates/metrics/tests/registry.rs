//! Metrics collection: levels, recording, timers, threads, and the GT4Py-layout JSON.

mod common;

use foehn_metrics::gt4py::gt4py_key;
use foehn_metrics::registry::{LEVEL_COMPUTE, LEVEL_OFF, LEVEL_TOTAL};
use foehn_metrics::{parse_level, MetricsSnapshot, ProgramKey, Registry};
use serde_json::Value;

fn key() -> ProgramKey {
    ProgramKey::new("compute_averaged_vn_and_fluxes", "cuda")
        .with_arg("at_first_substep", true)
        .with_arg("prepare_advection", false)
}

#[test]
fn level_parsing() {
    for (text, want) in [
        ("0", 0),
        ("1", 1),
        ("10", 10),
        (" 10 ", 10),
        ("", 0),
        ("off", 0),
        ("minimal", 1),
        ("Performance", 10),
        ("ALL", 100),
        ("50", 50),
    ] {
        assert_eq!(parse_level(text).unwrap(), want, "{text:?}");
    }
    for bad in ["-1", "abc", "1.5", "ten"] {
        let e = parse_level(bad).unwrap_err().to_string();
        assert!(e.contains(&format!("`{bad}`")), "{e}");
    }
}

#[test]
fn level_gates_what_is_recorded() {
    let k = key();
    let off = Registry::new(LEVEL_OFF);
    off.record(&k, 1.0, Some(0.5));
    assert!(off.snapshot().is_empty());

    let total = Registry::new(LEVEL_TOTAL);
    total.record(&k, 1.0, Some(0.5));
    let s = &total.snapshot().programs[&k];
    assert_eq!((s.total.as_slice(), s.compute.len()), (&[1.0][..], 0));

    let compute = Registry::new(LEVEL_COMPUTE);
    compute.record(&k, 1.0, Some(0.5));
    compute.record(&k, 2.0, None);
    let s = &compute.snapshot().programs[&k];
    assert_eq!(
        (s.total.as_slice(), s.compute.as_slice()),
        (&[1.0, 2.0][..], &[0.5][..])
    );

    compute.reset();
    assert!(compute.snapshot().is_empty());
}

#[test]
fn slots_and_timers() {
    let reg = Registry::new(LEVEL_COMPUTE);
    let k = key();
    let slot = reg.slot(&k);
    slot.record(0.25, Some(0.125));
    {
        let mut t = slot.timer();
        assert!(t.is_active());
        t.set_compute(0.002);
    }
    reg.timer(&k).cancel();
    let total = reg.timer(&k).stop().unwrap();
    let s = &reg.snapshot().programs[&k];
    assert_eq!(s.total.len(), 3);
    assert_eq!(s.total[0], 0.25);
    assert_eq!(s.total[2], total);
    assert_eq!(s.compute, vec![0.125, 0.002]);

    let off = Registry::new(LEVEL_OFF);
    assert!(!off.timer(&k).is_active());
    assert_eq!(off.timer(&k).stop(), None);
}

#[test]
fn many_threads_record_every_call() {
    let reg = Registry::new(LEVEL_TOTAL);
    let k = key();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (reg, k) = (reg.clone(), k.clone());
            s.spawn(move || {
                let slot = reg.slot(&k);
                for i in 0..500 {
                    if i % 2 == 0 {
                        slot.record(t as f64, None);
                    } else {
                        reg.record(&k, t as f64, None);
                    }
                }
            });
        }
    });
    assert_eq!(reg.snapshot().programs[&k].total.len(), 2000);
}

fn sample_registry() -> (Registry, ProgramKey, ProgramKey) {
    let reg = Registry::new(LEVEL_COMPUTE);
    let a = key();
    let b = ProgramKey::new("apply_diffusion_to_vn", "cpu").with_arg("nlev", 80);
    reg.record(&a, 1e-3, Some(5e-4));
    reg.record(&a, 2e-3, Some(6e-4));
    reg.record(&b, 3e-3, None);
    (reg, a, b)
}

#[test]
fn json_has_gt4py_layout() {
    let (reg, a, b) = sample_registry();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/metrics.json");
    let mut out = Vec::new();
    assert_eq!(reg.finish_to(&path, &mut out).unwrap(), Some(path.clone()));
    let table = String::from_utf8(out).unwrap();
    assert!(
        table.contains("compute_averaged_vn_and_fluxes") && table.contains("apply_diffusion_to_vn")
    );
    assert!(
        table.contains("at_first_substep=true,prepare_advection=false"),
        "{table}"
    );
    assert!(table.contains("1.5000"), "median of total in ms: {table}");

    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let obj = v.as_object().unwrap();
    assert_eq!(obj.len(), 2);
    let ka = gt4py_key(&a);
    assert!(
        ka.starts_with("compute_averaged_vn_and_fluxes<cuda>#0[") && ka.ends_with(']'),
        "{ka}"
    );
    assert_eq!(
        ka.len(),
        "compute_averaged_vn_and_fluxes<cuda>#0[]".len() + 16
    );
    assert_ne!(
        ka,
        gt4py_key(&ProgramKey::new("compute_averaged_vn_and_fluxes", "cuda"))
    );
    let ea = &obj[&ka];
    let mut keys: Vec<&str> = ea.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["metadata", "metrics"]);
    assert_eq!(ea["metadata"]["name"], "compute_averaged_vn_and_fluxes");
    assert_eq!(ea["metadata"]["backend"], "cuda");
    assert_eq!(
        ea["metadata"]["static_args"]["at_first_substep"],
        Value::Bool(true)
    );
    assert_eq!(
        ea["metadata"]["static_args"]["prepare_advection"],
        Value::Bool(false)
    );
    assert_eq!(ea["metrics"]["total"], serde_json::json!([1e-3, 2e-3]));
    assert_eq!(ea["metrics"]["compute"], serde_json::json!([5e-4, 6e-4]));
    let eb = &obj[&gt4py_key(&b)];
    assert_eq!(eb["metadata"]["static_args"]["nlev"], Value::from(80));
    assert!(eb["metrics"].get("compute").is_none());

    // Off: nothing printed or written.
    let off = Registry::new(LEVEL_OFF);
    let p2 = dir.path().join("never.json");
    assert_eq!(off.finish_to(&p2, &mut Vec::new()).unwrap(), None);
    assert!(!p2.exists());
}

#[test]
fn json_round_trips() {
    let (reg, _, _) = sample_registry();
    let snap = reg.snapshot();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.json");
    snap.write_json(&path).unwrap();
    let back = MetricsSnapshot::read_json(&path).unwrap();
    assert_eq!(back, snap);
    // No temporary file is left behind by the atomic write.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("m.json")]);
}

#[test]
fn global_registry() {
    foehn_metrics::set_level(LEVEL_COMPUTE);
    assert_eq!(foehn_metrics::level(), LEVEL_COMPUTE);
    let k = ProgramKey::new("global_registry_test_program", "cpu");
    foehn_metrics::record(&k, 0.5, Some(0.25));
    {
        let _t = foehn_metrics::CallTimer::start(&k);
    }
    let s = &foehn_metrics::snapshot().programs[&k];
    assert_eq!((s.total.len(), s.compute.as_slice()), (2, &[0.25][..]));
}
