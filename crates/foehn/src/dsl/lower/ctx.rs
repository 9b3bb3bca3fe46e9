//! The lowering context shared by every lowering step: the [`Lowerer`] (node arena,
//! interning, scan nesting, error construction) and the [`Lowered`] value it returns.

use crate::dsl::decl::{ProgramBuilder, StencilDecl};
use crate::dsl::expr::{ENode, Expr};
use crate::error::{CheckError, CheckErrorKind as K};
use crate::ir::{self, BoundBase, DType, Dim, Dims, ExprId, FieldType, Node, SrcLoc, Type};
use std::collections::HashMap;

/// A lowered expression: its node, type, and whether it is a weak (untyped) literal.
#[derive(Clone)]
pub(crate) struct Lowered {
    pub(crate) id: ExprId,
    pub(crate) ty: Type,
    pub(crate) weak: bool,
}

impl Lowered {
    pub(super) fn fty(&self) -> Option<FieldType> {
        self.ty.field().copied()
    }
}

/// The state of lowering one program: its builder, the node arena and the scan nesting.
pub(crate) struct Lowerer<'a> {
    pub(crate) b: &'a ProgramBuilder,
    pub(crate) stencil: Option<String>,
    pub(crate) nodes: Vec<Node>,
    pub(crate) types: Vec<Type>,
    pub(crate) spans: Vec<Option<SrcLoc>>,
    intern: HashMap<Node, ExprId>,
    pub(super) memo: HashMap<(*const ENode, u64), Lowered>,
    pub(super) scans: Vec<(u64, Vec<DType>, u32)>,
    next_scan: u32,
}

impl<'a> Lowerer<'a> {
    pub(crate) fn new(b: &'a ProgramBuilder) -> Self {
        Lowerer {
            b,
            stencil: None,
            nodes: vec![],
            types: vec![],
            spans: vec![],
            intern: HashMap::new(),
            memo: HashMap::new(),
            scans: vec![],
            next_scan: 0,
        }
    }

    pub(crate) fn err(&self, e: &Expr, kind: K, message: String) -> Box<CheckError> {
        Box::new(CheckError {
            program: self.b.name.clone(),
            stencil: self.stencil.clone(),
            kind,
            message,
            expr: Some(e.to_string()),
            span: Some(SrcLoc::from_panic(e.location())),
        })
    }

    pub(crate) fn intern(
        &mut self,
        node: Node,
        ty: Type,
        span: &std::panic::Location<'_>,
    ) -> ExprId {
        if let Some(&id) = self.intern.get(&node) {
            return id;
        }
        let id = ExprId(self.nodes.len() as u32);
        self.intern.insert(node.clone(), id);
        self.nodes.push(node);
        self.types.push(ty);
        self.spans.push(Some(SrcLoc::from_panic(span)));
        id
    }

    pub(crate) fn mk(&mut self, e: &Expr, node: Node, ty: FieldType) -> Lowered {
        let id = self.intern(node, Type::Field(ty), e.location());
        Lowered {
            id,
            ty: Type::Field(ty),
            weak: false,
        }
    }

    pub(crate) fn make(&mut self, e: &Expr, node: Node, ty: Type) -> Lowered {
        let id = self.intern(node, ty.clone(), e.location());
        Lowered {
            id,
            ty,
            weak: false,
        }
    }

    /// Enters a scan body; returns the scan's number.
    pub(crate) fn push_scan(&mut self, tag: u64, dtypes: Vec<DType>) -> u32 {
        let id = self.next_scan;
        self.next_scan += 1;
        self.scans.push((tag, dtypes, id));
        id
    }

    /// Enters a context where no carry may be read (a scan's initial values).
    pub(crate) fn push_barrier(&mut self) {
        self.scans.push((u64::MAX, vec![], u32::MAX));
    }

    pub(crate) fn pop_scan(&mut self) {
        self.scans.pop();
    }

    /// The type and scan number of a carry, if its scan is the innermost one.
    pub(crate) fn carry_type(&self, tag: u64, index: usize) -> Option<(DType, u32)> {
        self.scans
            .last()
            .filter(|s| s.0 == tag)
            .and_then(|s| Some((*s.1.get(index)?, s.2)))
    }
}

pub(crate) fn dims_of(list: &[Dim]) -> Result<Dims, String> {
    Dims::from_list(list)
}

pub(crate) fn is_default_vertical(d: &StencilDecl) -> bool {
    d.domain.vertical.0.base == BoundBase::Zero
        && d.domain.vertical.0.offset == 0
        && d.domain.vertical.1 == ir::Bound::size()
}
