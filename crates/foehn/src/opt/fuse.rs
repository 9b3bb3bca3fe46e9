//! Kernel fusion: consecutive stencils become one kernel (one launch, one loop nest)
//! when every dependency between them is pointwise — a stencil reads what an earlier
//! member wrote only at its own point `(h, k)`, and never overwrites a field an earlier
//! member reads at another point. Then each point of the fused kernel computes the
//! members in program order, each guarded by its own domain, so the result is the
//! program's as written. Producer–consumer (vertical) and independent (sibling)
//! stencils fuse alike; the kernel covers the union of the members' domains, so
//! partly overlapping domains fuse on their common part without splitting the kernel.

use super::OptReport;
use crate::ir::{
    Bound, BoundBase, Domain, FieldId, KernelPlan, Node, Program, Schedule, Stencil, VKind,
};
use std::collections::{BTreeMap, BTreeSet};

/// Whether a stencil has data-dependent vertical offsets (never k-blocked).
fn data_dependent(p: &Program, st: &Stencil) -> bool {
    p.reachable(st.root)
        .iter()
        .any(|&id| matches!(p.node(id), Node::KOffset(..)))
}

fn has_scan(p: &Program, st: &Stencil) -> bool {
    p.reachable(st.root)
        .iter()
        .any(|&id| matches!(p.node(id), Node::Scan { .. }))
}

/// A vertical bound with `size` spelled as `nlev` (+1 on half levels).
fn normal(b: Bound, v: Option<VKind>) -> Bound {
    match (b.base, v) {
        (BoundBase::Size, Some(VKind::Full)) => Bound {
            base: BoundBase::Nlev,
            offset: b.offset,
        },
        (BoundBase::Size, Some(VKind::Half)) => Bound {
            base: BoundBase::Nlev,
            offset: b.offset + 1,
        },
        _ => b,
    }
}

/// Largest difference (levels) between member vertical bounds that still fuses: more
/// would leave threads of the union idle.
const MAX_LEVEL_SLACK: i64 = 2;

/// Why two domains should not share a kernel, if they should not.
fn domain_conflict(a: &Stencil, b: &Stencil) -> Option<String> {
    if a.vertical.is_some() {
        for (x, y) in [
            (a.domain.vertical.0, b.domain.vertical.0),
            (a.domain.vertical.1, b.domain.vertical.1),
        ] {
            let (x, y) = (normal(x, a.vertical), normal(y, b.vertical));
            if x.base != y.base || (x.offset - y.offset).abs() > MAX_LEVEL_SLACK {
                return Some(format!(
                    "vertical domains differ ([{}, {}) vs [{}, {})): the union would idle threads",
                    a.domain.vertical.0,
                    a.domain.vertical.1,
                    b.domain.vertical.0,
                    b.domain.vertical.1
                ));
            }
        }
    }
    // Everything but the bounds (e.g. clips) must agree.
    let same_rest = Domain {
        horizontal: b.domain.horizontal,
        vertical: b.domain.vertical,
        ..a.domain
    } == b.domain;
    (!same_rest).then(|| "domain clips differ".to_string())
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

/// Why stencil `t` cannot join the group, if it cannot.
fn conflict(p: &Program, g: &Group, t: usize) -> Option<String> {
    let ts = &p.stencils[t];
    let first = &p.stencils[g.members[0]];
    if ts.location != first.location || ts.vertical.is_some() != first.vertical.is_some() {
        return Some(format!(
            "different iteration space than `{}` ({:?} vs {:?})",
            first.name, ts.location, first.location
        ));
    }
    if has_scan(p, ts) {
        return Some("it contains a vertical scan (a thread per column)".into());
    }
    if data_dependent(p, ts) != data_dependent(p, first) {
        return Some("k-blocking differs (data-dependent vertical offsets)".into());
    }
    for &m in &g.members {
        if let Some(why) = domain_conflict(&p.stencils[m], ts) {
            return Some(why);
        }
    }
    let reads = p.read_pattern(ts.root);
    for (f, &pointwise) in &reads {
        let name = &p.field(*f).name;
        if g.writes.contains(f) && !pointwise {
            return Some(format!(
                "it reads `{name}`, written in the group, away from its own point"
            ));
        }
        if g.snapshots.contains(f) {
            return Some(format!("`{name}` is read from a snapshot in the group"));
        }
    }
    for o in &ts.outputs {
        let name = &p.field(*o).name;
        if g.reads.get(o) == Some(&false) {
            return Some(format!(
                "it writes `{name}`, which the group reads away from its own point"
            ));
        }
        if g.snapshots.contains(o) {
            return Some(format!("`{name}` is read from a snapshot in the group"));
        }
        // Its own outputs read away from its point come from a snapshot: nobody else
        // may touch them.
        if reads.get(o) == Some(&false) && (g.writes.contains(o) || g.reads.contains_key(o)) {
            return Some(format!(
                "it reads its own output `{name}` (a snapshot) which the group also uses"
            ));
        }
    }
    None
}

fn add(p: &Program, g: &mut Group, t: usize) {
    let ts = &p.stencils[t];
    let reads = p.read_pattern(ts.root);
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

/// Groups consecutive stencils into kernels (greedy, in program order); reports every
/// fusion and every refusal with its reason.
pub fn fuse(p: &Program, report: &mut OptReport) -> Schedule {
    let mut kernels = Vec::new();
    let mut g = Group::default();
    for t in 0..p.stencils.len() {
        if !g.members.is_empty() {
            match conflict(p, &g, t) {
                None => {
                    let last = &p.stencils[*g.members.last().unwrap()].name;
                    report.actions.push(format!(
                        "fuse `{}` into the kernel of `{last}`: every dependency is pointwise",
                        p.stencils[t].name
                    ));
                    add(p, &mut g, t);
                    continue;
                }
                Some(why) => {
                    report
                        .actions
                        .push(format!("new kernel for `{}`: {why}", p.stencils[t].name));
                    kernels.push(std::mem::take(&mut g).members);
                }
            }
        }
        if has_scan(p, &p.stencils[t]) {
            kernels.push(vec![t]);
            continue;
        }
        add(p, &mut g, t);
    }
    if !g.members.is_empty() {
        kernels.push(g.members);
    }
    Schedule {
        kernels: kernels
            .into_iter()
            .map(|stencils| KernelPlan {
                stencils,
                k_block: None,
                block: None,
            })
            .collect(),
    }
}
