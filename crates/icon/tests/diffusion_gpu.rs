//! Every catalog program and variant (diffusion, velocity advection, solve_nonhydro, the
//! substep) on the GPU agrees with its plain-Rust reference (global and limited-area
//! grids), as written and optimised (fused, staged, hoisted, k-blocked, sizes fixed), and
//! is bit for bit equal to the interpreter's result (hence to the CPU backend's:
//! `engines_bitwise.rs`; `exp` and `log` are foehn's own). A program that called a
//! math-library function (`pow`, trigonometric, …:
//! [`foehn::ir::Program::math_library_functions`]; none does today), whose CUDA and host
//! implementations may round differently, would be checked to 1e-14 relative. Skips,
//! saying so, where no CUDA device is present.

mod common;

use foehn::ir::layout::indices_fit;
use foehn::opt::{optimise_scheduled, OptOptions};
use foehn::runtime::field::Args;
use foehn::runtime::interp::Interpreter;
use foehn_testkit::compare::{assert_fields_agree, assert_fields_bitwise};

/// `got` (CUDA's) against `interp` (the interpreter's): bit for bit unless the program
/// calls math-library functions (`libm`, their names), then to 1e-14 relative.
fn assert_like_the_interpreter(what: &str, libm: &[&str], interp: &Args, got: &Args) {
    if libm.is_empty() {
        assert_fields_bitwise(what, "cuda", interp, got);
    } else {
        assert_fields_agree(what, "cuda", interp, got, |_| 1e-14);
    }
}

#[test]
fn catalog_programs_agree_with_their_references_and_bit_for_bit_with_the_interpreter_on_the_gpu() {
    let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("GPU test") else {
        return;
    };
    let nlev = 10;
    let (mut checked, mut with_libm) = (0, std::collections::BTreeSet::new());
    for entry in foehn_icon::catalog() {
        for variant in entry.variants().unwrap() {
            for grid in common::grids() {
                let ir = entry.specialize(&variant).unwrap();
                let args = (entry.inputs)(&ir, grid, nlev, 5);
                let mut want = args.clone();
                (entry.reference.unwrap())(&ir, grid, &mut want).unwrap();
                let mut interp = args.clone();
                Interpreter.run_ir(&ir, grid, &mut interp).unwrap();
                let libm = ir.math_library_functions();
                if !libm.is_empty() {
                    with_libm.insert(format!("{} ({})", entry.name, libm.join(", ")));
                }
                let mut got = args.clone();
                cuda.run_ir(&ir, grid, &mut got)
                    .unwrap_or_else(|e| panic!("{} [{variant}]: {e}", entry.name));
                let what = format!("{} [{variant}] on {} (cuda)", entry.name, grid.name);
                common::assert_outputs_agree(&what, &ir, &want, &got, 1e-12);
                assert_like_the_interpreter(&what, &libm, &interp, &got);
                let opts = OptOptions {
                    idx32: indices_fit(&ir, grid, nlev),
                    ..OptOptions::default()
                };
                let (opt, schedule, _) = optimise_scheduled(&ir, &opts);
                let mut got = args;
                cuda.run_scheduled(&opt, &schedule, grid, &mut got)
                    .unwrap_or_else(|e| panic!("{} [{variant}] optimised: {e}", entry.name));
                let what = format!("{what} optimised");
                common::assert_outputs_agree(&what, &ir, &want, &got, 1e-12);
                assert_like_the_interpreter(&what, &libm, &interp, &got);
                checked += 1;
            }
        }
    }
    eprintln!(
        "{}: {checked} program variants x grids agree with the references and, bit for bit, \
         with the interpreter; to 1e-14 (math-library functions): {with_libm:?}",
        cuda.gpu().name()
    );
}
