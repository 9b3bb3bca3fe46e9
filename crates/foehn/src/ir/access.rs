//! How stencils access fields: at their own point only, or elsewhere too.

use super::{ExprId, FieldId, Node, Program};
use std::collections::{BTreeMap, BTreeSet};

impl Program {
    /// How the expression at `root` reads each field: `true` when only at the point it
    /// is evaluated at (reached through [`Node::point_children`]'s first list only),
    /// `false` when also elsewhere.
    pub fn read_pattern(&self, root: ExprId) -> BTreeMap<FieldId, bool> {
        self.reads_where(root, |node| node.point_children())
    }

    /// How the expression at `root` reads each field horizontally: `true` when every
    /// read is in the column of the point it is evaluated at (at any level: vertical
    /// shifts, data-dependent levels and scans stay in the column), `false` when some
    /// read goes through a neighbour.
    pub fn column_read_pattern(&self, root: ExprId) -> BTreeMap<FieldId, bool> {
        self.reads_where(root, |node| match node {
            Node::Shift(..) | Node::Neighbor(..) => (Vec::new(), node.children()),
            _ => (node.children(), Vec::new()),
        })
    }

    /// Per field read under `root`: `true` when every path to it goes through the first
    /// list of `split` only (children evaluated "here"), `false` when some path passes
    /// through a child of the second list ("elsewhere").
    fn reads_where(
        &self,
        root: ExprId,
        split: impl Fn(&Node) -> (Vec<ExprId>, Vec<ExprId>),
    ) -> BTreeMap<FieldId, bool> {
        let mut out: BTreeMap<FieldId, bool> = BTreeMap::new();
        let mut seen: BTreeSet<(ExprId, bool)> = BTreeSet::new();
        let mut stack = vec![(root, false)];
        while let Some((id, moved)) = stack.pop() {
            if !seen.insert((id, moved)) {
                continue;
            }
            let node = self.node(id);
            if let Node::Field(f) = node {
                *out.entry(*f).or_insert(true) &= !moved;
                continue;
            }
            let (here, elsewhere) = split(node);
            stack.extend(here.into_iter().map(|c| (c, moved)));
            stack.extend(elsewhere.into_iter().map(|c| (c, true)));
        }
        out
    }

    /// Whether the expression at `root` contains a vertical scan.
    pub fn has_scan(&self, root: ExprId) -> bool {
        self.reachable(root)
            .iter()
            .any(|&id| matches!(self.node(id), Node::Scan { .. }))
    }

    /// The staged values (see `opt::inline`) the expression at `root` reads through a
    /// neighbour shift, with the connectivity of each read; its kernel stages them in
    /// shared memory.
    pub fn staged_reads(&self, root: ExprId) -> Vec<(foehn_grid::Connectivity, ExprId)> {
        self.reachable(root)
            .into_iter()
            .filter_map(|id| match self.node(id) {
                Node::Shift(c, a)
                    if matches!(self.node(*a), Node::Unary(super::UnaryOp::Stage, _)) =>
                {
                    Some((*c, *a))
                }
                _ => None,
            })
            .collect()
    }

    /// The connectivity through which a kernel computing `st` alone can stage the values
    /// the inliner marked (`Unary(Stage)`), in shared memory: `Some` when `st` has
    /// levels, no scans, and reads every staged value as `f64` through one
    /// connectivity from its own location; `None` otherwise (the values are then
    /// evaluated where they are read).
    pub fn staging_connectivity(&self, st: &super::Stencil) -> Option<foehn_grid::Connectivity> {
        if st.vertical.is_none() || self.has_scan(st.root) {
            return None;
        }
        let reads = self.staged_reads(st.root);
        let conns: BTreeSet<foehn_grid::Connectivity> = reads.iter().map(|r| r.0).collect();
        let conn = match conns.len() {
            1 => *conns.first()?,
            _ => return None,
        };
        let f64s = reads.iter().all(
            |(_, a)| matches!(self.ty(*a), super::Type::Field(t) if t.dtype == super::DType::F64),
        );
        (f64s && st.location == Some(conn.from())).then_some(conn)
    }

    /// Whether a kernel computing `st` alone can stage values in shared memory (see
    /// [`Program::staging_connectivity`]).
    pub fn stageable(&self, st: &super::Stencil) -> bool {
        self.staging_connectivity(st).is_some()
    }

    /// Every read under `roots` (all evaluated at one level): the field, the read's level
    /// relative to that level (`KShift`s summed), `None` at a data-dependent level (under
    /// a `KOffset`) or inside a scan's body (a scan's value at a level depends on its body
    /// at other levels), and whether it is in the own column (no horizontal shift on the
    /// way). Scans in `opaque` are not entered: their values are read from columns
    /// computed elsewhere.
    pub fn level_reads(&self, roots: &[ExprId], opaque: &BTreeSet<ExprId>) -> BTreeSet<LevelRead> {
        let mut out = BTreeSet::new();
        let mut seen: BTreeSet<(ExprId, Option<i32>, bool)> = BTreeSet::new();
        let mut stack: Vec<(ExprId, Option<i32>, bool)> =
            roots.iter().map(|&r| (r, Some(0), true)).collect();
        while let Some((id, off, own)) = stack.pop() {
            if !seen.insert((id, off, own)) {
                continue;
            }
            match self.node(id) {
                Node::Field(f) => {
                    out.insert(LevelRead {
                        field: *f,
                        offset: off,
                        own_column: own,
                    });
                }
                Node::KShift(n, a) => stack.push((*a, off.map(|o| o + n), own)),
                Node::KOffset(a, o) => stack.extend([(*a, None, own), (*o, off, own)]),
                Node::Shift(_, a) | Node::Neighbor(_, _, a) => stack.push((*a, off, false)),
                Node::Scan { .. } if opaque.contains(&id) => {}
                node @ Node::Scan { .. } => {
                    stack.extend(node.children().into_iter().map(|c| (c, None, own)))
                }
                node => stack.extend(node.children().into_iter().map(|c| (c, off, own))),
            }
        }
        out
    }

    /// Per field read under `roots`, the constant level offsets of its reads (in any
    /// column), or `None` where some read is at no constant level ([`Self::level_reads`]).
    pub fn level_offsets(
        &self,
        roots: &[ExprId],
        opaque: &BTreeSet<ExprId>,
    ) -> BTreeMap<FieldId, Option<BTreeSet<i32>>> {
        let mut out: BTreeMap<FieldId, Option<BTreeSet<i32>>> = BTreeMap::new();
        for r in self.level_reads(roots, opaque) {
            match (
                out.entry(r.field).or_insert(Some(BTreeSet::new())),
                r.offset,
            ) {
                (Some(set), Some(o)) => {
                    set.insert(o);
                }
                (slot, _) => *slot = None,
            }
        }
        out
    }

    /// Whether `st`'s outputs can be computed inside the loop of its scan `sid`, level
    /// by level as the scan goes: the stencil has levels, does not read what it writes
    /// (the scan's order would then be visible) and reads that scan's result only at its
    /// own level (no constant or data-dependent vertical shift on the way to it).
    pub fn outputs_join_scan(&self, st: &super::Stencil, sid: ExprId) -> bool {
        /// Whether `id` (under a vertical shift if `shifted`) reads `sid` only unshifted;
        /// `seen`: the (node, shifted) pairs already found to.
        fn own_level_only(
            p: &Program,
            id: ExprId,
            sid: ExprId,
            shifted: bool,
            seen: &mut BTreeSet<(ExprId, bool)>,
        ) -> bool {
            if id == sid {
                return !shifted;
            }
            if seen.contains(&(id, shifted)) {
                return true;
            }
            let mut walk = |c: ExprId, s: bool| own_level_only(p, c, sid, s, seen);
            let ok = match p.node(id) {
                Node::KShift(n, a) => walk(*a, shifted || *n != 0),
                Node::KOffset(a, o) => walk(*a, true) && walk(*o, shifted),
                node => node.children().into_iter().all(|c| walk(c, shifted)),
            };
            if ok {
                seen.insert((id, shifted));
            }
            ok
        }
        st.vertical.is_some()
            && !self
                .fields_read(st.root)
                .iter()
                .any(|f| st.outputs.contains(f))
            && own_level_only(self, st.root, sid, false, &mut BTreeSet::new())
    }

    /// The scans under `root`, in node order (a scan after the scans it reads).
    pub fn scans(&self, root: ExprId) -> Vec<ExprId> {
        self.reachable(root)
            .into_iter()
            .filter(|&id| matches!(self.node(id), Node::Scan { .. }))
            .collect()
    }

    /// Whether the expression at `root` has data-dependent vertical offsets.
    pub fn has_data_dependent_offsets(&self, root: ExprId) -> bool {
        self.reachable(root)
            .iter()
            .any(|&id| matches!(self.node(id), Node::KOffset(..)))
    }
}

/// One read of [`Program::level_reads`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LevelRead {
    /// The field read.
    pub field: FieldId,
    /// Its level relative to the evaluated one; `None`: not a constant offset.
    pub offset: Option<i32>,
    /// Whether it is in the evaluated point's column.
    pub own_column: bool,
}

impl Node {
    /// The children evaluated at this node's own point `(h, k)`, and those evaluated
    /// elsewhere: through a neighbour, a vertical shift (any, including 0), at a
    /// data-dependent level (the shifted operand; the offset is read here) or over a
    /// scan's levels.
    pub fn point_children(&self) -> (Vec<ExprId>, Vec<ExprId>) {
        match self {
            Node::Unary(..)
            | Node::Binary(..)
            | Node::Where(..)
            | Node::ConcatWhere(..)
            | Node::Cast(..)
            | Node::Pick(..)
            | Node::Reduce(..)
            | Node::VCast(..)
            | Node::Broadcast(..)
            | Node::Tuple(_)
            | Node::Get(..)
            | Node::Field(_)
            | Node::Scalar(_)
            | Node::Const(_)
            | Node::HIndex(_)
            | Node::KIndex(_)
            | Node::Carry { .. } => (self.children(), vec![]),
            Node::KOffset(shifted, offset) => (vec![*offset], vec![*shifted]),
            Node::Shift(..) | Node::Neighbor(..) | Node::KShift(..) | Node::Scan { .. } => {
                (vec![], self.children())
            }
        }
    }
}
