//! Specialisation of `concat_where` regions into branch-free parts.
//!
//! A stencil whose expression, evaluated at the stencil's own point, tests a region that
//! is one interval on one of the stencil's own dimensions (`index(K) < 1`,
//! `index(EDGE) >= start(NUDGING_2)`) is split into up to three copies: below the
//! interval, inside it and above it. Each copy's domain is clipped to its side (see
//! [`Domain::clip_horizontal`]) and every `concat_where` on that region at the own point
//! is replaced by the branch that side always takes, so the copies carry no such branch.
//! A region that is a conjunction containing the same interval is simplified alike: it
//! is false outside the interval, and inside loses that condition (possibly becoming a
//! single interval that a later split removes).
//!
//! Only `concat_where`s at the stencil's own `(h, k)` are rewritten: the walk passes
//! through nodes that evaluate their operands at the same `(h, k)` (arithmetic, selects,
//! casts, tuples, broadcasts, `VCast` — which keeps the level index — and the slot
//! loops `Pick`/`Reduce`, which only change the neighbour slot) and the offset operand of
//! a `KOffset`, and stops at neighbour and vertical shifts and at scans.
//!
//! Kept whole: stencils that read their own outputs away from their own point (they
//! read a snapshot taken before the stencil; parts would see each other's writes), vertical splits of stencils with
//! scans (a scan runs over the stencil's whole vertical range) or staged values (each
//! part would stage its shared-memory tile again in a kernel of its own), and splits whose clip
//! would need the larger (smaller) of two bounds not comparable without the grid.

use super::inline::eval_cost;
use super::{Decision as Report, OptReport, RegionRejectReason as Why, SpecialiseRejectReason};
use crate::ir::{
    Bound, BoundBase, Domain, ExprId, FieldType, IndexDim, Interval, Node, Program, Region,
    Stencil, Type,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Most parts one stencil of the program as written is split into.
const MAX_PARTS: usize = 16;

/// Most work of the parts of a vertical split, in percent of the stencil's: in a
/// k-blocked kernel a level region is a test uniform over the warp, so a split only
/// saves that test, while the parts (fused back into one kernel, each under its own
/// guard) repeat what they share. See ADR 0010.
const MAX_SPLIT_WORK_PERCENT: usize = 140;

/// A clip `(lower, upper)` of one direction.
type Clip = (Option<Bound>, Option<Bound>);

/// The side of an interval a part covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Below,
    Inside,
    Above,
}

/// One planned part: its side and the new clip of the interval's direction.
#[derive(Debug, Clone, Copy)]
struct Part {
    side: Side,
    clip: Clip,
}

/// The nodes of the expression at `root` evaluated at the stencil's own point, ascending.
/// With `take = Some((iv, inside))`, a `concat_where` whose region contains `iv`
/// contributes only the branches still evaluated on that side of `iv` (see [`Arena::specialise`]).
fn own_point_nodes(p: &Program, root: ExprId, take: Option<(&Interval, bool)>) -> Vec<ExprId> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        match (p.node(id), take) {
            (Node::ConcatWhere(r, a, b), Some((iv, inside))) if r.intervals.contains(iv) => {
                if !inside {
                    stack.push(*b);
                } else if r.intervals.iter().all(|x| x == iv) {
                    stack.push(*a);
                } else {
                    stack.extend([*a, *b]);
                }
            }
            (n, _) => stack.extend(n.point_children().0),
        }
    }
    seen.into_iter().collect()
}

/// The single interval of `region` when it lies on one of the stencil's own dimensions.
fn own_interval(st: &Stencil, region: &Region) -> Option<Interval> {
    let [iv] = region.intervals[..] else {
        return None;
    };
    let own = match iv.dim {
        IndexDim::H(l) => st.location == Some(l),
        IndexDim::V(v) => st.vertical == Some(v),
    };
    own.then_some(iv)
}

/// The distinct single-interval own-dimension regions tested at the own point, in order
/// of their first node id.
fn candidates(p: &Program, st: &Stencil) -> Vec<(Region, Interval)> {
    let mut out: Vec<(Region, Interval)> = Vec::new();
    for id in own_point_nodes(p, st.root, None) {
        if let Node::ConcatWhere(r, _, _) = p.node(id) {
            if let Some(iv) = own_interval(st, r) {
                if !out.iter().any(|(x, _)| x == r) {
                    out.push((r.clone(), iv));
                }
            }
        }
    }
    out
}

/// True when `x <= y` on `dim` for every grid and `nlev` (every base is at least 0, `nlev`
/// at most the levels of a kind, zone bounds at most the number of points).
fn known_le(x: Bound, y: Bound, dim: IndexDim) -> bool {
    if x.offset > y.offset {
        return false;
    }
    match (x.base, y.base, dim) {
        (a, b, _) if a == b => true,
        (BoundBase::Zero, _, _) => true,
        (BoundBase::Nlev, BoundBase::Size, IndexDim::V(_)) => true,
        (BoundBase::ZoneStart(_) | BoundBase::ZoneEnd(_), BoundBase::Size, IndexDim::H(_)) => true,
        (BoundBase::ZoneStart(a), BoundBase::ZoneEnd(b), _) => a == b,
        _ => false,
    }
}

/// The larger of two optional lower bounds (`None`: no bound), if known without the grid.
fn max_lower(a: Option<Bound>, b: Option<Bound>, dim: IndexDim) -> Result<Option<Bound>, String> {
    match (a, b) {
        (None, x) | (x, None) => Ok(x),
        (Some(x), Some(y)) if known_le(x, y, dim) => Ok(Some(y)),
        (Some(x), Some(y)) if known_le(y, x, dim) => Ok(Some(x)),
        (Some(x), Some(y)) => Err(format!("the larger of {x} and {y}")),
    }
}

/// The smaller of two optional upper bounds, if known without the grid.
fn min_upper(a: Option<Bound>, b: Option<Bound>, dim: IndexDim) -> Result<Option<Bound>, String> {
    match (a, b) {
        (None, x) | (x, None) => Ok(x),
        (Some(x), Some(y)) if known_le(x, y, dim) => Ok(Some(x)),
        (Some(x), Some(y)) if known_le(y, x, dim) => Ok(Some(y)),
        (Some(x), Some(y)) => Err(format!("the smaller of {x} and {y}")),
    }
}

/// The parts of `st` split on `iv`, with their clips; parts known to be empty are left
/// out, clips known to cut nothing are dropped. `Err` says why the clip is not expressible.
fn plan_parts(st: &Stencil, iv: &Interval) -> Result<Vec<Part>, String> {
    let (range, clip) = match iv.dim {
        IndexDim::H(_) => (st.domain.horizontal, st.domain.clip_horizontal),
        IndexDim::V(_) => (st.domain.vertical, st.domain.clip_vertical),
    };
    let mut sides = Vec::new();
    if iv.lo.is_some() {
        sides.push((Side::Below, (None, iv.lo)));
    }
    sides.push((Side::Inside, (iv.lo, iv.hi)));
    if iv.hi.is_some() {
        sides.push((Side::Above, (iv.hi, None)));
    }
    let mut parts = Vec::new();
    for (side, (lo, hi)) in sides {
        let mut lower = max_lower(clip.0, lo, iv.dim)?;
        let mut upper = min_upper(clip.1, hi, iv.dim)?;
        let starts = [Some(range.0), lower];
        let ends = [Some(range.1), upper];
        let empty = ends
            .iter()
            .flatten()
            .any(|&e| starts.iter().flatten().any(|&s| known_le(e, s, iv.dim)));
        if empty {
            continue;
        }
        if lower.is_some_and(|l| known_le(l, range.0, iv.dim)) {
            lower = None;
        }
        if upper.is_some_and(|u| known_le(range.1, u, iv.dim)) {
            upper = None;
        }
        parts.push(Part {
            side,
            clip: (lower, upper),
        });
    }
    Ok(parts)
}

/// The text of a side of `iv` (the part name's suffix).
fn side_text(iv: &Interval, side: Side) -> String {
    let (lo, hi) = match side {
        Side::Below => (None, iv.lo),
        Side::Inside => (iv.lo, iv.hi),
        Side::Above => (iv.hi, None),
    };
    Interval { lo, hi, ..*iv }.to_string()
}

/// Appends nodes, reusing an identical existing node (the arena stays hash-consed). The
/// hash map is only looked up, never iterated, so decisions stay deterministic.
struct Arena<'a> {
    p: &'a mut Program,
    index: HashMap<(Node, Type), ExprId>,
}

impl<'a> Arena<'a> {
    fn new(p: &'a mut Program) -> Self {
        let mut index = HashMap::new();
        for (i, n) in p.nodes.iter().enumerate() {
            index
                .entry((n.clone(), p.types[i].clone()))
                .or_insert(ExprId(i as u32));
        }
        Arena { p, index }
    }

    /// The id of `node` with type `ty` (span taken from node `like` when new).
    fn intern(&mut self, node: Node, ty: Type, like: ExprId) -> ExprId {
        if let Some(&id) = self.index.get(&(node.clone(), ty.clone())) {
            return id;
        }
        let span = self.p.spans[like.index()].clone();
        let id = self.p.push(node.clone(), ty.clone(), span);
        self.index.insert((node, ty), id);
        id
    }

    /// `id` as a value of type `want` (a `concat_where` branch may have fewer dims, or
    /// be a tuple whose elements do): broadcast (and cast) where the types differ.
    fn conform(&mut self, id: ExprId, want: &Type, like: ExprId) -> ExprId {
        let have = self.p.ty(id).clone();
        if have == *want {
            return id;
        }
        match (&have, want) {
            (Type::Field(h), Type::Field(w)) => {
                let mut x = id;
                if h.dtype != w.dtype {
                    let t = Type::Field(FieldType::new(h.dims, w.dtype));
                    x = self.intern(Node::Cast(w.dtype, x), t, like);
                }
                if h.dims != w.dims {
                    x = self.intern(Node::Broadcast(w.dims, x), want.clone(), like);
                }
                x
            }
            (Type::Tuple(hs), Type::Tuple(ws)) if hs.len() == ws.len() => {
                let items: Vec<ExprId> = (0..ws.len())
                    .map(|i| {
                        let item = match self.p.node(id) {
                            Node::Tuple(xs) => xs[i],
                            _ => self.intern(Node::Get(i as u32, id), hs[i].clone(), like),
                        };
                        self.conform(item, &ws[i], like)
                    })
                    .collect();
                self.intern(Node::Tuple(items), want.clone(), like)
            }
            _ => id,
        }
    }

    /// The expression at `root` specialised to the points on one side of `iv` (`inside`
    /// it or not): at the own point, a `concat_where` whose region contains `iv` becomes
    /// its `b` branch outside; inside, `iv` is dropped from its region, and a region left
    /// without conditions gives the `a` branch.
    fn specialise(&mut self, root: ExprId, iv: &Interval, inside: bool) -> ExprId {
        let mut map: BTreeMap<ExprId, ExprId> = BTreeMap::new();
        for id in own_point_nodes(self.p, root, Some((iv, inside))) {
            let node = self.p.node(id).clone();
            let new = match &node {
                Node::ConcatWhere(r, a, b) if r.intervals.contains(iv) => {
                    let rest: Vec<Interval> =
                        r.intervals.iter().filter(|x| *x != iv).copied().collect();
                    if inside && !rest.is_empty() {
                        let region = Region { intervals: rest };
                        self.rebuild(id, Node::ConcatWhere(region, map[a], map[b]))
                    } else {
                        let taken = map[if inside { a } else { b }];
                        let want = self.p.ty(id).clone();
                        self.conform(taken, &want, id)
                    }
                }
                Node::KOffset(a, o) => self.rebuild(id, Node::KOffset(*a, map[o])),
                n if n.point_children().1.is_empty() => {
                    let rewritten = n.map_children(&mut |c| map[&c]);
                    self.rebuild(id, rewritten)
                }
                _ => id,
            };
            map.insert(id, new);
        }
        map[&root]
    }

    /// Node `id` rewritten to `node` (the same id when nothing changed).
    fn rebuild(&mut self, id: ExprId, node: Node) -> ExprId {
        if node == *self.p.node(id) {
            return id;
        }
        let ty = self.p.ty(id).clone();
        self.intern(node, ty, id)
    }
}

/// A stencil name not in `taken`: `want`, or `want#2`, `want#3`, ...
fn unique_name(want: String, taken: &BTreeSet<String>) -> String {
    if !taken.contains(&want) {
        return want;
    }
    (2..)
        .map(|n| format!("{want}#{n}"))
        .find(|n| !taken.contains(n))
        .expect("a free name")
}

/// What to do with one stencil.
enum Decision {
    /// Nothing to specialise.
    Nothing,
    /// Keep it as it is; one reason per region left.
    Keep(Vec<SpecialiseRejectReason>),
    /// Split on a region.
    Split(Region, Interval, Vec<Part>),
}

fn decide(p: &Program, st: &Stencil, parts_now: usize, refused: &[(String, Region)]) -> Decision {
    let cands = candidates(p, st);
    if cands.is_empty() {
        return Decision::Nothing;
    }
    // Own outputs read only at the own point are safe to split (each point is read and
    // written by one part); read elsewhere they come from a snapshot parts would break.
    let reads = p.read_pattern(st.root);
    let own: Vec<&str> = st
        .outputs
        .iter()
        .filter(|o| reads.get(o) == Some(&false))
        .map(|&o| p.field(o).name.as_str())
        .collect();
    if !own.is_empty() {
        return Decision::Keep(vec![SpecialiseRejectReason::ReadsOwnOutputs(
            own.iter().map(|o| o.to_string()).collect(),
        )]);
    }
    let has_scan = p.has_scan(st.root);
    let stages = !p.staged_reads(st.root).is_empty();
    let mut reasons = Vec::new();
    for (region, iv) in cands {
        let mut keep = |why| {
            reasons.push(SpecialiseRejectReason::Region {
                region: region.clone(),
                why,
            })
        };
        if matches!(iv.dim, IndexDim::V(_)) && has_scan {
            keep(Why::Scans);
            continue;
        }
        if refused.iter().any(|(n, r)| *n == st.name && *r == region) {
            continue;
        }
        if matches!(iv.dim, IndexDim::V(_)) && stages {
            keep(Why::Staged);
            continue;
        }
        if let Some(m) = [iv.lo, iv.hi]
            .iter()
            .flatten()
            .find_map(|b| b.misuse(iv.dim))
        {
            keep(Why::BoundMisuse(m));
            continue;
        }
        let zone_ok = |b: &Bound| match (b.base, iv.dim) {
            (BoundBase::ZoneStart(z) | BoundBase::ZoneEnd(z), IndexDim::H(l)) => z.valid_for(l),
            _ => true,
        };
        if ![iv.lo, iv.hi].iter().flatten().all(zone_ok) {
            keep(Why::ZoneOfOtherLocation);
            continue;
        }
        match plan_parts(st, &iv) {
            Ok(parts) if parts.is_empty() => {
                keep(Why::EmptyDomain);
            }
            Ok(parts) if parts_now - 1 + parts.len() > MAX_PARTS => {
                keep(Why::TooManyParts {
                    parts: parts_now - 1 + parts.len(),
                    limit: MAX_PARTS,
                });
            }
            Ok(parts) => return Decision::Split(region, iv, parts),
            Err(why) => keep(Why::UnknownClip(why)),
        }
    }
    Decision::Keep(reasons)
}

/// Splits stencils on `concat_where` regions of their own dimensions (see the module
/// documentation), until no stencil has one left that can be split.
pub(super) fn specialise_regions(p: &mut Program, report: &mut OptReport) {
    // Which stencil of the program as written each stencil comes from.
    let mut origin: Vec<usize> = (0..p.stencils.len()).collect();
    let mut arena = Arena::new(p);
    // Vertical splits refused because the parts would duplicate too much work.
    let mut refused: Vec<(String, Region)> = Vec::new();
    let mut i = 0;
    while i < arena.p.stencils.len() {
        let st = arena.p.stencils[i].clone();
        let family = origin.iter().filter(|&&o| o == origin[i]).count();
        let (region, iv, parts) = match decide(arena.p, &st, family, &refused) {
            Decision::Nothing => {
                i += 1;
                continue;
            }
            Decision::Keep(reasons) => {
                for reason in reasons {
                    report.decisions.push(Report::SpecialiseRejected {
                        stencil: st.name.clone(),
                        reason,
                    });
                }
                i += 1;
                continue;
            }
            Decision::Split(region, iv, parts) => (region, iv, parts),
        };
        let mut taken: BTreeSet<String> = arena.p.stencils.iter().map(|s| s.name.clone()).collect();
        taken.remove(&st.name);
        let mut new = Vec::new();
        for part in &parts {
            let name = if parts.len() == 1 {
                st.name.clone()
            } else {
                unique_name(
                    format!("{}[{}]", st.name, side_text(&iv, part.side)),
                    &taken,
                )
            };
            taken.insert(name.clone());
            let root = arena.specialise(st.root, &iv, part.side == Side::Inside);
            let domain = match iv.dim {
                IndexDim::H(_) => Domain {
                    clip_horizontal: part.clip,
                    ..st.domain
                },
                IndexDim::V(_) => Domain {
                    clip_vertical: part.clip,
                    ..st.domain
                },
            };
            new.push(Stencil {
                name,
                root,
                domain,
                ..st.clone()
            });
        }
        if let IndexDim::V(_) = iv.dim {
            let whole = eval_cost(arena.p, st.root);
            let split: usize = new.iter().map(|s| eval_cost(arena.p, s.root)).sum();
            if split * 100 > whole * MAX_SPLIT_WORK_PERCENT {
                report.decisions.push(Report::SpecialiseRejected {
                    stencil: st.name.clone(),
                    reason: SpecialiseRejectReason::Region {
                        region: region.clone(),
                        why: Why::Duplicates {
                            whole,
                            parts: split,
                            limit: MAX_SPLIT_WORK_PERCENT,
                        },
                    },
                });
                refused.push((st.name.clone(), region));
                continue;
            }
        }
        let pruned = 1 + iv.lo.is_some() as usize + iv.hi.is_some() as usize - parts.len();
        report.decisions.push(Report::Specialised {
            stencil: st.name.clone(),
            region: region.clone(),
            parts: new.iter().map(|s| s.name.clone()).collect(),
            empty_sides: pruned,
        });
        let o = origin[i];
        origin.splice(i..=i, std::iter::repeat_n(o, new.len()));
        arena.p.stencils.splice(i..=i, new);
        // The parts are examined again for their remaining regions.
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{nlev, VKind};

    #[test]
    fn bounds_compare_only_when_known_for_every_grid() {
        let k = IndexDim::V(VKind::Full);
        assert!(known_le(Bound::index(1), Bound::index(2), k));
        assert!(known_le(Bound::index(0), nlev(), k));
        assert!(known_le(nlev(), Bound::size(), k));
        assert!(!known_le(Bound::index(1), nlev(), k));
        assert!(!known_le(Bound::size(), nlev(), k));
        assert!(!known_le(
            nlev(),
            Bound::size(),
            IndexDim::H(foehn_grid::Location::Cell)
        ));
        assert_eq!(
            max_lower(Some(Bound::index(1)), Some(Bound::index(3)), k),
            Ok(Some(Bound::index(3)))
        );
        assert!(max_lower(Some(Bound::index(1)), Some(Bound::size() - 1), k).is_err());
        assert_eq!(min_upper(None, Some(nlev()), k), Ok(Some(nlev())));
    }

    #[test]
    fn parts_known_to_be_empty_are_left_out() {
        let st = Stencil {
            name: "s".into(),
            outputs: vec![],
            location: Some(foehn_grid::Location::Cell),
            vertical: Some(VKind::Full),
            domain: Domain {
                vertical: (Bound::index(1), nlev()),
                ..Domain::default()
            },
            root: ExprId(0),
            span: None,
        };
        let iv = Interval {
            dim: IndexDim::V(VKind::Full),
            lo: Some(Bound::index(1)),
            hi: None,
        };
        // `K >= 1` on `[1, nlev)`: only the inside, with no clip needed.
        let parts = plan_parts(&st, &iv).unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].side, Side::Inside);
        assert_eq!(parts[0].clip, (None, None));
        // `K < 3` on `[1, nlev)`: inside `[1, 3)` and above `[3, nlev)`.
        let iv = Interval {
            lo: None,
            hi: Some(Bound::index(3)),
            ..iv
        };
        let parts = plan_parts(&st, &iv).unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].clip, (None, Some(Bound::index(3))));
        assert_eq!(parts[1].clip, (Some(Bound::index(3)), None));
    }
}
