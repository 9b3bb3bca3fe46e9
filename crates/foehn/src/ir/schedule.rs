//! A program's schedule: which stencils each kernel (one GPU kernel launch, one C loop
//! nest) computes, in order, and how each kernel is generated and launched. A schedule is
//! resolved: every choice is made here (by the optimiser's `opt::schedule` or as
//! [`Schedule::unfused`]), and the code generators and runtimes only carry it out.
//!
//! The GPU launch choices (k-block, block size, unroll, block order, hoisting, staging)
//! describe the CUDA kernels; the C target runs every kernel as a loop nest over its
//! points and has no use for them, so one schedule serves both targets.

use super::{ExprId, FieldId, Program, Role};
use std::collections::BTreeSet;

/// What a k-blocked CUDA kernel hoists for both slots of a slot selection (ADR 0024).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SelectHoist {
    /// Nothing: the selected slot's indices and values are loaded per level.
    #[default]
    Nothing,
    /// The neighbour indices and index rows at both slots.
    Indices,
    /// Those and the fields without levels read at the selected slot (the upwind cell's
    /// gradient weights, the edge's per-slot geometry), at the cost of their registers
    /// for the whole level loop.
    IndicesAndValues,
}

/// What an entry of a phase computes at its level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LockstepPart {
    /// The member's outputs.
    Outputs,
    /// One step of the scan member's forward scan (its columns are stored).
    ForwardStep(ExprId),
    /// One step of the scan member's last scan, then its outputs from the carries.
    StepAndOutputs(ExprId),
}

/// One entry of a phase: a member (index into the kernel's members), what it computes,
/// and how many levels it lags the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LockstepEntry {
    /// Index into the kernel's members.
    pub member: usize,
    /// What it computes.
    pub part: LockstepPart,
    /// Levels it lags the loop's level (behind in the loop's direction).
    pub skew: i32,
}

/// The two level loops of a lockstep column kernel (ADR 0025; chosen by
/// `opt::lockstep`): entries with the levels they lag.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash, PartialOrd, Ord)]
pub struct Lockstep {
    /// The ascending loop's entries, in order.
    pub ascending: Vec<LockstepEntry>,
    /// The descending loop's entries, in order.
    pub descending: Vec<LockstepEntry>,
}

/// One kernel: the stencils it computes at each of its points, in program order, and
/// how it is generated and launched.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KernelPlan {
    /// Indices into [`Program::stencils`], ascending.
    pub stencils: Vec<usize>,
    /// Levels one GPU thread walks (k-blocking); 1 for kernels with scans (column
    /// kernels: a thread per column runs each member over its levels, in order), without
    /// levels, or with data-dependent vertical offsets.
    pub k_block: usize,
    /// Threads per block along the horizontal; `None`: the runtime's launch model picks
    /// it at binding time from the compiled kernel's register limit, the device's
    /// multiprocessors and the kernel's points (it needs all three).
    pub block: Option<u32>,
    /// Iterations of the k-block loop the compiler unrolls (register pressure against
    /// memory-level parallelism); at least 1.
    pub unroll: u32,
    /// GPU blocks in k-major order (the level blocks of a horizontal block run one
    /// after another, keeping its 2-D fields in L2); only for kernels with levels and
    /// without scans.
    pub k_major: bool,
    /// Level-invariant loads (neighbour indices, fields without levels) emitted once
    /// before the k-block loop of a CUDA kernel.
    pub hoist: bool,
    /// With `hoist`: loads first needed inside a data-dependent branch (`where`) stay in
    /// that branch instead of the preamble, so values a rarely taken branch needs do not
    /// hold registers for the whole level loop.
    pub branch_local: bool,
    /// A `where` whose two sides are one expression at two neighbour slots (ICON's
    /// upwind choice between `E2C[0]` and `E2C[1]`) is computed once, at the slot the
    /// mask selects, instead of as a branch (see `codegen::c::slots`).
    pub slot_select: bool,
    /// With `hoist` and `slot_select`: what is hoisted for both slots before the level
    /// loop, which selects between them (see `codegen::c::hoist`).
    pub select_hoist: SelectHoist,
    /// Values the inliner marked for staging are computed once per GPU block in shared
    /// memory (see `Program::stageable`); otherwise they are evaluated where they are
    /// read, as inlined values.
    pub stage: bool,
    /// Outputs the kernel reads away from its own point: they are read from a snapshot
    /// taken before the kernel runs (see [`snapshot_fields`]).
    pub snapshots: BTreeSet<FieldId>,
    /// Temporaries a column kernel keeps in per-thread column arrays instead of memory
    /// (a subset of [`Program::column_locals`]; empty for other kernels).
    pub locals: BTreeSet<FieldId>,
    /// A column kernel whose members walk the levels together, in these loops
    /// (`opt::lockstep`), instead of one after another.
    pub lockstep: Option<Lockstep>,
    /// With `lockstep`: input fields its loops read at several levels around the loop's
    /// level are held in registers, a level loaded per iteration (see
    /// `codegen::c::window`).
    pub level_windows: bool,
    /// With `level_windows`, on the GPU: every input read in the own column at a
    /// constant level gets a window, one level ahead of the loop, so each iteration
    /// loads what the next one reads (software prefetch).
    pub level_prefetch: bool,
    /// A cap on the registers of a GPU thread (`__maxnreg__`), trading spills for
    /// occupancy; none: the compiler's choice.
    pub max_registers: Option<u32>,
    /// With `lockstep`: the unroll factor of its level loops on the GPU; none: the
    /// compiler's choice.
    pub lockstep_unroll: Option<u32>,
    /// A warp-per-column kernel (level-fastest layout, ADR 0032) running this many
    /// columns in each warp (a power of two up to 32), the lanes split evenly between
    /// them so their lane-0 scan steps run side by side; none: one column a warp.
    pub warp_columns: Option<u32>,
}

impl KernelPlan {
    /// A kernel computing `stencils` as written: a GPU thread per point, default block,
    /// no unrolling, horizontal-major blocks, no hoisting, no staging.
    pub fn plain(p: &Program, stencils: Vec<usize>) -> KernelPlan {
        let snapshots = snapshot_fields(p, &stencils);
        KernelPlan {
            stencils,
            k_block: 1,
            block: None,
            unroll: 1,
            k_major: false,
            hoist: false,
            branch_local: false,
            slot_select: false,
            select_hoist: SelectHoist::Nothing,
            stage: false,
            snapshots,
            locals: BTreeSet::new(),
            lockstep: None,
            level_windows: false,
            level_prefetch: false,
            max_registers: None,
            lockstep_unroll: None,
            warp_columns: None,
        }
    }

    /// Whether the kernel computes several stencils (needs per-stencil domain guards).
    pub fn is_fused(&self) -> bool {
        self.stencils.len() > 1
    }
}

/// The kernels of a program, in launch order (every stencil appears in exactly one), and
/// the program-wide code-generation choices.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Schedule {
    /// The kernels, in launch order.
    pub kernels: Vec<KernelPlan>,
    /// 32-bit index arithmetic on the GPU (binding refuses fields of 2³¹ elements or
    /// more; see `ir::layout::indices_fit`).
    pub idx32: bool,
    /// Strides, bounds and fused kernels' member domains are compile-time constants of
    /// the grid and levels the program is compiled for (it then runs on those only).
    pub fixed_sizes: bool,
    /// Device fields with levels are laid out level-fastest
    /// (`ir::layout::strides_level_fastest`) and levelled kernels that scan nothing run a thread per
    /// level, threads of a point on consecutive levels. Needs `fixed_sizes`; the host
    /// layout is unchanged, so an experiment only (results on host data are not
    /// comparable; ADR 0027).
    pub level_fastest: bool,
}

impl Schedule {
    /// The program as written: one plain kernel per stencil, in program order, 64-bit
    /// indices, sizes read at run time.
    pub fn unfused(p: &Program) -> Schedule {
        Schedule {
            kernels: (0..p.stencils.len())
                .map(|i| KernelPlan::plain(p, vec![i]))
                .collect(),
            idx32: false,
            fixed_sizes: false,
            level_fastest: false,
        }
    }

    /// Checks that the schedule covers every stencil of `p` exactly once, in program
    /// order, with launch choices a kernel can carry out; the message names what is
    /// wrong.
    pub fn validate(&self, p: &Program) -> Result<(), String> {
        let order: Vec<usize> = self
            .kernels
            .iter()
            .flat_map(|k| k.stencils.iter().copied())
            .collect();
        if order != (0..p.stencils.len()).collect::<Vec<_>>() {
            return Err(format!(
                "schedule of `{}` covers stencils {order:?}, expected each of 0..{} once, in order",
                p.name,
                p.stencils.len()
            ));
        }
        for k in &self.kernels {
            let name = p.kernel_name(&k.stencils);
            if k.k_block == 0 || k.unroll == 0 {
                return Err(format!(
                    "kernel `{name}` has a k-block of {} and an unroll factor of {} (both must be at least 1)",
                    k.k_block, k.unroll
                ));
            }
            let members = k.stencils.iter().map(|&i| &p.stencils[i]);
            let levelled = members
                .clone()
                .all(|st| st.vertical.is_some() && !p.has_data_dependent_offsets(st.root));
            let columns = members.clone().any(|st| p.has_scan(st.root));
            if k.k_block > 1 && (!levelled || columns) {
                return Err(format!(
                    "kernel `{name}` has a k-block of {}, but it has no levels, data-dependent vertical offsets or scans",
                    k.k_block
                ));
            }
            if k.k_major && (columns || p.stencils[k.stencils[0]].vertical.is_none()) {
                return Err(format!(
                    "kernel `{name}` is in k-major order, but it has no levels or has scans"
                ));
            }
            if k.stage && (k.is_fused() || !p.stageable(&p.stencils[k.stencils[0]])) {
                return Err(format!(
                    "kernel `{name}` stages values, but it is fused or has nothing to stage"
                ));
            }
            if !k.locals.is_subset(&p.column_locals(&k.stencils)) {
                return Err(format!(
                    "kernel `{name}` keeps {:?} in column arrays, but only a column kernel's own temporaries can be",
                    k.locals
                ));
            }
            let needed = snapshot_fields(p, &k.stencils);
            if k.snapshots != needed {
                return Err(format!(
                    "kernel `{name}` snapshots {:?}, but it reads {:?} away from its points",
                    k.snapshots, needed
                ));
            }
        }
        Ok(())
    }

    /// A one-line description per kernel: its stencils' names.
    pub fn describe(&self, p: &Program) -> Vec<String> {
        self.kernels
            .iter()
            .map(|k| p.kernel_name(&k.stencils))
            .collect()
    }
}

/// The outputs of the kernel computing `stencils` that one of them reads away from its
/// own point: such a read must see the values from before the kernel, so the kernel
/// reads them from a snapshot (fusion guarantees no other member touches such a field).
/// Read only at its own point, a value is read before it is overwritten.
pub fn snapshot_fields(p: &Program, stencils: &[usize]) -> BTreeSet<FieldId> {
    stencils
        .iter()
        .flat_map(|&i| {
            let st = &p.stencils[i];
            let own = p.read_pattern(st.root);
            st.outputs
                .iter()
                .copied()
                .filter(move |o| own.get(o) == Some(&false))
                .collect::<Vec<_>>()
        })
        .collect()
}

impl Program {
    /// The name of a kernel computing `stencils`: their names joined by ` + `.
    pub fn kernel_name(&self, stencils: &[usize]) -> String {
        let names: Vec<&str> = stencils
            .iter()
            .map(|&i| self.stencils[i].name.as_str())
            .collect();
        names.join(" + ")
    }
}

impl Program {
    /// Whether the kernel computing `stencils` is a column kernel: some member has a
    /// scan, so a thread per horizontal point runs every member over its levels, in order.
    pub fn is_column_kernel(&self, stencils: &[usize]) -> bool {
        stencils
            .iter()
            .any(|&i| self.has_scan(self.stencils[i].root))
    }

    /// The temporaries a column kernel computing `stencils` keeps in per-thread column
    /// arrays instead of memory (empty for other kernels and kernels of one stencil,
    /// whose temporaries nobody else reads): temporaries with levels on
    /// the kernel's location and no neighbour dimension that a member writes, that no
    /// stencil outside the kernel reads or writes, that members read only in their own
    /// column, and that no member reads from a snapshot.
    pub fn column_locals(&self, stencils: &[usize]) -> BTreeSet<FieldId> {
        if stencils.len() < 2 || !self.is_column_kernel(stencils) {
            return BTreeSet::new();
        }
        let location = self.stencils[stencils[0]].location;
        let snapshots = snapshot_fields(self, stencils);
        let mut local: BTreeSet<FieldId> = stencils
            .iter()
            .flat_map(|&i| self.stencils[i].outputs.iter().copied())
            .filter(|&f| {
                let d = self.field(f);
                d.role == Role::Temp
                    && d.ty.dims.horizontal.is_some()
                    && d.ty.dims.horizontal == location
                    && d.ty.dims.vertical.is_some()
                    && d.ty.dims.local.is_none()
                    && !snapshots.contains(&f)
            })
            .collect();
        for (i, st) in self.stencils.iter().enumerate() {
            if stencils.contains(&i) {
                for (f, in_column) in self.column_read_pattern(st.root) {
                    if !in_column || st.location != location {
                        local.remove(&f);
                    }
                }
            } else {
                for f in self.fields_read(st.root).iter().chain(&st.outputs) {
                    local.remove(f);
                }
            }
        }
        local
    }
}
