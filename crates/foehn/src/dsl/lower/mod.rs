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
use crate::ir::{self, FieldType};

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
    let p = ir::canonicalize(ir::Program {
        name: b.name.clone(),
        variant: b.variant().clone(),
        fields,
        scalars,
        nodes: lw.nodes,
        types: lw.types,
        spans: lw.spans,
        stencils,
    });
    if cfg!(debug_assertions) {
        if let Err(e) = ir::verify(&p) {
            panic!("the lowering produced invalid IR: {e}\n{p}");
        }
    }
    Ok(p)
}
