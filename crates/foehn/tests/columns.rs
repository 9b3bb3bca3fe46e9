//! Column kernels (ADR 0019): stencils next to a scan stencil share its kernel, a thread
//! per column running them in order, when every dependency stays in the column; the
//! temporaries only they use live in per-thread column arrays. The interpreter (the
//! program as written) and the CPU backend on the optimised schedule agree; a read
//! through a neighbour of a field written in the group keeps the stencils apart.

use foehn::codegen::{generate, Sizes, Target};
use foehn::dsl::prelude::*;
use foehn::ir::{Program, Schedule};
use foehn::opt::{optimise_scheduled, ColumnRejectReason, Decision, OptOptions, OptReport};

mod common;
use common::assert_cpu_agrees;

/// What the last stencil reads of the scan's output `s`.
#[derive(Clone, Copy)]
enum After {
    /// `s` at its own point and the temporary `a` one level below.
    Column,
    /// `s` at the C2E2CO neighbours.
    Neighbours,
    /// It overwrites `y`, which the first stencil reads at neighbours.
    OverwritesNeighbourInput,
}

/// A pointwise producer of `a`, the tridiagonal-like coefficient `c` from `a` at `k` and
/// `k + 1`, a forward scan over `c` (with `a` at `k - 1` in its body), then a stencil
/// reading the scan's output (as `after` says).
fn program(after: After) -> Program {
    ProgramDef::new("columns", move |b| {
        let x = b.input("x", (CELL, K), F64);
        let y = b.inout("y", (CELL, K), F64);
        let w = b.input("w", (CELL, C2E2CO), F64);
        let a = b.temporary("a", (CELL, K), F64);
        let c = b.temporary("c", (CELL, K), F64);
        let s = b.output("s", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        b.stencil(
            "produce",
            &a,
            (y.shift(C2E2CO) * &w).sum_over(C2E2CO) + &x * &x * 0.5,
        );
        b.stencil(
            "coefficients",
            &c,
            concat_where(
                index(K).lt(nlev() - 1),
                (a.k_shift(1) - &a) / (&a * &a + 1.0),
                &a * 0.25,
            ),
        );
        let sum = scan_forward(0.0, |prev| {
            &prev[0] * 0.5 + &c + concat_where(index(K).lt(1), 0.0, a.k_shift(-1))
        });
        b.stencil("sweep", &s, sum);
        match after {
            After::Column => b.stencil(
                "update",
                &out,
                &s + concat_where(index(K).lt(1), &a, a.k_shift(-1) * 2.0),
            ),
            After::Neighbours => b.stencil("update", &out, s.shift(C2E2CO).sum_over(C2E2CO)),
            After::OverwritesNeighbourInput => b.stencil("update", &y, &s * 2.0 + &c),
        };
    })
    .specialize(&Variant::new())
    .unwrap()
}

/// The default options with column kernels running their members one after another
/// (ADR 0019; by default they walk the levels in lockstep, ADR 0025).
fn with_columns() -> OptOptions {
    OptOptions {
        columns: true,
        lockstep: false,
        ..OptOptions::default()
    }
}

/// Options that keep the temporaries stored (so that the column arrays are exercised).
fn no_inlining() -> OptOptions {
    OptOptions {
        inline: false,
        ..with_columns()
    }
}

/// The interpreter on `p` and the CPU backend on its optimised schedule agree on every
/// compiler grid.
fn agrees(what: &str, p: &Program, opts: &OptOptions) -> (Schedule, OptReport) {
    let (opt, schedule, report) = optimise_scheduled(p, opts);
    assert_cpu_agrees(what, p, &[(&opt, &schedule)], 7, 0xc01);
    (schedule, report)
}

#[test]
fn pointwise_scan_pointwise_share_one_column_kernel_with_local_temporaries() {
    let p = program(After::Column);
    let (schedule, report) = agrees("column", &p, &no_inlining());
    assert_eq!(schedule.kernels.len(), 1, "{report}");
    let joined: Vec<&str> = report
        .decisions
        .iter()
        .filter_map(|d| match d {
            Decision::ColumnJoined { stencil, scan } if scan == "sweep" => Some(stencil.as_str()),
            _ => None,
        })
        .collect();
    // Backwards first (the parts of the specialised `coefficients`, then `produce`),
    // then forwards (the parts of `update`).
    assert_eq!(joined.len(), 5, "{report}");
    assert!(joined[0].starts_with("coefficients["), "{report}");
    assert_eq!(joined[2], "produce", "{report}");
    assert!(
        joined[3..].iter().all(|s| s.starts_with("update[")),
        "{report}"
    );
    let k = &schedule.kernels[0];
    assert_eq!(k.k_block, 1);
    assert!(!k.k_major);
    let locals: Vec<&str> = k.locals.iter().map(|f| p.field(*f).name.as_str()).collect();
    assert_eq!(locals, ["a", "c"]);
    // With the other passes at their defaults too (the producer may be inlined).
    let (schedule, report) = agrees("column (default options)", &p, &with_columns());
    assert_eq!(schedule.kernels.len(), 1, "{report}");
}

#[test]
fn column_kernels_on_the_gpu_keep_local_temporaries_in_per_thread_arrays() {
    let p = program(After::Column);
    let (opt, schedule, _) = optimise_scheduled(&p, &no_inlining());
    let grid = &foehn_testkit::grids::compiler_grids()[0];
    let gen = || {
        generate(&opt, &schedule, Target::Cuda, Sizes::of(grid, 7))
            .unwrap()
            .source
    };
    let src = gen();
    assert_eq!(src, gen());
    let a = opt.fields.iter().position(|d| d.name == "a").unwrap();
    assert!(src.contains(&format!("double LT{a}[FOEHN_MAXK];")), "{src}");
    assert!(!src.contains(&format!("WR{a}[")), "{src}");
    assert!(src.contains("const foehn_idx ck0 = "), "{src}");
    // The byte model counts no traffic for them: the kernel moves less than the same
    // stencils with the temporaries stored.
    let members = &schedule.kernels[0].stencils;
    let moved = opt.kernel_bytes(members, grid, 7);
    let separate: u64 = members
        .iter()
        .map(|&m| opt.kernel_bytes(&[m], grid, 7))
        .sum();
    assert!(moved < separate, "{moved} vs {separate}");
}

/// The report refuses stencil `update` a column kernel because of `field`, read or
/// written across columns.
fn assert_rejected_across_columns(report: &OptReport, field_name: &str) {
    assert!(
        report.decisions.iter().any(|d| matches!(d,
            Decision::ColumnRejected { stencil, reason: ColumnRejectReason::AcrossColumns { field }, .. }
                if stencil == "update" && field == field_name)),
        "{report}"
    );
}

#[test]
fn a_read_through_neighbours_of_the_scan_output_stops_the_group() {
    let p = program(After::Neighbours);
    let (schedule, report) = agrees("neighbours", &p, &no_inlining());
    assert_rejected_across_columns(&report, "s");
    assert_eq!(schedule.kernels.len(), 2, "{report}");
    assert_eq!(schedule.kernels[1].stencils.len(), 1);
}

#[test]
fn overwriting_a_field_an_earlier_member_reads_at_neighbours_stops_the_group() {
    let p = program(After::OverwritesNeighbourInput);
    let (schedule, report) = agrees("overwrite", &p, &no_inlining());
    assert_rejected_across_columns(&report, "y");
    assert_eq!(schedule.kernels.len(), 2, "{report}");
}

#[test]
fn without_columns_or_local_arrays_the_results_are_the_same() {
    let p = program(After::Column);
    let (schedule, _) = agrees(
        "no columns",
        &p,
        &OptOptions {
            columns: false,
            ..no_inlining()
        },
    );
    assert!(schedule.kernels.len() > 1);
    let (schedule, _) = agrees(
        "stored temporaries",
        &p,
        &OptOptions {
            column_locals: false,
            ..no_inlining()
        },
    );
    assert_eq!(schedule.kernels.len(), 1);
    assert!(schedule.kernels[0].locals.is_empty());
}

#[test]
fn column_groups_are_deterministic() {
    let p = program(After::Column);
    let a = optimise_scheduled(&p, &no_inlining());
    let b = optimise_scheduled(&p, &no_inlining());
    assert_eq!(a, b);
}
