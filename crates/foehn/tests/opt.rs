//! The optimiser preserves results: random programs (shifts, reductions with skips,
//! where, concat_where, k-shifts, scans, temporaries) give the same outputs with every
//! pass on, with each pass off, on the interpreter and the CPU backend; optimising is
//! deterministic; a temporary read through a neighbour shift is inlined and removed;
//! `concat_where` regions on levels and zones are specialised into branch-free parts.

use foehn::codegen::{Sizes, Target};
use foehn::dsl::prelude::*;
use foehn::ir::{ExprId, IndexDim, Node, Program, Role, Schedule, Stencil};
use foehn::opt::{
    optimise, Decision, InlineRejectReason, OptOptions, RegionRejectReason, SpecialiseRejectReason,
};
use foehn::runtime::interp::Interpreter;
use foehn_testkit::{random_args, GenConfig, RandomProgram};

mod common;
use common::run_cpu;

use foehn_testkit::assert_same_where_defined as assert_same;

fn variants() -> Vec<(&'static str, OptOptions)> {
    vec![
        ("all passes", OptOptions::default()),
        (
            "inline off",
            OptOptions {
                inline: false,
                ..OptOptions::default()
            },
        ),
        (
            "dead-code removal off",
            OptOptions {
                remove_dead: false,
                ..OptOptions::default()
            },
        ),
        (
            "specialise off",
            OptOptions {
                specialise_regions: false,
                ..OptOptions::default()
            },
        ),
        (
            "inline everything",
            OptOptions {
                max_inline_cost: usize::MAX,
                ..OptOptions::default()
            },
        ),
    ]
}

#[test]
fn passes_preserve_results_on_random_programs() {
    let (mut inlined, mut specialised) = (0, 0);
    for seed in 0..60u64 {
        let cfg = GenConfig::default();
        let ir = RandomProgram::generate(seed, cfg)
            .def
            .specialize(&Variant::new())
            .unwrap();
        for (g, grid) in foehn_testkit::grids::compiler_grids_with_limited_area()
            .iter()
            .enumerate()
        {
            let args = random_args(&ir, grid, 4, seed ^ 0x0971);
            let mut want = args.clone();
            if Interpreter.run_ir(&ir, grid, &mut want).is_err() {
                continue;
            }
            for (label, opts) in variants() {
                let (opt, report) = optimise(&ir, &opts);
                inlined += report
                    .decisions
                    .iter()
                    .filter(|d| matches!(d, Decision::Inlined { .. } | Decision::Staged { .. }))
                    .count();
                if label == "all passes" {
                    specialised += report
                        .decisions
                        .iter()
                        .filter(|d| matches!(d, Decision::Specialised { .. }))
                        .count();
                }
                let what = format!("seed {seed}, grid {g}, {label}\n{report}\n{ir}\n{opt}");
                let mut got = args.clone();
                Interpreter
                    .run_ir(&opt, grid, &mut got)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_same(&what, &ir, &want, &got);
                if label == "all passes" && g != 1 {
                    let native = run_cpu(&opt, &Schedule::unfused(&opt), grid, &args);
                    assert_same(&format!("{what} (cpu)"), &ir, &want, &native);
                }
            }
        }
    }
    assert!(
        inlined > 10,
        "the generator should give the inliner work ({inlined} inlinings)"
    );
    assert!(
        specialised > 10,
        "the generator should give the specialisation work ({specialised} splits)"
    );
}

#[test]
fn optimising_twice_gives_identical_programs() {
    for seed in 0..40u64 {
        let ir = RandomProgram::generate(seed, GenConfig::default())
            .def
            .specialize(&Variant::new())
            .unwrap();
        let (a, ra) = optimise(&ir, &OptOptions::default());
        let (b, rb) = optimise(&ir, &OptOptions::default());
        assert_eq!(a.to_string(), b.to_string());
        assert_eq!(a.content_hash(), b.content_hash());
        assert_eq!(ra, rb);
        let c_source = |p: &Program| {
            let s = Schedule::unfused(p);
            foehn::codegen::generate(p, &s, Target::C, Sizes::levels(4))
                .unwrap()
                .source
        };
        assert_eq!(c_source(&a), c_source(&b));
    }
}

#[test]
fn a_cell_temporary_read_through_e2c_is_inlined_and_removed() {
    let p = ProgramDef::new("nabla_then_gradient", |b| {
        let theta = b.input("theta", (CELL, K), F64);
        let geofac = b.input("geofac_n2s", (CELL, C2E2CO), F64);
        let inv_dual = b.input("inv_dual_edge_length", EDGE, F64);
        let nabla = b.temporary("nabla2", (CELL, K), F64);
        let grad = b.output("grad_nabla2", (EDGE, K), F64);
        b.stencil(
            "nabla2",
            &nabla,
            (theta.shift(C2E2CO) * &geofac).sum_over(C2E2CO),
        );
        b.stencil(
            "gradient",
            &grad,
            (nabla.at(E2C, 1) - nabla.at(E2C, 0)) * &inv_dual,
        );
    });
    let ir = p.specialize(&Variant::new()).unwrap();
    // Recomputing the 4-point nabla² at both cells loads 2·8 values instead of 3: the
    // default memory model keeps it; a generous load factor inlines it.
    let (kept_by_model, r0) = optimise(&ir, &OptOptions::default());
    assert_eq!(kept_by_model.stencils.len(), 2);
    assert!(
        r0.decisions.iter().any(|d| matches!(
            d,
            Decision::InlineRejected {
                reason: InlineRejectReason::TooManyLoads {
                    loads: 16,
                    stored: 3,
                    ..
                },
                ..
            }
        )),
        "{r0}"
    );
    let generous = OptOptions {
        inline_load_factor: 8,
        ..OptOptions::default()
    };
    let (opt, report) = optimise(&ir, &generous);
    assert_eq!(opt.stencils.len(), 1, "{report}");
    assert!(opt.fields.iter().all(|f| f.role != Role::Temp));
    assert!(
        report.decisions.iter().any(|d| matches!(
            d,
            Decision::Inlined { temporary, into, .. } if temporary == "nabla2" && into == "gradient"
        )),
        "{report}"
    );
    assert!(report.decisions.contains(&Decision::RemovedStencil {
        stencil: "nabla2".into()
    }));
    // Same results as the program as written.
    let grid = &foehn_testkit::grids::compiler_grids_with_limited_area()[0];
    let args = random_args(&ir, grid, 5, 1);
    let (mut a, mut b) = (args.clone(), args);
    Interpreter.run_ir(&ir, grid, &mut a).unwrap();
    Interpreter.run_ir(&opt, grid, &mut b).unwrap();
    assert_same("nabla then gradient", &ir, &a, &b);
    // With a tiny cost budget the temporary stays.
    let (kept, r) = optimise(
        &ir,
        &OptOptions {
            max_inline_cost: 10,
            ..OptOptions::default()
        },
    );
    assert_eq!(kept.stencils.len(), 2);
    assert!(
        r.decisions.iter().any(|d| matches!(
            d,
            Decision::InlineRejected {
                reason: InlineRejectReason::CostExceeded { limit: 10, .. },
                ..
            }
        )),
        "{r}"
    );
}

#[test]
fn loads_at_a_point_and_at_its_neighbours_count_separately() {
    // The cold-pool pattern: a cell value minus the mean of its neighbours, read by
    // edges through E2C. Recomputing it loads θ at 4 cells for each of 2 cells.
    let ir = foehn_testkit::deviation_then_edge_max()
        .specialize(&Variant::new())
        .unwrap();
    let unstaged = OptOptions {
        stage: false,
        ..OptOptions::default()
    };
    let (opt, report) = optimise(&ir, &unstaged);
    assert_eq!(opt.stencils.len(), 2, "{report}");
    assert!(
        report.decisions.iter().any(|d| matches!(
            d,
            Decision::InlineRejected {
                reason: InlineRejectReason::TooManyLoads {
                    loads: 8,
                    stored: 3,
                    staging_blocked_by: None,
                    ..
                },
                ..
            }
        )),
        "{report}"
    );
    // Staged, its 4 loads are made once per point of a block and its neighbours: the
    // temporary is inlined (marked for shared memory), with the same results.
    let (staged, report) = optimise(&ir, &OptOptions::default());
    assert_eq!(staged.stencils.len(), 1, "{report}");
    assert!(
        report.decisions.iter().any(|d| matches!(
            d,
            Decision::Staged {
                loads: 4,
                recomputed_loads: 8,
                ..
            }
        )),
        "{report}"
    );
    for grid in foehn_testkit::grids::compiler_grids_with_limited_area() {
        let args = random_args(&ir, grid, 3, 7);
        let (mut a, mut b) = (args.clone(), args);
        Interpreter.run_ir(&ir, grid, &mut a).unwrap();
        Interpreter.run_ir(&staged, grid, &mut b).unwrap();
        assert_same("staged deviation", &ir, &a, &b);
    }
}

#[test]
fn a_producer_reading_what_its_consumer_writes_is_not_staged() {
    // The diffusion step's w update: the nabla² of w, read at neighbours by the stencil
    // that overwrites w. Staged, the kernel would read w at other blocks' points while
    // they write it (a snapshot copy per call); the temporary stays stored.
    let p = ProgramDef::new("nabla2_of_nabla2_in_place", |b| {
        let w = b.output("w", (CELL, K), F64);
        let geofac = b.input("geofac_n2s", (CELL, C2E2CO), F64);
        let z = b.temporary("z", (CELL, K), F64);
        b.stencil("nabla2", &z, (w.shift(C2E2CO) * &geofac).sum_over(C2E2CO));
        b.stencil(
            "update",
            &w,
            &w - (z.shift(C2E2CO) * &geofac).sum_over(C2E2CO) * 0.1,
        );
    });
    let ir = p.specialize(&Variant::new()).unwrap();
    let (opt, report) = optimise(&ir, &OptOptions::default());
    assert_eq!(opt.stencils.len(), 2, "{report}");
    assert!(
        report.decisions.iter().any(|d| matches!(
            d,
            Decision::InlineRejected {
                reason: InlineRejectReason::TooManyLoads {
                    consumer,
                    staging_blocked_by: Some(field),
                    ..
                },
                ..
            } if consumer == "update" && field == "w"
        )),
        "{report}"
    );
}

#[test]
fn a_kernel_with_an_empty_domain_moves_no_bytes() {
    // `Cell < start(INTERIOR)` is empty on a global grid (its boundary zones are empty),
    // so the part copying `x` there launches nothing; the other part moves x and y.
    let p = ProgramDef::new("boundary_copy", |b| {
        let x = b.input("x", (CELL, K), F64);
        let y = b.output("y", (CELL, K), F64);
        b.stencil("boundary", &y, &x)
            .horizontal(0, start(Zone::Interior));
        b.stencil("interior", &y, &x * 2.0)
            .horizontal(start(Zone::Interior), end(Zone::Local));
    });
    let ir = p.specialize(&Variant::new()).unwrap();
    let grid = &foehn_testkit::grids::compiler_grids_with_limited_area()[0];
    let nlev = 4;
    let field = (grid.size(foehn_grid::Location::Cell) * nlev * 8) as u64;
    assert_eq!(ir.kernel_bytes(&[0], grid, nlev), 0);
    assert_eq!(ir.kernel_bytes(&[1], grid, nlev), 2 * field);
    assert_eq!(ir.minimal_bytes(grid, nlev), 2 * field);
    // On the limited-area grid the boundary zone is not empty.
    let lam = &foehn_testkit::grids::compiler_grids_with_limited_area()[2];
    assert!(ir.kernel_bytes(&[0], lam, nlev) > 0);
}

/// The `concat_where` nodes at the stencil's own point whose region tests one of the
/// stencil's own dimensions (what the specialisation removes in these tests).
fn own_point_regions(p: &Program, st: &Stencil) -> Vec<ExprId> {
    let mut out = vec![];
    let mut seen = std::collections::BTreeSet::new();
    let mut stack = vec![st.root];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        match p.node(id) {
            Node::Shift(..) | Node::Neighbor(..) | Node::KShift(..) | Node::Scan { .. } => {}
            Node::KOffset(_, o) => stack.push(*o),
            n => {
                if let Node::ConcatWhere(r, _, _) = n {
                    let own = r.intervals.iter().any(|iv| match iv.dim {
                        IndexDim::H(l) => st.location == Some(l),
                        IndexDim::V(v) => st.vertical == Some(v),
                    });
                    if own {
                        out.push(id);
                    }
                }
                stack.extend(n.children());
            }
        }
    }
    out
}

fn count_concat_wheres(p: &Program) -> usize {
    p.stencils
        .iter()
        .flat_map(|s| p.reachable(s.root))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|&id| matches!(p.node(id), Node::ConcatWhere(..)))
        .count()
}

#[test]
fn concat_where_regions_on_levels_and_zones_become_branch_free_parts() {
    let p = ProgramDef::new("regions", |b| {
        let x = b.input("x", (CELL, K), F64);
        let w = b.input("w", (CELL, K), F64);
        let vn = b.input("vn", (EDGE, K), F64);
        let h = b.input("h", CELL, F64);
        let y = b.output("y", (CELL, K), F64);
        let bottom = b.output("bottom", (CELL, K), F64);
        let z = b.output("z", (EDGE, K), F64);
        let c = b.output("c", CELL, F64);
        let m = b.output("m", (CELL, K), F64);
        // Levels: the top level copies, the others blend with the level above
        // (`k_shift(-1)` only exists below the top).
        b.stencil(
            "levels",
            &y,
            concat_where(index(K).lt(1), &x, &w * &x + (1.0 - &w) * x.k_shift(-1)),
        );
        // The bottom level on a domain that starts at 1 (`k_shift(1)` only exists above it).
        b.stencil(
            "bottom",
            &bottom,
            concat_where(index(K).ge(nlev() - 1), x.k_shift(-1), x.k_shift(1) * 0.5),
        )
        .vertical(1, nlev());
        // A zone with both ends: boundary edges, nudging edges (a gradient between the
        // two cells, which outer boundary edges lack) and the rest: three parts.
        b.stencil(
            "zone",
            &z,
            concat_where(
                index(EDGE).in_range(start(Zone::Nudging(1)), end(Zone::Nudging(2))),
                x.at(E2C, 1) - x.at(E2C, 0),
                &vn * 2.0,
            ),
        );
        // A 2-D cell stencil with the same region at its own point and under a shift
        // (the shifted one is evaluated at the neighbours' indices: it stays).
        let interior = || index(CELL).ge(start(Zone::Interior));
        let near = concat_where(interior(), &h, 0.0);
        b.stencil(
            "cells",
            &c,
            concat_where(interior(), near.shift(C2E2C).sum_over(C2E2C), &h * 3.0),
        );
        // A conjunction containing the split interval: false outside it, a single
        // interval (split next) inside it.
        b.stencil(
            "mixed",
            &m,
            concat_where(
                index(K).lt(1) & interior(),
                &x * 5.0,
                concat_where(interior(), &x * 7.0, &x * 11.0),
            ),
        );
    });
    let ir = p.specialize(&Variant::new()).unwrap();
    let (opt, report) = optimise(&ir, &OptOptions::default());
    let text = report.to_string();
    assert!(opt.stencils.len() > ir.stencils.len(), "{text}\n{opt}");
    for st in &ir.stencils {
        let n = if st.name == "mixed" { 2 } else { 1 };
        assert_eq!(own_point_regions(&ir, st).len(), n, "{}", st.name);
    }
    for st in &opt.stencils {
        assert!(
            own_point_regions(&opt, st).is_empty(),
            "`{}` still branches\n{text}\n{opt}",
            st.name
        );
    }
    // The concat_where under the C2E2C shift stays.
    assert_eq!(count_concat_wheres(&opt), 1, "{opt}");
    for (name, splits, parts) in [
        ("levels", 2, 2),
        ("bottom", 2, 2),
        ("zone", 3, 3),
        ("cells", 2, 2),
        ("mixed", 2, 3),
        ("mixed[Cell >= start(INTERIOR)]", 2, 2),
    ] {
        assert!(
            report.decisions.iter().any(|d| matches!(
                d,
                Decision::Specialised { stencil, parts, .. }
                    if stencil == name && parts.len() == splits
            )),
            "{name} ({splits} parts)\n{text}"
        );
        let n = opt
            .stencils
            .iter()
            .filter(|s| s.name.starts_with(&format!("{name}[")))
            .count();
        assert_eq!(n, parts, "{name}\n{opt}");
    }
    // The parts are adjacent, in the place of the stencil they come from.
    let mut order: Vec<&str> = opt
        .stencils
        .iter()
        .map(|s| s.name.split('[').next().unwrap())
        .collect();
    order.dedup();
    assert_eq!(order, ["levels", "bottom", "zone", "cells", "mixed"]);
    assert!(opt.stencils.iter().all(|s| s.domain.is_clipped()), "{opt}");
    assert!(
        opt.to_string().contains("K [0, size) clip [.., 1)"),
        "{opt}"
    );
    assert_ne!(opt.content_hash(), ir.content_hash());
    // Bit-identical results on a global grid (empty boundary zones) and a limited-area
    // grid (where they are not), interpreted and native.
    let nudging = foehn_testkit::grids::compiler_grids_with_limited_area()[2]
        .zones
        .of(EDGE)
        .range(Zone::Nudging(1))
        .unwrap();
    assert!(nudging.1 > nudging.0 && nudging.0 > 0, "{nudging:?}");
    for g in [0, 2] {
        let grid = foehn_testkit::grids::compiler_grids_with_limited_area()[g];
        let args = random_args(&ir, grid, 5, 17);
        let (mut want, mut got) = (args.clone(), args.clone());
        Interpreter.run_ir(&ir, grid, &mut want).unwrap();
        Interpreter.run_ir(&opt, grid, &mut got).unwrap();
        assert_same(&format!("regions, grid {g}"), &ir, &want, &got);
        let native = run_cpu(&opt, &Schedule::unfused(&opt), grid, &args);
        assert_same(&format!("regions, grid {g} (cpu)"), &ir, &want, &native);
    }
}

#[test]
fn own_outputs_read_in_place_split_scans_and_incomparable_clips_stay_whole() {
    let p = ProgramDef::new("kept", |b| {
        let x = b.input("x", (CELL, K), F64);
        let s = b.inout("s", (CELL, K), F64);
        let t = b.output("t", (CELL, K), F64);
        let u = b.output("u", (CELL, K), F64);
        b.stencil(
            "own",
            &s,
            // Reads its output `s` at its own point only: parts cannot see each other.
            concat_where(index(K).lt(1), &s * 2.0, &s + x.k_shift(-1)),
        );
        let sum = scan_forward(0.0, |prev| &prev[0] + &x);
        b.stencil(
            "scan",
            &t,
            concat_where(index(K).lt(1), &x, sum.k_shift(-1) + &x),
        );
        // Two regions on levels: after the split on `K >= nlev - 1` (the lower node id),
        // the parts would need the smaller (larger) of `nlev - 1` and 1 for `K < 1`,
        // which depends on nlev (both hold at level 0 when nlev is 1).
        b.stencil(
            "two",
            &u,
            concat_where(
                index(K).lt(1),
                &x,
                concat_where(index(K).ge(nlev() - 1), x.k_shift(-1), &x * 2.0),
            ),
        );
    });
    let ir = p.specialize(&Variant::new()).unwrap();
    let (opt, report) = optimise(&ir, &OptOptions::default());
    let text = report.to_string();
    let names: Vec<&str> = opt.stencils.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "own[K < 1]",
            "own[K >= 1]",
            "scan",
            "two[K < nlev-1]",
            "two[K >= nlev-1]"
        ],
        "{text}"
    );
    let clip = |why: &str| RegionRejectReason::UnknownClip(why.into());
    for (what, want) in [
        ("scan", RegionRejectReason::Scans),
        ("two[K < nlev-1]", clip("the smaller of nlev-1 and 1")),
        ("two[K >= nlev-1]", clip("the larger of nlev-1 and 1")),
    ] {
        assert!(
            report.decisions.iter().any(|d| matches!(
                d,
                Decision::SpecialiseRejected {
                    stencil,
                    reason: SpecialiseRejectReason::Region { why, .. },
                } if stencil == what && *why == want
            )),
            "{what}: {want}\n{text}"
        );
    }
    for grid in [
        &foehn_testkit::grids::compiler_grids_with_limited_area()[0],
        &foehn_testkit::grids::compiler_grids_with_limited_area()[2],
    ] {
        let args = random_args(&ir, grid, 4, 3);
        let (mut want, mut got) = (args.clone(), args);
        Interpreter.run_ir(&ir, grid, &mut want).unwrap();
        Interpreter.run_ir(&opt, grid, &mut got).unwrap();
        assert_same("kept", &ir, &want, &got);
        // Natively the in-place `s` is read and written without a snapshot.
        let native = run_cpu(
            &opt,
            &Schedule::unfused(&opt),
            grid,
            &random_args(&ir, grid, 4, 3),
        );
        assert_same("kept (cpu)", &ir, &want, &native);
    }
}

#[test]
fn decisions_display_as_the_lines_foehn_explain_prints() {
    use foehn::ir::{Interval, Region, VKind};
    let region = Region {
        intervals: vec![Interval {
            dim: IndexDim::V(VKind::Full),
            lo: None,
            hi: Some(foehn::ir::Bound::index(1)),
        }],
    };
    let cases = [
        (
            Decision::Inlined {
                temporary: "t".into(),
                producer: "p".into(),
                into: "c".into(),
                cost: 3,
                recompute_cost: 6,
                after_scan: false,
            },
            "inline `t` (stencil `p`, cost 3 per point) into `c` (recompute cost 6)".to_string(),
        ),
        (
            Decision::Inlined {
                temporary: "t".into(),
                producer: "p".into(),
                into: "c".into(),
                cost: 3,
                recompute_cost: 3,
                after_scan: true,
            },
            "inline `t` (stencil `p`, cost 3 per point) into `c` (recompute cost 3): read only after the scan of its column kernel, recomputed there instead of kept in a column array".to_string(),
        ),
        (
            Decision::InlineRejected {
                temporary: "t".into(),
                reason: InlineRejectReason::TooManyLoads {
                    consumer: "c".into(),
                    loads: 72,
                    stored: 10,
                    factor: 2,
                    staging_blocked_by: Some("w".into()),
                },
            },
            "keep temporary `t`: inlining into `c` loads 72 values per point instead of 10 (limit factor 2); \
             staged it would read `w`, which `c` writes, at neighbours"
                .to_string(),
        ),
        (
            Decision::Specialised {
                stencil: "s".into(),
                region: region.clone(),
                parts: vec!["s[K < 1]".into(), "s[K >= 1]".into()],
                empty_sides: 0,
            },
            format!("specialise stencil `s` on `{region}`: 2 parts `s[K < 1]`, `s[K >= 1]`, without that branch"),
        ),
        (
            Decision::SpecialiseRejected {
                stencil: "s".into(),
                reason: SpecialiseRejectReason::Region {
                    region: region.clone(),
                    why: RegionRejectReason::Scans,
                },
            },
            format!(
                "keep `concat_where` in stencil `s` on `{region}`: its scans run over the whole vertical range"
            ),
        ),
        (
            Decision::RemovedStencil {
                stencil: "p".into(),
            },
            "remove stencil `p`: its outputs are unused temporaries".to_string(),
        ),
    ];
    for (d, text) in cases {
        assert_eq!(d.to_string(), text);
    }
}
