//! Lockstep column kernels (ADR 0025): the members of a column kernel (`opt::column`)
//! walk the levels together instead of one after another, so that the inputs they share
//! are loaded once per level and what one member leaves for the next is consumed while
//! it is still in cache.
//!
//! The scan member `S` splits the members in two phases: an **ascending** level loop
//! runs the members before `S` and `S`'s forward scan; a **descending** one runs `S`'s
//! backward scan with `S`'s outputs and the members after `S`. (With only a forward scan,
//! `S`'s outputs and the members after it join the ascending loop; with only a backward
//! one, the ascending loop has the members before `S` alone.) At iteration `i` of the
//! ascending loop, entry `e` computes level `i − skew(e)` (the descending loop: `i +
//! skew(e)`), so that every value it reads from an earlier entry of its phase is there:
//!
//! - reading what an earlier entry `p` writes, `d` levels ahead (`+d` ascending, `−d`
//!   descending): `skew(e) ≥ skew(p) + d`;
//! - writing what an earlier entry `r` reads `d` levels ahead (that entry must see the
//!   old value, as when it ran alone): `skew(e) ≥ skew(r) − d`;
//! - writing what an earlier entry writes: `skew(e) ≥ skew(w)`.
//!
//! Across phases nothing is needed: the ascending loop is done before the descending
//! one starts, and the entries of the first come before those of the second in the
//! program. A member that reads a field written in its kernel at a data-dependent level,
//! a scan whose start value reads one, or a scan member of another shape keeps the
//! member-by-member order ([`LockstepRefusal`]).

use crate::ir::{ExprId, FieldId, Node, Program, ScanDir, Stencil};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

pub use crate::ir::{Lockstep, LockstepEntry as Entry, LockstepPart as Part};

/// Why a column kernel keeps its members one after another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockstepRefusal {
    /// Not one scan member among several members.
    NotOneScanMember,
    /// The scan member's scans are not one forward and/or one backward scan, the
    /// backward one last.
    ScanShape,
    /// The scan member's outputs read its last scan away from their level.
    OutputsAfterScan,
    /// A scan's start value reads a field written in the kernel.
    StartReadsKernelOutput {
        /// The field.
        field: String,
    },
    /// A member reads a field written in the kernel at a data-dependent level.
    DataDependentLevel {
        /// The member.
        stencil: String,
        /// The field.
        field: String,
    },
}

impl fmt::Display for LockstepRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockstepRefusal::NotOneScanMember => write!(f, "not one scan member among several"),
            LockstepRefusal::ScanShape => write!(
                f,
                "the scan member has other scans than one forward and one backward"
            ),
            LockstepRefusal::OutputsAfterScan => write!(
                f,
                "the scan member reads its last scan away from the output's level"
            ),
            LockstepRefusal::StartReadsKernelOutput { field } => {
                write!(
                    f,
                    "a scan's start value reads `{field}`, written in the kernel"
                )
            }
            LockstepRefusal::DataDependentLevel { stencil, field } => write!(
                f,
                "`{stencil}` reads `{field}`, written in the kernel, at a data-dependent level"
            ),
        }
    }
}

/// What an entry reads (field → level offsets, `None`: anywhere) and writes.
struct Access {
    reads: BTreeMap<FieldId, Option<BTreeSet<i32>>>,
    writes: BTreeSet<FieldId>,
}

/// The lockstep plan of a column kernel computing `members` (in program order), or why
/// it keeps the member-by-member order.
pub fn plan(p: &Program, members: &[&Stencil]) -> Result<Lockstep, LockstepRefusal> {
    let scan_members: Vec<usize> = (0..members.len())
        .filter(|&m| p.has_scan(members[m].root))
        .collect();
    let [s] = scan_members[..] else {
        return Err(LockstepRefusal::NotOneScanMember);
    };
    if members.len() < 2 {
        return Err(LockstepRefusal::NotOneScanMember);
    }
    let st = members[s];
    let scans = p.scans(st.root);
    let dir = |id: ExprId| match p.node(id) {
        Node::Scan { dir, .. } => *dir,
        _ => unreachable!("not a scan"),
    };
    let (forward, last) = match scans[..] {
        [a] => (None, a),
        [a, b] if dir(a) == ScanDir::Forward && dir(b) == ScanDir::Backward => (Some(a), b),
        _ => return Err(LockstepRefusal::ScanShape),
    };
    if forward.is_some_and(|f| p.reachable(f).contains(&last)) {
        return Err(LockstepRefusal::ScanShape);
    }
    if !p.outputs_join_scan(st, last) {
        return Err(LockstepRefusal::OutputsAfterScan);
    }
    let written: BTreeSet<FieldId> = members
        .iter()
        .flat_map(|m| m.outputs.iter().copied())
        .collect();
    let opaque: BTreeSet<ExprId> = scans.iter().copied().collect();
    let scan_parts = |id: ExprId| match p.node(id) {
        Node::Scan { init, body, .. } => (init.clone(), body.clone()),
        _ => unreachable!("not a scan"),
    };
    for &id in &scans {
        let (init, _) = scan_parts(id);
        let start = p.level_offsets(&init, &opaque);
        if let Some(f) = start.keys().find(|f| written.contains(f)) {
            return Err(LockstepRefusal::StartReadsKernelOutput {
                field: p.field(*f).name.clone(),
            });
        }
    }
    let outputs = |m: usize| Access {
        reads: p.level_offsets(&[members[m].root], &BTreeSet::new()),
        writes: members[m].outputs.iter().copied().collect(),
    };
    // The scan member's last scan step with its outputs: the body at the step's level,
    // the rest of the stencil with the scans' values read from their columns/carries.
    let last_part = {
        let (_, mut roots) = scan_parts(last);
        roots.push(st.root);
        Access {
            reads: p.level_offsets(&roots, &opaque),
            writes: st.outputs.iter().copied().collect(),
        }
    };
    let mut ascending: Vec<(Entry, Access)> = Vec::new();
    let mut descending: Vec<(Entry, Access)> = Vec::new();
    let entry = |member, part| Entry {
        member,
        part,
        skew: 0,
    };
    for m in 0..s {
        ascending.push((entry(m, Part::Outputs), outputs(m)));
    }
    if let Some(f) = forward {
        let (_, body) = scan_parts(f);
        let access = Access {
            reads: p.level_offsets(&body, &opaque),
            writes: BTreeSet::new(),
        };
        ascending.push((entry(s, Part::ForwardStep(f)), access));
    }
    let later = if dir(last) == ScanDir::Forward {
        &mut ascending
    } else {
        &mut descending
    };
    later.push((entry(s, Part::StepAndOutputs(last)), last_part));
    for m in s + 1..members.len() {
        later.push((entry(m, Part::Outputs), outputs(m)));
    }
    Ok(Lockstep {
        ascending: skews(p, members, ascending, &written, 1)?,
        descending: skews(p, members, descending, &written, -1)?,
    })
}

/// The entries of one phase with their skews (the rules of the module doc); `sign` 1
/// ascending, −1 descending (an offset `d` is `sign·d` levels ahead).
fn skews(
    p: &Program,
    members: &[&Stencil],
    entries: Vec<(Entry, Access)>,
    written: &BTreeSet<FieldId>,
    sign: i32,
) -> Result<Vec<Entry>, LockstepRefusal> {
    for (e, a) in &entries {
        if let Some((f, _)) = a
            .reads
            .iter()
            .find(|(f, o)| o.is_none() && written.contains(f))
        {
            return Err(LockstepRefusal::DataDependentLevel {
                stencil: members[e.member].name.clone(),
                field: p.field(*f).name.clone(),
            });
        }
    }
    let ahead = |o: &Option<BTreeSet<i32>>| -> Vec<i32> {
        o.iter().flatten().map(|d| sign * d).collect::<Vec<_>>()
    };
    let mut out: Vec<Entry> = Vec::new();
    for (j, (e, a)) in entries.iter().enumerate() {
        let mut skew = 0;
        for (i, (_, b)) in entries[..j].iter().enumerate() {
            let earlier = out[i].skew;
            for f in &b.writes {
                if let Some(o) = a.reads.get(f) {
                    for d in ahead(o) {
                        skew = skew.max(earlier + d);
                    }
                }
                if a.writes.contains(f) {
                    skew = skew.max(earlier);
                }
            }
            for (f, o) in &b.reads {
                if a.writes.contains(f) {
                    for d in ahead(o) {
                        skew = skew.max(earlier - d);
                    }
                }
            }
        }
        out.push(Entry { skew, ..*e });
    }
    Ok(out)
}

/// Marks the column kernels of `schedule` that can run in lockstep
/// ([`crate::ir::KernelPlan::lockstep`]) and reports each choice.
pub fn choose(
    p: &Program,
    schedule: &mut crate::ir::Schedule,
    opts: &super::OptOptions,
    report: &mut super::OptReport,
) {
    // In the level-fastest layout a column kernel runs a warp per column, its members
    // one after another (ADR 0032): no lockstep loops, columns or re-reads to plan; the
    // unroll factor applies to its lane-0 scan loops, and a warp may run several columns.
    if schedule.level_fastest {
        for plan in &mut schedule.kernels {
            if p.is_column_kernel(&plan.stencils) {
                plan.lockstep_unroll = opts.lockstep_unroll;
                plan.warp_columns = opts.warp_columns;
            }
        }
        return;
    }
    for plan in &mut schedule.kernels {
        if plan.stencils.len() < 2 || !p.is_column_kernel(&plan.stencils) {
            continue;
        }
        let members: Vec<&Stencil> = plan.stencils.iter().map(|&i| &p.stencils[i]).collect();
        let kernel = p.kernel_name(&plan.stencils);
        match self::plan(p, &members) {
            Ok(l) => {
                report.decisions.push(super::Decision::Lockstep {
                    kernel,
                    loops: l.describe(&members),
                });
                plan.lockstep = Some(l);
                plan.level_windows = opts.level_windows;
                plan.level_prefetch = opts.level_windows && opts.level_prefetch;
                plan.max_registers = opts.lockstep_registers.or(plan.max_registers);
                plan.lockstep_unroll = opts.lockstep_unroll;
            }
            Err(reason) => {
                report
                    .decisions
                    .push(super::Decision::LockstepRefused { kernel, reason });
            }
        }
    }
}

impl Lockstep {
    /// The loops in words: each entry with its skew.
    pub fn describe(&self, members: &[&Stencil]) -> String {
        let list = |entries: &[Entry]| -> String {
            entries
                .iter()
                .map(|e| {
                    let what = match e.part {
                        Part::Outputs => String::new(),
                        Part::ForwardStep(_) => " (forward scan)".into(),
                        Part::StepAndOutputs(_) => " (last scan and outputs)".into(),
                    };
                    format!("`{}`{what} lag {}", members[e.member].name, e.skew)
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut s = format!("ascending [{}]", list(&self.ascending));
        if !self.descending.is_empty() {
            s.push_str(&format!(", then descending [{}]", list(&self.descending)));
        }
        s
    }
}

/// The bytes the lockstep kernel `kernel` moves through its per-thread columns
/// on `grid` with `nlev` levels, which the traffic model of `Program::kernel_bytes`
/// leaves out: with a descending loop, every local temporary and every column of the
/// forward scan is written going up and read back going down, too far apart for a cache
/// (a thread's columns of all resident threads; ADR 0025's Nsight figures) — a write and
/// a read of each per point of the scan member's domain and level. 0 without a
/// descending loop, or when the kernel does not run in lockstep.
pub fn column_bytes(
    p: &Program,
    kernel: &crate::ir::KernelPlan,
    grid: &foehn_grid::Grid,
    nlev: usize,
) -> u64 {
    let Some(down) = kernel.lockstep.as_ref().and_then(|l| l.descending.first()) else {
        return 0;
    };
    let scan_member = &p.stencils[kernel.stencils[down.member]];
    let Ok(Some(d)) = p.active_domain(scan_member, grid, nlev) else {
        return 0;
    };
    let points = ((d.h.1 - d.h.0) * (d.k.1 - d.k.0)) as u64;
    // A carry's bytes (a scan's body values are fields' elements).
    let value_bytes = |b: ExprId| match p.ty(b) {
        crate::ir::Type::Field(f) => f.dtype.size_bytes() as u64,
        crate::ir::Type::Tuple(_) => 8,
    };
    let forward: u64 = kernel
        .lockstep
        .iter()
        .flat_map(|l| &l.ascending)
        .filter_map(|e| match e.part {
            Part::ForwardStep(sid) => match p.node(sid) {
                Node::Scan { body, .. } => Some(body.iter().map(|&b| value_bytes(b)).sum::<u64>()),
                _ => None,
            },
            _ => None,
        })
        .sum();
    let locals: u64 = kernel
        .locals
        .iter()
        .map(|&f| p.field(f).ty.dtype.size_bytes() as u64)
        .sum();
    2 * points * (forward + locals)
}

/// The bytes `kernel` moves by the cost model: `Program::kernel_bytes`, and for a
/// lockstep kernel its columns ([`column_bytes`]) and what it reads again going down
/// ([`descending_rereads`]; ADR 0031: within 1.6 % of the DRAM traffic Nsight measured for
/// the solvers).
pub fn modelled_bytes(
    p: &Program,
    kernel: &crate::ir::KernelPlan,
    grid: &foehn_grid::Grid,
    nlev: usize,
) -> u64 {
    p.kernel_bytes(&kernel.stencils, grid, nlev)
        + column_bytes(p, kernel, grid, nlev)
        + descending_rereads(p, kernel, grid, nlev)
}

/// The bytes the lockstep kernel `kernel` reads again in its descending loop on `grid`
/// with `nlev` levels, which the traffic model of `Program::kernel_bytes` counts once: a
/// field with levels read by entries of both loops is loaded going up and again going
/// down, too far apart for a cache (as its columns, see [`column_bytes`]). Counted over
/// the field's whole extent; 0 without a descending loop.
pub fn descending_rereads(
    p: &Program,
    kernel: &crate::ir::KernelPlan,
    grid: &foehn_grid::Grid,
    nlev: usize,
) -> u64 {
    let Some(l) = kernel
        .lockstep
        .as_ref()
        .filter(|l| !l.descending.is_empty())
    else {
        return 0;
    };
    let forward: BTreeSet<ExprId> = l
        .ascending
        .iter()
        .filter_map(|e| match e.part {
            Part::ForwardStep(sid) => Some(sid),
            _ => None,
        })
        .collect();
    let reads = |entries: &[Entry]| -> BTreeSet<FieldId> {
        let mut fields = BTreeSet::new();
        for e in entries {
            let member = &p.stencils[kernel.stencils[e.member]];
            // What the entry evaluates: a forward step its scan; the last scan's step and
            // the outputs everything of the member but the forward scans (their columns
            // are stored); a member its whole expression.
            let (start, stop) = match e.part {
                Part::ForwardStep(sid) => (sid, None),
                Part::StepAndOutputs(_) => (member.root, Some(&forward)),
                Part::Outputs => (member.root, None),
            };
            let mut stack = vec![start];
            let mut seen = BTreeSet::new();
            while let Some(id) = stack.pop() {
                if !seen.insert(id) || stop.is_some_and(|s| s.contains(&id)) {
                    continue;
                }
                if let Node::Field(f) = p.node(id) {
                    fields.insert(*f);
                }
                stack.extend(p.node(id).children());
            }
        }
        fields
    };
    let up = reads(&l.ascending);
    let down = reads(&l.descending);
    up.intersection(&down)
        .filter(|f| !kernel.locals.contains(f))
        .map(|&f| {
            // A field without levels is one value per column, kept in cache.
            let d = p.field(f);
            if d.ty.dims.vertical.is_none() {
                return 0;
            }
            let shape = crate::ir::layout::grid_shape(grid, nlev, d.ty.dims);
            shape.iter().product::<usize>() as u64 * d.ty.dtype.size_bytes() as u64
        })
        .sum()
}
