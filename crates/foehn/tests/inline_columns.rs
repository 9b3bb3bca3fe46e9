//! The inliner's column-load model (ADR 0022): a temporary read at two levels of the
//! consumer's own column is inlined (the producer's loads there are the column's own,
//! streamed by the thread walking it); read at neighbours it is charged per neighbour
//! as before; the old model (`column_streamed_loads` off) keeps it; results are those of
//! the program as written.

use foehn::dsl::prelude::*;
use foehn::ir::{Program, Role};
use foehn::opt::{optimise, Decision, InlineRejectReason, OptOptions, OptReport};
use foehn::runtime::interp::Interpreter;
use foehn_testkit::assert_same_where_defined as assert_same;
use foehn_testkit::random_args;

/// ICON's linear interpolation of a perturbation to half levels (`pr` at `k`, `below`
/// at `k − 1`, the top level taking `pr`).
fn to_half_levels(pr: &Expr, below: Expr, wgtfac: &Expr) -> Expr {
    concat_where(
        index(K).lt(1),
        pr.clone(),
        wgtfac * pr + (1.0 - wgtfac) * below,
    )
}

/// ICON's interpolation to half levels followed by a vertical difference: the
/// temporary is read at `k` and `k + 1` of the same cell.
fn interpolate_then_difference() -> Program {
    ProgramDef::new("interpolate_then_difference", |b| {
        let theta = b.input("theta_v", (CELL, K), F64);
        let theta_ref = b.input("theta_ref", (CELL, K), F64);
        let wgtfac = b.input("wgtfac_c", (CELL, K), F64);
        let inv_ddqz = b.input("inv_ddqz_z_full", (CELL, K), F64);
        let half = b.temporary("theta_pr_ic", (CELL, K), F64);
        let ddz = b.output("ddz_theta_pr", (CELL, K), F64);
        let pr = &theta - &theta_ref;
        let below = theta.k_shift(-1) - theta_ref.k_shift(-1);
        b.stencil("interpolate", &half, to_half_levels(&pr, below, &wgtfac));
        b.stencil(
            "difference",
            &ddz,
            concat_where(
                index(K).lt(79),
                (&half - half.k_shift(1)) * &inv_ddqz,
                &half * &inv_ddqz,
            ),
        );
    })
    .specialize(&Variant::new())
    .unwrap()
}

fn rejected_for_loads(r: &OptReport) -> Option<(usize, usize)> {
    r.decisions.iter().find_map(|d| match d {
        Decision::InlineRejected {
            reason: InlineRejectReason::TooManyLoads { loads, stored, .. },
            ..
        } => Some((*loads, *stored)),
        _ => None,
    })
}

#[test]
fn a_temporary_read_at_two_levels_of_its_column_is_inlined() {
    let ir = interpolate_then_difference();
    let (opt, report) = optimise(&ir, &OptOptions::default());
    assert!(opt.fields.iter().all(|f| f.role != Role::Temp), "{report}");
    assert!(
        report.decisions.iter().any(|d| matches!(
            d,
            Decision::Inlined { temporary, into, .. }
                if temporary == "theta_pr_ic" && into == "difference"
        )),
        "{report}"
    );
    // Per column it adds 3 loads (θ, θ_ref, wgtfac) against a write and one column
    // read. Counting every level and branch apart (the old model), recomputing it at k,
    // k+1 and in the top level's branch loads 3 × 5 values against a write and 3 reads,
    // over twice that, so it stayed stored.
    let old = OptOptions {
        column_streamed_loads: false,
        ..OptOptions::default()
    };
    let (kept, r) = optimise(&ir, &old);
    assert!(kept.fields.iter().any(|f| f.role == Role::Temp), "{r}");
    let (loads, stored) = rejected_for_loads(&r).expect("rejected for its loads");
    assert!(loads > 2 * stored, "{r}");
    // Same results on both grids (global with pentagons, limited area).
    for grid in foehn_testkit::grids::compiler_grids_with_limited_area() {
        let args = random_args(&ir, grid, 80, 11);
        let (mut a, mut b) = (args.clone(), args);
        Interpreter.run_ir(&ir, grid, &mut a).unwrap();
        Interpreter.run_ir(&opt, grid, &mut b).unwrap();
        assert_same("interpolate then difference", &ir, &a, &b);
    }
}

#[test]
fn a_temporary_read_at_neighbours_is_still_charged_per_neighbour() {
    // A producer of 4 column loads (θ, θ_ref, exner_ref, wgtfac; their two levels
    // share columns) read at an edge's two cells: 2 × 4 loads against a write and two
    // reads, over twice 3.
    let ir = ProgramDef::new("interpolate_then_edge_difference", |b| {
        let theta = b.input("theta_v", (CELL, K), F64);
        let theta_ref = b.input("theta_ref", (CELL, K), F64);
        let exner_ref = b.input("exner_ref", (CELL, K), F64);
        let wgtfac = b.input("wgtfac_c", (CELL, K), F64);
        let half = b.temporary("theta_pr_ic", (CELL, K), F64);
        let grad = b.output("grad", (EDGE, K), F64);
        let pr = &theta - &theta_ref + &exner_ref;
        let below = theta.k_shift(-1) - theta_ref.k_shift(-1) + exner_ref.k_shift(-1);
        b.stencil("interpolate", &half, to_half_levels(&pr, below, &wgtfac));
        b.stencil("gradient", &grad, half.at(E2C, 1) - half.at(E2C, 0));
    })
    .specialize(&Variant::new())
    .unwrap();
    let (opt, report) = optimise(&ir, &OptOptions::default());
    assert!(opt.fields.iter().any(|f| f.role == Role::Temp), "{report}");
    assert_eq!(rejected_for_loads(&report), Some((8, 3)), "{report}");
}
