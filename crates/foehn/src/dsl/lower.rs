//! DSL → IR: type and dimension checking, hash-consing, canonical node order.

use super::expr::{EKind, ENode, Expr};
use super::program::{ProgramBuilder, StencilDecl};
use crate::error::{CheckError, CheckErrorKind as K};
use crate::ir::{
    self, BoundBase, DType, Dim, Dims, DimsConflict, ExprId, FieldId, FieldType, IndexDim, Node,
    ScalarId, SrcLoc, Type, VKind,
};
use std::collections::HashMap;

type R<T> = Result<T, Box<CheckError>>;

/// A lowered expression: its node, type, and whether it is a weak (untyped) literal.
#[derive(Clone)]
pub(crate) struct Lowered {
    pub(crate) id: ExprId,
    pub(crate) ty: Type,
    pub(crate) weak: bool,
}

impl Lowered {
    fn fty(&self) -> Option<FieldType> {
        self.ty.field().copied()
    }
}

pub(crate) struct Lowerer<'a> {
    pub(crate) b: &'a ProgramBuilder,
    pub(crate) stencil: Option<String>,
    pub(crate) nodes: Vec<Node>,
    pub(crate) types: Vec<Type>,
    pub(crate) spans: Vec<Option<SrcLoc>>,
    intern: HashMap<Node, ExprId>,
    memo: HashMap<(*const ENode, u64), Lowered>,
    scans: Vec<(u64, Vec<DType>, u32)>,
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

    pub(crate) fn field_of(&self, e: &Expr, l: &Lowered) -> R<FieldType> {
        l.fty().ok_or_else(|| {
            self.err(
                e,
                K::Tuple,
                format!("a tuple ({}) is used where a single value is needed", l.ty),
            )
        })
    }

    /// The union of two operands' dimensions (broadcasting missing ones).
    pub(crate) fn union(&self, e: &Expr, what: &str, a: Dims, b: Dims) -> R<Dims> {
        a.union(b).map_err(|conflict| match conflict {
            DimsConflict::Horizontal(x, y) => self.err(
                e,
                K::DimensionMismatch,
                format!(
                    "dimension mismatch: operands of {what} have dims {a} and {b} ({x} vs {y})"
                ),
            ),
            DimsConflict::Local(..) => self.err(
                e,
                K::LocalDim,
                format!("operands of {what} have two different local dimensions ({a} and {b}); reduce one first"),
            ),
            DimsConflict::Vertical(x, _) => {
                let (half, full) = if x == VKind::Half { (a, b) } else { (b, a) };
                self.err(
                    e,
                    K::VerticalKind,
                    format!(
                        "half-level value {half} used where full levels {full} are expected (operands of {what}); \
                         convert explicitly with .as_full() / .as_half() (with .k_shift for the other neighbour)"
                    ),
                )
            }
        })
    }

    pub(crate) fn lower(&mut self, e: &Expr) -> R<Lowered> {
        let key = (
            std::rc::Rc::as_ptr(&e.0),
            self.scans.last().map_or(0, |s| s.0),
        );
        if let Some(l) = self.memo.get(&key) {
            return Ok(l.clone());
        }
        let l = self.lower_uncached(e)?;
        self.memo.insert(key, l.clone());
        Ok(l)
    }

    pub(crate) fn mk(&mut self, e: &Expr, node: Node, ty: FieldType) -> Lowered {
        let id = self.intern(node, Type::Field(ty), e.location());
        Lowered {
            id,
            ty: Type::Field(ty),
            weak: false,
        }
    }

    fn lower_uncached(&mut self, e: &Expr) -> R<Lowered> {
        let loc = e.location();
        Ok(match e.kind() {
            EKind::Field { id, name } => {
                let Some(d) = self.b.fields.get(*id as usize).filter(|d| &d.name == name) else {
                    return Err(self.err(
                        e,
                        K::Declaration,
                        format!("field `{name}` does not belong to this program"),
                    ));
                };
                let ty = FieldType::new(d.dims, d.dtype);
                self.mk(e, Node::Field(FieldId(*id)), ty)
            }
            EKind::Scalar { id, name } => {
                let Some(&(_, dtype)) = self.b.scalars.get(*id as usize).filter(|s| &s.0 == name)
                else {
                    return Err(self.err(
                        e,
                        K::Declaration,
                        format!("scalar `{name}` does not belong to this program"),
                    ));
                };
                self.mk(e, Node::Scalar(ScalarId(*id)), FieldType::scalar(dtype))
            }
            EKind::Const(c, weak) => {
                let mut l = self.mk(e, Node::Const(*c), FieldType::scalar(c.dtype()));
                l.weak = *weak;
                l
            }
            EKind::HIndex(h) => self.mk(
                e,
                Node::HIndex(*h),
                FieldType::new(
                    Dims {
                        horizontal: Some(*h),
                        ..Dims::SCALAR
                    },
                    DType::I32,
                ),
            ),
            EKind::KIndex(v) => self.mk(
                e,
                Node::KIndex(*v),
                FieldType::new(
                    Dims {
                        vertical: Some(*v),
                        ..Dims::SCALAR
                    },
                    DType::I32,
                ),
            ),
            EKind::Unary(op, a) => {
                let la = self.lower(a)?;
                if let Some(folded) = self.fold_unary(e, *op, &la) {
                    return Ok(folded);
                }
                let la = self.concrete(e, la);
                let t = self.field_of(e, &la)?;
                let dtype = op.result_dtype(t.dtype).map_err(|need| {
                    self.err(
                        e,
                        K::TypeMismatch,
                        format!(
                            "type mismatch: `{}` needs {need} operand, got {}",
                            op.name(),
                            t.dtype
                        ),
                    )
                })?;
                self.mk(e, Node::Unary(*op, la.id), FieldType::new(t.dims, dtype))
            }
            EKind::Binary(op, a, b) => {
                let (la, lb) = (self.lower(a)?, self.lower(b)?);
                if let Some(folded) = self.fold_binary(e, *op, &la, &lb) {
                    return Ok(folded);
                }
                let what = format!("`{}`", op.symbol());
                let (dtype, la, lb) = self.unify(e, &what, la, lb)?;
                let (ta, tb) = (self.field_of(e, &la)?, self.field_of(e, &lb)?);
                let dims = self.union(e, &what, ta.dims, tb.dims)?;
                let rt = op.result_dtype(dtype).map_err(|need| {
                    self.err(
                        e,
                        K::TypeMismatch,
                        format!("type mismatch: {what} needs {need} operands, got {dtype}"),
                    )
                })?;
                self.mk(e, Node::Binary(*op, la.id, lb.id), FieldType::new(dims, rt))
            }
            EKind::Where(m, a, b) => {
                let lm = self.lower(m)?;
                let lm = if lm.weak {
                    self.adapt(m, &lm, DType::Bool).unwrap_or(lm)
                } else {
                    lm
                };
                let tm = self.field_of(e, &lm)?;
                if tm.dtype != DType::Bool {
                    return Err(self.err(
                        e,
                        K::TypeMismatch,
                        format!(
                            "type mismatch: the mask of `where` must be bool, got {}",
                            tm.dtype
                        ),
                    ));
                }
                let (ty, ia, ib) = self.select(e, "`where`", a, b, tm.dims)?;
                let id = self.intern(Node::Where(lm.id, ia, ib), ty.clone(), loc);
                Lowered {
                    id,
                    ty,
                    weak: false,
                }
            }
            EKind::ConcatWhere(region, a, b) => {
                let mut rd = Dims::SCALAR;
                for iv in &region.intervals {
                    let d = match iv.dim {
                        IndexDim::H(l) => Dims {
                            horizontal: Some(l),
                            ..Dims::SCALAR
                        },
                        IndexDim::V(v) => Dims {
                            vertical: Some(v),
                            ..Dims::SCALAR
                        },
                    };
                    rd = self.union(e, "the `concat_where` region", rd, d)?;
                    for bound in iv.lo.iter().chain(iv.hi.iter()) {
                        if let Some(m) = bound.misuse(iv.dim) {
                            return Err(self.err(e, K::DimensionMismatch, m));
                        }
                    }
                }
                let (ty, ia, ib) = self.select(e, "`concat_where`", a, b, rd)?;
                let id = self.intern(Node::ConcatWhere(region.clone(), ia, ib), ty.clone(), loc);
                Lowered {
                    id,
                    ty,
                    weak: false,
                }
            }
            EKind::Cast(t, a) => {
                let la = self.lower(a)?;
                let la = self.concrete(e, la);
                let ta = self.field_of(e, &la)?;
                self.mk(e, Node::Cast(*t, la.id), FieldType::new(ta.dims, *t))
            }
            _ => return super::structural::lower_structural(self, e),
        })
    }

    /// Types the two branches of a select (`where`, `concat_where`), tuples element-wise;
    /// `extra` are the dims of the mask or region.
    fn select(
        &mut self,
        e: &Expr,
        what: &str,
        a: &Expr,
        b: &Expr,
        extra: Dims,
    ) -> R<(Type, ExprId, ExprId)> {
        let (la, lb) = (self.lower(a)?, self.lower(b)?);
        match (&la.ty, &lb.ty) {
            (Type::Field(_), Type::Field(_)) => {
                let (dtype, la, lb) = self.unify(e, &format!("{what} branches"), la, lb)?;
                let (ta, tb) = (self.field_of(e, &la)?, self.field_of(e, &lb)?);
                let d = self.union(e, &format!("{what} branches"), ta.dims, tb.dims)?;
                let d = self.union(e, what, d, extra)?;
                Ok((Type::Field(FieldType::new(d, dtype)), la.id, lb.id))
            }
            (Type::Tuple(xa), Type::Tuple(xb)) if xa.len() == xb.len() => {
                let mut out = vec![];
                for (x, y) in xa.iter().zip(xb) {
                    match (x, y) {
                        (Type::Field(x), Type::Field(y)) if x.dtype == y.dtype => {
                            let d = self.union(e, &format!("{what} branches"), x.dims, y.dims)?;
                            let d = self.union(e, what, d, extra)?;
                            out.push(Type::Field(FieldType::new(d, x.dtype)));
                        }
                        _ => {
                            return Err(self.err(
                                e,
                                K::TypeMismatch,
                                format!("type mismatch: {what} branches are {} and {}", la.ty, lb.ty),
                            ))
                        }
                    }
                }
                Ok((Type::Tuple(out), la.id, lb.id))
            }
            _ => Err(self.err(
                e,
                K::Tuple,
                format!(
                    "{what} branches are {} and {}: both must be single values or tuples of one length",
                    la.ty, lb.ty
                ),
            )),
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

    pub(crate) fn field_type(&self, e: &Expr, l: &Lowered) -> R<FieldType> {
        self.field_of(e, l)
    }

    pub(crate) fn make(&mut self, e: &Expr, node: Node, ty: Type) -> Lowered {
        let id = self.intern(node, ty.clone(), e.location());
        Lowered {
            id,
            ty,
            weak: false,
        }
    }

    pub(crate) fn make_concrete(&mut self, e: &Expr, l: Lowered) -> Lowered {
        self.concrete(e, l)
    }

    pub(crate) fn adapt_to(&mut self, e: &Expr, l: &Lowered, to: DType) -> Option<Lowered> {
        if l.weak {
            self.adapt(e, l, to)
        } else {
            None
        }
    }
}

/// Lowers and checks a whole program.
pub(crate) fn lower_program(b: &ProgramBuilder) -> R<ir::Program> {
    let mut lw = Lowerer::new(b);
    let mut stencils = vec![];
    for s in &b.stencils {
        lw.stencil = Some(s.name.clone());
        stencils.push(super::stencil::lower_stencil(&mut lw, s)?);
        super::stencil::check_conflicts(&lw, s, stencils.last().unwrap())?;
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
    let p = canonicalize(ir::Program {
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
        let n = out.push(node, p.ty(id).clone(), p.spans[id.index()].clone());
        map[id.index()] = Some(n);
        n
    }
    let mut out = p.without_nodes();
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

pub(crate) fn dims_of(list: &[Dim]) -> Result<Dims, String> {
    Dims::from_list(list)
}

pub(crate) fn is_default_vertical(d: &StencilDecl) -> bool {
    d.domain.vertical.0.base == BoundBase::Zero
        && d.domain.vertical.0.offset == 0
        && d.domain.vertical.1 == ir::Bound::size()
}
