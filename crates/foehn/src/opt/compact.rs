//! Dead stencils and temporaries, and compaction of the expression arena.

use super::{Decision, OptReport};
use crate::ir::{ExprId, FieldId, Node, Program, Role, Stencil};
use std::collections::{BTreeMap, BTreeSet};

/// Removes stencils whose outputs are all temporaries that no later stencil reads (until
/// nothing changes) — and such outputs from stencils that compute a tuple — then
/// temporaries no stencil uses.
pub(super) fn remove_dead(p: &mut Program, report: &mut OptReport) {
    prune_dead_outputs(p, report);
    loop {
        let read = p.fields_read_by_stencils();
        let dead = p.stencils.iter().position(|s| {
            s.outputs
                .iter()
                .all(|o| p.field(*o).role == Role::Temp && !read.contains(o))
        });
        match dead {
            Some(i) => {
                let s = p.stencils.remove(i);
                report
                    .decisions
                    .push(Decision::RemovedStencil { stencil: s.name });
            }
            None => break,
        }
    }
    let used: BTreeSet<FieldId> = p
        .stencils
        .iter()
        .flat_map(|s| s.outputs.iter().copied().chain(p.fields_read(s.root)))
        .collect();
    let keep: Vec<bool> = p
        .fields
        .iter()
        .enumerate()
        .map(|(i, d)| d.role != Role::Temp || used.contains(&FieldId(i as u32)))
        .collect();
    for (i, d) in p.fields.iter().enumerate() {
        if !keep[i] {
            report.decisions.push(Decision::RemovedTemporary {
                temporary: d.name.clone(),
            });
        }
    }
    // Renumber the kept fields.
    let mut map = BTreeMap::new();
    let mut fields = Vec::new();
    for (i, d) in p.fields.iter().enumerate() {
        if keep[i] {
            map.insert(FieldId(i as u32), FieldId(fields.len() as u32));
            fields.push(d.clone());
        }
    }
    p.fields = fields;
    for n in p.nodes.iter_mut() {
        if let Node::Field(f) = n {
            // Fields of dead nodes map to 0; `compact` drops those nodes.
            *f = map.get(f).copied().unwrap_or(FieldId(0));
        }
    }
    for s in p.stencils.iter_mut() {
        s.outputs = s.outputs.iter().map(|o| map[o]).collect();
    }
}

/// Keeps only the nodes reachable from some stencil root, in their order, renumbered.
pub(super) fn compact(p: &mut Program) {
    let live: BTreeSet<ExprId> = p
        .stencils
        .iter()
        .flat_map(|s| p.reachable(s.root))
        .collect();
    let mut map = BTreeMap::new();
    let mut out = p.without_nodes();
    for &id in &live {
        let n = p.node(id).map_children(&mut |c| map[&c]);
        let new = out.push(n, p.ty(id).clone(), p.spans[id.index()].clone());
        map.insert(id, new);
    }
    out.stencils = p
        .stencils
        .iter()
        .map(|s| Stencil {
            root: map[&s.root],
            ..s.clone()
        })
        .collect();
    *p = out;
}

/// Drops unread temporary outputs of stencils whose root is a tuple (keeping the others).
fn prune_dead_outputs(p: &mut Program, report: &mut OptReport) {
    let read = p.fields_read_by_stencils();
    for i in 0..p.stencils.len() {
        let s = p.stencils[i].clone();
        let Node::Tuple(items) = p.node(s.root).clone() else {
            continue;
        };
        let keep: Vec<usize> = (0..s.outputs.len())
            .filter(|&j| p.field(s.outputs[j]).role != Role::Temp || read.contains(&s.outputs[j]))
            .collect();
        if keep.is_empty() || keep.len() == s.outputs.len() {
            continue;
        }
        for j in (0..s.outputs.len()).filter(|j| !keep.contains(j)) {
            report.decisions.push(Decision::DroppedOutput {
                output: p.field(s.outputs[j]).name.clone(),
                stencil: s.name.clone(),
            });
        }
        let root = if keep.len() == 1 {
            items[keep[0]]
        } else {
            let ty = crate::ir::Type::Tuple(
                keep.iter()
                    .map(|&j| p.types[items[j].index()].clone())
                    .collect(),
            );
            let span = p.spans[s.root.index()].clone();
            p.push(
                Node::Tuple(keep.iter().map(|&j| items[j]).collect()),
                ty,
                span,
            )
        };
        p.stencils[i].root = root;
        p.stencils[i].outputs = keep.iter().map(|&j| s.outputs[j]).collect();
    }
}
