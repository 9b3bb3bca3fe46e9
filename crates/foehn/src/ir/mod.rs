//! The typed, dimension-checked IR: what the DSL produces and every backend consumes.
//!
//! A [`Program`] is one specialised variant of a DSL program: field and scalar
//! declarations, an arena of expression [`Node`]s (hash-consed and stored in
//! topological order: children before parents) with one [`Type`] per node, and a
//! list of [`Stencil`]s run in order. Each stencil writes one or more output fields
//! on a [`Domain`]; its root expression is evaluated *pointwise* at every
//! `(horizontal index, level)` of the domain, which lowers directly to a loop nest:
//!
//! ```text
//! for h in h_start..h_end { for k in k_start..k_end { out[h, k] = eval(root, h, k) } }
//! ```
//!
//! Neighbour shifts change the horizontal index through a neighbour table, vertical
//! shifts change `k`, reductions are fixed-width loops over a table row skipping −1,
//! and scans are sequential loops over the stencil's vertical range whose results are
//! materialised per column. See `docs/adr/0002-dsl-and-ir.md`.
//!
//! [`link::link`] builds one program from specialised programs called in turn (a
//! component's step from its program calls).

mod access;
mod canonical;
mod cost;
mod display;
pub mod domain;
mod hash;
pub mod layout;
pub mod link;
pub(crate) use canonical::canonicalize;
pub mod schedule;
pub mod semantics;
pub mod types;
pub mod verify;

pub use domain::{
    end, nlev, start, Bound, BoundBase, Domain, IndexDim, Interval, Region, ResolvedDomain,
};
pub use hash::ContentHash;
pub use schedule::{KernelPlan, Schedule};
pub use types::{DType, Dim, Dims, DimsConflict, FieldType, Scalar, ShiftError, Type, VKind};
pub use verify::{verify, VerifyError, VerifyErrorKind};

use foehn_grid::{Connectivity, Location};
use std::collections::BTreeMap;
use std::fmt;

/// Index of a node in [`Program::nodes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

impl ExprId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a field in [`Program::fields`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldId(pub u32);

/// Index of a runtime scalar in [`Program::scalars`].
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

/// How a program uses a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// Read only; the caller passes it.
    In,
    /// Written (and possibly read after being written); the caller passes it and
    /// points outside every writing stencil's domain keep their values.
    Out,
    /// Read and written; the caller passes it.
    InOut,
    /// A program-internal temporary allocated by the backend; not an argument.
    Temp,
}

impl Role {
    /// Lower-case name (`in`, `out`, `inout`, `temp`).
    pub fn name(self) -> &'static str {
        match self {
            Role::In => "in",
            Role::Out => "out",
            Role::InOut => "inout",
            Role::Temp => "temp",
        }
    }

    /// True when stencils may write the field.
    pub fn writable(self) -> bool {
        self != Role::In
    }
}

/// A field declaration.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FieldDecl {
    /// Argument name.
    pub name: String,
    /// Dimensions and element type.
    pub ty: FieldType,
    /// How the program uses it.
    pub role: Role,
}

/// A runtime scalar argument declaration.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScalarDecl {
    /// Argument name.
    pub name: String,
    /// Element type.
    pub dtype: DType,
}

/// A Rust source position (from `#[track_caller]`), for error messages and `explain`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SrcLoc {
    /// Source file.
    pub file: String,
    /// Line (1-based).
    pub line: u32,
    /// Column (1-based).
    pub column: u32,
}

impl SrcLoc {
    /// From a `std::panic::Location`.
    pub fn from_panic(l: &std::panic::Location<'_>) -> SrcLoc {
        SrcLoc {
            file: l.file().to_string(),
            line: l.line(),
            column: l.column(),
        }
    }
}

impl fmt::Display for SrcLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// One field operator application: outputs, domain and the root expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stencil {
    /// Name (unique within the program).
    pub name: String,
    /// Output fields; the root's type is a tuple of this length when there are several.
    pub outputs: Vec<FieldId>,
    /// The outputs' horizontal location; `None` for vertical-only outputs (a `K` field),
    /// which the stencil computes as a single column.
    pub location: Option<Location>,
    /// The outputs' vertical kind (`None` for 2-D outputs).
    pub vertical: Option<VKind>,
    /// Where the outputs are written.
    pub domain: Domain,
    /// The expression evaluated at every domain point.
    pub root: ExprId,
    /// Where the stencil was declared.
    pub span: Option<SrcLoc>,
}

/// A value of a static (compile-time) argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StaticValue {
    /// A boolean switch.
    Bool(bool),
    /// An integer (level indices such as `nflatlev`).
    I32(i32),
}

impl fmt::Display for StaticValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StaticValue::Bool(b) => write!(f, "{b}"),
            StaticValue::I32(i) => write!(f, "{i}"),
        }
    }
}

/// The static argument values selecting one variant of a program.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Variant(pub BTreeMap<String, StaticValue>);

impl Variant {
    /// The empty variant (programs without static arguments).
    pub fn new() -> Variant {
        Variant::default()
    }

    /// Adds or replaces a value (builder style).
    pub fn with(mut self, name: &str, value: impl Into<StaticValue>) -> Variant {
        self.0.insert(name.to_string(), value.into());
        self
    }

    /// The value of a static argument.
    pub fn get(&self, name: &str) -> Option<StaticValue> {
        self.0.get(name).copied()
    }
}

impl From<bool> for StaticValue {
    fn from(b: bool) -> StaticValue {
        StaticValue::Bool(b)
    }
}

impl From<i32> for StaticValue {
    fn from(i: i32) -> StaticValue {
        StaticValue::I32(i)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("default");
        }
        let parts: Vec<String> = self.0.iter().map(|(k, v)| format!("{k}={v}")).collect();
        f.write_str(&parts.join(", "))
    }
}

/// One specialised, type-checked program variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// Program name.
    pub name: String,
    /// The static argument values this IR was specialised for.
    pub variant: Variant,
    /// Field declarations (arguments and temporaries).
    pub fields: Vec<FieldDecl>,
    /// Runtime scalar declarations.
    pub scalars: Vec<ScalarDecl>,
    /// The expression arena, children before parents.
    pub nodes: Vec<Node>,
    /// The type of each node.
    pub types: Vec<Type>,
    /// Where each node was built in the DSL (not part of the content hash).
    pub spans: Vec<Option<SrcLoc>>,
    /// The stencils, run in order.
    pub stencils: Vec<Stencil>,
}

impl Program {
    /// Appends a node with its type and source position, keeping [`Program::nodes`],
    /// [`Program::types`] and [`Program::spans`] in step; returns its id. The caller
    /// keeps the arena's order: every child of `node` must already be in it.
    pub fn push(&mut self, node: Node, ty: Type, span: Option<SrcLoc>) -> ExprId {
        debug_assert!(
            node.children().iter().all(|c| c.index() < self.nodes.len()),
            "pushed node {node:?} has a child not yet in the arena"
        );
        let id = ExprId(self.nodes.len() as u32);
        self.nodes.push(node);
        self.types.push(ty);
        self.spans.push(span);
        id
    }

    /// [`Program::push`] with the type and span of the existing node `like` (a rewrite
    /// of `like`, or a wrapper of the same type such as a [`UnaryOp::Stage`]).
    pub fn push_like(&mut self, node: Node, like: ExprId) -> ExprId {
        let (ty, span) = (self.ty(like).clone(), self.spans[like.index()].clone());
        self.push(node, ty, span)
    }

    /// A copy of the program with an empty expression arena and no stencils, for
    /// passes that rebuild the arena with [`Program::push`].
    pub fn without_nodes(&self) -> Program {
        Program {
            name: self.name.clone(),
            variant: self.variant.clone(),
            fields: self.fields.clone(),
            scalars: self.scalars.clone(),
            nodes: vec![],
            types: vec![],
            spans: vec![],
            stencils: vec![],
        }
    }

    /// The node with id `id`.
    pub fn node(&self, id: ExprId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The type of node `id`.
    pub fn ty(&self, id: ExprId) -> &Type {
        &self.types[id.index()]
    }

    /// The field declaration with id `id`.
    pub fn field(&self, id: FieldId) -> &FieldDecl {
        &self.fields[id.0 as usize]
    }

    /// Looks a field up by name.
    pub fn field_id(&self, name: &str) -> Option<FieldId> {
        self.fields
            .iter()
            .position(|f| f.name == name)
            .map(|i| FieldId(i as u32))
    }

    /// The domain of stencil `st` on `grid` with `nlev` levels; a failure is a runtime
    /// error naming the program and stencil.
    pub fn resolve_domain(
        &self,
        st: &Stencil,
        grid: &foehn_grid::Grid,
        nlev: usize,
    ) -> crate::Result<ResolvedDomain> {
        st.domain
            .resolve(st.location, st.vertical, grid, nlev)
            .map_err(|message| self.runtime_error(st, message))
    }

    /// A runtime error of stencil `st` of this program.
    pub fn runtime_error(&self, st: &Stencil, message: String) -> crate::Error {
        crate::Error::Runtime {
            program: self.name.clone(),
            stencil: st.name.clone(),
            message,
        }
    }

    /// [`Program::resolve_domain`], or `None` when the domain has no points (nothing to run).
    pub fn active_domain(
        &self,
        st: &Stencil,
        grid: &foehn_grid::Grid,
        nlev: usize,
    ) -> crate::Result<Option<ResolvedDomain>> {
        let dom = self.resolve_domain(st, grid, nlev)?;
        let empty = dom.h.1 <= dom.h.0 || (st.vertical.is_some() && dom.k.1 <= dom.k.0);
        Ok((!empty).then_some(dom))
    }

    /// The fields the expression rooted at `root` reads.
    pub fn fields_read(&self, root: ExprId) -> std::collections::BTreeSet<FieldId> {
        self.reachable(root)
            .into_iter()
            .filter_map(|id| match self.node(id) {
                Node::Field(f) => Some(*f),
                _ => None,
            })
            .collect()
    }

    /// The fields any stencil of the program reads.
    pub fn fields_read_by_stencils(&self) -> std::collections::BTreeSet<FieldId> {
        self.stencils
            .iter()
            .flat_map(|s| self.fields_read(s.root))
            .collect()
    }

    /// The nodes reachable from `root`, in ascending id order (a topological order).
    pub fn reachable(&self, root: ExprId) -> Vec<ExprId> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            if !std::mem::replace(&mut seen[id.index()], true) {
                stack.extend(self.node(id).children());
            }
        }
        (0..self.nodes.len() as u32)
            .map(ExprId)
            .filter(|id| seen[id.index()])
            .collect()
    }
}
