//! `foehn exec` end to end: NumPy inputs in, NumPy outputs out, same as the interpreter.

use foehn::ir::{Role, Variant};
use foehn::runtime::field::npy::{load_npz, save_npz, Array};
use foehn::runtime::field::Field;
use foehn::runtime::interp::Interpreter;
use foehn_grid::{Grid, EARTH_RADIUS};
use std::process::Command;

#[test]
fn exec_runs_a_program_on_npz_data() {
    let dir = tempfile::tempdir().unwrap();
    let grid = Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap();
    let ir = foehn_testkit::examples::divergence()
        .specialize(&Variant::new())
        .unwrap();
    let args = foehn_testkit::random_args(&ir, &grid, 5, 3);
    let arrays: Vec<(String, Array)> = args
        .fields()
        .map(|(n, f)| (n.to_string(), f.to_array()))
        .collect();
    let input = dir.path().join("in.npz");
    save_npz(&input, arrays.iter().map(|(n, a)| (n.as_str(), a))).unwrap();
    let output = dir.path().join("out.npz");
    let status = Command::new(env!("CARGO_BIN_EXE_foehn"))
        .args(["exec", "divergence", "--grid", "r2b1", "--backend", "cpu"])
        .arg("--inputs")
        .arg(&input)
        .arg("--output")
        .arg(&output)
        .env("FOEHN_CACHE_DIR", dir.path().join("cache"))
        .status()
        .unwrap();
    assert!(status.success());
    let mut want = args.clone();
    Interpreter.run_ir(&ir, &grid, &mut want).unwrap();
    let got = load_npz(&output).unwrap();
    for d in ir.fields.iter().filter(|d| d.role == Role::Out) {
        let f = Field::from_array(d.ty.dims, got[&d.name].clone()).unwrap();
        assert_eq!(&f, want.field(&d.name).unwrap());
    }
}

#[test]
fn exec_names_a_missing_array() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.npz");
    save_npz(&input, std::iter::empty()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_foehn"))
        .args(["exec", "divergence", "--grid", "r2b1", "--output", "x.npz"])
        .arg("--inputs")
        .arg(&input)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no array `vn`") || err.contains("no array `geofac_div`"),
        "{err}"
    );
}

#[test]
fn run_executes_the_diffusion_component() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_foehn"))
        .args([
            "run",
            "diffusion",
            "--grid",
            "r2b1",
            "--levels",
            "4",
            "--steps",
            "2",
            "--backend",
            "cpu",
        ])
        .env("FOEHN_CACHE_DIR", dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("step 1:") && text.contains("final:"),
        "{text}"
    );
}

#[test]
fn exec_runs_the_dycore_substep() {
    // The whole substep as one program through `foehn exec`: its realistic inputs as
    // NumPy arrays (scalars 0-d), the CPU backend's outputs as the interpreter's.
    use foehn::runtime::field::FieldData;
    use foehn_icon::solve_nonhydro::substep;
    let dir = tempfile::tempdir().unwrap();
    let grid = Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap();
    let variant = substep::variants().remove(1);
    let ir = substep::program(&variant).unwrap();
    let args = substep::inputs(&ir, &grid, 6, 3);
    let mut arrays: Vec<(String, Array)> = args
        .fields()
        .map(|(n, f)| (n.to_string(), f.to_array()))
        .collect();
    for s in &ir.scalars {
        let x = args.scalar(&s.name).unwrap().as_f64();
        let a = Array {
            shape: vec![],
            data: FieldData::F64(vec![x]),
            file_dtype: None,
        };
        arrays.push((s.name.clone(), a));
    }
    let input = dir.path().join("in.npz");
    save_npz(&input, arrays.iter().map(|(n, a)| (n.as_str(), a))).unwrap();
    let output = dir.path().join("out.npz");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_foehn"));
    cmd.args(["exec", substep::NAME, "--grid", "r2b1", "--backend", "cpu"]);
    for (name, value) in variant.0.iter() {
        cmd.arg("--variant").arg(format!("{name}={value}"));
    }
    let out = cmd
        .arg("--inputs")
        .arg(&input)
        .arg("--output")
        .arg(&output)
        .env("FOEHN_CACHE_DIR", dir.path().join("cache"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut want = args.clone();
    Interpreter.run_ir(&ir, &grid, &mut want).unwrap();
    let got = load_npz(&output).unwrap();
    let mut compared = 0;
    for d in ir
        .fields
        .iter()
        .filter(|d| d.role.writable() && d.role != Role::Temp)
    {
        let f = Field::from_array(d.ty.dims, got[&d.name].clone()).unwrap();
        let (a, b) = (
            f.as_f64().unwrap(),
            want.field(&d.name).unwrap().as_f64().unwrap(),
        );
        for (x, y) in a.iter().zip(b) {
            assert!(
                foehn_testkit::compare::rel_diff(*x, *y) <= 1e-12,
                "`{}`: {x:e} vs {y:e}",
                d.name
            );
        }
        compared += 1;
    }
    assert!(compared > 20, "{compared} outputs");
}
