//! Every catalog program and variant (diffusion, velocity advection, solve_nonhydro, the
//! substep) computes bit for bit alike in the interpreter and on the CPU backend, as
//! written and optimised (inlined, fused, k-blocked, sizes fixed), on a global grid with
//! pentagons and a limited-area grid: the backends and the optimiser keep the IR's
//! operations and their order, no engine contracts `a·b + c` into a fused multiply-add,
//! and the interpreter and the C code call the same math library. (The GPU counterpart,
//! against CUDA, is in `diffusion_gpu.rs`.)

mod common;

use foehn::codegen::Sizes;
use foehn::ir::Schedule;
use foehn::opt::{optimise_scheduled, OptOptions};
use foehn::runtime::interp::Interpreter;
use foehn_testkit::compare::assert_fields_bitwise;

#[test]
fn interpreter_and_cpu_as_written_and_optimised_agree_bit_for_bit_on_the_whole_catalog() {
    let nlev = 10;
    let mut checked = 0;
    for entry in foehn_icon::catalog() {
        for variant in entry.variants().unwrap() {
            for grid in common::grids() {
                let what = format!("{} [{variant}] on {}", entry.name, grid.name);
                let ir = entry.specialize(&variant).unwrap();
                let args = (entry.inputs)(&ir, grid, nlev, 5);
                let mut want = args.clone();
                Interpreter
                    .run_ir(&ir, grid, &mut want)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let sizes = Sizes::of(grid, nlev);
                let written = common::cpu()
                    .compile(&ir, &Schedule::unfused(&ir), sizes)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let mut got = args.clone();
                common::cpu()
                    .run_compiled(&ir, &written, grid, &mut got)
                    .unwrap();
                assert_fields_bitwise(&what, "cpu", &want, &got);
                let (opt, schedule, _) = optimise_scheduled(&ir, &OptOptions::default());
                let optimised = common::cpu()
                    .compile(&opt, &schedule, sizes)
                    .unwrap_or_else(|e| panic!("{what} optimised: {e}"));
                let mut got = args;
                common::cpu()
                    .run_compiled(&opt, &optimised, grid, &mut got)
                    .unwrap();
                assert_fields_bitwise(&format!("{what} optimised"), "cpu", &want, &got);
                checked += 1;
            }
        }
    }
    assert!(checked > 150, "only {checked} program variants x grids");
    eprintln!("{checked} program variants x grids: interpreter = cpu = cpu optimised, bit for bit");
}
