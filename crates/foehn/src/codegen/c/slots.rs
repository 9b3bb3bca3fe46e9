//! Slot selection: a `where` whose two sides are one expression read at two neighbour
//! slots, `where(m, f(E2C[0]), f(E2C[1]))` — ICON's upwind choice, e.g. the advected
//! rho and theta at an edge from the cell upstream of it — is emitted as that
//! expression once, at the slot the mask selects (`js = m ? 0 : 1`), instead of as a
//! branch whose sides a warp with mixed masks runs one after the other.
//!
//! Each side reads only through its own slot, and the other side's reads are exactly the
//! same with the other slot, so the values are those of the side the mask picks, bit for
//! bit; a missing neighbour is reported where the selected side reads it, as in the
//! branch. In a k-blocked kernel the neighbour indices and index rows of both slots are
//! hoisted before the level loop and the loop selects between them (`hoist.rs`);
//! two-dimensional fields at the selected slot are loaded in the loop.

use super::*;

/// The slots `(sa, sb)` if `a` and `b` are one expression that reads neighbour slot `sa`
/// (`Neighbor` or `Pick`) everywhere `b` reads `sb`, and are otherwise identical; shared
/// subexpressions must not read slot `sa` (they are evaluated once, under the
/// substitution). `None` if they differ otherwise, read no slot, or contain scans.
pub(super) fn slot_twins(p: &Program, a: ExprId, b: ExprId) -> Option<(u8, u8)> {
    let mut twins = Twins {
        p,
        pair: None,
        shared: Vec::new(),
        memo: BTreeSet::new(),
    };
    if !twins.same(a, b) {
        return None;
    }
    let (sa, sb) = twins.pair?;
    let reads_sa = |id: ExprId| {
        p.reachable(id).into_iter().any(|n| match p.node(n) {
            Node::Neighbor(_, s, _) | Node::Pick(s, _) => *s == sa,
            _ => false,
        })
    };
    (!twins.shared.iter().any(|&s| reads_sa(s))).then_some((sa, sb))
}

/// How many data-dependent `where`s of `p`'s stencils are slot twins (what slot
/// selection computes once at the selected slot; for `foehn explain`).
pub fn slot_selected_wheres(p: &Program) -> usize {
    let mut ids = BTreeSet::new();
    for st in &p.stencils {
        ids.extend(p.reachable(st.root));
    }
    ids.into_iter()
        .filter(|&id| matches!(p.node(id), Node::Where(_, a, b) if slot_twins(p, *a, *b).is_some()))
        .count()
}

/// The structural comparison behind [`slot_twins`].
struct Twins<'p> {
    p: &'p Program,
    /// The one slot pair seen so far.
    pair: Option<(u8, u8)>,
    /// Subexpressions both sides share (the same node).
    shared: Vec<ExprId>,
    /// Pairs already found equal.
    memo: BTreeSet<(ExprId, ExprId)>,
}

impl Twins<'_> {
    fn same(&mut self, a: ExprId, b: ExprId) -> bool {
        if a == b {
            self.shared.push(a);
            return true;
        }
        if self.memo.contains(&(a, b)) {
            return true;
        }
        let (na, nb) = (self.p.node(a), self.p.node(b));
        let slots = match (na, nb) {
            (Node::Neighbor(ca, sa, _), Node::Neighbor(cb, sb, _)) if ca == cb => Some((*sa, *sb)),
            (Node::Pick(sa, _), Node::Pick(sb, _)) => Some((*sa, *sb)),
            (Node::Scan { .. } | Node::Carry { .. }, _)
            | (_, Node::Scan { .. } | Node::Carry { .. }) => return false,
            _ => None,
        };
        match slots {
            Some((sa, sb)) if sa == sb => return false,
            Some(pair) if *self.pair.get_or_insert(pair) != pair => return false,
            Some(_) => {}
            // Same node kind and payload, children compared below.
            None => {
                let blank = |n: &Node| n.map_children(&mut |_| ExprId(0));
                if blank(na) != blank(nb) {
                    return false;
                }
            }
        }
        let (ka, kb) = (na.children(), nb.children());
        let equal = ka.len() == kb.len() && ka.iter().zip(&kb).all(|(&x, &y)| self.same(x, y));
        if equal {
            self.memo.insert((a, b));
        }
        equal
    }
}

/// The nodes reachable from `root` whose value depends on reads at slot `slot`.
fn slot_dependent(p: &Program, root: ExprId, slot: u8) -> BTreeSet<ExprId> {
    let mut dep = BTreeSet::new();
    for id in p.reachable(root) {
        let node = p.node(id);
        let own = matches!(node, Node::Neighbor(_, s, _) | Node::Pick(s, _) if *s == slot);
        if own || node.children().iter().any(|c| dep.contains(c)) {
            dep.insert(id);
        }
    }
    dep
}

/// A slot substitution in force while a slot-selected side is emitted.
pub(super) struct SlotSubst {
    /// The slot the side reads.
    slot: u8,
    /// The other side's slot.
    other: u8,
    /// The C variable holding the selected slot.
    var: String,
    /// Nodes whose value depends on the substituted slot: never taken from values
    /// computed outside the substitution.
    dependent: BTreeSet<ExprId>,
    /// The scope the substitution's values live in (an index into `Gen::scopes`).
    scope: usize,
}

impl Gen<'_> {
    /// `where(cond, a, b)` as `a` at the slot `cond` selects, if `a` and `b` are slot
    /// twins and slot selection is on; `None` otherwise (emit a branch).
    pub(super) fn slot_select(
        &mut self,
        id: ExprId,
        cond: &str,
        a: ExprId,
        b: ExprId,
        pt: &Pt,
    ) -> Result<Option<Val>, CodegenError> {
        if !self.slot_select || self.slot_subst.is_some() || self.stage.is_some() {
            return Ok(None);
        }
        let Some((sa, sb)) = slot_twins(self.prog, a, b) else {
            return Ok(None);
        };
        let var = self.fresh("js");
        self.line(format!("const int {var} = ({cond}) ? {sa} : {sb};"));
        let vars = self.declare(&self.prog.ty(id).clone());
        // A block of its own: values computed under the substitution stay in it.
        self.open("");
        self.slot_subst = Some(SlotSubst {
            slot: sa,
            other: sb,
            var,
            dependent: slot_dependent(self.prog, a, sa),
            scope: self.scopes.len() - 1,
        });
        let v = self.emit(a, pt);
        self.slot_subst = None;
        let v = v?;
        self.assign(&vars, &v);
        self.close();
        Ok(Some(vars))
    }

    /// The C text of neighbour slot `slot`: the selected slot's variable under a
    /// substitution of it, else the literal.
    pub(super) fn slot_text(&self, slot: u8) -> String {
        match &self.slot_subst {
            Some(s) if s.slot == slot => s.var.clone(),
            _ => slot.to_string(),
        }
    }

    /// `(slot, other)` if `j` is the variable of the slot selection in force: it holds
    /// `slot` where the mask holds, else `other`.
    pub(super) fn selected_slots(&self, j: &str) -> Option<(u8, u8)> {
        self.slot_subst
            .as_ref()
            .filter(|s| s.var == j)
            .map(|s| (s.slot, s.other))
    }

    /// The first scope `id`'s computed value may be taken from: a value that depends on
    /// a substituted slot only from the substitution's own scopes.
    pub(super) fn first_reusable_scope(&self, id: ExprId) -> usize {
        match &self.slot_subst {
            Some(s) if s.dependent.contains(&id) => s.scope,
            _ => 0,
        }
    }
}
