//! A bound program of several launches is recorded as a CUDA graph and replayed: calls
//! that accumulate in place, with runtime scalars that change between calls (a new
//! recording) and change back (an earlier recording replayed), give what the interpreter
//! gives for the same sequence. Without a device the test says so and skips.

use foehn::codegen::Sizes;
use foehn::dsl::prelude::*;
use foehn::ir::{Program, Scalar, Schedule, Variant};
use foehn::runtime::interp::Interpreter;
use foehn_testkit::random_args;

/// Three stencils that read each other's results and update two fields in place:
/// `d = a·Σ_{C2E} geofac_div·vn`, `x += d`, `vn = 0.5·vn + a`.
fn accumulating() -> Program {
    ProgramDef::new("accumulating", |b| {
        let vn = b.inout("vn", (EDGE, K), F64);
        let geofac_div = b.input("geofac_div", (CELL, C2E), F64);
        let a = b.scalar("a", F64);
        let d = b.output("d", (CELL, K), F64);
        let x = b.inout("x", (CELL, K), F64);
        b.stencil(
            "divergence",
            &d,
            (vn.shift(C2E) * &geofac_div).sum_over(C2E) * &a,
        );
        b.stencil("accumulate", &x, &x + &d);
        b.stencil("relax", &vn, 0.5 * &vn + &a);
    })
    .specialize(&Variant::new())
    .unwrap()
}

#[test]
fn recorded_launches_replay_with_changing_scalars() {
    let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("CUDA graph tests") else {
        return;
    };
    let grid = foehn_testkit::grids::small_global();
    let nlev = 5;
    let ir = accumulating();
    let mut want = random_args(&ir, grid, nlev, 3);
    want.set_scalar("a", 1.0);
    let schedule = Schedule::unfused(&ir);
    let compiled = cuda.compile(&ir, &schedule, Sizes::of(grid, nlev)).unwrap();
    let dev = cuda.upload(&ir, &want).unwrap();
    let mut bound = cuda.bind(&ir, &compiled, grid, nlev, &dev).unwrap();
    bound.record_graphs(true);
    // a = 1 (recorded, replayed), 2 (a second recording), 1 again (the first replayed).
    for a in [1.0, 1.0, 1.0, 2.0, 2.0, 1.0, 1.0] {
        bound.set_scalar("a", Scalar::F64(a)).unwrap();
        bound.enqueue().unwrap();
        want.set_scalar("a", a);
        Interpreter.run_ir(&ir, grid, &mut want).unwrap();
    }
    bound.finish().unwrap();
    drop(bound);
    let mut got = want.clone();
    cuda.download(&ir, &dev, &mut got).unwrap();
    for name in ["x", "vn", "d"] {
        foehn_testkit::compare::assert_close(
            name,
            want.field(name).unwrap().as_f64().unwrap(),
            got.field(name).unwrap().as_f64().unwrap(),
            1e-12,
        );
    }
}
