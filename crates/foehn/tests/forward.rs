//! Forwarding of outputs read at other levels (ADR 0010): a consumer reading an output at
//! `k + 1` evaluates the producer there, so both share a kernel; the results are the
//! program's as written. Reads that may leave the producer's levels stay reads.

use foehn::dsl::prelude::*;
use foehn::ir::Program;
use foehn::opt::{optimise_scheduled, Decision, OptOptions};
use foehn::runtime::interp::Interpreter;
use foehn_testkit::assert_same_where_defined as assert_same;
use foehn_testkit::random_args;

mod common;
use common::run_cpu;

/// `y = x + x(k−1)` on levels `[lo, nlev)`, then `z = ½(y + y(k+1))` above the lowest
/// level and `½ y` there (ICON's full-level interpolation of `z_w_con_c`).
fn look_ahead(lo: i32) -> Program {
    ProgramDef::new("look_ahead", move |b| {
        let x = b.input("x", (CELL, K), F64);
        let y = b.output("y", (CELL, K), F64);
        let z = b.output("z", (CELL, K), F64);
        b.stencil("produce", &y, &x + x.k_shift(-1))
            .vertical(lo, nlev());
        b.stencil(
            "interpolate",
            &z,
            concat_where(index(K).lt(nlev() - 1), 0.5 * (&y + y.k_shift(1)), 0.5 * &y),
        )
        .vertical(1, nlev());
    })
    .specialize(&Variant::new())
    .unwrap()
}

#[test]
fn an_output_read_one_level_below_is_forwarded_and_fused() {
    let p = look_ahead(1);
    let (opt, schedule, report) = optimise_scheduled(&p, &OptOptions::default());
    assert!(
        report.decisions.iter().any(|d| matches!(d,
            Decision::Forwarded { output, offsets, .. } if output == "y" && offsets == &[1])),
        "{report}"
    );
    assert_eq!(schedule.kernels.len(), 1, "{report}");
    for grid in foehn_testkit::grids::compiler_grids() {
        let args = random_args(&p, grid, 6, 7);
        let mut want = args.clone();
        Interpreter.run_ir(&p, grid, &mut want).unwrap();
        assert_same(
            "look_ahead",
            &p,
            &want,
            &run_cpu(&opt, &schedule, grid, &args),
        );
    }
}

#[test]
fn a_read_that_may_leave_the_producers_levels_stays_a_read() {
    // `y` is written from level 3 on; `z` at level 1 reads the caller's `y(2)`, which
    // the producer's expression would not give.
    let p = look_ahead(3);
    let (opt, schedule, report) = optimise_scheduled(&p, &OptOptions::default());
    assert!(
        report.decisions.iter().any(|d| matches!(d,
            Decision::ForwardRejected { output, .. } if output == "y")),
        "{report}"
    );
    assert!(
        !report
            .decisions
            .iter()
            .any(|d| matches!(d, Decision::Forwarded { .. })),
        "{report}"
    );
    for grid in foehn_testkit::grids::compiler_grids() {
        let args = random_args(&p, grid, 6, 9);
        let mut want = args.clone();
        Interpreter.run_ir(&p, grid, &mut want).unwrap();
        assert_same(
            "look_ahead(3)",
            &p,
            &want,
            &run_cpu(&opt, &schedule, grid, &args),
        );
    }
}

#[test]
fn forwarding_is_deterministic() {
    let p = look_ahead(1);
    let a = optimise_scheduled(&p, &OptOptions::default());
    let b = optimise_scheduled(&p, &OptOptions::default());
    assert_eq!(a.0, b.0);
    assert_eq!(a.2, b.2);
}
