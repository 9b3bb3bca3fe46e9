//! Every program and variant of the catalog on the GPU agrees with its plain-Rust
//! reference (global and limited-area grids), as written, optimised (fused, staged,
//! hoisted, k-blocked, sizes fixed) and optimised with its kernels run slab by slab over
//! 4 of the 10 levels (ADR 0034: rings of one slab, the last slab partial). Skips,
//! saying so, where no CUDA device is present.

mod common;

use foehn::ir::layout::indices_fit;
use foehn::opt::{optimise_scheduled, OptOptions};

#[test]
fn diffusion_programs_agree_with_their_references_on_the_gpu() {
    let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("GPU test") else {
        return;
    };
    let nlev = 10;
    let (mut checked, mut slabbed) = (0, 0);
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
                let mut got = args.clone();
                cuda.run_scheduled(&opt, &schedule, grid, &mut got)
                    .unwrap_or_else(|e| panic!("{} [{variant}] optimised: {e}", entry.name));
                common::assert_outputs_agree(&format!("{what} optimised"), &ir, &want, &got, 1e-12);
                let slabs = OptOptions {
                    slab_levels: Some(4),
                    ..opts
                };
                let (opt, schedule, _) = optimise_scheduled(&ir, &slabs);
                slabbed += usize::from(!schedule.slabs.is_empty());
                let mut got = args;
                cuda.run_scheduled(&opt, &schedule, grid, &mut got)
                    .unwrap_or_else(|e| panic!("{} [{variant}] in slabs: {e}", entry.name));
                common::assert_outputs_agree(&format!("{what} in slabs"), &ir, &want, &got, 1e-12);
                checked += 1;
            }
        }
    }
    eprintln!(
        "{}: {checked} program variants x grids agree with the references ({slabbed} with slab groups)",
        cuda.gpu().name()
    );
    assert!(slabbed > 0, "no program had a slab group");
}
