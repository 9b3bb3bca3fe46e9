//! A scan stencil's outputs join its last scan's loop when they read that scan's result
//! only at their own level: the generated code then keeps no column of it (on the GPU a
//! per-thread array, local memory as large as the column). A read at another level
//! keeps the column. Both agree with the interpreter (the program as written) on the CPU
//! backend, unfused and optimised, on every compiler grid.

use foehn::codegen::{generate, Sizes, Target};
use foehn::dsl::prelude::*;
use foehn::ir::{Program, Schedule};
use foehn::opt::{optimise_scheduled, OptOptions};

mod common;
use common::assert_cpu_agrees;

/// A tridiagonal-like solve: a forward sweep with two carries (`c'`, `d'`), a backward
/// substitution over them, and the output from the substitution's result at `k`, or,
/// with `shifted`, also at `k + 1`.
fn solver(shifted: bool) -> Program {
    ProgramDef::new("scan_outputs", move |b| {
        let a = b.input("a", (CELL, K), F64);
        let d = b.input("d", (CELL, K), F64);
        let damp = b.input("damp", K, F64);
        let out = b.output("out", (CELL, K), F64);
        let forward = scan_forward((0.0, 0.0), |prev| {
            let denom = (&a * &a + 2.0) - &prev[0] * 0.5;
            let c = Expr::from(0.5) / &denom;
            let dd = (&d + &prev[1] * 0.5) / &denom;
            (c, dd)
        });
        let [c, dd] = forward.split();
        let x = scan_backward(0.0, |below| &dd + &c * &below[0]);
        let value = if shifted {
            concat_where(index(K).lt(nlev() - 1), &x - x.k_shift(1) * 0.25, &x * 1.0)
        } else {
            concat_where(index(K).lt(2), &damp * &x, &x * 1.0)
        };
        b.stencil("solve", &out, value);
    })
    .specialize(&Variant::new())
    .unwrap()
}

/// The interpreter and the CPU backend agree on `p`, unfused and optimised; returns the
/// CUDA source of `p`'s unfused schedule.
fn agrees(what: &str, p: &Program) -> String {
    let (opt, schedule, _) = optimise_scheduled(p, &OptOptions::default());
    let unfused = Schedule::unfused(p);
    assert_cpu_agrees(what, p, &[(p, &unfused), (&opt, &schedule)], 7, 0x5ca);
    cuda_source(p)
}

/// The CUDA source of `p`'s unfused schedule.
fn cuda_source(p: &Program) -> String {
    let grid = &foehn_testkit::grids::compiler_grids()[0];
    generate(p, &Schedule::unfused(p), Target::Cuda, Sizes::of(grid, 7))
        .unwrap()
        .source
}

/// Column arrays the generated code declares.
fn columns(src: &str) -> usize {
    src.matches("[FOEHN_MAXK];").count()
}

#[test]
fn outputs_reading_the_backward_scan_at_their_level_keep_no_column_of_it() {
    let p = solver(false);
    let src = agrees("own level", &p);
    // The forward sweep's two carries are kept for the substitution; the substitution's
    // result is stored from its carry as the scan goes.
    assert_eq!(columns(&src), 2, "{src}");
    assert!(src.contains("const foehn_idx k = kc;"), "{src}");
    assert_eq!(src, cuda_source(&p), "the generated code is deterministic");
}

#[test]
fn an_output_reading_the_scan_at_another_level_keeps_its_column() {
    let p = solver(true);
    let src = agrees("next level", &p);
    assert_eq!(columns(&src), 3, "{src}");
    assert!(!src.contains("const foehn_idx k = kc;"), "{src}");
}
