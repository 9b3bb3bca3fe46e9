//! Every diffusion program and variant on the GPU agrees with its plain-Rust reference
//! (global and limited-area grids), as written and optimised (fused, staged, hoisted,
//! k-blocked, sizes fixed). Skips, saying so, where no CUDA device is present.

mod common;

use foehn::ir::layout::indices_fit;
use foehn::opt::{optimise_scheduled, OptOptions};

#[test]
fn diffusion_programs_agree_with_their_references_on_the_gpu() {
    let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("GPU test") else {
        return;
    };
    let nlev = 10;
    let mut checked = 0;
    for entry in foehn_icon::catalog() {
        for variant in entry.variants().unwrap() {
            for grid in common::grids() {
                let ir = entry.specialize(&variant).unwrap();
                let args = (entry.inputs)(&ir, grid, nlev, 5);
                let mut want = args.clone();
                (entry.reference.unwrap())(&ir, grid, &mut want).unwrap();
                let mut got = args.clone();
                cuda.run_ir(&ir, grid, &mut got)
                    .unwrap_or_else(|e| panic!("{} [{variant}]: {e}", entry.name));
                let what = format!("{} [{variant}] on {} (cuda)", entry.name, grid.name);
                common::assert_outputs_agree(&what, &ir, &want, &got, 1e-12);
                let opts = OptOptions {
                    idx32: indices_fit(&ir, grid, nlev),
                    ..OptOptions::default()
                };
                let (opt, schedule, _) = optimise_scheduled(&ir, &opts);
                let mut got = args;
                cuda.run_scheduled(&opt, &schedule, grid, &mut got)
                    .unwrap_or_else(|e| panic!("{} [{variant}] optimised: {e}", entry.name));
                common::assert_outputs_agree(&format!("{what} optimised"), &ir, &want, &got, 1e-12);
                checked += 1;
            }
        }
    }
    eprintln!(
        "{}: {checked} diffusion program variants x grids agree with the references",
        cuda.gpu().name()
    );
}
