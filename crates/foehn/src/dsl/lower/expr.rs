//! DSL expressions → IR nodes: leaves, arithmetic, `where` and `concat_where`, casts;
//! the structural operations are handed to `structural`.

use super::ctx::{Lowered, Lowerer};
use super::structural::lower_structural;
use crate::dsl::expr::{EKind, Expr};
use crate::error::{CheckError, CheckErrorKind as K};
use crate::ir::{DType, Dims, ExprId, FieldId, FieldType, IndexDim, Node, ScalarId, Type};

type R<T> = Result<T, Box<CheckError>>;

impl Lowerer<'_> {
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
            _ => return lower_structural(self, e),
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
}
