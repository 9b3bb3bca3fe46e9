//! Expression nodes and their operators: ids, [`Node`], [`UnaryOp`], [`BinaryOp`],
//! [`ReduceOp`], [`ScanDir`] and the child walk.

use super::{DType, Dims, Region, Scalar, VKind};
use foehn_grid::{Connectivity, Location};

/// Index of a node in [`Program::nodes`](super::Program::nodes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

impl ExprId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a field in [`Program::fields`](super::Program::fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldId(pub u32);

/// Index of a runtime scalar in [`Program::scalars`](super::Program::scalars).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScalarId(pub u32);

/// Unary operators and math functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum UnaryOp {
    Neg,
    Not,
    Abs,
    Sqrt,
    Cbrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Floor,
    Ceil,
    Trunc,
    IsFinite,
    IsNan,
    IsInf,
    /// Identity, placed by the inliner around a recomputed producer that a consumer
    /// reads through neighbours: the CUDA generator computes it once per block for the
    /// block's points and their neighbours in shared memory (see `opt::inline`).
    Stage,
}

impl UnaryOp {
    /// The name used in printed IR (also the C math function stem).
    pub fn name(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Neg => "neg",
            Not => "not",
            Abs => "abs",
            Sqrt => "sqrt",
            Cbrt => "cbrt",
            Exp => "exp",
            Log => "log",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Asinh => "asinh",
            Acosh => "acosh",
            Atanh => "atanh",
            Floor => "floor",
            Ceil => "ceil",
            Trunc => "trunc",
            IsFinite => "isfinite",
            IsNan => "isnan",
            IsInf => "isinf",
            Stage => "stage",
        }
    }

    /// True for functions defined on floats only.
    pub fn float_only(self) -> bool {
        !matches!(
            self,
            UnaryOp::Neg | UnaryOp::Not | UnaryOp::Abs | UnaryOp::Stage
        )
    }

    /// True for predicates returning `bool`.
    pub fn is_predicate(self) -> bool {
        matches!(self, UnaryOp::IsFinite | UnaryOp::IsNan | UnaryOp::IsInf)
    }

    /// True where every engine (interpreter, C, CUDA) gives the same bits for the same
    /// operand: exact operations, IEEE 754's correctly rounded square root, and foehn's
    /// own `exp` and `log` ([`crate::ir::portable_math`]). The other math functions come
    /// from each engine's math library (the host's libm for the interpreter and the C
    /// backend, CUDA's on the GPU), which may round differently.
    pub fn same_bits_on_every_engine(self) -> bool {
        use UnaryOp::*;
        matches!(
            self,
            Neg | Not
                | Abs
                | Sqrt
                | Exp
                | Log
                | Floor
                | Ceil
                | Trunc
                | IsFinite
                | IsNan
                | IsInf
                | Stage
        )
    }

    /// The element type of the result for an operand of element type `operand`; `Err`
    /// says what operand the operator needs (`not` a bool, `neg`/`abs` a numeric one,
    /// math functions a float; `stage` takes any).
    pub fn result_dtype(self, operand: DType) -> Result<DType, &'static str> {
        let ok = match self {
            UnaryOp::Not => operand == DType::Bool,
            UnaryOp::Neg | UnaryOp::Abs => operand.is_numeric(),
            UnaryOp::Stage => true,
            _ => operand.is_float(),
        };
        if !ok {
            return Err(match self {
                UnaryOp::Not => "a bool",
                UnaryOp::Neg | UnaryOp::Abs => "a numeric (not bool)",
                _ => "a float (f64 or f32; cast integers first)",
            });
        }
        Ok(if self.is_predicate() {
            DType::Bool
        } else {
            operand
        })
    }
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    /// Remainder (C `fmod` for floats, `%` for integers).
    Rem,
    Pow,
    Min,
    Max,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
}

impl BinaryOp {
    /// The symbol or function name used in printed IR.
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Pow => "pow",
            Min => "min",
            Max => "max",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "&",
            Or => "|",
            Xor => "^",
        }
    }

    /// True for operators printed as functions (`pow`, `min`, `max`).
    pub fn is_function(self) -> bool {
        matches!(self, BinaryOp::Pow | BinaryOp::Min | BinaryOp::Max)
    }

    /// True for comparisons (result `bool`).
    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Eq | Ne | Lt | Le | Gt | Ge)
    }

    /// True for logical operators (`bool` operands).
    pub fn is_logical(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor)
    }

    /// True where every engine gives the same bits for the same operands: all but `pow`,
    /// which comes from each engine's math library (see
    /// [`UnaryOp::same_bits_on_every_engine`]).
    pub fn same_bits_on_every_engine(self) -> bool {
        self != BinaryOp::Pow
    }

    /// The element type of the result for operands of (the common) element type
    /// `operands`; `Err` says what operands the operator needs (logical operators
    /// bools, `pow` floats, `==`/`!=` any, the others numeric ones).
    pub fn result_dtype(self, operands: DType) -> Result<DType, &'static str> {
        let bad = if self.is_logical() {
            (operands != DType::Bool).then_some("bool")
        } else if self == BinaryOp::Pow {
            (!operands.is_float()).then_some("float")
        } else if matches!(self, BinaryOp::Eq | BinaryOp::Ne) {
            None
        } else {
            (!operands.is_numeric()).then_some("numeric (arithmetic on bool is not defined)")
        };
        match bad {
            Some(need) => Err(need),
            None if self.is_comparison() => Ok(DType::Bool),
            None => Ok(operands),
        }
    }
}

/// Neighbour reductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReduceOp {
    /// Sum (identity 0).
    Sum,
    /// Maximum (identity −∞ / `i32::MIN`).
    Max,
    /// Minimum (identity +∞ / `i32::MAX`).
    Min,
}

impl ReduceOp {
    /// The GT4Py name (`neighbor_sum`, `max_over`, `min_over`).
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "neighbor_sum",
            ReduceOp::Max => "max_over",
            ReduceOp::Min => "min_over",
        }
    }
}

/// Direction of a vertical scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScanDir {
    /// Increasing `k` (top to bottom).
    Forward,
    /// Decreasing `k` (bottom to top).
    Backward,
}

/// One IR expression node. Every node is evaluated at a point `(h, k, j)`: horizontal
/// index `h`, level `k`, and (inside a reduction or for local-dim values) neighbour slot `j`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Node {
    /// A program field read at the current point.
    Field(FieldId),
    /// A runtime scalar argument.
    Scalar(ScalarId),
    /// A constant.
    Const(Scalar),
    /// The current horizontal index (`i32`) of a location.
    HIndex(Location),
    /// The current level index (`i32`) of a vertical kind.
    KIndex(VKind),
    /// Unary operator or math function.
    Unary(UnaryOp, ExprId),
    /// Binary operator.
    Binary(BinaryOp, ExprId, ExprId),
    /// `where(mask, a, b)`: element-wise select; only the chosen branch is evaluated.
    Where(ExprId, ExprId, ExprId),
    /// `concat_where(region, a, b)`: `a` inside the index region, `b` outside; only the
    /// chosen branch is evaluated.
    ConcatWhere(Region, ExprId, ExprId),
    /// Element type conversion.
    Cast(DType, ExprId),
    /// All neighbours through a connectivity (GT4Py `x(C2E)`): at `(h, k, j)` the
    /// operand at `(table[h][j], k)`. The result has the connectivity as local dim.
    Shift(Connectivity, ExprId),
    /// One neighbour (GT4Py `x(E2C[1])`): the operand at `(table[h][slot], k)`;
    /// reading through a skip value (−1) is a runtime error.
    Neighbor(Connectivity, u8, ExprId),
    /// One slot of a local-dim value (GT4Py `x[E2CDim(0)]`).
    Pick(u8, ExprId),
    /// Neighbour reduction over a local dimension; skip entries contribute nothing.
    Reduce(ReduceOp, Connectivity, ExprId),
    /// Constant vertical shift: the operand at level `k + offset`.
    KShift(i32, ExprId),
    /// Data-dependent vertical shift (`as_offset`): the operand at `k + offset(h, k, j)`.
    KOffset(ExprId, ExprId),
    /// Reinterprets the vertical index as another kind (level `k` stays `k`).
    VCast(VKind, ExprId),
    /// Adds dimensions to a value (the value is independent of them).
    Broadcast(Dims, ExprId),
    /// A tuple of values.
    Tuple(Vec<ExprId>),
    /// Element of a tuple.
    Get(u32, ExprId),
    /// A vertical scan over the stencil's vertical range: starting from `init`, each level's
    /// carry is `body` evaluated with [`Node::Carry`] bound to the previous level's carry.
    /// The result (a tuple when there are several carries) is the carry at each level.
    Scan {
        /// The scan's number within the program (what [`Node::Carry`] refers to).
        id: u32,
        /// Direction.
        dir: ScanDir,
        /// The vertical kind scanned along.
        kind: VKind,
        /// Initial carry values (dimensionless).
        init: Vec<ExprId>,
        /// The new carry values, one per carry.
        body: Vec<ExprId>,
    },
    /// Carry `index` of scan `scan` (its value at the previous level); only inside
    /// that scan's body.
    Carry {
        /// The scan's number ([`Node::Scan`]'s `id`).
        scan: u32,
        /// Which carry.
        index: u32,
    },
}

/// Runs `$body` with `$c` bound to each child slot of `$node` (a `&Node` or a
/// `&mut Node`, giving `&ExprId` or `&mut ExprId`), in evaluation order: the one
/// child walk behind [`Node::children`] and [`Node::map_children`].
macro_rules! for_each_child {
    ($node:expr, |$c:ident| $body:expr) => {
        match $node {
            Node::Field(_)
            | Node::Scalar(_)
            | Node::Const(_)
            | Node::HIndex(_)
            | Node::KIndex(_)
            | Node::Carry { .. } => {}
            Node::Unary(_, $c)
            | Node::Cast(_, $c)
            | Node::Shift(_, $c)
            | Node::Neighbor(_, _, $c)
            | Node::Pick(_, $c)
            | Node::Reduce(_, _, $c)
            | Node::KShift(_, $c)
            | Node::VCast(_, $c)
            | Node::Broadcast(_, $c)
            | Node::Get(_, $c) => $body,
            Node::Binary(_, a, b) | Node::KOffset(a, b) | Node::ConcatWhere(_, a, b) => {
                for $c in [a, b] {
                    $body
                }
            }
            Node::Where(m, a, b) => {
                for $c in [m, a, b] {
                    $body
                }
            }
            Node::Tuple(v) => {
                for $c in v {
                    $body
                }
            }
            Node::Scan { init, body, .. } => {
                for $c in init {
                    $body
                }
                for $c in body {
                    $body
                }
            }
        }
    };
}

impl Node {
    /// The children of the node, in evaluation order.
    pub fn children(&self) -> Vec<ExprId> {
        let mut children = Vec::new();
        for_each_child!(self, |c| children.push(*c));
        children
    }

    /// The same node with children renumbered by `f` (called in evaluation order).
    pub fn map_children(&self, f: &mut impl FnMut(ExprId) -> ExprId) -> Node {
        let mut node = self.clone();
        for_each_child!(&mut node, |c| *c = f(*c));
        node
    }
}
