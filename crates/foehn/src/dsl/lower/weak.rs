//! Weak literals: plain Rust numbers in the DSL (`2.0 * x`) take the type of the other
//! operand (f32 or f64, i32 or a float), and operators on literals alone are folded so
//! they stay adaptable (`0.5 * 0.5 * x` with `x: f32` is f32).

use super::ctx::{Lowered, Lowerer};
use crate::dsl::expr::Expr;
use crate::error::{CheckError, CheckErrorKind as K};
use crate::ir::{BinaryOp, DType, FieldType, Node, Scalar, Type, UnaryOp};

type R<T> = Result<T, Box<CheckError>>;

impl Lowerer<'_> {
    /// Converts a weak literal to `to`; `None` when the literal cannot take that type.
    pub(crate) fn adapt(&mut self, e: &Expr, l: &Lowered, to: DType) -> Option<Lowered> {
        let Node::Const(c) = self.nodes[l.id.index()].clone() else {
            return None;
        };
        let ok = matches!(
            (c, to),
            (Scalar::F64(_), DType::F64 | DType::F32)
                | (Scalar::I32(_), DType::I32 | DType::F64 | DType::F32)
                | (Scalar::Bool(_), DType::Bool)
        );
        if !ok {
            return None;
        }
        let v = c.cast(to);
        let id = self.intern(
            Node::Const(v),
            Type::Field(FieldType::scalar(to)),
            e.location(),
        );
        Some(Lowered {
            id,
            ty: Type::Field(FieldType::scalar(to)),
            weak: false,
        })
    }

    /// A weak literal fixed to its default type (f64, i32, bool).
    pub(crate) fn concrete(&mut self, e: &Expr, l: Lowered) -> Lowered {
        if !l.weak {
            return l;
        }
        match self.nodes[l.id.index()] {
            Node::Const(c) => self.adapt(e, &l, c.dtype()).unwrap_or(l),
            _ => l,
        }
    }

    /// Unifies the element types of two operands of `what`, adapting weak literals.
    pub(crate) fn unify(
        &mut self,
        e: &Expr,
        what: &str,
        a: Lowered,
        b: Lowered,
    ) -> R<(DType, Lowered, Lowered)> {
        let (ta, tb) = (self.field_of(e, &a)?.dtype, self.field_of(e, &b)?.dtype);
        if ta == tb {
            return Ok((ta, a, b));
        }
        if a.weak {
            if let Some(a2) = self.adapt(e, &a, tb) {
                return Ok((tb, a2, b));
            }
        }
        if b.weak {
            if let Some(b2) = self.adapt(e, &b, ta) {
                return Ok((ta, a, b2));
            }
        }
        Err(self.err(
            e,
            K::TypeMismatch,
            format!("type mismatch: operands of {what} are {ta} and {tb}; insert an explicit cast (e.g. `.cast(F64)`)"),
        ))
    }

    pub(crate) fn weak_const(&self, l: &Lowered) -> Option<Scalar> {
        match (l.weak, &self.nodes[l.id.index()]) {
            (true, Node::Const(c)) => Some(*c),
            _ => None,
        }
    }

    pub(crate) fn make_weak(&mut self, e: &Expr, v: Scalar) -> Lowered {
        let mut l = self.mk(e, Node::Const(v), FieldType::scalar(v.dtype()));
        l.weak = true;
        l
    }

    /// Folds an operator applied to a weak literal into a weak literal, so that
    /// `2.0 * 0.5 * x` adapts to `x`'s type like `1.0 * x` does.
    pub(crate) fn fold_unary(&mut self, e: &Expr, op: UnaryOp, l: &Lowered) -> Option<Lowered> {
        let mut c = self.weak_const(l)?;
        if op.float_only() && c.dtype() == DType::I32 {
            c = c.cast(DType::F64);
        }
        let ok = match op {
            UnaryOp::Not => c.dtype() == DType::Bool,
            UnaryOp::Neg | UnaryOp::Abs => c.dtype().is_numeric(),
            _ => c.dtype().is_float(),
        };
        if !ok || op.is_predicate() {
            return None;
        }
        Some(self.make_weak(e, crate::ir::semantics::unary(op, c)))
    }

    pub(crate) fn fold_binary(
        &mut self,
        e: &Expr,
        op: BinaryOp,
        a: &Lowered,
        b: &Lowered,
    ) -> Option<Lowered> {
        let (mut x, mut y) = (self.weak_const(a)?, self.weak_const(b)?);
        if x.dtype() != y.dtype() {
            if x.dtype() == DType::Bool || y.dtype() == DType::Bool {
                return None;
            }
            (x, y) = (x.cast(DType::F64), y.cast(DType::F64));
        }
        let t = x.dtype();
        let ok = if op.is_logical() {
            t == DType::Bool
        } else if op == BinaryOp::Pow {
            t.is_float()
        } else {
            t.is_numeric() || matches!(op, BinaryOp::Eq | BinaryOp::Ne)
        };
        if !ok {
            return None;
        }
        let v = crate::ir::semantics::binary(op, x, y).ok()?;
        Some(self.make_weak(e, v))
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
