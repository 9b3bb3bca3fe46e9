//! The DSL vocabulary: comparisons, math, shifts, reductions, vertical access,
//! selection, broadcast, casts, tuples and scans.

use super::expr::{EKind, Expr};
use crate::ir::{
    BinaryOp, Bound, DType, Dim, IndexDim, Interval, ReduceOp, Region, Scalar, ScanDir, UnaryOp,
    VKind,
};
use foehn_grid::{Connectivity, Location};
use std::sync::atomic::{AtomicU64, Ordering};

macro_rules! unary_methods {
    ($($(#[$doc:meta])* $name:ident => $op:ident),* $(,)?) => {
        impl Expr {
            $(
                $(#[$doc])*
                #[track_caller]
                pub fn $name(&self) -> Expr {
                    self.unary(UnaryOp::$op)
                }
            )*
        }
        $(
            $(#[$doc])*
            #[track_caller]
            pub fn $name(x: impl Into<Expr>) -> Expr {
                x.into().unary(UnaryOp::$op)
            }
        )*
    };
}

unary_methods! {
    /// Absolute value.
    abs => Abs,
    /// Square root (floats).
    sqrt => Sqrt,
    /// Cube root (floats).
    cbrt => Cbrt,
    /// Exponential (floats).
    exp => Exp,
    /// Natural logarithm (floats).
    log => Log,
    /// Sine (floats).
    sin => Sin,
    /// Cosine (floats).
    cos => Cos,
    /// Tangent (floats).
    tan => Tan,
    /// Arc sine (floats).
    arcsin => Asin,
    /// Arc cosine (floats).
    arccos => Acos,
    /// Arc tangent (floats).
    arctan => Atan,
    /// Hyperbolic sine (floats).
    sinh => Sinh,
    /// Hyperbolic cosine (floats).
    cosh => Cosh,
    /// Hyperbolic tangent (floats).
    tanh => Tanh,
    /// Inverse hyperbolic sine (floats).
    arcsinh => Asinh,
    /// Inverse hyperbolic cosine (floats).
    arccosh => Acosh,
    /// Inverse hyperbolic tangent (floats).
    arctanh => Atanh,
    /// Round down (floats).
    floor => Floor,
    /// Round up (floats).
    ceil => Ceil,
    /// Round towards zero (floats).
    trunc => Trunc,
    /// True where finite (floats).
    isfinite => IsFinite,
    /// True where NaN (floats).
    isnan => IsNan,
    /// True where infinite (floats).
    isinf => IsInf,
}

#[allow(clippy::should_implement_trait)]
impl Expr {
    /// `self < rhs` (a mask).
    #[track_caller]
    pub fn lt(&self, rhs: impl Into<Expr>) -> Expr {
        self.binary(BinaryOp::Lt, rhs)
    }
    /// `self <= rhs`.
    #[track_caller]
    pub fn le(&self, rhs: impl Into<Expr>) -> Expr {
        self.binary(BinaryOp::Le, rhs)
    }
    /// `self > rhs`.
    #[track_caller]
    pub fn gt(&self, rhs: impl Into<Expr>) -> Expr {
        self.binary(BinaryOp::Gt, rhs)
    }
    /// `self >= rhs`.
    #[track_caller]
    pub fn ge(&self, rhs: impl Into<Expr>) -> Expr {
        self.binary(BinaryOp::Ge, rhs)
    }
    /// `self == rhs`.
    #[track_caller]
    pub fn eq(&self, rhs: impl Into<Expr>) -> Expr {
        self.binary(BinaryOp::Eq, rhs)
    }
    /// `self != rhs`.
    #[track_caller]
    pub fn ne(&self, rhs: impl Into<Expr>) -> Expr {
        self.binary(BinaryOp::Ne, rhs)
    }
    /// Element-wise minimum (GT4Py `minimum`).
    #[track_caller]
    pub fn min(&self, rhs: impl Into<Expr>) -> Expr {
        self.binary(BinaryOp::Min, rhs)
    }
    /// Element-wise maximum (GT4Py `maximum`).
    #[track_caller]
    pub fn max(&self, rhs: impl Into<Expr>) -> Expr {
        self.binary(BinaryOp::Max, rhs)
    }
    /// `self` to the power `rhs` (floats).
    #[track_caller]
    pub fn pow(&self, rhs: impl Into<Expr>) -> Expr {
        self.binary(BinaryOp::Pow, rhs)
    }
    /// Negation (same as unary `-`).
    #[track_caller]
    pub fn neg(&self) -> Expr {
        -self
    }

    /// All neighbours through `conn` (GT4Py `x(C2E)`): `self` must live on `conn.to()`;
    /// the result lives on `conn.from()` with local dimension `conn`.
    #[track_caller]
    pub fn shift(&self, conn: Connectivity) -> Expr {
        Expr::new(EKind::Shift(conn, self.clone()))
    }
    /// One neighbour (GT4Py `x(E2C[slot])`): `self` at neighbour `slot` of each point.
    /// Reading through a skip value (−1) is a runtime error.
    #[track_caller]
    pub fn at(&self, conn: Connectivity, slot: usize) -> Expr {
        Expr::new(EKind::Neighbor(conn, slot, self.clone()))
    }
    /// Slot `slot` of a value with a local dimension (GT4Py `x[E2CDim(slot)]`).
    #[track_caller]
    pub fn pick(&self, slot: usize) -> Expr {
        Expr::new(EKind::Pick(slot, self.clone()))
    }
    /// Sum over the local dimension `conn` (GT4Py `neighbor_sum`); skipped neighbours add nothing.
    #[track_caller]
    pub fn sum_over(&self, conn: Connectivity) -> Expr {
        Expr::new(EKind::Reduce(ReduceOp::Sum, conn, self.clone()))
    }
    /// Maximum over the local dimension `conn` (GT4Py `max_over`).
    #[track_caller]
    pub fn max_over(&self, conn: Connectivity) -> Expr {
        Expr::new(EKind::Reduce(ReduceOp::Max, conn, self.clone()))
    }
    /// Minimum over the local dimension `conn` (GT4Py `min_over`).
    #[track_caller]
    pub fn min_over(&self, conn: Connectivity) -> Expr {
        Expr::new(EKind::Reduce(ReduceOp::Min, conn, self.clone()))
    }
    /// Vertical shift: the value at level `k + offset` (GT4Py `x(Koff[offset])`).
    #[track_caller]
    pub fn k_shift(&self, offset: i32) -> Expr {
        Expr::new(EKind::KShift(offset, self.clone()))
    }
    /// Data-dependent vertical shift: the value at level `k + offset` where `offset` is an
    /// `i32` expression (GT4Py `x(as_offset(Koff, offset))`).
    #[track_caller]
    pub fn k_offset(&self, offset: impl Into<Expr>) -> Expr {
        Expr::new(EKind::KOffset(self.clone(), offset.into()))
    }
    /// Reads a half-level value on full levels: full level `k` takes half level `k`
    /// (the interface above). Use `.k_shift(1).as_full()` for the interface below.
    #[track_caller]
    pub fn as_full(&self) -> Expr {
        Expr::new(EKind::VCast(VKind::Full, self.clone()))
    }
    /// Reads a full-level value on half levels: half level `k` takes full level `k`
    /// (the layer below). Use `.k_shift(-1).as_half()` for the layer above.
    #[track_caller]
    pub fn as_half(&self) -> Expr {
        Expr::new(EKind::VCast(VKind::Half, self.clone()))
    }
    /// Converts to another element type (GT4Py `astype`).
    #[track_caller]
    pub fn cast(&self, dtype: DType) -> Expr {
        Expr::new(EKind::Cast(dtype, self.clone()))
    }
    /// Element `i` of a tuple.
    #[track_caller]
    pub fn get(&self, i: usize) -> Expr {
        Expr::new(EKind::Get(i, self.clone()))
    }
    /// The `N` elements of a tuple: `let [a, b] = t.split();`.
    #[track_caller]
    pub fn split<const N: usize>(&self) -> [Expr; N] {
        let loc = std::panic::Location::caller();
        std::array::from_fn(|i| Expr::make(EKind::Get(i, self.clone()), loc))
    }
}

/// `where(mask, a, b)`: `a` where `mask` is true, else `b` (tuples element-wise).
#[track_caller]
pub fn where_(mask: impl Into<Expr>, a: impl Into<Expr>, b: impl Into<Expr>) -> Expr {
    Expr::new(EKind::Where(mask.into(), a.into(), b.into()))
}

/// `concat_where(region, a, b)`: `a` at points inside the index region, `b` elsewhere.
/// Only the chosen branch is evaluated, so `a` may read levels that do not exist outside
/// the region (e.g. `x.k_shift(-1)` under `index(K).ge(1)`).
#[track_caller]
pub fn concat_where(region: Region, a: impl Into<Expr>, b: impl Into<Expr>) -> Expr {
    Expr::new(EKind::ConcatWhere(region, a.into(), b.into()))
}

/// Element-wise minimum.
#[track_caller]
pub fn minimum(a: impl Into<Expr>, b: impl Into<Expr>) -> Expr {
    a.into().binary(BinaryOp::Min, b)
}

/// Element-wise maximum.
#[track_caller]
pub fn maximum(a: impl Into<Expr>, b: impl Into<Expr>) -> Expr {
    a.into().binary(BinaryOp::Max, b)
}

/// `a` to the power `b`.
#[track_caller]
pub fn power(a: impl Into<Expr>, b: impl Into<Expr>) -> Expr {
    a.into().binary(BinaryOp::Pow, b)
}

/// A typed `f64` constant.
#[track_caller]
pub fn f64c(v: f64) -> Expr {
    Expr::constant(Scalar::F64(v))
}

/// A typed `f32` constant.
#[track_caller]
pub fn f32c(v: f32) -> Expr {
    Expr::constant(Scalar::F32(v))
}

/// A typed `i32` constant.
#[track_caller]
pub fn i32c(v: i32) -> Expr {
    Expr::constant(Scalar::I32(v))
}

/// Things that name a list of dimensions: a single dim, tuples of dims, slices.
pub trait IntoDims {
    /// The dimension list.
    fn into_dims(self) -> Vec<Dim>;
}

impl IntoDims for Location {
    fn into_dims(self) -> Vec<Dim> {
        vec![Dim::H(self)]
    }
}
impl IntoDims for VKind {
    fn into_dims(self) -> Vec<Dim> {
        vec![Dim::V(self)]
    }
}
impl IntoDims for Dim {
    fn into_dims(self) -> Vec<Dim> {
        vec![self]
    }
}
impl IntoDims for () {
    fn into_dims(self) -> Vec<Dim> {
        vec![]
    }
}
impl<A: Into<Dim>> IntoDims for (A,) {
    fn into_dims(self) -> Vec<Dim> {
        vec![self.0.into()]
    }
}
impl<A: Into<Dim>, B: Into<Dim>> IntoDims for (A, B) {
    fn into_dims(self) -> Vec<Dim> {
        vec![self.0.into(), self.1.into()]
    }
}
impl<A: Into<Dim>, B: Into<Dim>, C: Into<Dim>> IntoDims for (A, B, C) {
    fn into_dims(self) -> Vec<Dim> {
        vec![self.0.into(), self.1.into(), self.2.into()]
    }
}
impl IntoDims for &[Dim] {
    fn into_dims(self) -> Vec<Dim> {
        self.to_vec()
    }
}
impl IntoDims for Vec<Dim> {
    fn into_dims(self) -> Vec<Dim> {
        self
    }
}

/// Adds dimensions to a value (GT4Py `broadcast`), e.g. `broadcast(0.0, (EDGE, K))`.
#[track_caller]
pub fn broadcast(x: impl Into<Expr>, dims: impl IntoDims) -> Expr {
    Expr::new(EKind::Broadcast(dims.into_dims(), x.into()))
}

/// Builds a tuple (a stencil with several outputs returns one).
#[track_caller]
pub fn tuple(items: impl IntoExprs) -> Expr {
    Expr::new(EKind::Tuple(items.into_exprs()))
}

/// Things that give a list of expressions: one expression or number, tuples, vectors.
pub trait IntoExprs {
    /// The list.
    fn into_exprs(self) -> Vec<Expr>;
}

macro_rules! into_exprs_single {
    ($($t:ty),*) => {$(
        impl IntoExprs for $t {
            #[track_caller]
            fn into_exprs(self) -> Vec<Expr> {
                vec![self.into()]
            }
        }
    )*};
}
into_exprs_single!(Expr, &Expr, f64, i32, bool);

impl<A: Into<Expr>, B: Into<Expr>> IntoExprs for (A, B) {
    #[track_caller]
    fn into_exprs(self) -> Vec<Expr> {
        vec![self.0.into(), self.1.into()]
    }
}
impl<A: Into<Expr>, B: Into<Expr>, C: Into<Expr>> IntoExprs for (A, B, C) {
    #[track_caller]
    fn into_exprs(self) -> Vec<Expr> {
        vec![self.0.into(), self.1.into(), self.2.into()]
    }
}
impl<A: Into<Expr>, B: Into<Expr>, C: Into<Expr>, D: Into<Expr>> IntoExprs for (A, B, C, D) {
    #[track_caller]
    fn into_exprs(self) -> Vec<Expr> {
        vec![self.0.into(), self.1.into(), self.2.into(), self.3.into()]
    }
}
impl IntoExprs for Vec<Expr> {
    fn into_exprs(self) -> Vec<Expr> {
        self
    }
}
impl<const N: usize> IntoExprs for [Expr; N] {
    fn into_exprs(self) -> Vec<Expr> {
        self.into()
    }
}

static SCAN_TAG: AtomicU64 = AtomicU64::new(1);

/// A vertical scan (GT4Py `scan_operator`): the carry starts at `init` and at each level
/// along `axis` becomes `body(previous carry)`; the result is the carry at every level
/// (a tuple when `init` has several values; take it apart with [`Expr::split`]).
/// `body` may read any field at the current level. Scans run over the stencil's
/// vertical range: forward from its first level, backward from its last.
#[track_caller]
pub fn scan<B: IntoExprs>(
    axis: impl Into<Dim>,
    dir: ScanDir,
    init: impl IntoExprs,
    body: impl FnOnce(&[Expr]) -> B,
) -> Expr {
    let loc = std::panic::Location::caller();
    let init = init.into_exprs();
    let tag = SCAN_TAG.fetch_add(1, Ordering::Relaxed);
    let carry: Vec<Expr> = (0..init.len())
        .map(|index| Expr::make(EKind::Carry { tag, index }, loc))
        .collect();
    let body = body(&carry).into_exprs();
    Expr::make(
        EKind::Scan {
            axis: axis.into(),
            dir,
            init,
            body,
            tag,
        },
        loc,
    )
}

/// A forward scan along full levels `K` (top to bottom); see [`scan`].
#[track_caller]
pub fn scan_forward<B: IntoExprs>(init: impl IntoExprs, body: impl FnOnce(&[Expr]) -> B) -> Expr {
    scan(VKind::Full, ScanDir::Forward, init, body)
}

/// A backward scan along full levels `K` (bottom to top); see [`scan`].
#[track_caller]
pub fn scan_backward<B: IntoExprs>(init: impl IntoExprs, body: impl FnOnce(&[Expr]) -> B) -> Expr {
    scan(VKind::Full, ScanDir::Backward, init, body)
}

/// The index along one dimension, for `concat_where` regions (`index(K).lt(1)`,
/// `index(EDGE).ge(start(Zone::Nudging(2)))`) and as an `i32` value ([`Index::expr`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Index(pub IndexDim);

/// The index along a horizontal location or vertical kind.
pub fn index(dim: impl Into<IndexDim>) -> Index {
    Index(dim.into())
}

impl From<Location> for IndexDim {
    fn from(l: Location) -> IndexDim {
        IndexDim::H(l)
    }
}

impl From<VKind> for IndexDim {
    fn from(v: VKind) -> IndexDim {
        IndexDim::V(v)
    }
}

impl Index {
    fn region(self, lo: Option<Bound>, hi: Option<Bound>) -> Region {
        Region {
            intervals: vec![Interval {
                dim: self.0,
                lo,
                hi,
            }],
        }
    }
    /// `index < b`.
    pub fn lt(self, b: impl Into<Bound>) -> Region {
        self.region(None, Some(b.into()))
    }
    /// `index <= b`.
    pub fn le(self, b: impl Into<Bound>) -> Region {
        self.region(None, Some(b.into() + 1))
    }
    /// `index > b`.
    pub fn gt(self, b: impl Into<Bound>) -> Region {
        self.region(Some(b.into() + 1), None)
    }
    /// `index >= b`.
    pub fn ge(self, b: impl Into<Bound>) -> Region {
        self.region(Some(b.into()), None)
    }
    /// `index == b`.
    pub fn equals(self, b: impl Into<Bound>) -> Region {
        let b = b.into();
        self.region(Some(b), Some(b + 1))
    }
    /// `lo <= index < hi`.
    pub fn in_range(self, lo: impl Into<Bound>, hi: impl Into<Bound>) -> Region {
        self.region(Some(lo.into()), Some(hi.into()))
    }
    /// The index as an `i32` value.
    #[track_caller]
    pub fn expr(self) -> Expr {
        match self.0 {
            IndexDim::H(l) => Expr::new(EKind::HIndex(l)),
            IndexDim::V(v) => Expr::new(EKind::KIndex(v)),
        }
    }
}
