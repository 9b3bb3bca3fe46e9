//! A run's timers file (`foehn run jw --timers`): written in GT4Py's layout with the
//! component timers beside it, read back, and compared with ICON's OpenACC timers
//! (ch1_medium-like numbers): program rows with static-argument filters and merges,
//! component rows, per-step totals, and what could not be mapped and why.

mod common;

use common::{close, close_opt, write};
use foehn_metrics::run_timers::COMPONENTS_KEY;
use foehn_metrics::span::names;
use foehn_metrics::timer_report::Timers;
use foehn_metrics::{
    compare_files, load_file, Format, MetricsSnapshot, ProgramKey, RunInfo, RunTimers, Samples,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const RHO: &str = "compute_rho_theta_pgrad_and_update_vn";
const VIS_P: &str = "vertically_implicit_solver_at_predictor_step";
const AVG: &str = "compute_averaged_vn_and_fluxes";

/// A 2-step run with 5 substeps on the GPU: kernel ("compute") and host ("total") times.
fn run_timers() -> RunTimers {
    let mut programs = BTreeMap::new();
    let mut put = |key: ProgramKey, n: usize, compute_ms: f64| {
        let samples = Samples {
            total: vec![compute_ms * 1.1e-3; n],
            compute: vec![compute_ms * 1e-3; n],
        };
        programs.insert(key, samples);
    };
    let cuda = |p: &str| ProgramKey::new(p, "cuda");
    put(cuda(RHO), 10, 0.3);
    put(cuda("compute_hydrostatic_correction_term"), 10, 0.05);
    put(cuda(VIS_P).with_arg("at_first_substep", true), 2, 0.4);
    put(cuda(VIS_P).with_arg("at_first_substep", false), 8, 0.35);
    // JW runs without tracer advection: prepare_advection is false.
    for first in [true, false] {
        // Static arguments by name: JSON keeps no order, so they read back sorted.
        let key = cuda(AVG)
            .with_arg("at_first_substep", first)
            .with_arg("prepare_advection", false);
        put(key, if first { 2 } else { 8 }, 0.2);
    }
    put(cuda("compute_advection_in_horizontal_momentum"), 12, 0.15);
    let mut components = Timers::new();
    for _ in 0..2 {
        components.record(names::VELOCITY_ADVECTION_PREDICTOR, 0.2e-3);
        for _ in 0..5 {
            components.record(names::VELOCITY_ADVECTION_CORRECTOR, 0.25e-3);
            components.record(names::SOLVE_NONHYDRO, 0.9e-3);
        }
        components.record(names::DIFFUSION, 0.3e-3);
        components.record(names::STEP, 5.0e-3);
    }
    components.record(names::OUTPUT, 0.5);
    RunTimers {
        programs: MetricsSnapshot { programs },
        components,
        run: RunInfo {
            grid: "r2b4".into(),
            levels: 35,
            backend: "cuda".into(),
            steps: 2,
            dtime_s: 300.0,
            substeps: 5,
            wall_s: 1.5,
            simulated_s: 600.0,
            cold_start_s: Some(2.5),
        },
    }
}

fn bencher(latency: f64, total: f64, calls: f64) -> Value {
    json!({
        "latency": { "lower_value": latency * 0.98, "upper_value": latency * 1.2, "value": latency },
        "latency_total": { "lower_value": total, "upper_value": total, "value": total },
        "num_calls": { "value": calls },
    })
}

/// Timers of ICON's OpenACC ch1_medium run (360 steps × 5 substeps; GH200).
fn openacc(dir: &Path) -> PathBuf {
    let v = json!({
        "integrate_nh": bencher(64.675, 23283.0, 360.0),
        "nh_solve": bencher(4.55317, 8196.0, 1800.0),
        "nh_hdiff": bencher(1.2124, 436.0, 360.0),
        "nh_hdiff_initial_run": bencher(2.37894, 2.0, 1.0),
        "nh_solve.veltend": bencher(0.70179, 1516.0, 2160.0),
        "nh_solve.vimpl": bencher(0.70622, 2542.0, 3600.0),
        "nwp_radiation": bencher(192.01854, 1344.0, 7.0),
        "transport": bencher(8.85979, 3190.0, 360.0),
        RHO: bencher(0.58898, 1060.0, 1800.0),
        VIS_P: bencher(0.70504, 1015.0, 1440.0),
        "vertically_implicit_solver_at_predictor_step_first": bencher(0.72674, 262.0, 360.0),
        "compute_averaged_vn_and_fluxes_and_prepare_tracer_advection": bencher(0.27691, 399.0, 1440.0),
        "update_mass_flux_weighted": bencher(0.01598, 23.0, 1440.0),
    });
    write(dir, "acc.json", &v.to_string())
}

#[test]
fn timers_file_round_trips_and_gt4py_readers_skip_the_components() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/timers.json");
    let t = run_timers();
    t.write_json(&path).unwrap();
    assert_eq!(RunTimers::read_json(&path).unwrap(), t);

    // What ICON4Py's comparison script does with each entry: metadata.name and the
    // metric it reads ("compute"); the component entry has no metric.
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let obj = v.as_object().unwrap();
    assert_eq!(obj.len(), t.programs.programs.len() + 1);
    for (key, entry) in obj {
        assert!(entry["metadata"]["name"].is_string(), "{key}");
        let has_compute = entry["metrics"].get("compute").is_some();
        assert_eq!(has_compute, key != COMPONENTS_KEY, "{key}");
    }
    let first = obj
        .values()
        .find(|e| {
            e["metadata"]["name"] == VIS_P
                && e["metadata"]["static_args"]["at_first_substep"] == json!(true)
        })
        .unwrap();
    assert_eq!(first["metrics"]["compute"].as_array().unwrap().len(), 2);

    // foehn compare's loader: programs as a GT4Py column, components and steps beside.
    let cols = load_file(&path).unwrap();
    assert_eq!(cols.len(), 1);
    let c = &cols[0];
    assert_eq!(
        (c.format, c.backend.as_str(), c.steps),
        (Format::Gt4pyMetrics, "cuda", Some(2.0))
    );
    assert_eq!(c.entries.len(), t.programs.programs.len());
    assert!(c.entries.iter().all(|e| e.program != COMPONENTS_KEY));
    let sn = c
        .components
        .iter()
        .find(|e| e.program == names::SOLVE_NONHYDRO)
        .unwrap();
    close(sn.ms, 0.9);
    assert_eq!((sn.calls, sn.calls_per_step), (Some(10.0), Some(5.0)));
}

#[test]
fn a_plain_gt4py_file_is_not_a_timers_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gt4py.json");
    run_timers().programs.write_json(&path).unwrap();
    let e = RunTimers::read_json(&path).unwrap_err().to_string();
    assert!(e.contains("gt4py.json") && e.contains("--timers"), "{e}");
    assert_eq!(load_file(&path).unwrap()[0].steps, None);

    let bad = write(
        dir.path(),
        "bad.json",
        &json!({ COMPONENTS_KEY: { "metadata": { "name": COMPONENTS_KEY }, "metrics": {} } })
            .to_string(),
    );
    let e = load_file(&bad).unwrap_err().to_string();
    assert!(e.contains("bad.json") && e.contains("metadata.run"), "{e}");
}

#[test]
fn run_timers_compare_with_openacc() {
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("foehn.json");
    run_timers().write_json(&ours).unwrap();
    let cmp = compare_files(&[openacc(dir.path()), ours]).unwrap();

    // Program rows: the merge (rho + hydrostatic correction) and the static-argument
    // filters (at_first_substep) are applied.
    let row = |name: &str| cmp.rows.iter().find(|r| r.name == name).unwrap();
    close_opt(row(RHO).ms[1], 0.35);
    close_opt(row(VIS_P).ms[1], 0.35);
    close_opt(
        row("vertically_implicit_solver_at_predictor_step_first").ms[1],
        0.4,
    );
    assert_eq!(row(VIS_P).calls, [Some(1440.0), Some(8.0)]);
    // Not called as the timer's variant, or not at all: no value, and a note says why.
    assert_eq!(
        row("compute_averaged_vn_and_fluxes_and_prepare_tracer_advection").ms[1],
        None
    );
    assert_eq!(row("update_mass_flux_weighted").ms[1], None);
    let text = cmp.to_text();
    assert!(
        text.contains("[1] compute_averaged_vn_and_fluxes_and_prepare_tracer_advection: compute_averaged_vn_and_fluxes called only as"),
        "{text}"
    );
    assert!(text.contains("prepare_advection=false"), "{text}");
    assert!(
        text.contains("[1] update_mass_flux_weighted: no call of update_mass_flux_weighted"),
        "{text}"
    );

    // Per time step over the three shared rows, each file with its own calls per step:
    // ICON 0.58898·5 + 0.70504·4 + 0.72674·1; foehn 0.35·5 + 0.35·4 + 0.4·1.
    let p = cmp.per_step[1].unwrap();
    assert_eq!(p.rows, 3);
    close(p.baseline_ms, 0.58898 * 5.0 + 0.70504 * 4.0 + 0.72674);
    close(p.ms, 0.35 * 5.0 + 0.35 * 4.0 + 0.4);
    assert!(text.contains("per time step, 3 programs"), "{text}");

    // Components: nh_solve per substep, nh_hdiff per step, veltend pooled.
    let comp = |t: &str| cmp.components.iter().find(|c| c.timer == t).unwrap();
    let nh = comp("nh_solve");
    close_opt(nh.ms[1], 0.9);
    assert_eq!(nh.calls_per_step, [Some(5.0), Some(5.0)]);
    close_opt(nh.speedup[1], 4.55317 / 0.9);
    close_opt(comp("nh_hdiff").ms[1], 0.3);
    let vel = comp("nh_solve.veltend");
    close_opt(vel.ms[1], (2.0 * 0.2 + 10.0 * 0.25) / 12.0);
    assert_eq!(vel.calls_per_step, [Some(6.0), Some(6.0)]);
    assert!(text.contains("components (mean ms per call"), "{text}");
    // A run without a velocity-advection timer: the row says why.
    let mut quiet = run_timers();
    let mut kept = Timers::new();
    for n in [names::SOLVE_NONHYDRO, names::DIFFUSION] {
        for &x in quiet.components.samples(n) {
            kept.record(n, x);
        }
    }
    quiet.components = kept;
    let q = dir.path().join("quiet.json");
    quiet.write_json(&q).unwrap();
    let quiet_cmp = compare_files(&[openacc(dir.path()), q]).unwrap();
    assert!(
        quiet_cmp
            .missing
            .iter()
            .any(|m| m.starts_with("[1] nh_solve.veltend: foehn runs velocity advection inside")),
        "{:?}",
        quiet_cmp.missing
    );

    // What is not mapped, by reason.
    let reason_of = |t: &str| {
        cmp.unmapped
            .iter()
            .find(|u| u.timers.iter().any(|x| x == t))
            .map(|u| u.reason.clone())
            .unwrap_or_else(|| panic!("{t} not listed"))
    };
    assert!(reason_of("nwp_radiation").contains("not a dycore program"));
    assert_eq!(reason_of("transport"), reason_of("nwp_radiation"));
    assert!(reason_of("integrate_nh").contains("whole model step"));
    assert!(reason_of("nh_solve.vimpl").contains("inside solve_nonhydro"));
    assert!(reason_of("nh_hdiff_initial_run").contains("initial run"));
    assert!(cmp
        .unmapped
        .iter()
        .all(|u| !u.timers.iter().any(|t| t == "nh_solve")));
    assert!(text.contains("not mapped ("), "{text}");
}

#[test]
fn without_a_timers_file_component_timers_are_listed_as_unmapped() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.json");
    run_timers().programs.write_json(&plain).unwrap();
    let cmp = compare_files(&[openacc(dir.path()), plain]).unwrap();
    assert!(cmp.components.is_empty());
    assert_eq!(cmp.per_step[1], None);
    let listed = cmp
        .unmapped
        .iter()
        .find(|u| u.timers.iter().any(|t| t == "nh_solve"))
        .unwrap();
    assert!(listed.reason.contains("--timers"), "{}", listed.reason);
}
