//! How stencils access fields: at their own point only, or elsewhere too.

use super::{ExprId, FieldId, Node, Program};
use std::collections::{BTreeMap, BTreeSet};

impl Program {
    /// How the expression at `root` reads each field: `true` when only at the point it
    /// is evaluated at (no neighbour or vertical shift, data-dependent offset or scan on
    /// the way), `false` when also elsewhere.
    pub fn read_pattern(&self, root: ExprId) -> BTreeMap<FieldId, bool> {
        let mut out: BTreeMap<FieldId, bool> = BTreeMap::new();
        let mut seen: BTreeSet<(ExprId, bool)> = BTreeSet::new();
        let mut stack = vec![(root, false)];
        while let Some((id, moved)) = stack.pop() {
            if !seen.insert((id, moved)) {
                continue;
            }
            let node = self.node(id);
            if let Node::Field(f) = node {
                let e = out.entry(*f).or_insert(true);
                *e &= !moved;
                continue;
            }
            // Nodes that evaluate their operands away from the current point.
            let moves = match node {
                Node::Shift(..) | Node::Neighbor(..) | Node::KOffset(..) | Node::Scan { .. } => {
                    true
                }
                Node::KShift(n, _) => *n != 0,
                _ => false,
            };
            for c in node.children() {
                stack.push((c, moved || moves));
            }
        }
        out
    }
}
