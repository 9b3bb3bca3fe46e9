//! Kernel fusion and compile-time sizes preserve results: random programs run fused
//! (and with sizes fixed at compile time) on the CPU backend agree with the interpreter
//! on the program as written; worked examples show which stencils fuse and which are
//! refused (and why); fused code is generated deterministically; code compiled for one
//! grid refuses another.

use foehn::codegen::{generate, Sizes, Target};
use foehn::dsl::prelude::*;
use foehn::ir::{Program, Schedule};
use foehn::opt::schedule::resolve;
use foehn::opt::{
    fuse::fuse, optimise_scheduled, Decision, FusionRejectReason, OptOptions, OptReport,
};
use foehn::runtime::interp::Interpreter;
use foehn_testkit::{random_args, GenConfig, RandomProgram};

mod common;
use common::{cpu, run_cpu};

use foehn_testkit::assert_same_where_defined as assert_same;

#[test]
fn fused_and_fixed_size_kernels_agree_with_the_interpreter_on_random_programs() {
    let mut fused_kernels = 0;
    for seed in 0..60u64 {
        let cfg = GenConfig {
            max_stencils: 4,
            ..GenConfig::default()
        };
        let ir = RandomProgram::generate(seed, cfg)
            .def
            .specialize(&Variant::new())
            .unwrap();
        // Fusion alone (no inlining) keeps every stencil: the most to fuse.
        let only_fuse = OptOptions {
            fuse: true,
            ..OptOptions::none()
        };
        for (label, opts) in [
            ("fusion only", only_fuse),
            ("all passes", OptOptions::default()),
        ] {
            let (opt, schedule, report) = optimise_scheduled(&ir, &opts);
            fused_kernels += schedule.kernels.iter().filter(|k| k.is_fused()).count();
            for (g, grid) in foehn_testkit::grids::compiler_grids().iter().enumerate() {
                let args = random_args(&ir, grid, 4, seed ^ 0xf05e);
                let mut want = args.clone();
                if Interpreter.run_ir(&ir, grid, &mut want).is_err() {
                    continue;
                }
                let what = format!(
                    "seed {seed}, grid {g}, {label}, kernels {:?}\n{}\n{ir}",
                    schedule.describe(&opt),
                    report
                );
                for fixed_sizes in [false, true] {
                    let k = Schedule {
                        fixed_sizes,
                        ..schedule.clone()
                    };
                    let got = run_cpu(&opt, &k, grid, &args);
                    assert_same(
                        &format!("{what} (fixed sizes {fixed_sizes})"),
                        &ir,
                        &want,
                        &got,
                    );
                }
            }
        }
    }
    assert!(
        fused_kernels > 10,
        "the generator should give fusion work ({fused_kernels} fused kernels)"
    );
}

/// x → a (pointwise) → b (pointwise in a, neighbours of x) → c (neighbours of b), and
/// an independent sibling d of c.
fn chain() -> Program {
    ProgramDef::new("chain", |b| {
        let x = b.input("x", (CELL, K), F64);
        let w = b.input("w", (CELL, C2E2CO), F64);
        let a = b.output("a", (CELL, K), F64);
        let bb = b.output("b", (CELL, K), F64);
        let c = b.output("c", (CELL, K), F64);
        let d = b.output("d", (CELL, K), F64);
        b.stencil("scale", &a, &x * 2.0);
        b.stencil("smooth", &bb, &a + (x.shift(C2E2CO) * &w).sum_over(C2E2CO));
        b.stencil("laplace", &c, (bb.shift(C2E2CO) * &w).sum_over(C2E2CO));
        b.stencil("square", &d, &x * &x);
    })
    .specialize(&Variant::new())
    .unwrap()
}

#[test]
fn pointwise_producers_and_siblings_fuse_neighbour_reads_split_kernels() {
    let p = chain();
    let mut report = OptReport::default();
    let kernels = fuse(&p, true, &[], &mut report);
    let s = resolve(&p, kernels.clone(), &OptOptions::none());
    assert_eq!(kernels, vec![vec![0, 1], vec![2, 3]], "{report}");
    let fused = |stencil: &str, into: &str| Decision::Fused {
        stencil: stencil.into(),
        into: into.into(),
    };
    assert_eq!(
        report.decisions,
        vec![
            fused("smooth", "scale"),
            Decision::FusionRejected {
                stencil: "laplace".into(),
                reason: FusionRejectReason::ReadsWrittenAway { field: "b".into() },
            },
            fused("square", "laplace"),
        ],
        "{report}"
    );
    // As `foehn explain` prints it.
    assert_eq!(
        report.decisions[1].to_string(),
        "new kernel for `laplace`: it reads `b`, written in the group, away from its own point"
    );
    for grid in foehn_testkit::grids::compiler_grids() {
        let args = random_args(&p, grid, 5, 11);
        let mut want = args.clone();
        Interpreter.run_ir(&p, grid, &mut want).unwrap();
        for fixed_sizes in [false, true] {
            let k = Schedule {
                fixed_sizes,
                ..s.clone()
            };
            assert_same("chain", &p, &want, &run_cpu(&p, &k, grid, &args));
        }
    }
}

#[test]
fn a_write_after_a_neighbour_read_is_not_fused() {
    let p = ProgramDef::new("war", |b| {
        let x = b.inout("x", (CELL, K), F64);
        let w = b.input("w", (CELL, C2E2CO), F64);
        let y = b.output("y", (CELL, K), F64);
        b.stencil("gather", &y, (x.shift(C2E2CO) * &w).sum_over(C2E2CO));
        b.stencil("overwrite", &x, &y * 0.5);
    })
    .specialize(&Variant::new())
    .unwrap();
    let mut report = OptReport::default();
    let s = fuse(&p, true, &[], &mut report);
    assert_eq!(s.len(), 2);
    assert_eq!(
        report.decisions,
        vec![Decision::FusionRejected {
            stencil: "overwrite".into(),
            reason: FusionRejectReason::WritesReadAway { field: "x".into() },
        }],
        "{report}"
    );
}

#[test]
fn fused_code_is_deterministic_and_fixed_sizes_refuse_another_grid() {
    let p = chain();
    let groups = fuse(&p, true, &[], &mut OptReport::default());
    let opts = OptOptions {
        k_block: 4,
        idx32: true,
        ..OptOptions::none()
    };
    let s = resolve(&p, groups, &opts);
    let gen = || {
        generate(&p, &s, Target::Cuda, Sizes::levels(5))
            .unwrap()
            .source
    };
    assert_eq!(gen(), gen());
    assert!(gen().contains("kernel 0: scale + smooth"));
    // Compiled for the icosahedral grid, called on the torus: a clear error.
    let (ico, torus) = (
        &foehn_testkit::grids::compiler_grids()[0],
        &foehn_testkit::grids::compiler_grids()[1],
    );
    let k = Schedule {
        fixed_sizes: true,
        ..s
    };
    let c = cpu()
        .compile(&p, &k, foehn::codegen::Sizes::of(ico, 5))
        .unwrap();
    let mut args = random_args(&p, torus, 5, 3);
    let e = cpu()
        .run_compiled(&p, &c, torus, &mut args)
        .unwrap_err()
        .to_string();
    assert!(e.contains("fixed sizes") && e.contains("called on"), "{e}");
    // A schedule that skips a stencil is rejected before code generation.
    let mut bad = Schedule::unfused(&p);
    bad.kernels.truncate(1);
    let e = generate(&p, &bad, Target::C, Sizes::levels(5))
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected each of 0..4 once"), "{e}");
}

#[test]
fn optimising_and_generating_twice_is_byte_identical() {
    let grid = &foehn_testkit::grids::compiler_grids()[0];
    for seed in 0..40u64 {
        let ir = RandomProgram::generate(seed, GenConfig::default())
            .def
            .specialize(&Variant::new())
            .unwrap();
        let once = || {
            let opts = OptOptions {
                k_block: 8,
                ..OptOptions::default()
            };
            let (p, s, r) = optimise_scheduled(&ir, &opts);
            let cuda = generate(&p, &s, Target::Cuda, Sizes::of(grid, 8))
                .unwrap()
                .source;
            let c = generate(&p, &s, Target::C, Sizes::of(grid, 8))
                .unwrap()
                .source;
            (p.to_string(), p.content_hash(), s, r, cuda, c)
        };
        assert_eq!(once(), once(), "seed {seed}");
    }
}

/// Two stencils on the bottom and the top two levels, with (`levels`) or without
/// (`gapped`) a stencil on all levels before them.
fn level_ranges(with_whole: bool) -> Program {
    let name = if with_whole { "levels" } else { "gapped" };
    ProgramDef::new(name, move |b| {
        let x = b.input("x", (CELL, K), F64);
        let a = with_whole.then(|| b.output("a", (CELL, K), F64));
        let c = b.output("c", (CELL, K), F64);
        let d = b.output("d", (CELL, K), F64);
        if let Some(a) = &a {
            b.stencil("whole", a, &x * 2.0);
        }
        // The bottom two levels: inside the first range, fused.
        b.stencil("bottom", &c, &x + 1.0)
            .vertical(nlev() - 2, nlev());
        // The top two levels: separated from `bottom` by a gap, but `whole` covers it.
        b.stencil("top", &d, &x - 1.0).vertical(0, 2);
    })
    .specialize(&Variant::new())
    .unwrap()
}

#[test]
fn overlapping_level_ranges_fuse_over_their_union_gapped_ones_do_not() {
    let p = level_ranges(true);
    let mut report = OptReport::default();
    let s = fuse(&p, true, &[], &mut report);
    assert_eq!(s.len(), 1, "{report}");
    // Without `whole`, the two ranges leave a gap: two kernels.
    let gapped = level_ranges(false);
    let mut report = OptReport::default();
    let g = fuse(&gapped, true, &[], &mut report);
    assert_eq!(g.len(), 2);
    assert!(
        matches!(
            report.decisions[..],
            [Decision::FusionRejected {
                reason: FusionRejectReason::VerticalGap { .. },
                ..
            }]
        ),
        "{report}"
    );
    for (prog, groups) in [(&p, s), (&gapped, g)] {
        let sched = resolve(prog, groups, &OptOptions::none());
        for grid in foehn_testkit::grids::compiler_grids() {
            let args = random_args(prog, grid, 6, 5);
            let mut want = args.clone();
            Interpreter.run_ir(prog, grid, &mut want).unwrap();
            assert_same(&prog.name, prog, &want, &run_cpu(prog, &sched, grid, &args));
        }
    }
}

/// The parts of a stencil specialised on a level region fuse into one kernel with their
/// neighbours (`fuse_clipped`), each guarded by its clipped levels; without it they stay
/// apart. Both schedules agree with the interpreter on the program as written.
#[test]
fn specialised_parts_fuse_across_their_clips() {
    let p = ProgramDef::new("clipped", |b| {
        let x = b.input("x", (CELL, K), F64);
        let y = b.output("y", (CELL, K), F64);
        let z = b.output("z", (CELL, K), F64);
        b.stencil(
            "split",
            &y,
            concat_where(index(K).lt(3), &x * 2.0, &x + 1.0),
        );
        b.stencil("after", &z, &y * &x);
    })
    .specialize(&Variant::new())
    .unwrap();
    let kernels = |fuse_clipped| {
        let opts = OptOptions {
            fuse_clipped,
            ..OptOptions::default()
        };
        let (opt, schedule, report) = optimise_scheduled(&p, &opts);
        assert!(
            report
                .decisions
                .iter()
                .any(|d| matches!(d, Decision::Specialised { .. })),
            "{report}"
        );
        (opt, schedule)
    };
    let (together, fused) = kernels(true);
    assert_eq!(fused.kernels.len(), 1, "{:?}", fused.describe(&together));
    let (apart, separate) = kernels(false);
    assert!(
        separate.kernels.len() > 1,
        "{:?}",
        separate.describe(&apart)
    );
    for grid in foehn_testkit::grids::compiler_grids() {
        let args = random_args(&p, grid, 6, 17);
        let mut want = args.clone();
        Interpreter.run_ir(&p, grid, &mut want).unwrap();
        for (prog, sched) in [(&together, &fused), (&apart, &separate)] {
            assert_same(&p.name, prog, &want, &run_cpu(prog, sched, grid, &args));
        }
    }
}
