//! Schedule resolution, the optimiser's last step: every kernel's launch choices are
//! decided here from the options and what each kernel can carry out, so the code
//! generators and runtimes decide nothing.
//!
//! Rules (each measured, see docs/adr/0005 and 0006):
//! - k-blocking (`OptOptions::k_block` levels per GPU thread) for kernels whose members
//!   all have levels, no scans and no data-dependent vertical offsets; 1 otherwise;
//! - a kernel that stages values in shared memory (the inliner marked them, the kernel
//!   computes one stencil, see `Program::stageable`) walks at most
//!   [`STAGED_K_BLOCK`] levels per thread and unrolls its level loop [`STAGED_UNROLL`]
//!   times: shared memory grows with the k-block and the fill waits at a barrier; the
//!   tuner chose 8 and 4 for every staged diffusion kernel on an H100
//!   (bench/results/2026-11-22-h100-r2b6-stage-tuning.txt, …-final-tuning.txt);
//! - other kernels are not unrolled: the tuner chose 1 for nearly every k-blocked kernel
//!   (bench/results/2026-11-22-h100-r2b6-tuning-unroll.txt);
//! - k-major block order (`OptOptions::k_major`) for kernels with levels and no scans;
//! - hoisted level-invariant loads as `OptOptions::hoist` says;
//! - a column kernel (a member has a scan: a thread per column, k-block 1, see
//!   `opt::column`) keeps the temporaries only its members use in per-thread column
//!   arrays (`OptOptions::column_locals`);
//! - block sizes are left to the runtime's launch model unless tuned.

use super::OptOptions;
use crate::ir::schedule::snapshot_fields;
use crate::ir::{KernelPlan, Program, Schedule};

/// Largest k-block of a kernel that stages values in shared memory.
pub const STAGED_K_BLOCK: usize = 8;
/// Unroll factor of the level loop of a kernel that stages values.
pub const STAGED_UNROLL: u32 = 4;

/// The schedule of `p` with kernels computing `groups` (stencil indices, in program
/// order), each kernel's choices resolved from `opts`.
pub fn resolve(p: &Program, groups: Vec<Vec<usize>>, opts: &OptOptions) -> Schedule {
    Schedule {
        kernels: groups
            .into_iter()
            .map(|stencils| kernel_plan(p, stencils, opts))
            .collect(),
        idx32: opts.idx32,
        fixed_sizes: opts.fixed_sizes,
        level_fastest: level_fastest(opts),
    }
}

/// Whether `opts` lay device fields out level-fastest (only with sizes fixed at compile
/// time, where the strides are constants). CUDA column kernels then run a warp per
/// column, their members one after another (ADR 0032).
pub(crate) fn level_fastest(opts: &OptOptions) -> bool {
    opts.level_fastest && opts.fixed_sizes
}

/// The plan of one kernel computing `stencils` under `opts`.
pub fn kernel_plan(p: &Program, stencils: Vec<usize>, opts: &OptOptions) -> KernelPlan {
    // Level-fastest kernels run a thread per level: no k-block, no staged tiles (they
    // are laid out per horizontal block), one-dimensional grids.
    let level_fastest = level_fastest(opts);
    let stage = !level_fastest && stencils.len() == 1 && p.stageable(&p.stencils[stencils[0]]);
    let mut k_block = if level_fastest {
        1
    } else {
        opts.k_block.max(1)
    };
    if stage {
        k_block = k_block.min(STAGED_K_BLOCK);
    }
    let unroll = if stage { STAGED_UNROLL } else { opts.unroll };
    let locals = if opts.columns && opts.column_locals {
        p.column_locals(&stencils)
    } else {
        Default::default()
    };
    let mut plan = KernelPlan {
        snapshots: snapshot_fields(p, &stencils),
        locals,
        stencils,
        k_block: 1,
        block: None,
        unroll,
        k_major: false,
        hoist: opts.hoist,
        branch_local: opts.branch_local,
        slot_select: opts.slot_select,
        select_hoist: opts.select_hoist,
        stage,
        lockstep: None,
        level_windows: false,
        level_prefetch: false,
        max_registers: opts.kernel_registers,
        lockstep_unroll: None,
        warp_columns: None,
    };
    set_launch(
        p,
        &mut plan,
        k_block,
        None,
        unroll,
        opts.k_major || level_fastest,
    );
    plan
}

/// Sets the launch choices `k_block`, `block`, `unroll` and `k_major` of `plan` as far
/// as its kernel can carry them out: a k-block of 1 where levels cannot be blocked (see
/// [`levels_blockable`]), horizontal-major order without levels or with scans, an
/// unroll factor of at least 1. The tuner applies its measured choices through this.
pub fn set_launch(
    p: &Program,
    plan: &mut KernelPlan,
    k_block: usize,
    block: Option<u32>,
    unroll: u32,
    k_major: bool,
) {
    let blockable = levels_blockable(p, &plan.stencils);
    let members = || plan.stencils.iter().map(|&i| &p.stencils[i]);
    let columns = members().any(|st| p.has_scan(st.root));
    let levelled = p.stencils[plan.stencils[0]].vertical.is_some();
    plan.k_block = if blockable { k_block.max(1) } else { 1 };
    plan.block = block;
    plan.unroll = unroll.max(1);
    plan.k_major = k_major && levelled && !columns;
}

/// Whether a GPU thread of the kernel computing `stencils` can walk several levels:
/// every member has levels and neither scans nor data-dependent vertical offsets.
pub fn levels_blockable(p: &Program, stencils: &[usize]) -> bool {
    stencils.iter().map(|&i| &p.stencils[i]).all(|st| {
        st.vertical.is_some() && !p.has_scan(st.root) && !p.has_data_dependent_offsets(st.root)
    })
}

/// One kernel per stencil, in program order, with the launch choices of `opts` (the
/// program as written, k-blocked or with 32-bit indices as `opts` says).
pub fn per_stencil(p: &Program, opts: &OptOptions) -> Schedule {
    resolve(p, (0..p.stencils.len()).map(|i| vec![i]).collect(), opts)
}
