//! Forwarding of outputs read one level away: a stencil that reads an output of an
//! earlier stencil at `k ± n` (a vertical look-ahead or look-behind in its own column)
//! evaluates the producer's expression at that level instead, while the producer still
//! stores the output.
//!
//! Why: the fuser keeps a stencil that reads a field written in the group away from its
//! own point in a kernel of its own (another thread writes that level), so the output
//! is written by one kernel and read back by the next. ICON's
//! `compute_advection_in_predictor_vertical_momentum` reads `w_concorr_c(k + 1)` in the
//! full-level interpolation of `z_w_con_c`; forwarded, every read of the output is at
//! the own point and both stencils share a kernel. In a k-blocked kernel the forwarded
//! expression reads the producer's inputs one level further, which the same thread
//! reads at its next level anyway (cache hits), so the saving is one read of the output.
//!
//! The rewrite is exact: the consumer reads at `(h, k + n)` the value the producer
//! stores there, provided that point is inside the producer's domain (checked
//! symbolically, with the consumer's own `concat_where` regions narrowing its levels),
//! the output has one writer, the producer has no scan, reads neither the output nor
//! anything written between it and the consumer (the consumer included), and the read is
//! in the consumer's own column (no neighbour shift, no data-dependent offset on the
//! way). Reads at the own level stay reads of the stored field (pointwise, fusable).

use super::{Decision, OptReport};
use crate::ir::{
    Bound, BoundBase, Domain, ExprId, FieldId, IndexDim, Node, Program, Role, Type, UnaryOp, VKind,
};
use std::collections::{BTreeMap, BTreeSet};

/// `b` on levels of `kind` with its base `Size` written as `nlev` (+1 on half levels),
/// so bounds of different vertical kinds compare.
fn norm(b: Bound, kind: Option<VKind>) -> Bound {
    match b.base {
        BoundBase::Size => Bound {
            base: BoundBase::Nlev,
            offset: b.offset + matches!(kind, Some(VKind::Half)) as i64,
        },
        _ => b,
    }
}

/// True when `x <= y` as levels for every number of levels (bases normalised by
/// [`norm`]: zero, or `nlev`).
fn le(x: Bound, y: Bound) -> bool {
    match (x.base, y.base) {
        (a, b) if a == b => x.offset <= y.offset,
        // nlev ≥ 1 level.
        (BoundBase::Zero, BoundBase::Nlev) => x.offset <= y.offset + 1,
        _ => false,
    }
}

/// Bound `b` moved by `n` levels.
fn moved(b: Bound, n: i64) -> Bound {
    Bound {
        offset: b.offset + n,
        ..b
    }
}

/// The levels `[lower bounds, upper bounds)` a stencil's own level `k` is known to lie
/// in: every listed lower bound is `<= k`, every upper bound `> k`.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Levels {
    lo: Vec<Bound>,
    hi: Vec<Bound>,
}

/// Why reads of an output cannot be forwarded into a consumer (`None`: they can, or
/// there are none at an offset); `offsets` collects the offsets read at.
fn check(
    p: &Program,
    root: ExprId,
    o: FieldId,
    start: Levels,
    producer: &Levels,
    offsets: &mut BTreeSet<i64>,
) -> Option<String> {
    let mut seen: BTreeSet<(ExprId, i64, Levels, bool)> = BTreeSet::new();
    let mut stack = vec![(root, 0i64, start, false)];
    while let Some((id, off, lv, moved_h)) = stack.pop() {
        if !seen.insert((id, off, lv.clone(), moved_h)) {
            continue;
        }
        match p.node(id) {
            Node::Field(f) if *f == o => {
                if moved_h {
                    return Some("it is read at a neighbour".into());
                }
                if off == 0 {
                    continue;
                }
                offsets.insert(off);
                // Every bound of the producer's levels holds at k + off.
                let lo_ok =
                    (producer.lo.iter()).all(|&pl| lv.lo.iter().any(|&l| le(pl, moved(l, off))));
                let hi_ok =
                    (producer.hi.iter()).all(|&ph| lv.hi.iter().any(|&h| le(moved(h, off), ph)));
                if !(lo_ok && hi_ok) {
                    return Some(format!(
                        "its read at level offset {off} may leave the producer's levels"
                    ));
                }
            }
            Node::KShift(n, a) => stack.push((*a, off + *n as i64, lv, moved_h)),
            Node::Shift(_, a) | Node::Neighbor(_, _, a) => stack.push((*a, off, lv, true)),
            Node::KOffset(..) | Node::Scan { .. } => {
                if p.fields_read(id).contains(&o) {
                    return Some("it is read through a data-dependent offset or a scan".into());
                }
            }
            Node::ConcatWhere(r, a, b) => {
                let v: Vec<_> = r
                    .intervals
                    .iter()
                    .filter_map(|iv| match iv.dim {
                        IndexDim::V(kind) => Some((kind, iv.lo, iv.hi)),
                        IndexDim::H(_) => None,
                    })
                    .collect();
                let mut inside = lv.clone();
                for &(kind, lo, hi) in &v {
                    // lo <= k + off < hi  ⇔  lo − off <= k < hi − off.
                    inside
                        .lo
                        .extend(lo.map(|b| moved(norm(b, Some(kind)), -off)));
                    inside
                        .hi
                        .extend(hi.map(|b| moved(norm(b, Some(kind)), -off)));
                }
                let mut outside = lv.clone();
                // Outside a single vertical half-line the other half-line holds.
                if let ([(kind, lo, hi)], 1) = (&v[..], r.intervals.len()) {
                    match (lo, hi) {
                        (Some(l), None) => outside.hi.push(moved(norm(*l, Some(*kind)), -off)),
                        (None, Some(h)) => outside.lo.push(moved(norm(*h, Some(*kind)), -off)),
                        _ => {}
                    }
                }
                stack.push((*a, off, inside, moved_h));
                stack.push((*b, off, outside, moved_h));
            }
            n => {
                for c in n.children() {
                    stack.push((c, off, lv.clone(), moved_h));
                }
            }
        }
    }
    None
}

/// The expression at `root` with every read of `o` at a non-zero level offset replaced
/// by `value` (evaluated there); reads at the own level are kept.
fn rewrite(p: &mut Program, root: ExprId, o: FieldId, value: ExprId) -> ExprId {
    fn walk(
        p: &mut Program,
        id: ExprId,
        off: i64,
        o: FieldId,
        value: ExprId,
        memo: &mut BTreeMap<(ExprId, i64), ExprId>,
    ) -> ExprId {
        if let Some(&x) = memo.get(&(id, off)) {
            return x;
        }
        let node = p.node(id).clone();
        let new = match &node {
            Node::Field(f) if *f == o && off != 0 => value,
            Node::KShift(n, a) => {
                let a2 = walk(p, *a, off + *n as i64, o, value, memo);
                rebuild(p, id, Node::KShift(*n, a2))
            }
            // Below these nodes `o` is not read (checked), or only at the own level.
            Node::KOffset(..) | Node::Scan { .. } | Node::Field(_) => id,
            n => {
                let mapped = n.map_children(&mut |c| walk(p, c, off, o, value, memo));
                rebuild(p, id, mapped)
            }
        };
        memo.insert((id, off), new);
        new
    }
    fn rebuild(p: &mut Program, id: ExprId, node: Node) -> ExprId {
        if node == *p.node(id) {
            id
        } else {
            p.push_like(node, id)
        }
    }
    walk(p, root, 0, o, value, &mut BTreeMap::new())
}

/// The producer's value of output `o` (its root, or the tuple element), if it has one.
fn value_of(p: &Program, prod: usize, o: FieldId) -> Option<ExprId> {
    let ps = &p.stencils[prod];
    match (ps.outputs.len(), p.node(ps.root)) {
        (1, _) => Some(ps.root),
        (_, Node::Tuple(items)) => Some(items[ps.outputs.iter().position(|&x| x == o)?]),
        _ => None,
    }
}

/// Forwards outputs read at a vertical offset (see the module documentation) where the
/// recomputation costs at most `max_cost` (the producer's work times the offsets read).
pub(super) fn forward_outputs(p: &mut Program, max_cost: usize, report: &mut OptReport) {
    let outputs: Vec<FieldId> = (0..p.fields.len() as u32)
        .map(FieldId)
        .filter(|&f| matches!(p.field(f).role, Role::Out | Role::InOut))
        .collect();
    for o in outputs {
        let writers: Vec<usize> = (0..p.stencils.len())
            .filter(|&i| p.stencils[i].outputs.contains(&o))
            .collect();
        let [prod] = writers[..] else { continue };
        for r in prod + 1..p.stencils.len() {
            if p.read_pattern(p.stencils[r].root).get(&o) != Some(&false) {
                continue;
            }
            let name = p.field(o).name.clone();
            let into = p.stencils[r].name.clone();
            let reject = |report: &mut OptReport, reason: String| {
                report.decisions.push(Decision::ForwardRejected {
                    output: name.clone(),
                    into: into.clone(),
                    reason,
                })
            };
            let (ps, rs) = (&p.stencils[prod], &p.stencils[r]);
            let Some(value) = value_of(p, prod, o) else {
                reject(report, "its producer computes its outputs together".into());
                continue;
            };
            let inputs = p.fields_read(value);
            let written_between = (prod + 1..=r)
                .flat_map(|s| p.stencils[s].outputs.iter())
                .find(|f| inputs.contains(f));
            let why = if p.has_scan(ps.root) || p.has_scan(rs.root) {
                Some("a scan".to_string())
            } else if inputs.contains(&o) {
                Some("its producer reads it".into())
            } else if let Some(f) = written_between {
                Some(format!(
                    "`{}`, an input of its producer, is written before",
                    p.field(*f).name
                ))
            } else if (p.reachable(value).iter())
                .any(|&i| matches!(p.node(i), Node::Unary(UnaryOp::Stage, _)))
            {
                Some("its producer stages values".into())
            } else if rs.location != ps.location
                || rs.domain.horizontal != ps.domain.horizontal
                || rs.domain.clip_horizontal != ps.domain.clip_horizontal
                || rs.vertical.is_none()
                || ps.vertical.is_none()
            {
                Some("the horizontal domains differ".into())
            } else {
                None
            };
            if let Some(why) = why {
                reject(report, why);
                continue;
            }
            let levels = |d: &Domain, kind| Levels {
                lo: [Some(d.vertical.0), d.clip_vertical.0]
                    .into_iter()
                    .flatten()
                    .map(|b| norm(b, kind))
                    .collect(),
                hi: [Some(d.vertical.1), d.clip_vertical.1]
                    .into_iter()
                    .flatten()
                    .map(|b| norm(b, kind))
                    .collect(),
            };
            // The producer writes the levels within all of its bounds (range and clip).
            let written = levels(&ps.domain, ps.vertical);
            let start = levels(&rs.domain, rs.vertical);
            let mut offsets = BTreeSet::new();
            if let Some(why) = check(p, rs.root, o, start, &written, &mut offsets) {
                reject(report, why);
                continue;
            }
            if offsets.is_empty() {
                continue;
            }
            let cost = super::inline::eval_cost(p, value) * offsets.len();
            if cost > max_cost {
                reject(report, format!("recompute cost {cost} exceeds {max_cost}"));
                continue;
            }
            // Consumers read the value as the output's type (broadcast as stored).
            let stored = Type::Field(p.field(o).ty);
            let value = if *p.ty(value) == stored {
                value
            } else {
                let span = p.spans[value.index()].clone();
                p.push(Node::Broadcast(p.field(o).ty.dims, value), stored, span)
            };
            let root = p.stencils[r].root;
            p.stencils[r].root = rewrite(p, root, o, value);
            report.decisions.push(Decision::Forwarded {
                output: name,
                producer: p.stencils[prod].name.clone(),
                into,
                offsets: offsets.into_iter().collect(),
                cost,
            });
        }
    }
}
