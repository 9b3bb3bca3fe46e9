//! The canonical form of a program's arena: only nodes reachable from the stencils, in
//! the post-order of a depth-first walk from each stencil root in turn, scans numbered
//! by first appearance. The lowering and the linker produce it, so equal programs have
//! equal arenas (and content hashes).

use super::{ExprId, Node, Program, Stencil};

/// Renumbers the arena: only nodes reachable from the stencils, in post-order of a
/// depth-first walk from each stencil root in turn (children before parents).
pub(crate) fn canonicalize(p: Program) -> Program {
    fn visit(p: &Program, id: ExprId, map: &mut Vec<Option<ExprId>>, out: &mut Program) -> ExprId {
        if let Some(n) = map[id.index()] {
            return n;
        }
        let node = p.node(id).map_children(&mut |c| visit(p, c, map, out));
        let n = out.push(node, p.ty(id).clone(), p.spans[id.index()].clone());
        map[id.index()] = Some(n);
        n
    }
    let mut out = p.without_nodes();
    let mut map = vec![None; p.nodes.len()];
    for s in &p.stencils {
        let root = visit(&p, s.root, &mut map, &mut out);
        out.stencils.push(Stencil { root, ..s.clone() });
    }
    // Number scans by first appearance in the canonical order.
    let mut scan_ids = std::collections::BTreeMap::new();
    for n in &mut out.nodes {
        let next = scan_ids.len() as u32;
        match n {
            Node::Scan { id, .. } | Node::Carry { scan: id, .. } => {
                *id = *scan_ids.entry(*id).or_insert(next)
            }
            _ => {}
        }
    }
    out
}
