//! Expression handles and operator overloading.

use crate::ir::{BinaryOp, DType, Dim, ReduceOp, Region, Scalar, ScanDir, UnaryOp, VKind};
use foehn_grid::{Connectivity, Location};
use std::panic::Location as Caller;
use std::rc::Rc;

/// A DSL expression: a cheap, clonable handle to an expression tree.
///
/// Expressions are built with operators (`+ - * / %`, unary `-`, `& | ^ !` on
/// masks), comparison methods ([`Expr::lt`], [`Expr::eq`], ...), math methods and
/// free functions, shifts and reductions. Nothing is checked while building: the
/// whole program is type and dimension checked when it is specialised
/// ([`crate::dsl::ProgramDef::specialize`]), and errors point at the Rust line that
/// built the offending expression.
#[derive(Clone)]
pub struct Expr(pub(crate) Rc<ENode>);

pub(crate) struct ENode {
    pub(crate) kind: EKind,
    pub(crate) loc: &'static Caller<'static>,
}

pub(crate) enum EKind {
    Field {
        id: u32,
        name: String,
    },
    Scalar {
        id: u32,
        name: String,
    },
    /// A constant; `weak` literals (plain Rust numbers) adopt the other operand's type.
    Const(Scalar, bool),
    HIndex(Location),
    KIndex(VKind),
    Unary(UnaryOp, Expr),
    Binary(BinaryOp, Expr, Expr),
    Where(Expr, Expr, Expr),
    ConcatWhere(Region, Expr, Expr),
    Cast(DType, Expr),
    Shift(Connectivity, Expr),
    Neighbor(Connectivity, usize, Expr),
    Pick(usize, Expr),
    Reduce(ReduceOp, Connectivity, Expr),
    KShift(i32, Expr),
    KOffset(Expr, Expr),
    VCast(VKind, Expr),
    Broadcast(Vec<Dim>, Expr),
    Tuple(Vec<Expr>),
    Get(usize, Expr),
    Scan {
        axis: Dim,
        dir: ScanDir,
        init: Vec<Expr>,
        body: Vec<Expr>,
        tag: u64,
    },
    Carry {
        tag: u64,
        index: usize,
    },
}

impl Expr {
    pub(crate) fn make(kind: EKind, loc: &'static Caller<'static>) -> Expr {
        Expr(Rc::new(ENode { kind, loc }))
    }

    #[track_caller]
    pub(crate) fn new(kind: EKind) -> Expr {
        Expr::make(kind, Caller::caller())
    }

    pub(crate) fn kind(&self) -> &EKind {
        &self.0.kind
    }

    /// The Rust source position where this expression was built.
    pub fn location(&self) -> &'static Caller<'static> {
        self.0.loc
    }

    #[track_caller]
    pub(crate) fn unary(&self, op: UnaryOp) -> Expr {
        Expr::new(EKind::Unary(op, self.clone()))
    }

    #[track_caller]
    pub(crate) fn binary(&self, op: BinaryOp, rhs: impl Into<Expr>) -> Expr {
        Expr::new(EKind::Binary(op, self.clone(), rhs.into()))
    }

    /// A constant of exactly this element type (no implicit adaptation).
    #[track_caller]
    pub fn constant(value: impl Into<Scalar>) -> Expr {
        Expr::new(EKind::Const(value.into(), false))
    }
}

impl std::fmt::Debug for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }
}

impl From<&Expr> for Expr {
    fn from(e: &Expr) -> Expr {
        e.clone()
    }
}

macro_rules! weak_literal {
    ($t:ty, $conv:expr) => {
        impl From<$t> for Expr {
            #[track_caller]
            fn from(v: $t) -> Expr {
                Expr::new(EKind::Const($conv(v), true))
            }
        }
    };
}

weak_literal!(f64, Scalar::F64);
weak_literal!(f32, |v: f32| Scalar::F64(v as f64));
weak_literal!(i32, Scalar::I32);
weak_literal!(bool, Scalar::Bool);

macro_rules! binop {
    ($tr:ident, $method:ident, $op:expr) => {
        impl<R: Into<Expr>> std::ops::$tr<R> for Expr {
            type Output = Expr;
            #[track_caller]
            fn $method(self, rhs: R) -> Expr {
                Expr::new(EKind::Binary($op, self, rhs.into()))
            }
        }
        impl<R: Into<Expr>> std::ops::$tr<R> for &Expr {
            type Output = Expr;
            #[track_caller]
            fn $method(self, rhs: R) -> Expr {
                Expr::new(EKind::Binary($op, self.clone(), rhs.into()))
            }
        }
        impl std::ops::$tr<Expr> for f64 {
            type Output = Expr;
            #[track_caller]
            fn $method(self, rhs: Expr) -> Expr {
                Expr::new(EKind::Binary($op, self.into(), rhs))
            }
        }
        impl std::ops::$tr<&Expr> for f64 {
            type Output = Expr;
            #[track_caller]
            fn $method(self, rhs: &Expr) -> Expr {
                Expr::new(EKind::Binary($op, self.into(), rhs.clone()))
            }
        }
        impl std::ops::$tr<Expr> for i32 {
            type Output = Expr;
            #[track_caller]
            fn $method(self, rhs: Expr) -> Expr {
                Expr::new(EKind::Binary($op, self.into(), rhs))
            }
        }
        impl std::ops::$tr<&Expr> for i32 {
            type Output = Expr;
            #[track_caller]
            fn $method(self, rhs: &Expr) -> Expr {
                Expr::new(EKind::Binary($op, self.into(), rhs.clone()))
            }
        }
    };
}

binop!(Add, add, BinaryOp::Add);
binop!(Sub, sub, BinaryOp::Sub);
binop!(Mul, mul, BinaryOp::Mul);
binop!(Div, div, BinaryOp::Div);
binop!(Rem, rem, BinaryOp::Rem);
binop!(BitAnd, bitand, BinaryOp::And);
binop!(BitOr, bitor, BinaryOp::Or);
binop!(BitXor, bitxor, BinaryOp::Xor);

impl std::ops::Neg for Expr {
    type Output = Expr;
    #[track_caller]
    fn neg(self) -> Expr {
        -&self
    }
}

impl std::ops::Neg for &Expr {
    type Output = Expr;
    #[track_caller]
    fn neg(self) -> Expr {
        // Fold negated literals so `-1.0` stays a (weak) literal.
        if let EKind::Const(c, weak) = self.kind() {
            let v = match *c {
                Scalar::F64(x) => Some(Scalar::F64(-x)),
                Scalar::F32(x) => Some(Scalar::F32(-x)),
                Scalar::I32(x) => x.checked_neg().map(Scalar::I32),
                Scalar::Bool(_) => None,
            };
            if let Some(v) = v {
                return Expr::new(EKind::Const(v, *weak));
            }
        }
        self.unary(UnaryOp::Neg)
    }
}

impl std::ops::Not for Expr {
    type Output = Expr;
    #[track_caller]
    fn not(self) -> Expr {
        self.unary(UnaryOp::Not)
    }
}

impl std::ops::Not for &Expr {
    type Output = Expr;
    #[track_caller]
    fn not(self) -> Expr {
        self.unary(UnaryOp::Not)
    }
}
