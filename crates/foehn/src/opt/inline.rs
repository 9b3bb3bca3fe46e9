//! Inlining of temporaries: a consumer reads `Field(t)` (possibly through neighbour or
//! vertical shifts); it can evaluate the producer's expression at that point instead.
//! The code generators already evaluate any expression at any point, so inlining is a
//! substitution in the expression graph.

use super::{Decision, InlineRejectReason as Why, OptReport};
use crate::ir::{DType, ExprId, FieldId, Node, Program, Role, Type, UnaryOp, VKind};
use foehn_grid::Connectivity;
use std::collections::{BTreeMap, BTreeSet};

/// The most loads per point of a producer staged in shared memory. A block computes its
/// staged tile in a phase of its own before the consumer (a barrier between), so a
/// costly producer stalls the block: on the H100 (R2B6 × 80) producers of 6 loads
/// (`z_ekinh`) and 8 (`z_nabla2_c`) pay off, while staging the vorticity at vertices
/// (12 loads) made `compute_advection_in_horizontal_momentum` 3.27 ms against 1.78 ms
/// stored (bench/results/2026-11-24-h100-velocity-p3-p4-ablation.json). Part of that was
/// the extra diffusion's `zeta(E2V[0|1])`, recomputed at both vertices; with those slot
/// reads served from the tile (ADR 0010) staging it still takes 2.16 ms against 1.37 ms
/// stored (bench/results/2026-11-24-h100-va-opt-stage12.json), so the limit stays.
/// A model of the tile phase (points per block, loads, occupancy) is still to come.
const MAX_STAGED_LOADS: usize = 8;

/// How many points one evaluation of `root` reads `Field(t)` at: each path through a
/// neighbour shift multiplies by the connectivity's width.
fn reads_per_point(p: &Program, root: ExprId, t: FieldId) -> usize {
    fn walk(p: &Program, id: ExprId, t: FieldId, memo: &mut BTreeMap<ExprId, usize>) -> usize {
        if let Some(&n) = memo.get(&id) {
            return n;
        }
        let n = match p.node(id) {
            Node::Field(f) if *f == t => 1,
            Node::Shift(c, a) => c.width() * walk(p, *a, t, memo),
            // A reduction's operand is evaluated once per slot; its shifts already count it.
            node => node.children().iter().map(|&c| walk(p, c, t, memo)).sum(),
        };
        memo.insert(id, n);
        n
    }
    walk(p, root, t, &mut BTreeMap::new())
}

/// How many values of `t` one evaluation of `root` reads once shared reads are merged:
/// each distinct position (level offset and neighbour path) counted once, a path
/// through all neighbours of a connectivity counted per neighbour. This is what the
/// generated code loads (it evaluates a value once per point and scope); a scan's body,
/// whose carries repeat its coefficients many times over in
/// [`reads_per_point`]'s count of paths, reads each level it uses once.
fn distinct_reads(p: &Program, root: ExprId, t: FieldId) -> usize {
    /// Position: summed level offset (`None` under a data-dependent one) and the
    /// neighbour path (connectivity, slot or `u8::MAX` for all slots).
    type Pos = (Option<i32>, Vec<(Connectivity, u8)>);
    fn walk(
        p: &Program,
        id: ExprId,
        t: FieldId,
        pos: Pos,
        seen: &mut BTreeSet<(ExprId, Pos)>,
        found: &mut BTreeSet<Pos>,
    ) {
        if !seen.insert((id, pos.clone())) {
            return;
        }
        let (k, path) = &pos;
        let hop = |c: Connectivity, slot: u8| {
            let mut path = path.clone();
            path.push((c, slot));
            path
        };
        match p.node(id) {
            Node::Field(f) if *f == t => {
                found.insert(pos.clone());
            }
            Node::KShift(n, a) => walk(p, *a, t, (k.map(|k| k + n), path.clone()), seen, found),
            Node::KOffset(a, o) => {
                walk(p, *a, t, (None, path.clone()), seen, found);
                walk(p, *o, t, pos.clone(), seen, found);
            }
            Node::Shift(c, a) => walk(p, *a, t, (*k, hop(*c, u8::MAX)), seen, found),
            Node::Neighbor(c, slot, a) => walk(p, *a, t, (*k, hop(*c, *slot)), seen, found),
            node => {
                for c in node.children() {
                    walk(p, c, t, pos.clone(), seen, found);
                }
            }
        }
    }
    let mut found = BTreeSet::new();
    walk(
        p,
        root,
        t,
        (Some(0), Vec::new()),
        &mut BTreeSet::new(),
        &mut found,
    );
    found
        .iter()
        .map(|(_, path)| {
            path.iter()
                .map(|&(c, slot)| if slot == u8::MAX { c.width() } else { 1 })
                .product::<usize>()
        })
        .sum()
}

/// Work of one evaluation of the expression at `root`: one per node, a reduction's
/// operand counted once per neighbour slot (subexpressions shared at one point counted
/// once; a shifted operand is evaluated afresh at its point).
pub(super) fn eval_cost(p: &Program, root: ExprId) -> usize {
    fn walk(p: &Program, id: ExprId, memo: &mut BTreeMap<ExprId, usize>) -> usize {
        if memo.contains_key(&id) {
            return 0;
        }
        let n = match p.node(id) {
            Node::Reduce(_, c, a) => 1 + c.width() * walk(p, *a, memo),
            // A shifted operand is evaluated at another point: nothing computed at this
            // point is shared with it.
            Node::Shift(_, a) | Node::KShift(_, a) => 1 + walk(p, *a, &mut BTreeMap::new()),
            node => {
                1 + node
                    .children()
                    .iter()
                    .map(|&c| walk(p, c, memo))
                    .sum::<usize>()
            }
        };
        memo.insert(id, n);
        n
    }
    walk(p, root, &mut BTreeMap::new())
}

/// Field loads of one evaluation of the expression at `root` (a reduction's operand
/// counted once per neighbour slot).
fn load_count(p: &Program, root: ExprId) -> usize {
    fn walk(p: &Program, id: ExprId, memo: &mut BTreeMap<ExprId, usize>) -> usize {
        if memo.contains_key(&id) {
            return 0;
        }
        let n = match p.node(id) {
            Node::Field(_) => 1,
            Node::Reduce(_, c, a) => c.width() * walk(p, *a, memo),
            // Loads under a shift are at another point: a field also read at this point
            // is a second load there.
            Node::Shift(_, a) | Node::KShift(_, a) => walk(p, *a, &mut BTreeMap::new()),
            node => node
                .children()
                .iter()
                .map(|&c| walk(p, c, memo))
                .sum::<usize>(),
        };
        memo.insert(id, n);
        n
    }
    walk(p, root, &mut BTreeMap::new())
}

/// One step of the horizontal path from a consumer point to a load: levels do not
/// appear, so loads of a field at one point but other levels share a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum HStep {
    /// Inside a reduction over the connectivity (once per slot).
    Reduce(Connectivity),
    /// At all neighbours through the connectivity.
    Shift(Connectivity),
    /// At one neighbour.
    Neighbor(Connectivity, u8),
    /// At a data-dependent level (another point of the column, not streamed).
    KOffset(ExprId),
}

/// The column loads of the expression at `root`, with `Field(t)` evaluated as
/// `value` where `replace` is `(t, value)`: each distinct (field, horizontal path) once,
/// weighted by the points it stands for per consumer point (a reduction's slots, a
/// shift outside a reduction over its connectivity). Loads of a field at the same
/// horizontal point but at other levels (constant vertical shifts) count once: a thread
/// walking the column (a k-blocked or scan kernel) loads the other levels at its
/// neighbouring iterations anyway, so the repeats are served from cache, not memory.
fn column_loads(
    p: &Program,
    root: ExprId,
    replace: Option<(FieldId, ExprId)>,
) -> BTreeMap<(FieldId, Vec<HStep>), usize> {
    struct Walk<'a> {
        p: &'a Program,
        replace: Option<(FieldId, ExprId)>,
        seen: BTreeSet<(ExprId, Vec<HStep>)>,
        loads: BTreeMap<(FieldId, Vec<HStep>), usize>,
    }
    impl Walk<'_> {
        fn step(&mut self, s: HStep, a: ExprId, path: &mut Vec<HStep>, weight: usize) {
            path.push(s);
            self.go(a, path, weight);
            path.pop();
        }
        fn go(&mut self, id: ExprId, path: &mut Vec<HStep>, weight: usize) {
            if !self.seen.insert((id, path.clone())) {
                return;
            }
            match self.p.node(id) {
                Node::Field(f) => match self.replace {
                    Some((t, value)) if t == *f => self.go(value, path, weight),
                    _ => {
                        self.loads.insert((*f, path.clone()), weight);
                    }
                },
                Node::Reduce(_, c, a) => self.step(HStep::Reduce(*c), *a, path, weight * c.width()),
                Node::Shift(c, a) => {
                    let in_reduce = path.last() == Some(&HStep::Reduce(*c));
                    let w = if in_reduce {
                        weight
                    } else {
                        weight * c.width()
                    };
                    self.step(HStep::Shift(*c), *a, path, w)
                }
                Node::Neighbor(c, slot, a) => {
                    self.step(HStep::Neighbor(*c, *slot), *a, path, weight)
                }
                Node::KOffset(o, a) => {
                    self.go(*o, path, weight);
                    self.step(HStep::KOffset(id), *a, path, weight)
                }
                node => {
                    for c in node.children() {
                        self.go(c, path, weight);
                    }
                }
            }
        }
    }
    let mut w = Walk {
        p,
        replace,
        seen: BTreeSet::new(),
        loads: BTreeMap::new(),
    };
    w.go(root, &mut Vec::new(), 1);
    w.loads
}

/// The column-load model of inlining `t` (value `value`) into the consumer at `root`:
/// (loads the inlined producer adds per consumer point, the stored temporary's traffic:
/// one write plus its reads at distinct horizontal points).
fn column_inline_loads(p: &Program, root: ExprId, t: FieldId, value: ExprId) -> (usize, usize) {
    let before = column_loads(p, root, None);
    let reads: usize = before
        .iter()
        .filter(|((f, _), _)| *f == t)
        .map(|(_, w)| w)
        .sum();
    let others: usize = before.values().sum::<usize>() - reads;
    let after: usize = column_loads(p, root, Some((t, value))).values().sum();
    (after.saturating_sub(others), reads + 1)
}

/// The one connectivity through which the expression at `root` reads `Field(t)` at
/// neighbours (other reads, e.g. at the own point, are recomputed where they are).
fn read_through(p: &Program, root: ExprId, t: FieldId) -> Option<Connectivity> {
    let mut conns = BTreeSet::new();
    let field_t = Node::Field(t);
    for id in p.reachable(root) {
        if let Node::Shift(c, a) | Node::Neighbor(c, _, a) = p.node(id) {
            if *p.node(*a) == field_t {
                conns.insert(*c);
            }
        }
    }
    match conns.len() {
        1 => conns.into_iter().next(),
        _ => None,
    }
}

/// Whether every reader of `t` (written by stencil `prod`) is a scan-free stencil of the
/// producer's location that reads it only in its own column and comes after a scan
/// stencil of that location which comes after the producer: in a lockstep column kernel
/// (ADR 0025) such a temporary would be kept in a column array from the ascending loop
/// to the descending one.
fn read_only_after_scan(p: &Program, prod: usize, readers: &[usize], t: FieldId) -> bool {
    let location = p.stencils[prod].location;
    !readers.is_empty()
        && readers.iter().all(|&r| {
            let st = &p.stencils[r];
            st.location == location
                && !p.has_scan(st.root)
                && p.column_read_pattern(st.root).get(&t) == Some(&true)
                && (prod + 1..r)
                    .any(|s| p.stencils[s].location == location && p.has_scan(p.stencils[s].root))
        })
}

/// Whether the expression at `root` reads `Field(t)` only at single neighbour slots
/// (`Neighbor`), never through a shift over all neighbours.
fn reads_only_at_slots(p: &Program, root: ExprId, t: FieldId) -> bool {
    let field_t = Node::Field(t);
    p.reachable(root)
        .into_iter()
        .all(|id| !matches!(p.node(id), Node::Shift(_, a) if *p.node(*a) == field_t))
}

/// Whether the expression at `root` can be evaluated at any point of its location
/// without a run-time check failing: neighbour shifts only inside reductions over the
/// same connectivity (missing neighbours are skipped), no slots or vertical offsets,
/// fields with levels only of the reader's vertical kind (read at its own level).
/// With `slots`, single neighbour slots are accepted (their check may fail at a point
/// missing that neighbour).
fn error_free(p: &Program, root: ExprId, vertical: Option<VKind>, slots: bool) -> bool {
    fn walk(
        p: &Program,
        id: ExprId,
        reduce: Option<Connectivity>,
        v: Option<VKind>,
        slots: bool,
    ) -> bool {
        match p.node(id) {
            Node::Field(f) => p.field(*f).ty.dims.vertical.is_none_or(|k| Some(k) == v),
            Node::Shift(c, a) => reduce == Some(*c) && walk(p, *a, None, v, slots),
            Node::Reduce(_, c, a) => walk(p, *a, Some(*c), v, slots),
            Node::Neighbor(_, _, a) if slots => walk(p, *a, None, v, slots),
            Node::Neighbor(..) | Node::KShift(..) | Node::KOffset(..) | Node::Scan { .. } => false,
            node => node
                .children()
                .iter()
                .all(|&c| walk(p, c, reduce, v, slots)),
        }
    }
    walk(p, root, None, vertical, slots)
}

/// Rewrites the expression rooted at `root`, replacing `Field(t)` by `replacement`;
/// new nodes are appended to the arena (children before parents, as the arena requires).
fn substitute(p: &mut Program, root: ExprId, t: FieldId, replacement: ExprId) -> ExprId {
    let mut map: BTreeMap<ExprId, ExprId> = BTreeMap::new();
    for id in p.reachable(root) {
        let node = p.node(id).clone();
        let new = if node == Node::Field(t) {
            replacement
        } else {
            let rewritten = node.map_children(&mut |c| map.get(&c).copied().unwrap_or(c));
            if rewritten == node {
                id
            } else {
                p.push_like(rewritten, id)
            }
        };
        map.insert(id, new);
    }
    map[&root]
}

/// Inlines every temporary written by exactly one scan-free stencil (its root, or one
/// element of its tuple root) into the later stencils that read it, when the recompute
/// cost is within `max_cost`, the loads stay within `load_factor` of the stored
/// temporary's traffic (counted per column with `column_streamed`, see
/// [`column_loads`]) and no stencil in between overwrites the producer's inputs.
pub(super) fn inline_temporaries(
    p: &mut Program,
    opts: &super::OptOptions,
    report: &mut OptReport,
) {
    let (max_cost, load_factor, column_streamed, stage) = (
        opts.max_inline_cost,
        opts.inline_load_factor,
        opts.column_streamed_loads,
        opts.stage,
    );
    let lockstep = opts.columns && opts.lockstep;
    // In the level-fastest layout a warp per column keeps its columns in shared memory,
    // so nothing is recomputed after the scan instead (ADR 0032).
    let warp_columns = super::schedule::level_fastest(opts);
    let temps: Vec<FieldId> = (0..p.fields.len() as u32)
        .map(FieldId)
        .filter(|&f| p.field(f).role == Role::Temp)
        .collect();
    for t in temps {
        let name = p.field(t).name.clone();
        let writers: Vec<usize> = (0..p.stencils.len())
            .filter(|&i| p.stencils[i].outputs.contains(&t))
            .collect();
        let [prod] = writers[..] else {
            report.decisions.push(Decision::InlineRejected {
                temporary: name,
                reason: Why::Writers(writers.len()),
            });
            continue;
        };
        let ps = p.stencils[prod].clone();
        // The producer's value of `t`: its root, or the matching element of a tuple root.
        let value = match (ps.outputs.len(), p.node(ps.root)) {
            (1, _) => ps.root,
            (_, Node::Tuple(items)) => {
                items[ps.outputs.iter().position(|&o| o == t).expect("writer")]
            }
            _ => {
                report.decisions.push(Decision::InlineRejected {
                    temporary: name,
                    reason: Why::OutputsTogether {
                        producer: ps.name.clone(),
                    },
                });
                continue;
            }
        };
        if p.has_scan(ps.root) {
            report.decisions.push(Decision::InlineRejected {
                temporary: name,
                reason: Why::ProducerHasScan {
                    producer: ps.name.clone(),
                },
            });
            continue;
        }
        let readers: Vec<usize> = (0..p.stencils.len())
            .filter(|&i| p.fields_read(p.stencils[i].root).contains(&t))
            .collect();
        if readers.iter().any(|&r| r <= prod) {
            report.decisions.push(Decision::InlineRejected {
                temporary: name,
                reason: Why::ReadBeforeProduced,
            });
            continue;
        }
        let after_scan = opts.recompute_after_scan
            && lockstep
            && !warp_columns
            && read_only_after_scan(p, prod, &readers, t);
        let inputs = p.fields_read(value);
        let size = eval_cost(p, value);
        let loads_once = load_count(p, value);
        let mut plan = Vec::new();
        let mut reason = None;
        for &r in &readers {
            let overwritten =
                (prod + 1..r).find(|&s| p.stencils[s].outputs.iter().any(|o| inputs.contains(o)));
            if let Some(s) = overwritten {
                reason = Some(Why::InputOverwritten {
                    by: p.stencils[s].name.clone(),
                    producer: ps.name.clone(),
                    consumer: p.stencils[r].name.clone(),
                });
                break;
            }
            // A scan member of a lockstep column kernel evaluates its body once per
            // level, with the other members' inputs at hand (ADR 0025): its recompute
            // cost counts the distinct reads, not the paths through its carries.
            let reads = if lockstep && p.has_scan(p.stencils[r].root) {
                distinct_reads(p, p.stencils[r].root, t)
            } else {
                reads_per_point(p, p.stencils[r].root, t)
            };
            let cost = size * reads;
            if cost > max_cost {
                reason = Some(Why::CostExceeded {
                    consumer: p.stencils[r].name.clone(),
                    cost,
                    limit: max_cost,
                });
                break;
            }
            // Memory model: stored, the temporary costs one write and `reads` reads per
            // consumer point; inlined, its `loads` inputs are loaded at `reads` points.
            let loads = loads_once * reads;
            let limit = load_factor.saturating_mul(reads + 1);
            // The model's (loads inlined, stored traffic): per column, only the loads at
            // new columns count (ADR 0022); otherwise every load.
            let (model_loads, stored) = if column_streamed {
                column_inline_loads(p, p.stencils[r].root, t, value)
            } else {
                (loads, reads + 1)
            };
            if after_scan
                || model_loads <= load_factor.saturating_mul(stored)
                || opts.recompute.contains(&name)
            {
                plan.push((r, cost, None));
                continue;
            }
            // Staged in shared memory, the producer is computed once per point of a
            // block and its neighbours instead of at every neighbour of every point.
            let rs = &p.stencils[r];
            let staged = read_through(p, rs.root, t).filter(|c| {
                stage
                    && loads_once <= limit
                    && loads_once <= MAX_STAGED_LOADS
                    && rs.location == Some(c.from())
                    && p.field(t).ty.dims.horizontal == Some(c.to())
                    && p.field(t).ty.dtype == DType::F64
                    && !p.has_scan(rs.root)
                    && error_free(p, value, rs.vertical, opts.stage_slots)
            });
            // Reading its own output at neighbours, the consumer would need a snapshot
            // of it (a copy per call) against other blocks' writes.
            let own = p
                .fields_read(value)
                .into_iter()
                .find(|f| rs.outputs.contains(f));
            match (staged, own) {
                // Read only at single neighbour slots (`E2C[0]`, `E2C[1]`), a staged
                // value would not come from the tile in a reduction: recomputing it at
                // those few points is what the H100 measured fastest (P3's kinetic
                // energy at cells: 1.336 ms recomputed, 1.518 ms stored, 1.787 ms in a
                // shared-memory tile read per slot; ADR 0022).
                (Some(_), None) if reads_only_at_slots(p, rs.root, t) => plan.push((r, cost, None)),
                (Some(c), None) => plan.push((r, cost, Some((c, loads)))),
                (staged, own) => {
                    reason = Some(Why::TooManyLoads {
                        consumer: rs.name.clone(),
                        loads: model_loads,
                        stored,
                        factor: load_factor,
                        staging_blocked_by: staged.and(own).map(|f| p.field(f).name.clone()),
                    });
                    break;
                }
            }
        }
        if let Some(why) = reason {
            report.decisions.push(Decision::InlineRejected {
                temporary: name,
                reason: why,
            });
            continue;
        }
        // Consumers read the value as the temporary's type: a producer's value may vary
        // along fewer dimensions than the temporary stores (broadcast, as the store did).
        let stored = Type::Field(p.field(t).ty);
        let value = if plan.is_empty() || *p.ty(value) == stored {
            value
        } else {
            let span = p.spans[value.index()].clone();
            p.push(Node::Broadcast(p.field(t).ty.dims, value), stored, span)
        };
        for (r, cost, staged) in plan {
            let root = p.stencils[r].root;
            let replacement = match staged {
                Some(_) => p.push_like(Node::Unary(UnaryOp::Stage, value), value),
                None => value,
            };
            let new_root = substitute(p, root, t, replacement);
            p.stencils[r].root = new_root;
            let into = p.stencils[r].name.clone();
            report.decisions.push(match staged {
                Some((connectivity, loads)) => Decision::Staged {
                    temporary: name.clone(),
                    producer: ps.name.clone(),
                    into,
                    cost: size,
                    connectivity,
                    loads: loads_once,
                    recomputed_loads: loads,
                },
                None => Decision::Inlined {
                    temporary: name.clone(),
                    producer: ps.name.clone(),
                    into,
                    cost: size,
                    recompute_cost: cost,
                    after_scan,
                },
            });
        }
    }
}
