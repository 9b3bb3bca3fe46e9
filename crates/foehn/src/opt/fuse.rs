//! Kernel fusion: consecutive stencils become one kernel (one launch, one loop nest)
//! when every dependency between them is pointwise — a stencil reads what an earlier
//! member wrote only at its own point `(h, k)`, and never overwrites a field an earlier
//! member reads at another point. Then each point of the fused kernel computes the
//! members in program order, each guarded by its own domain, so the result is the
//! program's as written. Producer–consumer (vertical) and independent (sibling)
//! stencils fuse alike; the kernel covers the union of the members' domains, so
//! partly overlapping domains fuse on their common part and the rest runs in the same
//! launch with only its stencil active — splitting by guards rather than into separate
//! kernels, which would cost a launch each. Domains with a vertical gap between them
//! are not fused.

use super::{Decision, FusionRejectReason as Why, OptReport};
use crate::ir::{Bound, BoundBase, Domain, FieldId, Program, VKind};
use std::collections::{BTreeMap, BTreeSet};

/// Levels assumed when comparing vertical bounds of different bases (`5` vs `nlev-2`):
/// only the decision to fuse uses it — guards keep any fusion correct — so a nominal
/// ICON-like column suffices.
const NOMINAL_LEVELS: i64 = 80;

/// A vertical bound at the nominal number of levels.
fn nominal(b: Bound, v: Option<VKind>) -> i64 {
    let size = match v {
        Some(VKind::Half) => NOMINAL_LEVELS + 1,
        _ => NOMINAL_LEVELS,
    };
    b.offset
        + match b.base {
            BoundBase::Zero => 0,
            BoundBase::Nlev => NOMINAL_LEVELS,
            BoundBase::Size => size,
            // Zones do not bound levels (the IR checker rejects them).
            BoundBase::ZoneStart(_) | BoundBase::ZoneEnd(_) => 0,
        }
}

/// Why stencils should not share a kernel because of their domains, if they should
/// not: the kernel runs on the union of the members' domains, so a vertical gap
/// between them (levels no member computes) would idle threads. Horizontal clips must
/// agree; vertical clips may differ when `across_clips` (each member is guarded by its
/// clipped levels), else clipped parts of one specialised stencil stay apart.
/// Overlapping domains fuse: the common part computes both, the rest one.
fn domain_conflict(p: &Program, members: &[usize], t: usize, across_clips: bool) -> Option<Why> {
    let ts = &p.stencils[t];
    for &m in members {
        let a = &p.stencils[m];
        let clip_vertical = if across_clips {
            ts.domain.clip_vertical
        } else {
            a.domain.clip_vertical
        };
        let same_rest = Domain {
            horizontal: ts.domain.horizontal,
            vertical: ts.domain.vertical,
            clip_vertical,
            ..a.domain
        } == ts.domain;
        if !same_rest {
            return Some(Why::DomainClips {
                member: a.name.clone(),
            });
        }
    }
    // 2-D stencils have no levels to leave gaps between.
    ts.vertical?;
    let mut ranges: Vec<(i64, i64)> = members
        .iter()
        .chain([&t])
        .map(|&m| {
            let st = &p.stencils[m];
            let (lo, hi) = st.domain.vertical;
            let (lo, hi) = (nominal(lo, st.vertical), nominal(hi, st.vertical));
            let (clip_lo, clip_hi) = st.domain.clip_vertical;
            (
                clip_lo.map_or(lo, |c| lo.max(nominal(c, st.vertical))),
                clip_hi.map_or(hi, |c| hi.min(nominal(c, st.vertical))),
            )
        })
        .collect();
    ranges.sort();
    let mut end = ranges[0].1;
    for &(lo, hi) in &ranges[1..] {
        if lo > end {
            return Some(Why::VerticalGap {
                domain: ts.domain.vertical,
            });
        }
        end = end.max(hi);
    }
    None
}

/// The stencils of the group being built and what they touch.
#[derive(Default)]
struct Group {
    members: Vec<usize>,
    writes: BTreeSet<FieldId>,
    /// Fields members read, with `true` when every read is pointwise.
    reads: BTreeMap<FieldId, bool>,
    /// Fields some member reads from a snapshot (its own outputs).
    snapshots: BTreeSet<FieldId>,
}

/// Why stencil `t` (reading fields as `reads` says) cannot join the group, if it cannot.
fn conflict(
    p: &Program,
    g: &Group,
    t: usize,
    reads: &BTreeMap<FieldId, bool>,
    across_clips: bool,
) -> Option<Why> {
    let ts = &p.stencils[t];
    let first = &p.stencils[g.members[0]];
    // A kernel staging values in shared memory computes one stencil.
    if let Some(s) = std::iter::once(t)
        .chain(g.members.iter().copied())
        .find(|&s| !p.staged_reads(p.stencils[s].root).is_empty())
    {
        return Some(Why::Staged {
            stencil: p.stencils[s].name.clone(),
        });
    }
    if ts.location != first.location || ts.vertical.is_some() != first.vertical.is_some() {
        return Some(Why::IterationSpace {
            first: first.name.clone(),
            location: ts.location,
            first_location: first.location,
        });
    }
    if p.has_scan(ts.root) {
        return Some(Why::Scan);
    }
    if p.has_data_dependent_offsets(ts.root) != p.has_data_dependent_offsets(first.root) {
        return Some(Why::KBlocking);
    }
    if let Some(why) = domain_conflict(p, &g.members, t, across_clips) {
        return Some(why);
    }
    for (f, &pointwise) in reads {
        let name = || p.field(*f).name.clone();
        if g.writes.contains(f) && !pointwise {
            return Some(Why::ReadsWrittenAway { field: name() });
        }
        if g.snapshots.contains(f) {
            return Some(Why::Snapshot { field: name() });
        }
    }
    for o in &ts.outputs {
        let name = || p.field(*o).name.clone();
        if g.reads.get(o) == Some(&false) {
            return Some(Why::WritesReadAway { field: name() });
        }
        if g.snapshots.contains(o) {
            return Some(Why::Snapshot { field: name() });
        }
        // Its own outputs read away from its point come from a snapshot: nobody else
        // may touch them.
        if reads.get(o) == Some(&false) && (g.writes.contains(o) || g.reads.contains_key(o)) {
            return Some(Why::OwnSnapshotShared { field: name() });
        }
    }
    None
}

fn add(p: &Program, g: &mut Group, t: usize, reads: BTreeMap<FieldId, bool>) {
    let ts = &p.stencils[t];
    for o in &ts.outputs {
        if reads.get(o) == Some(&false) {
            g.snapshots.insert(*o);
        }
        g.writes.insert(*o);
    }
    for (f, pw) in reads {
        *g.reads.entry(f).or_insert(true) &= pw;
    }
    g.members.push(t);
}

/// Groups consecutive stencils into kernels (greedy, in program order): the stencil
/// indices of each kernel, in launch order; reports every fusion and every refusal with
/// its reason. With `across_clips`, members may differ in their vertical clips. The
/// `columns` ranges (ascending, disjoint; see `opt::column`) are kernels as they are.
pub fn fuse(
    p: &Program,
    across_clips: bool,
    columns: &[std::ops::Range<usize>],
    report: &mut OptReport,
) -> Vec<Vec<usize>> {
    super::checked(p, "fuse (its input)");
    let mut kernels = Vec::new();
    let mut g = Group::default();
    for t in 0..p.stencils.len() {
        if columns.iter().any(|c| c.start < t && t < c.end) {
            continue;
        }
        if let Some(c) = columns.iter().find(|c| c.start == t) {
            if !g.members.is_empty() {
                kernels.push(std::mem::take(&mut g).members);
            }
            kernels.push(c.clone().collect());
            continue;
        }
        let reads = p.read_pattern(p.stencils[t].root);
        if !g.members.is_empty() {
            match conflict(p, &g, t, &reads, across_clips) {
                None => {
                    let last = &p.stencils[*g.members.last().unwrap()].name;
                    report.decisions.push(Decision::Fused {
                        stencil: p.stencils[t].name.clone(),
                        into: last.clone(),
                    });
                    add(p, &mut g, t, reads);
                    continue;
                }
                Some(why) => {
                    report.decisions.push(Decision::FusionRejected {
                        stencil: p.stencils[t].name.clone(),
                        reason: why,
                    });
                    kernels.push(std::mem::take(&mut g).members);
                }
            }
        }
        if p.has_scan(p.stencils[t].root) {
            kernels.push(vec![t]);
            continue;
        }
        add(p, &mut g, t, reads);
    }
    if !g.members.is_empty() {
        kernels.push(g.members);
    }
    kernels
}
