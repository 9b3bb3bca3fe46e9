//! Variants whose generated code is the same text (their region bounds are read at run
//! time from `ctx->bounds`) share a library but not their bounds: each variant runs with
//! its own (a regression: the second variant compiled by one backend ran with the
//! first's bounds).

use foehn::codegen::{generate, Sizes, Target};
use foehn::dsl::prelude::*;
use foehn::ir::Schedule;
use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::interp::Interpreter;
use foehn_cache::Cache;
use foehn_grid::{Grid, EARTH_RADIUS};
use foehn_testkit::random_args;

fn damped() -> ProgramDef {
    ProgramDef::new("damped", |b| {
        let top = b.static_i32("top");
        let x = b.input("x", (CELL, K), F64);
        let y = b.output("y", (CELL, K), F64);
        b.stencil(
            "damp",
            &y,
            concat_where(index(K).in_range(1, top), 2.0 * &x, &x),
        );
    })
    .static_i32("top", &[])
}

#[test]
fn variants_sharing_generated_code_keep_their_own_region_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let cpu = CpuBackend::new(Cache::at(dir.path()));
    let grid = Grid::icosahedral(2, 0, EARTH_RADIUS).unwrap();
    let nlev = 8;
    let variants: Vec<_> = [2, 6]
        .iter()
        .map(|&top| {
            damped()
                .specialize(&Variant::new().with("top", top))
                .unwrap()
        })
        .collect();
    let source = |p| {
        generate(p, &Schedule::unfused(p), Target::C, Sizes::levels(nlev))
            .unwrap()
            .source
    };
    assert_eq!(source(&variants[0]), source(&variants[1]), "one library");
    for p in &variants {
        let args = random_args(p, &grid, nlev, 1);
        let mut want = args.clone();
        Interpreter.run_ir(p, &grid, &mut want).unwrap();
        let mut got = args.clone();
        let compiled = cpu
            .compile(p, &Schedule::unfused(p), Sizes::of(&grid, nlev))
            .unwrap();
        cpu.run_compiled(p, &compiled, &grid, &mut got).unwrap();
        assert_eq!(want.field("y"), got.field("y"), "[{}]", p.variant);
    }
}

/// The same on the CUDA backend (the module is shared by source); skipped without a GPU.
#[test]
fn cuda_variants_sharing_a_module_keep_their_own_region_bounds() {
    let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("the CUDA shared-module test") else {
        return;
    };
    let grid = Grid::icosahedral(2, 0, EARTH_RADIUS).unwrap();
    let nlev = 8;
    for top in [2, 6] {
        let p = damped()
            .specialize(&Variant::new().with("top", top))
            .unwrap();
        let args = random_args(&p, &grid, nlev, 1);
        let mut want = args.clone();
        Interpreter.run_ir(&p, &grid, &mut want).unwrap();
        let mut got = args.clone();
        cuda.run_ir(&p, &grid, &mut got).unwrap();
        assert_eq!(want.field("y"), got.field("y"), "[{}]", p.variant);
    }
}
