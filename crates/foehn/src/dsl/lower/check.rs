//! Type and dimension rules: single values versus tuples, and broadcasting the
//! dimensions of two operands.

use super::ctx::{Lowered, Lowerer};
use crate::dsl::expr::Expr;
use crate::error::{CheckError, CheckErrorKind as K};
use crate::ir::{Dims, DimsConflict, FieldType, VKind};

type R<T> = Result<T, Box<CheckError>>;

impl Lowerer<'_> {
    pub(crate) fn field_of(&self, e: &Expr, l: &Lowered) -> R<FieldType> {
        l.fty().ok_or_else(|| {
            self.err(
                e,
                K::Tuple,
                format!("a tuple ({}) is used where a single value is needed", l.ty),
            )
        })
    }

    pub(crate) fn field_type(&self, e: &Expr, l: &Lowered) -> R<FieldType> {
        self.field_of(e, l)
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
}
