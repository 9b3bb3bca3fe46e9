//! One test per error kind: messages name the program, stencil, expression, dims and
//! the Rust source line that built the expression.

use foehn::dsl::prelude::*;
use foehn::runtime::field::{Args, Field};
use foehn::runtime::{interp::Interpreter, Backend};
use foehn::{CheckErrorKind, Error};
use foehn_grid::{Grid, EARTH_RADIUS};

fn check_error(p: &ProgramDef) -> foehn::CheckError {
    match p.specialize(&Variant::new()) {
        Err(Error::Check(e)) => *e,
        other => panic!("expected a check error, got {other:?}"),
    }
}

fn assert_contains(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "message lacks `{p}`:\n{msg}");
    }
}

#[test]
fn dimension_mismatch_edge_plus_cell() {
    let p = ProgramDef::new("bad_dims", |b| {
        let vn = b.input("vn", (EDGE, K), F64);
        let theta = b.input("theta", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        b.stencil("add", &out, &vn + &theta);
    });
    let e = check_error(&p);
    assert_eq!(e.kind, CheckErrorKind::DimensionMismatch);
    let msg = e.to_string();
    assert_contains(
        &msg,
        &[
            "program `bad_dims`",
            "stencil `add`",
            "dimension mismatch",
            "[Edge, K]",
            "[Cell, K]",
            "(vn + theta)",
            "tests/errors.rs:",
        ],
    );
    let line = e.span.as_ref().unwrap().line as usize;
    assert!(include_str!("errors.rs")
        .lines()
        .nth(line - 1)
        .unwrap()
        .contains("&vn + &theta"));
}

#[test]
fn shift_through_a_connectivity_the_location_lacks() {
    let p = ProgramDef::new("bad_shift", |b| {
        let theta = b.input("theta", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        // C2E reads Edge values; theta lives on cells.
        b.stencil("s", &out, theta.shift(C2E).sum_over(C2E));
    });
    let e = check_error(&p);
    assert_eq!(e.kind, CheckErrorKind::Connectivity);
    assert_contains(
        &e.to_string(),
        &[
            "program `bad_shift`",
            "cannot shift a Cell value",
            "[Cell, K]",
            "through C2E",
            "theta(C2E)",
            "tests/errors.rs:",
        ],
    );
}

#[test]
fn type_mismatch_f32_plus_f64() {
    let p = ProgramDef::new("bad_types", |b| {
        let a = b.input("a", (CELL, K), F32);
        let x = b.input("x", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        b.stencil("s", &out, &a * &x);
    });
    let e = check_error(&p);
    assert_eq!(e.kind, CheckErrorKind::TypeMismatch);
    assert_contains(
        &e.to_string(),
        &["type mismatch", "f32 and f64", "cast", "(a * x)"],
    );
    // With a cast it checks.
    let ok = ProgramDef::new("cast", |b| {
        let a = b.input("a", (CELL, K), F32);
        let x = b.input("x", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        b.stencil("s", &out, a.cast(F64) * &x * 2.0);
    });
    ok.specialize(&Variant::new()).unwrap();
}

#[test]
fn type_mismatch_bool_arithmetic() {
    let p = ProgramDef::new("bool_math", |b| {
        let m = b.input("mask", (CELL, K), BOOL);
        let out = b.output("out", (CELL, K), BOOL);
        b.stencil("s", &out, &m + &m);
    });
    let e = check_error(&p);
    assert_eq!(e.kind, CheckErrorKind::TypeMismatch);
    assert_contains(
        &e.to_string(),
        &["`+` needs numeric", "bool", "(mask + mask)"],
    );
}

#[test]
fn half_level_where_full_expected() {
    let p = ProgramDef::new("bad_levels", |b| {
        let w = b.input("w", (CELL, KHALF), F64);
        let x = b.input("x", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        b.stencil("s", &out, &x * &w);
    });
    let e = check_error(&p);
    assert_eq!(e.kind, CheckErrorKind::VerticalKind);
    assert_contains(
        &e.to_string(),
        &[
            "half-level value [Cell, KHalf]",
            "full levels [Cell, K]",
            ".as_full()",
            "(x * w)",
        ],
    );

    // Writing a half-level expression to a full-level output is caught too.
    let p = ProgramDef::new("bad_out", |b| {
        let w = b.input("w", (CELL, KHALF), F64);
        let out = b.output("out", (CELL, K), F64);
        b.stencil("s", &out, &w * 2.0);
    });
    let e = check_error(&p);
    assert_eq!(e.kind, CheckErrorKind::VerticalKind);
    assert_contains(
        &e.to_string(),
        &["does not fit output `out`", "[Cell, KHalf]", "[Cell, K]"],
    );

    // Explicit conversion checks.
    let ok = ProgramDef::new("w_full", |b| {
        let w = b.input("w", (CELL, KHALF), F64);
        let out = b.output("out", (CELL, K), F64);
        b.stencil("s", &out, 0.5 * (w.as_full() + w.k_shift(1).as_full()));
    });
    ok.specialize(&Variant::new()).unwrap();
}

#[test]
fn scan_over_a_horizontal_dimension() {
    let p = ProgramDef::new("bad_scan", |b| {
        let x = b.input("x", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        b.stencil("s", &out, scan(CELL, FORWARD, 0.0, |c| &c[0] + &x));
    });
    let e = check_error(&p);
    assert_eq!(e.kind, CheckErrorKind::ScanAxis);
    assert_contains(
        &e.to_string(),
        &[
            "scan over dimension Cell",
            "vertical dimension",
            "tests/errors.rs:",
        ],
    );
}

#[test]
fn reduction_over_the_wrong_local_dimension() {
    let p = ProgramDef::new("bad_reduce", |b| {
        let vn = b.input("vn", (EDGE, K), F64);
        let out = b.output("out", (CELL, K), F64);
        b.stencil("s", &out, vn.shift(C2E).sum_over(C2V));
    });
    let e = check_error(&p);
    assert_eq!(e.kind, CheckErrorKind::LocalDim);
    assert_contains(&e.to_string(), &["neighbor_sum over C2V", "[Cell, C2E, K]"]);
}

#[test]
fn reading_an_output_through_a_shift() {
    let p = ProgramDef::new("race", |b| {
        let x = b.inout("x", (CELL, K), F64);
        b.stencil("s", &x, x.k_shift(1) + 1.0)
            .vertical(0, nlev() - 1);
    });
    let e = check_error(&p);
    assert_eq!(e.kind, CheckErrorKind::ReadWriteConflict);
    assert_contains(
        &e.to_string(),
        &["reads `x` through a shift while writing it"],
    );
}

#[test]
fn carry_used_outside_its_scan() {
    let p = ProgramDef::new("leak", |b| {
        let x = b.input("x", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        let mut leaked = None;
        let s = scan_forward(0.0, |c| {
            leaked = Some(c[0].clone());
            &c[0] + &x
        });
        b.stencil("s", &out, s + leaked.unwrap());
    });
    assert_eq!(check_error(&p).kind, CheckErrorKind::Scan);
}

#[test]
fn wrong_shape_at_call_names_argument_and_shapes() {
    let grid = Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap();
    let p = foehn_testkit::examples::divergence();
    let mut args = Args::new()
        .with_field("vn", Field::zeros(&grid, 5, (CELL, K), F64)) // should live on edges
        .with_field("geofac_div", Field::zeros(&grid, 5, (CELL, C2E), F64))
        .with_field("div", Field::zeros(&grid, 5, (CELL, K), F64));
    let err = Interpreter
        .run(&p, &Variant::new(), &grid, &mut args)
        .unwrap_err();
    assert!(matches!(err, Error::Argument { .. }));
    assert_contains(
        &err.to_string(),
        &[
            "program `divergence`",
            "argument `vn`",
            "expected [Edge=480, K=5] f64",
            "got [Cell=320, K=5] f64",
        ],
    );
    // A missing argument and a wrong scalar type are named too.
    let mut args = Args::new().with_field("vn", Field::zeros(&grid, 5, (EDGE, K), F64));
    let err = Interpreter
        .run(&p, &Variant::new(), &grid, &mut args)
        .unwrap_err();
    assert_contains(&err.to_string(), &["argument `geofac_div`", "missing"]);
}

#[test]
fn reading_through_a_skip_value_outside_a_reduction_is_a_runtime_error() {
    let grid = Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap();
    let p = ProgramDef::new("skip_read", |b| {
        let vn = b.input("vn", (EDGE, K), F64);
        let out = b.output("out", (VERTEX, K), F64);
        b.stencil("sixth_edge", &out, vn.at(V2E, 5));
    });
    let mut args = Args::new()
        .with_field("vn", Field::zeros(&grid, 2, (EDGE, K), F64))
        .with_field("out", Field::zeros(&grid, 2, (VERTEX, K), F64));
    let err = Interpreter
        .run(&p, &Variant::new(), &grid, &mut args)
        .unwrap_err();
    assert!(matches!(err, Error::Runtime { .. }));
    assert_contains(
        &err.to_string(),
        &[
            "program `skip_read`",
            "stencil `sixth_edge`",
            "skip value",
            "V2E neighbour 5",
        ],
    );
    // The arguments are handed back even after an error.
    assert!(args.field("out").is_some());
}

#[test]
fn reading_a_level_that_does_not_exist_is_a_runtime_error() {
    let grid = Grid::torus(10000.0, 10000.0, 1000.0).unwrap();
    let p = ProgramDef::new("k_oob", |b| {
        let x = b.input("x", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        b.stencil("up", &out, x.k_shift(-1));
    });
    let mut args = Args::new()
        .with_field("x", Field::zeros(&grid, 3, (CELL, K), F64))
        .with_field("out", Field::zeros(&grid, 3, (CELL, K), F64));
    let err = Interpreter
        .run(&p, &Variant::new(), &grid, &mut args)
        .unwrap_err();
    assert_contains(
        &err.to_string(),
        &["stencil `up`", "field `x` read at level -1", "[0, 3)"],
    );
}

#[test]
fn variants_are_checked_and_specialised() {
    let p = ProgramDef::new("substeps", |b| {
        let first = b.static_bool("at_first_substep");
        let last = b.static_bool("at_last_substep");
        let x = b.input("x", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        let mut e = x.clone();
        if first {
            e = e * 2.0;
        }
        if last {
            e = e + 1.0;
        }
        b.stencil("s", &out, e);
    })
    .static_bool("at_first_substep")
    .static_bool("at_last_substep");
    let variants = p.variants(&Variant::new()).unwrap();
    assert_eq!(variants.len(), 4);
    let hashes: std::collections::BTreeSet<_> = variants
        .iter()
        .map(|v| p.specialize(v).unwrap().content_hash())
        .collect();
    assert_eq!(hashes.len(), 4, "each variant is its own IR");
    let err = p
        .specialize(&Variant::new().with("at_first_substep", true))
        .unwrap_err();
    assert_contains(
        &err.to_string(),
        &["program `substeps`", "lacks static `at_last_substep`"],
    );
    let ir = p.specialize(&variants[3]).unwrap();
    assert!(ir
        .to_string()
        .contains("[variant: at_first_substep=true, at_last_substep=true]"));
}

/// The compiled backend reports a failed run-time check with the program and stencil
/// once and in words (before: "program `x`, stencil `y`: program `x`, stencil `y`: …"
/// and the generated code's `NK2`).
#[test]
fn compiled_runtime_errors_name_program_and_stencil_once() {
    let cache = tempfile::tempdir().unwrap();
    let cpu = foehn::runtime::cpu::CpuBackend::new(foehn_cache::Cache::at(cache.path()));
    let grid = Grid::torus(10000.0, 10000.0, 1000.0).unwrap();
    let p = ProgramDef::new("k_oob", |b| {
        let x = b.input("x", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        b.stencil("up", &out, x.k_shift(-1));
    });
    let mut args = Args::new()
        .with_field("x", Field::zeros(&grid, 3, (CELL, K), F64))
        .with_field("out", Field::zeros(&grid, 3, (CELL, K), F64));
    let msg = cpu
        .run(&p, &Variant::new(), &grid, &mut args)
        .unwrap_err()
        .to_string();
    assert_contains(
        &msg,
        &["program `k_oob`", "stencil `up`", "field `x`", "level"],
    );
    assert_eq!(msg.matches("program `k_oob`").count(), 1, "{msg}");
    assert_eq!(msg.matches("stencil `up`").count(), 1, "{msg}");
    assert!(!msg.contains("NK"), "{msg}");
}
