//! `foehn run jw --timers FILE.json` on a short CPU run: the file has GT4Py's metrics
//! layout (one entry per program variant, one sample per call) plus the component timers,
//! and `foehn compare` reads it against ICON's OpenACC timers.

mod support;

use serde_json::{json, Value};
use support::foehn;

fn bencher(latency: f64, calls: f64) -> Value {
    json!({
        "latency": { "value": latency },
        "latency_total": { "value": latency * calls },
        "num_calls": { "value": calls },
    })
}

#[test]
fn a_run_writes_its_timers_and_compare_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let timers = dir.path().join("timers.json");
    let r = foehn(&[
        "run",
        "jw",
        "--grid",
        "r2b2",
        "--levels",
        "10",
        "--steps",
        "2",
        "--substeps",
        "5",
        "--backend",
        "cpu",
        "--timers",
        timers.to_str().unwrap(),
    ]);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("wrote") && r.stdout.contains("timers.json"),
        "{}",
        r.stdout
    );

    let v: Value = serde_json::from_str(&std::fs::read_to_string(&timers).unwrap()).unwrap();
    let obj = v.as_object().unwrap();
    let components = &obj["foehn:components"];
    assert_eq!(components["metadata"]["run"]["steps"], json!(2));
    let calls = |name: &str| {
        components["components"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .map_or(0, |c| c["total"].as_array().unwrap().len())
    };
    assert_eq!(calls("solve_nonhydro"), 10);
    assert_eq!(calls("diffusion"), 2);
    assert_eq!(calls("dycore step"), 2);

    // Programs: every variant an entry; one host sample per call, each positive; the
    // substep programs run once per substep over their variants.
    let per_program = |name: &str| -> usize {
        obj.values()
            .filter(|e| e["metadata"]["name"] == name)
            .map(|e| e["metrics"]["total"].as_array().unwrap().len())
            .sum()
    };
    for e in obj
        .values()
        .filter(|e| e["metadata"]["name"] != "foehn:components")
    {
        let total = e["metrics"]["total"].as_array().unwrap();
        assert!(total.iter().all(|x| x.as_f64().unwrap() > 0.0), "{e}");
        assert!(e["metadata"]["static_args"].is_object(), "{e}");
    }
    assert_eq!(per_program("compute_rho_theta_pgrad_and_update_vn"), 10);
    assert_eq!(
        per_program("vertically_implicit_solver_at_corrector_step"),
        10
    );
    let firsts = obj
        .values()
        .filter(|e| {
            e["metadata"]["name"] == "vertically_implicit_solver_at_corrector_step"
                && e["metadata"]["static_args"]["at_first_substep"] == json!(true)
        })
        .map(|e| e["metrics"]["total"].as_array().unwrap().len())
        .sum::<usize>();
    assert_eq!(firsts, 2, "one first substep per step");

    let acc = dir.path().join("acc.json");
    let acc_json = json!({
        "nh_solve": bencher(4.55317, 1800.0),
        "nh_hdiff": bencher(1.2124, 360.0),
        "integrate_nh": bencher(64.675, 360.0),
        "nwp_radiation": bencher(192.0, 7.0),
        "compute_rho_theta_pgrad_and_update_vn": bencher(0.58898, 1800.0),
        "vertically_implicit_solver_at_corrector_step_first": bencher(0.7132, 360.0),
    });
    std::fs::write(&acc, acc_json.to_string()).unwrap();
    let c = foehn(&["compare", acc.to_str().unwrap(), timers.to_str().unwrap()]);
    assert_eq!(c.code, Some(0), "{}\n{}", c.stdout, c.stderr);
    for want in [
        "compute_rho_theta_pgrad_and_update_vn",
        "per time step, 2 programs",
        "components (mean ms per call",
        "nh_solve",
        "not mapped (",
        "nwp_radiation",
    ] {
        assert!(c.stdout.contains(want), "{want}: {}", c.stdout);
    }
}
