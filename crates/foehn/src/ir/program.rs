//! [`Program`]: declarations, the expression arena and the stencils, with its accessors.

use super::{
    DType, Domain, ExprId, FieldId, FieldType, Node, ResolvedDomain, Type, VKind, Variant,
};
use foehn_grid::Location;
use std::fmt;

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
    /// of `like`, or a wrapper of the same type such as a
    /// [`UnaryOp::Stage`](super::UnaryOp::Stage)).
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

    /// The math-library functions the program calls (`pow`, trigonometric, …: those that
    /// may round differently on different engines), sorted, each once. Where this is
    /// empty, the interpreter, the C backend and CUDA compute the program bit for bit
    /// alike; otherwise the GPU may differ from the host in the last bits of these
    /// functions' results.
    pub fn math_library_functions(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = self
            .nodes
            .iter()
            .filter_map(|n| match n {
                Node::Unary(op, _) if !op.same_bits_on_every_engine() => Some(op.name()),
                Node::Binary(op, _, _) if !op.same_bits_on_every_engine() => Some(op.symbol()),
                _ => None,
            })
            .collect();
        names.sort_unstable();
        names.dedup();
        names
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
