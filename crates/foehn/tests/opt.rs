//! The optimiser preserves results: random programs (shifts, reductions with skips,
//! where, concat_where, k-shifts, scans, temporaries) give the same outputs with every
//! pass on, with each pass off, on the interpreter and the CPU backend; optimising is
//! deterministic; a temporary read through a neighbour shift is inlined and removed.

use foehn::codegen::cpu::CpuBackend;
use foehn::dsl::prelude::*;
use foehn::field::Args;
use foehn::interp::Interpreter;
use foehn::ir::Role;
use foehn::opt::{optimise, OptOptions};
use foehn::testing::{random_args, GenConfig, RandomProgram};
use foehn_cache::Cache;
use foehn_grid::{Grid, EARTH_RADIUS};
use std::sync::OnceLock;

fn grids() -> &'static [Grid; 2] {
    static G: OnceLock<[Grid; 2]> = OnceLock::new();
    G.get_or_init(|| {
        [
            Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap(),
            Grid::torus(10000.0, 10000.0, 1000.0).unwrap(),
        ]
    })
}

/// Outputs agree wherever the unoptimised program computed a value (a NaN there is a read
/// of a temporary outside the points its producer computed: undefined, anything goes).
fn assert_same(what: &str, ir: &foehn::ir::Program, want: &Args, got: &Args) {
    for d in ir
        .fields
        .iter()
        .filter(|d| d.role.writable() && d.role != Role::Temp)
    {
        let (a, b) = (
            want.field(&d.name).unwrap().data(),
            got.field(&d.name).unwrap().data(),
        );
        for i in 0..a.len() {
            let (x, y) = (a.get(i).as_f64(), b.get(i).as_f64());
            assert!(
                x.is_nan() || x.to_bits() == y.to_bits(),
                "{what}: `{}`[{i}]: {x:e} vs {y:e}",
                d.name
            );
        }
    }
}

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
    let cpu = {
        let d = tempfile::tempdir().unwrap();
        (CpuBackend::new(Cache::at(d.path())), d)
    };
    let mut inlined = 0;
    for seed in 0..60u64 {
        let cfg = GenConfig::default();
        let ir = RandomProgram::generate(seed, cfg)
            .def
            .specialize(&Variant::new())
            .unwrap();
        for (g, grid) in grids().iter().enumerate() {
            let args = random_args(&ir, grid, 4, seed ^ 0x0971);
            let mut want = args.clone();
            if Interpreter.run_ir(&ir, grid, &mut want).is_err() {
                continue;
            }
            for (label, opts) in variants() {
                let (opt, report) = optimise(&ir, &opts);
                inlined += report
                    .actions
                    .iter()
                    .filter(|a| a.starts_with("inline"))
                    .count();
                let what = format!(
                    "seed {seed}, grid {g}, {label}\n{}\n{ir}\n{opt}",
                    report.actions.join("\n")
                );
                let mut got = args.clone();
                Interpreter
                    .run_ir(&opt, grid, &mut got)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_same(&what, &ir, &want, &got);
                if label == "all passes" && g == 0 {
                    let mut native = args.clone();
                    let c = cpu.0.compile(&opt).unwrap();
                    cpu.0.run_compiled(&opt, &c, grid, &mut native).unwrap();
                    assert_same(&format!("{what} (cpu)"), &ir, &want, &native);
                }
            }
        }
    }
    assert!(
        inlined > 10,
        "the generator should give the inliner work ({inlined} inlinings)"
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
        assert_eq!(
            foehn::codegen::c::generate(&a).unwrap().source,
            foehn::codegen::c::generate(&b).unwrap().source
        );
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
        r0.actions
            .iter()
            .any(|a| a.contains("loads 16 values per point instead of 3")),
        "{:?}",
        r0.actions
    );
    let generous = OptOptions {
        inline_load_factor: 8,
        ..OptOptions::default()
    };
    let (opt, report) = optimise(&ir, &generous);
    assert_eq!(opt.stencils.len(), 1, "{}", report.actions.join("\n"));
    assert!(opt.fields.iter().all(|f| f.role != Role::Temp));
    assert!(
        report
            .actions
            .iter()
            .any(|a| a.starts_with("inline `nabla2`")),
        "{:?}",
        report.actions
    );
    assert!(report
        .actions
        .iter()
        .any(|a| a.starts_with("remove stencil `nabla2`")));
    // Same results as the program as written.
    let grid = &grids()[0];
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
        r.actions.iter().any(|a| a.contains("exceeds 10")),
        "{:?}",
        r.actions
    );
}
