//! DSL → IR: the program-level driver. A program is lowered stencil by stencil into one
//! hash-consed node arena, which is then put into canonical order.
//!
//! Below the driver: `stencil` (outputs, domain, conflicts) and `expr`/`structural`
//! (expressions), which build nodes through the shared context `ctx` and apply the type
//! rules of `check` (dimensions) and `weak` (literals).

mod check;
mod ctx;
mod expr;
mod stencil;
mod structural;
mod weak;

use self::ctx::Lowerer;
use self::stencil::{check_conflicts, lower_stencil};
use crate::dsl::decl::ProgramBuilder;
use crate::error::CheckError;
use crate::ir::{self, ExprId, FieldType, Node};

type R<T> = Result<T, Box<CheckError>>;

/// Lowers and checks a whole program.
pub(crate) fn lower_program(b: &ProgramBuilder) -> R<ir::Program> {
    let mut lw = Lowerer::new(b);
    let mut stencils = vec![];
    for s in &b.stencils {
        lw.stencil = Some(s.name.clone());
        stencils.push(lower_stencil(&mut lw, s)?);
        check_conflicts(&lw, s, stencils.last().unwrap())?;
    }
    let fields = b
        .fields
        .iter()
        .map(|f| ir::FieldDecl {
            name: f.name.clone(),
            ty: FieldType::new(f.dims, f.dtype),
            role: f.role,
        })
        .collect();
    let scalars = b
        .scalars
        .iter()
        .map(|(n, d)| ir::ScalarDecl {
            name: n.clone(),
            dtype: *d,
        })
        .collect();
    Ok(canonicalize(ir::Program {
        name: b.name.clone(),
        variant: b.variant().clone(),
        fields,
        scalars,
        nodes: lw.nodes,
        types: lw.types,
        spans: lw.spans,
        stencils,
    }))
}

/// Renumbers the arena: only nodes reachable from the stencils, in post-order of a
/// depth-first walk from each stencil root in turn (children before parents).
fn canonicalize(p: ir::Program) -> ir::Program {
    fn visit(
        p: &ir::Program,
        id: ExprId,
        map: &mut Vec<Option<ExprId>>,
        out: &mut ir::Program,
    ) -> ExprId {
        if let Some(n) = map[id.index()] {
            return n;
        }
        let node = p.node(id).map_children(&mut |c| visit(p, c, map, out));
        let n = ExprId(out.nodes.len() as u32);
        out.nodes.push(node);
        out.types.push(p.types[id.index()].clone());
        out.spans.push(p.spans[id.index()].clone());
        map[id.index()] = Some(n);
        n
    }
    let mut out = ir::Program {
        nodes: vec![],
        types: vec![],
        spans: vec![],
        stencils: vec![],
        ..p.clone()
    };
    let mut map = vec![None; p.nodes.len()];
    for s in &p.stencils {
        let root = visit(&p, s.root, &mut map, &mut out);
        out.stencils.push(ir::Stencil { root, ..s.clone() });
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
