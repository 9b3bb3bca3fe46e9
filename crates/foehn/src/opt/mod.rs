//! The optimiser: small named passes over the IR, each preserving results, each
//! explainable. Today: specialisation of `concat_where` regions on a stencil's own
//! dimensions into branch-free parts with clipped domains (first), inlining of
//! temporaries into their consumers (recomputing them at
//! neighbour points when that is cheaper than a round trip through memory), removal of
//! stencils and temporaries that became dead, and compaction of the expression arena.
//! Common subexpressions are shared already: the DSL hash-conses the arena. The
//! schedule then groups stencils into kernels: column kernels around scans
//! ([`column`](mod@column)), k-parallel fusion of the rest ([`fuse`]), launch choices ([`schedule`]).
//!
//! Every decision depends only on the IR (ids, counts), never on hash-map order or
//! addresses, so optimising twice gives the same program (tested).

pub mod column;
mod compact;
mod decision;
mod forward;
pub mod fuse;
mod inline;
pub mod lockstep;
pub mod schedule;
mod specialise;

pub use column::ColumnRejectReason;
pub use decision::{
    Decision, FusionRejectReason, InlineRejectReason, OptReport, RegionRejectReason,
    SpecialiseRejectReason,
};

use crate::ir::{Program, Schedule};

/// Which passes run, and their thresholds.
#[derive(Debug, Clone, PartialEq)]
pub struct OptOptions {
    /// Split stencils on `concat_where` regions of their own dimensions into parts with
    /// clipped domains, each without that branch.
    pub specialise_regions: bool,
    /// Inline temporaries into the stencils that read them.
    pub inline: bool,
    /// Largest recompute cost accepted for one inlining: the producer's expression size
    /// times the number of points at which a consumer point evaluates it.
    pub max_inline_cost: usize,
    /// Inline only while the inlined loads per consumer point stay within this factor of
    /// the stored temporary's traffic (one write plus its reads); 2 keeps copies and
    /// pointwise producers, rejects recomputing gathers at every neighbour (measured
    /// slower on an H200, bench/results/2026-11-22-h200-r2b6-optimiser.json).
    pub inline_load_factor: usize,
    /// Count the inliner's loads per column: a producer's loads at other levels of a
    /// point it already loads (a consumer reading the temporary at `k` and `k+1`) are
    /// streamed by the thread walking the column, not new memory traffic (ADR 0022).
    pub column_streamed_loads: bool,
    /// Remove stencils whose outputs nobody reads and temporaries nobody uses.
    pub remove_dead: bool,
    /// GPU k-blocking: levels one thread walks (1: a thread per level).
    pub k_block: usize,
    /// Unroll factor of the level loop of k-blocked kernels that stage nothing (staged
    /// kernels use their own); 1 = not unrolled.
    pub unroll: u32,
    /// 32-bit index arithmetic on the GPU where every field has fewer than 2³¹ elements.
    pub idx32: bool,
    /// Fuse consecutive stencils whose dependencies are pointwise into one kernel.
    pub fuse: bool,
    /// Generate code for the caller's grid and levels: strides, bounds and domains
    /// become compile-time constants (one compiled variant per grid size).
    pub fixed_sizes: bool,
    /// GPU blocks in k-major order: the level blocks of a horizontal block run one
    /// after another, so its 2-D fields (hoisted by k-blocking) stay in L2.
    pub k_major: bool,
    /// Emit the level-invariant loads of a k-blocked GPU kernel (neighbour indices,
    /// fields without levels) once before its level loop.
    pub hoist: bool,
    /// With `hoist`: level-invariant loads first needed inside a data-dependent branch
    /// (`where`) stay in the branch (see [`crate::ir::KernelPlan::branch_local`]).
    pub branch_local: bool,
    /// A `where` choosing between one expression at two neighbour slots is computed
    /// once at the selected slot (see [`crate::ir::KernelPlan::slot_select`]).
    pub slot_select: bool,
    /// With `hoist` and `slot_select`: what is hoisted for both slots and selected per
    /// level (see [`crate::ir::KernelPlan::select_hoist`]). Indices and values by
    /// default; `without-selecthoist` / `with-selecthoistindices` in bench.
    pub select_hoist: crate::ir::SelectHoist,
    /// Inline a temporary read through neighbours even where recomputing it at every
    /// neighbour would load too much, marked for the CUDA generator to compute it once
    /// per block (for the block's points and their neighbours) in shared memory.
    pub stage: bool,
    /// Fuse the parts of a specialised stencil (and stencils next to them) although
    /// their vertical clips differ: each member keeps its clipped domain as its guard,
    /// so a k-blocked kernel computes a part only on its levels, and inputs the parts
    /// share are read in one launch instead of one per part.
    pub fuse_clipped: bool,
    /// Forward outputs a later stencil reads at other levels of its own column: it
    /// evaluates the producer's expression there (see `opt::forward`), so both share a
    /// kernel instead of the output being read back.
    pub forward: bool,
    /// Column kernels (with `fuse`): stencils next to a scan stencil whose dependencies
    /// stay in the column share its kernel, a thread per column running them (see
    /// `opt::column`); temporaries only they use stay in per-thread arrays. On by default
    /// with `lockstep`; `without-column` in bench.
    pub columns: bool,
    /// Column kernels keep the temporaries only their members use in per-thread column
    /// arrays instead of memory.
    pub column_locals: bool,
    /// With `lockstep`: a temporary that only stencils after a scan read, in their own
    /// column, would be kept in a per-thread column array from the ascending loop to the
    /// descending one (a write and a read of memory per point); it is recomputed in the
    /// descending loop instead whenever the cost limit allows, whatever the load factor
    /// says: the descending loop loads many of its inputs anyway (P10 on an H100: 3.687 →
    /// 3.435 ms; ADR 0031). `without-afterscan` in bench.
    pub recompute_after_scan: bool,
    /// Column kernels (with `columns`) walk the levels with all members together: an
    /// ascending loop up to the scan, a descending one after it (see `opt::lockstep`).
    /// On by default (P9 3.51 against 4.19 ms, the substep 19.86 against 21.16 ms on an
    /// H100 at R2B6 × 80, ADR 0025); `without-lockstep` in bench runs the members one
    /// after another (ADR 0019).
    pub lockstep: bool,
    /// With `lockstep`: level windows (registers) for input fields read at several
    /// levels (see [`crate::ir::KernelPlan::level_windows`]).
    pub level_windows: bool,
    /// With `level_windows`: windows one level ahead for every own-column input
    /// ([`crate::ir::KernelPlan::level_prefetch`]). Off by default: P9 3.51 → 3.41 ms and
    /// P10 3.68 → 3.43 ms on an H100 at R2B6 × 80, but the JW run's step did not get
    /// faster (ADR 0030); `with-prefetch` in bench and explain.
    pub level_prefetch: bool,
    /// A register cap for lockstep kernels on the GPU
    /// ([`crate::ir::KernelPlan::max_registers`]); 96 by default, what the solvers held
    /// before the after-scan rule (ADR 0031) raised P10 to 108–110 and its occupancy fell:
    /// `optimised/lockreg<N>` in bench sets another, `without-lockreg` none.
    pub lockstep_registers: Option<u32>,
    /// A register cap for every GPU kernel ([`crate::ir::KernelPlan::max_registers`];
    /// `lockstep_registers` takes precedence for lockstep kernels); none by default
    /// (an ablation, `optimised/maxreg<N>` in bench).
    pub kernel_registers: Option<u32>,
    /// The unroll factor of lockstep kernels' level loops on the GPU (`#pragma unroll`,
    /// so loads of the next levels may issue early), and of the lane-0 scan loops of
    /// warp-per-column kernels (ADR 0032); none: the compiler's choice (an ablation,
    /// `optimised/lockunroll<N>` in bench).
    pub lockstep_unroll: Option<u32>,
    /// Columns per warp of the warp-per-column kernels of the level-fastest layout
    /// ([`crate::ir::KernelPlan::warp_columns`]; ADR 0032); none: one (an ablation,
    /// `optimised/with-levelfastest/warpcols<N>` in bench).
    pub warp_columns: Option<u32>,
    /// Device fields with levels stored level-fastest (a column contiguous) and a GPU
    /// thread per level, consecutive threads on consecutive levels of one point, so a
    /// warp's neighbour gather reads one contiguous column (see
    /// [`crate::ir::Schedule::level_fastest`]; needs `fixed_sizes`); a column kernel runs
    /// a warp per column, its members one after another (ADR 0032). An experiment: off
    /// by default; bench measures and verifies it as `optimised/with-levelfastest`
    /// (ADR 0027).
    pub level_fastest: bool,
    /// With `stage`: a producer that reads single neighbour slots (`E2C[0]`) may be
    /// staged too. A staged value is computed at every neighbour of a block's points,
    /// where a missing slot neighbour is a run-time error the stored temporary would
    /// not raise; an experiment (`optimised/with-stageslots`, ADR 0027).
    pub stage_slots: bool,
    /// Temporaries (by name) recomputed in their consumers whenever the recompute cost
    /// allows, whatever `inline_load_factor` says: an ablation that asks what storing
    /// one temporary costs (`optimised/recompute-<name>` in bench); empty by default.
    pub recompute: std::collections::BTreeSet<String>,
}

impl Default for OptOptions {
    fn default() -> Self {
        OptOptions {
            specialise_regions: true,
            inline: true,
            max_inline_cost: 256,
            inline_load_factor: 2,
            column_streamed_loads: true,
            remove_dead: true,
            // The tuner chose 16 for nearly every k-blocked diffusion kernel on an H100
            // with hoisted loads (bench/results/2026-11-22-h100-r2b6-hoist-tuning.txt).
            k_block: 16,
            unroll: 1,
            idx32: true,
            fuse: true,
            fixed_sizes: true,
            k_major: true,
            hoist: true,
            branch_local: true,
            slot_select: true,
            // P7 on an H100 at R2B6 x 80: 2.774 ms against 3.000 ms hoisting nothing
            // (bench/results/2026-11-24-h100-session10; ADR 0024).
            select_hoist: crate::ir::SelectHoist::IndicesAndValues,
            stage: true,
            fuse_clipped: true,
            forward: true,
            // Column kernels in lockstep (ADR 0025): P9 3.51 against 4.19 ms, P10 3.68
            // against 4.22 ms, the middle substep 19.86 against 21.16 ms on an H100 at
            // R2B6 × 80 (bench/results/2026-11-24-h100-session10). Member by member
            // (ADR 0019) they were slower than separate kernels (6.26/6.06 ms).
            columns: true,
            column_locals: true,
            recompute_after_scan: true,
            lockstep: true,
            level_windows: true,
            level_prefetch: false,
            // P10 on an H100 at R2B6 × 80 with the after-scan rule: 2.949 → 2.835 ms (middle
            // substep), 3.413 → 3.366 ms (first and last); the middle substep 19.655 ms
            // (bench/results/2026-11-25-h100-session14, calls 7-8; ADR 0031).
            lockstep_registers: Some(96),
            kernel_registers: None,
            lockstep_unroll: None,
            warp_columns: None,
            level_fastest: false,
            stage_slots: false,
            recompute: Default::default(),
        }
    }
}

impl OptOptions {
    /// Every pass off: the program as written (ICON's one-loop-nest-per-stencil structure).
    pub fn none() -> OptOptions {
        OptOptions {
            specialise_regions: false,
            inline: false,
            max_inline_cost: 0,
            inline_load_factor: 0,
            column_streamed_loads: false,
            remove_dead: false,
            k_block: 1,
            unroll: 1,
            idx32: false,
            fuse: false,
            fixed_sizes: false,
            k_major: false,
            hoist: false,
            branch_local: false,
            slot_select: false,
            select_hoist: crate::ir::SelectHoist::Nothing,
            stage: false,
            fuse_clipped: false,
            forward: false,
            columns: false,
            column_locals: false,
            recompute_after_scan: false,
            lockstep: false,
            level_windows: false,
            level_prefetch: false,
            lockstep_registers: None,
            kernel_registers: None,
            lockstep_unroll: None,
            warp_columns: None,
            level_fastest: false,
            stage_slots: false,
            recompute: Default::default(),
        }
    }
}

/// In debug builds (and so in tests), checks the IR invariants ([`crate::ir::verify`])
/// of the program `pass` left, and panics naming the pass when one is violated.
pub(crate) fn checked(p: &Program, pass: &str) {
    if cfg!(debug_assertions) {
        if let Err(e) = crate::ir::verify(p) {
            panic!("optimiser pass `{pass}` left invalid IR: {e}\n{p}");
        }
    }
}

/// Runs the enabled passes; returns the optimised program and what was done.
pub fn optimise(program: &Program, opts: &OptOptions) -> (Program, OptReport) {
    checked(program, "input");
    let mut p = program.clone();
    let mut report = OptReport::default();
    if opts.inline {
        inline::inline_temporaries(&mut p, opts, &mut report);
        checked(&p, "inline");
    }
    if opts.forward {
        forward::forward_outputs(&mut p, opts.max_inline_cost, &mut report);
        checked(&p, "forward");
    }
    if opts.remove_dead {
        compact::remove_dead(&mut p, &mut report);
        checked(&p, "remove_dead");
    }
    // After inlining: split parts would look like several producers of a temporary.
    if opts.specialise_regions {
        specialise::specialise_regions(&mut p, &mut report);
        checked(&p, "specialise_regions");
    }
    compact::compact(&mut p);
    checked(&p, "compact");
    (p, report)
}

/// [`optimise`], then the resolved kernel schedule of the optimised program: kernels
/// fused where `opts.fuse` allows (a kernel per stencil otherwise), every launch choice
/// decided by [`schedule::resolve`].
pub fn optimise_scheduled(program: &Program, opts: &OptOptions) -> (Program, Schedule, OptReport) {
    let (p, mut report) = optimise(program, opts);
    let schedule = if opts.fuse {
        let columns = if opts.columns {
            column::column_groups(&p, &mut report)
        } else {
            Vec::new()
        };
        let groups = fuse::fuse(&p, opts.fuse_clipped, &columns, &mut report);
        let mut schedule = schedule::resolve(&p, groups, opts);
        if opts.lockstep {
            lockstep::choose(&p, &mut schedule, opts, &mut report);
        }
        schedule
    } else {
        schedule::per_stencil(&p, opts)
    };
    if cfg!(debug_assertions) {
        if let Err(e) = schedule.validate(&p) {
            panic!("optimiser step `schedule` left an invalid schedule: {e}");
        }
    }
    (p, schedule, report)
}
