//! IR → C source. One C function per stencil evaluates the stencil's root expression
//! at every point of a horizontal chunk and the stencil's level range; expressions are
//! emitted recursively with the evaluation point (horizontal index, level, neighbour
//! slot) as context, so shifts, reductions and scans lower to plain loops and loads.
//!
//! The C ABI (mirrored by [`crate::runtime::cpu`]): every stencil function is
//! `void NAME(const foehn_ctx* ctx, int64_t h0, int64_t h1, int64_t k0, int64_t k1)`,
//! and `foehn_ctx` carries per-field read/write pointers and strides, the neighbour
//! tables (indexed like `Connectivity::ALL`), runtime scalars, resolved region bounds
//! and an error word (1 + the failing check's site number).

use crate::ir::{
    BinaryOp, Bound, DType, Dims, ExprId, FieldId, IndexDim, Node, Program, ReduceOp, Region,
    ResolvedDomain, ScanDir, Schedule, SelectHoist, Stencil, Type, UnaryOp,
};
use foehn_grid::{Connectivity, Location};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

mod body;
mod decl;
mod expr;
mod hoist;
mod lockstep;
mod ops;
mod output;
mod prelude;
mod slots;
mod warp;
mod window;
pub(crate) use output::{resolve_bounds, Fixed};
pub use output::{CKernel, CProgram, CodegenError, Site, Sizes, Target};
pub use slots::slot_selected_wheres;
mod stage;

use ops::{cast, conn_index, ctype, literal, storage_type};
use prelude::{cuda_ctx, portable_math, CUDA_PRELUDE, C_PRELUDE, HELPERS};

/// Generates the source of `prog` for `target` as `schedule` says (the one entry point
/// of the generators): the kernels in launch order, each with the k-block, unroll,
/// block order, hoisting, staging and snapshots of its plan; with the schedule's fixed
/// sizes, strides, bounds and fused kernels' member domains are constants of `sizes`.
pub fn generate(
    prog: &Program,
    schedule: &Schedule,
    target: Target,
    sizes: Sizes,
) -> Result<CProgram, CodegenError> {
    let fail = |stencil: &str, message: String| CodegenError {
        program: prog.name.clone(),
        stencil: stencil.to_string(),
        message,
    };
    schedule.validate(prog).map_err(|m| fail("-", m))?;
    let fixed = match (schedule.fixed_sizes, sizes.grid) {
        (true, Some(grid)) => Some(Fixed {
            grid,
            nlev: sizes.nlev,
            level_fastest: schedule.level_fastest && target == Target::Cuda,
        }),
        (true, None) => return Err(fail("-", "fixed sizes need the grid and levels".into())),
        (false, _) => None,
    };
    let cuda = target == Target::Cuda;
    let mut functions = String::new();
    let mut shared = Shared::default();
    let mut kernels = Vec::new();
    for (i, plan) in schedule.kernels.iter().enumerate() {
        let symbol = format!("foehn_kernel_{i}");
        let members: Vec<&Stencil> = plan.stencils.iter().map(|&m| &prog.stencils[m]).collect();
        let mut g = Gen::new(prog, members[0], &mut shared, target);
        let per_column = prog.is_column_kernel(&plan.stencils);
        g.local = plan.locals.clone();
        g.slot_select = plan.slot_select;
        g.lockstep = plan.lockstep.clone();
        g.level_windows = plan.level_windows;
        g.level_prefetch = cuda && plan.level_prefetch;
        g.lockstep_unroll = plan.lockstep_unroll.filter(|_| cuda);
        g.warp_column = cuda && per_column && schedule.level_fastest && fixed.is_some();
        if g.warp_column {
            g.warp_lanes = match plan.warp_columns.unwrap_or(1) {
                n @ (1 | 2 | 4 | 8 | 16 | 32) => 32 / n,
                n => {
                    return Err(fail(
                        &members[0].name,
                        format!("{n} columns per warp: expected 1, 2, 4, 8, 16 or 32"),
                    ))
                }
            };
        }
        if cuda {
            if plan.stage {
                g.stage = stage::staging(prog, members[0]);
            }
            g.k_block = match sizes.grid {
                Some(grid) => balanced_k_block(
                    plan.k_block,
                    kernel_levels(prog, &members, grid, sizes.nlev),
                ),
                None => plan.k_block,
            };
            g.unroll = plan.unroll;
            g.k_major = plan.k_major;
            g.hoist_loads = plan.hoist;
            g.branch_local = plan.branch_local;
            g.select_hoist = plan.select_hoist;
        }
        let stage = g.stage.as_ref().map(|s| (s.conn, s.tiles.len()));
        g.fixed = fixed;
        if let (Some(fx), true) = (fixed, members.len() > 1) {
            let mut d = Vec::new();
            for st in &members {
                let r = prog
                    .resolve_domain(st, fx.grid, fx.nlev)
                    .map_err(|e| fail(&st.name, e.to_string()))?;
                d.extend([r.h.0, r.h.1, r.k.0, r.k.1].map(|x| x as i64));
            }
            g.fixed_domains = Some(d);
        }
        let body = g.kernel_body(&members)?;
        let reads = g.reads.clone();
        let snapshot = plan.snapshots.clone();
        let warps = match g.warp_column {
            true => Some(
                g.warps(scan_levels(prog, sizes.nlev))
                    .map_err(|m| fail(&members[0].name, m))?,
            ),
            false => None,
        };
        let mut header = g.prologue(&snapshot)?;
        if let Some(n) = warps {
            let columns = n * g.columns_per_warp();
            header.insert_str(0, &format!("    enum {{ FOEHN_COLUMNS = {columns} }};\n"));
        }
        let k_block = g.k_block;
        let k_major = g.k_major;
        writeln!(
            functions,
            "\n/* kernel {i}: {} */",
            prog.kernel_name(&plan.stencils)
        )
        .unwrap();
        match target {
            Target::C => writeln!(
                functions,
                "void {symbol}(const foehn_ctx* ctx, int64_t h0, int64_t h1, int64_t k0, int64_t k1) {{"
            ),
            Target::Cuda => writeln!(
                functions,
                "extern \"C\" __global__ void {}{symbol}(const foehn_ctx ctx_v, int64_t h0, int64_t h1, int64_t k0, int64_t k1) {{\n    const foehn_ctx* ctx = &ctx_v;",
                plan.max_registers
                    .map_or(String::new(), |n| format!("__maxnreg__({n}) "))
            ),
        }
        .unwrap();
        functions.push_str(&header);
        functions.push_str(&body);
        functions.push_str("}\n");
        kernels.push(CKernel {
            symbol,
            members: plan.stencils.clone(),
            reads,
            snapshot,
            per_column,
            k_block,
            k_major,
            stage,
            warps,
            lanes: g.warp_lanes,
        });
    }
    let mut source = match target {
        Target::C => C_PRELUDE.to_string(),
        Target::Cuda => {
            format!(
                "{}{CUDA_PRELUDE}#define FOEHN_MAXK {}\n{}",
                if schedule.idx32 {
                    "#define FOEHN_IDX32\n"
                } else {
                    ""
                },
                scan_levels(prog, sizes.nlev),
                cuda_ctx(prog, shared.bounds.len(), max_members(&kernels))
            )
        }
    };
    source.push_str(HELPERS);
    source.push_str(portable_math());
    source.push_str(&functions);
    Ok(CProgram {
        source,
        kernels,
        bounds: shared.bounds,
        sites: shared.sites,
    })
}

/// The k-block a kernel over `levels` levels runs with: the plan's `k_block` evened
/// out so that its threads' blocks cover the levels with the least idle slots
/// (35 levels with a plan of 16: three blocks of 12 rather than 16 + 16 + 3, which
/// left 27 % of the slots idle). Never larger than the plan's; `levels` 0 (unknown)
/// keeps the plan's.
pub fn balanced_k_block(k_block: usize, levels: usize) -> usize {
    if k_block <= 1 || levels == 0 {
        return k_block.max(1);
    }
    levels.div_ceil(levels.div_ceil(k_block))
}

/// The levels of the union of the active domains of `members` on `grid` with `nlev`
/// levels (what the kernel's launch covers, as the runtime resolves it), 0 when unknown
/// (no levels, or a domain that does not resolve: the launch reports that).
fn kernel_levels(
    prog: &Program,
    members: &[&Stencil],
    grid: &foehn_grid::Grid,
    nlev: usize,
) -> usize {
    if members.iter().any(|st| st.vertical.is_none()) {
        return 0;
    }
    let mut union: Option<ResolvedDomain> = None;
    for st in members {
        match prog.active_domain(st, grid, nlev) {
            Ok(Some(r)) => union = Some(union.map_or(r, |u| u.union(r))),
            Ok(None) => {}
            Err(_) => return 0,
        }
    }
    union.map_or(0, |u| u.k.1 - u.k.0)
}

/// Longest vertical range a CUDA scan column may have: `nlev + 1` when `program` has
/// scans, else 1 (no column buffers).
pub fn scan_levels(program: &Program, nlev: usize) -> usize {
    if program.nodes.iter().any(|n| matches!(n, Node::Scan { .. })) {
        nlev + 1
    } else {
        1
    }
}

pub(super) fn max_members(kernels: &[CKernel]) -> usize {
    kernels.iter().map(|k| k.members.len()).max().unwrap_or(1)
}

/// State shared by all stencils of a program.
#[derive(Default)]
struct Shared {
    bounds: Vec<(IndexDim, Bound)>,
    sites: Vec<Site>,
}

impl Shared {
    fn bound(&mut self, dim: IndexDim, b: Bound) -> usize {
        if let Some(i) = self.bounds.iter().position(|x| *x == (dim, b)) {
            return i;
        }
        self.bounds.push((dim, b));
        self.bounds.len() - 1
    }

    fn site(&mut self, site: Site) -> usize {
        self.sites.push(site);
        self.sites.len() - 1
    }
}

/// A vertical position: `base + off` (`base` a C variable).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct KPos {
    base: String,
    off: i64,
}

impl KPos {
    fn expr(&self) -> String {
        match self.off {
            0 => self.base.clone(),
            o if o > 0 => format!("({} + {o})", self.base),
            o => format!("({} - {})", self.base, -o),
        }
    }
}

/// The point an expression is evaluated at.
#[derive(Clone)]
struct Pt {
    h: String,
    loc: Option<Location>,
    k: KPos,
    j: Option<String>,
    /// Inside a reduction over `conn` at (h, j): the already loaded, valid neighbour index.
    guard: Option<(Connectivity, String, String, String)>,
    /// True at the stencil's own (h, k) (scan columns can be read there).
    own_h: bool,
}

type Key = (u32, String, KPos, Option<String>);

/// A C value: a scalar expression/variable or a tuple.
#[derive(Clone, Debug)]
enum Val {
    S(String),
    T(Vec<Val>),
}

impl Val {
    fn s(&self) -> &str {
        match self {
            Val::S(s) => s,
            Val::T(_) => "/*tuple*/0",
        }
    }
}

struct ScanCtx {
    /// Column arrays, one per carry.
    columns: Vec<String>,
    /// Carry variables while the body is emitted.
    carries: Vec<String>,
    /// Whether the body is being emitted now.
    active: bool,
    /// Whether the stencil's outputs are being emitted inside the scan's loop: its
    /// result at the own level is the carry, and no column is kept.
    tail: bool,
}

struct Gen<'a> {
    prog: &'a Program,
    st: &'a Stencil,
    shared: &'a mut Shared,
    out: String,
    indent: usize,
    counter: usize,
    scopes: Vec<BTreeMap<Key, Val>>,
    reads: BTreeSet<FieldId>,
    writes: BTreeSet<FieldId>,
    tables: BTreeSet<Connectivity>,
    scalars: BTreeSet<u32>,
    bounds_used: BTreeSet<usize>,
    scans: BTreeMap<u32, ScanCtx>,
    target: Target,
    /// Levels one GPU thread walks.
    k_block: usize,
    /// Unroll factor of the k-block loop.
    unroll: u32,
    /// k-major block order (only set for CUDA kernels with levels and without scans).
    k_major: bool,
    /// Hoist level-invariant loads out of the k-block loop (CUDA, k-blocked kernels).
    hoist_loads: bool,
    /// What slot selection hoists for both slots (`KernelPlan::select_hoist`).
    select_hoist: SelectHoist,
    /// Keep level-invariant loads first needed inside a `where` branch in the branch.
    branch_local: bool,
    /// Emit slot-twin `where`s as one expression at the selected slot (`slots`).
    slot_select: bool,
    /// The slot substitution in force while a slot-selected side is emitted.
    slot_subst: Option<slots::SlotSubst>,
    /// The preamble being collected while a k-block loop's body is emitted.
    hoist: Option<hoist::Hoist>,
    /// Values staged in shared memory (CUDA kernels of one stencil).
    stage: Option<stage::Staging>,
    /// Compile-time sizes, if fixed.
    fixed: Option<Fixed<'a>>,
    /// A fused kernel's member domains as constants (with fixed sizes).
    fixed_domains: Option<Vec<i64>>,
    /// Temporaries a column kernel keeps in per-thread column arrays `LT<id>` indexed
    /// by level, instead of memory ([`Program::column_locals`]).
    local: BTreeSet<FieldId>,
    /// The C names of the first and end level of the scans being emitted (the
    /// member's levels in a column kernel of several members).
    col_range: (String, String),
    /// A column kernel of several members runs them in these lockstep loops
    /// (`KernelPlan::lockstep`).
    lockstep: Option<crate::ir::Lockstep>,
    /// With `lockstep`: input fields read at several levels are held in level windows
    /// (`KernelPlan::level_windows`).
    level_windows: bool,
    /// With `level_windows`: windows for every own-column input, one level ahead
    /// (`KernelPlan::level_prefetch`).
    level_prefetch: bool,
    /// The unroll factor of a CUDA lockstep kernel's level loops (`#pragma unroll`).
    lockstep_unroll: Option<u32>,
    /// The level windows of the lockstep loop being emitted: (field, level relative to
    /// the loop's `i`) → register.
    window: BTreeMap<(FieldId, i64), String>,
    /// The level of the lockstep entry being emitted, relative to the loop's `i`.
    entry_at: Option<i64>,
    /// A C lockstep kernel: the points of a block walk the levels together, so scan
    /// carries, columns and level windows hold one value per point of the block.
    block_lockstep: bool,
    /// A CUDA column kernel in the level-fastest layout: a warp per column, its columns
    /// in shared memory (`warp`, ADR 0032).
    warp_column: bool,
    /// With `warp_column`: the lanes of a warp per column (32 / columns per warp).
    warp_lanes: u32,
    /// Shared columns a warp-per-column kernel's body declared (scan columns, staged
    /// parts); its local temporaries come on top.
    warp_arrays: usize,
}

impl<'a> Gen<'a> {
    fn new(prog: &'a Program, st: &'a Stencil, shared: &'a mut Shared, target: Target) -> Self {
        Gen {
            prog,
            st,
            shared,
            out: String::new(),
            indent: 1,
            counter: 0,
            scopes: vec![BTreeMap::new()],
            reads: BTreeSet::new(),
            writes: BTreeSet::new(),
            tables: BTreeSet::new(),
            scalars: BTreeSet::new(),
            bounds_used: BTreeSet::new(),
            scans: BTreeMap::new(),
            target,
            k_block: 1,
            unroll: 1,
            k_major: false,
            hoist_loads: false,
            select_hoist: SelectHoist::Nothing,
            branch_local: false,
            slot_select: false,
            slot_subst: None,
            hoist: None,
            stage: None,
            fixed: None,
            fixed_domains: None,
            local: BTreeSet::new(),
            col_range: ("k0".into(), "k1".into()),
            lockstep: None,
            level_windows: false,
            level_prefetch: false,
            lockstep_unroll: None,
            window: BTreeMap::new(),
            entry_at: None,
            block_lockstep: false,
            warp_column: false,
            warp_lanes: 32,
            warp_arrays: 0,
        }
    }

    fn err(&self, message: impl Into<String>) -> CodegenError {
        CodegenError {
            program: self.prog.name.clone(),
            stencil: self.st.name.clone(),
            message: message.into(),
        }
    }

    fn line(&mut self, s: impl AsRef<str>) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s.as_ref());
        self.out.push('\n');
    }

    fn fresh(&mut self, stem: &str) -> String {
        self.counter += 1;
        format!("{stem}{}", self.counter)
    }

    fn open(&mut self, head: impl AsRef<str>) {
        match head.as_ref() {
            "" => self.line("{"),
            head => self.line(format!("{head} {{")),
        }
        self.indent += 1;
        self.scopes.push(BTreeMap::new());
    }

    fn close(&mut self) {
        self.scopes.pop();
        self.indent -= 1;
        self.line("}");
    }

    fn cached(&self, key: &Key) -> Option<Val> {
        let first = self.first_reusable_scope(ExprId(key.0));
        self.scopes[first..]
            .iter()
            .rev()
            .find_map(|s| s.get(key).cloned())
    }

    fn dtype(&self, id: ExprId) -> DType {
        match self.prog.ty(id) {
            Type::Field(f) => f.dtype,
            Type::Tuple(_) => DType::F64,
        }
    }

    fn site(&mut self, what: &str) -> usize {
        self.shared.site(Site {
            stencil: self.st.name.clone(),
            what: what.to_string(),
        })
    }
}
