//! Remapping a call's nodes and stencils into the linked program, and reordering its
//! declarations.

use super::{LinkCall, LinkError, Linker};
use crate::ir::{ExprId, FieldDecl, FieldId, Node, Program, Role, ScalarDecl, ScalarId, Stencil};
use std::collections::BTreeSet;

impl Linker<'_> {
    pub(super) fn append(&mut self, calls: &[LinkCall<'_>], ci: usize) -> Result<(), LinkError> {
        self.check_binding(calls, ci)?;
        let p = calls[ci].program;
        let read = p.fields_read_by_stencils();
        let written: BTreeSet<FieldId> = p
            .stencils
            .iter()
            .flat_map(|s| s.outputs.iter().copied())
            .collect();
        let mut fields = Vec::with_capacity(p.fields.len());
        for (i, d) in p.fields.iter().enumerate() {
            let own = FieldId(i as u32);
            let id = if d.role == Role::Temp {
                let name = self.fresh(&d.name);
                self.push_field(name, d.ty, Role::Temp)
            } else {
                let (reads, writes) = (read.contains(&own), written.contains(&own));
                self.argument(calls, ci, d, reads, writes)?
            };
            fields.push(id);
        }
        let mut scalars = Vec::with_capacity(p.scalars.len());
        for s in &p.scalars {
            scalars.push(self.scalar(calls, ci, s)?);
        }
        let scan_base = self.next_scan;
        let mut nodes: Vec<ExprId> = Vec::with_capacity(p.nodes.len());
        for (i, node) in p.nodes.iter().enumerate() {
            let mut mapped = node.map_children(&mut |c| nodes[c.index()]);
            match &mut mapped {
                Node::Field(f) => *f = fields[f.0 as usize],
                Node::Scalar(s) => *s = scalars[s.0 as usize],
                Node::Scan { id, .. } => {
                    *id += scan_base;
                    self.next_scan = self.next_scan.max(*id + 1);
                }
                Node::Carry { scan, .. } => *scan += scan_base,
                _ => {}
            }
            let id = match self.intern.get(&mapped) {
                Some(&id) => id,
                None => {
                    let id = self
                        .out
                        .push(mapped.clone(), p.types[i].clone(), p.spans[i].clone());
                    self.intern.insert(mapped, id);
                    id
                }
            };
            nodes.push(id);
        }
        for s in &p.stencils {
            let name = std::iter::once(s.name.clone())
                .chain((2..).map(|n| format!("{}_{n}", s.name)))
                .find(|n| !self.stencil_names.contains(n))
                .expect("a free name");
            self.stencil_names.insert(name.clone());
            self.out.stencils.push(Stencil {
                name,
                outputs: s.outputs.iter().map(|f| fields[f.0 as usize]).collect(),
                root: nodes[s.root.index()],
                ..s.clone()
            });
        }
        Ok(())
    }
}

/// `p` with the fields and scalars named in `order` declared first, in that order.
pub(super) fn reorder(mut p: Program, order: &[String]) -> Program {
    /// The new index of each old index when the names listed in `order` go first.
    fn permutation(names: Vec<&str>, order: &[String]) -> Vec<usize> {
        let rank = |n: &str| order.iter().position(|o| o == n).unwrap_or(order.len());
        let mut old: Vec<usize> = (0..names.len()).collect();
        old.sort_by_key(|&i| (rank(names[i]), i));
        let mut new = vec![0; old.len()];
        for (pos, &i) in old.iter().enumerate() {
            new[i] = pos;
        }
        new
    }
    let fields = permutation(p.fields.iter().map(|d| d.name.as_str()).collect(), order);
    let scalars = permutation(p.scalars.iter().map(|s| s.name.as_str()).collect(), order);
    let mut decls: Vec<Option<FieldDecl>> = vec![None; p.fields.len()];
    for (i, d) in p.fields.drain(..).enumerate() {
        decls[fields[i]] = Some(d);
    }
    p.fields = decls
        .into_iter()
        .map(|d| d.expect("a permutation"))
        .collect();
    let mut decls: Vec<Option<ScalarDecl>> = vec![None; p.scalars.len()];
    for (i, d) in p.scalars.drain(..).enumerate() {
        decls[scalars[i]] = Some(d);
    }
    p.scalars = decls
        .into_iter()
        .map(|d| d.expect("a permutation"))
        .collect();
    for n in &mut p.nodes {
        match n {
            Node::Field(f) => *f = FieldId(fields[f.0 as usize] as u32),
            Node::Scalar(s) => *s = ScalarId(scalars[s.0 as usize] as u32),
            _ => {}
        }
    }
    for st in &mut p.stencils {
        for f in &mut st.outputs {
            *f = FieldId(fields[f.0 as usize] as u32);
        }
    }
    p
}
