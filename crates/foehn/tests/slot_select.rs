//! Slot selection (`codegen::c::slots`): a `where` whose two sides are one expression at
//! the two `E2C` slots (ICON's upwind choice) is generated as that expression once, at
//! the slot the mask selects. The results are those of the program as written (the
//! interpreter) on every compiler grid, pentagons and a limited area included, with and
//! without the pass; sides that differ otherwise, or that share a read at one of the two
//! slots, stay a branch. With `select_hoist` (opt-in), k-blocked CUDA kernels hoist
//! both slots' neighbour indices and index rows before the level loop, which selects
//! between them; on a machine with a CUDA device both forms agree with the interpreter.

use foehn::codegen::{generate, Sizes, Target};
use foehn::dsl::prelude::*;
use foehn::ir::{Program, Schedule, SelectHoist};
use foehn::opt::{optimise_scheduled, OptOptions};

mod common;
use common::assert_cpu_agrees;

/// How the upwind sides of the test program differ.
#[derive(Clone, Copy)]
enum Sides {
    /// Only in the slot (twins).
    Twins,
    /// Both sides also add the same value read at slot 0.
    SharedSlot,
    /// The second side has another coefficient.
    Different,
}

/// An upwind value at edges: the reference plus the upwind cell's value and its
/// Green–Gauss-like gradient along the edge's per-cell distance, for two fields.
fn upwind(sides: Sides) -> Program {
    ProgramDef::new("upwind", move |b| {
        let vn = b.input("vn", (EDGE, K), F64);
        let reference = b.input("reference", (EDGE, K), F64);
        let cell_value = b.input("cell_value", (CELL, K), F64);
        let other = b.input("other", (CELL, K), F64);
        let weights = b.input("weights", (CELL, C2E2CO), F64);
        let distance = b.input("distance", (EDGE, E2C), F64);
        let out = b.output("out", (EDGE, K), F64);
        let out2 = b.output("out2", (EDGE, K), F64);
        let side = |f: &Expr, u: usize, scale: f64| {
            let gradient = (f.shift(C2E2CO) * &weights).sum_over(C2E2CO);
            &reference + f.at(E2C, u) + distance.pick(u) * gradient.at(E2C, u) * scale
        };
        let positive = vn.ge(0.0);
        let value = |f: &Expr| match sides {
            Sides::Twins => where_(&positive, side(f, 0, 1.0), side(f, 1, 1.0)),
            Sides::SharedSlot => {
                let both = f.at(E2C, 0) * 0.5;
                where_(&positive, side(f, 0, 1.0) + &both, side(f, 1, 1.0) + &both)
            }
            Sides::Different => where_(&positive, side(f, 0, 1.0), side(f, 1, 0.5)),
        };
        let value2 = value(&other);
        b.stencil("advect", (&out, &out2), tuple([value(&cell_value), value2]));
    })
    .specialize(&Variant::new())
    .unwrap()
}

/// The interpreter and the CPU backend agree on `p` on every compiler grid, optimised
/// with `opts`; returns the generated CUDA source of that schedule.
fn agrees(what: &str, p: &Program, opts: &OptOptions) -> String {
    let (opt, schedule, _) = optimise_scheduled(p, opts);
    let unfused = Schedule::unfused(p);
    assert_cpu_agrees(what, p, &[(&opt, &schedule), (p, &unfused)], 6, 0x510);
    let grid = &foehn_testkit::grids::compiler_grids()[0];
    generate(&opt, &schedule, Target::Cuda, Sizes::of(grid, 6))
        .unwrap()
        .source
}

fn without_slot_select() -> OptOptions {
    OptOptions {
        slot_select: false,
        ..OptOptions::default()
    }
}

fn hoisting(select_hoist: SelectHoist) -> OptOptions {
    OptOptions {
        select_hoist,
        ..OptOptions::default()
    }
}

#[test]
fn upwind_twins_are_computed_once_at_the_selected_slot() {
    let p = upwind(Sides::Twins);
    let src = agrees("twins", &p, &hoisting(SelectHoist::Nothing));
    assert_eq!(src.matches("? 0 : 1;").count(), 2, "{src}");
    assert!(
        !src.contains("if (v"),
        "no data-dependent branch left: {src}"
    );
    // Hoisting nothing for both slots, the selected slot's indices are loaded in the
    // level loop.
    assert!(src.contains("T_E2C[h*2 + js"), "{src}");
    let hoisted = agrees(
        "twins, both slots hoisted",
        &p,
        &hoisting(SelectHoist::Indices),
    );
    // Both slots' cell indices and C2E2CO rows before the level loop, one picked per level.
    assert!(
        hoisted.contains("= T_E2C[h*2 + (q0 ? 1 : 0)];"),
        "{hoisted}"
    );
    assert!(hoisted.contains("= T_C2E2CO[ha"), "{hoisted}");
    assert!(!hoisted.contains("T_E2C[h*2 + js"), "{hoisted}");
    assert!(hoisted.contains("== 0 ? ha"), "{hoisted}");
    // The per-slot distance stays in the loop unless the values are hoisted too.
    assert!(hoisted.contains("+ js"), "{hoisted}");
    let all = agrees(
        "twins, values hoisted",
        &p,
        &hoisting(SelectHoist::IndicesAndValues),
    );
    assert!(all.contains("(q0 ? 1 : 0)*SJ"), "{all}");
    assert!(!all.contains("+ js"), "{all}");
    assert_eq!(
        all,
        agrees("twins", &p, &OptOptions::default()),
        "the default hoists indices and values, deterministically"
    );
    let branched = agrees("twins, without", &p, &without_slot_select());
    assert!(!branched.contains("? 0 : 1;"), "{branched}");
}

#[test]
fn sides_sharing_a_slot_read_or_differing_otherwise_stay_branches() {
    for (what, sides) in [
        ("shared slot", Sides::SharedSlot),
        ("different", Sides::Different),
    ] {
        let src = agrees(what, &upwind(sides), &OptOptions::default());
        assert!(!src.contains("? 0 : 1;"), "{what}: {src}");
    }
}

#[test]
fn selected_slots_agree_with_the_interpreter_on_the_gpu() {
    let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("CUDA slot selection") else {
        return;
    };
    let p = upwind(Sides::Twins);
    for opts in [
        hoisting(SelectHoist::Nothing),
        hoisting(SelectHoist::Indices),
        hoisting(SelectHoist::IndicesAndValues),
    ] {
        let (opt, schedule, _) = optimise_scheduled(&p, &opts);
        let what = format!(
            "slot selection on the GPU, hoisting {:?}",
            opts.select_hoist
        );
        // vn of both signs: every edge's upwind cell on one side or the other.
        foehn_testkit::gpu::assert_gpu_agrees(&what, &cuda, &p, (&opt, &schedule), 6, 0x520);
    }
}
