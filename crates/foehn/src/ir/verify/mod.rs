//! The IR's invariants, checked: what the lowering establishes and every optimiser
//! pass must keep. [`verify`] runs after the lowering and after every optimiser pass
//! in debug builds (and so in tests); a failure is a compiler bug, named by program,
//! stencil and node.
//!
//! Checked: the parallel arrays have one entry per node; children come before their
//! parents; field, scalar and root ids are in range; every node's type follows from
//! its children's types by the rules of the lowering (shared with it:
//! [`super::Dims::union`], [`super::Dims::shifted`], [`super::Dims::reduced`],
//! [`super::UnaryOp::result_dtype`], [`super::BinaryOp::result_dtype`]); scan carries
//! appear only in the body of their own (innermost) scan; outputs are writable fields
//! whose type the root's fits; domains are well formed ([`super::Domain::misuse`]).
//!
//! Types are checked on the nodes some stencil reaches: passes leave unreachable
//! nodes for compaction (dead stencils' field reads, say, renumbered to field 0). A
//! node's type must equal the one its children give, with one exception: a
//! `concat_where` may have more dimensions than its branches and region give (region
//! specialisation drops intervals from a region and keeps the node's type; the value
//! is independent of the extra dimensions). A stencil's root may have fewer dimensions
//! than its outputs (the lowering allows it: the value is broadcast).

mod types;

use super::{ExprId, Node, Program, Stencil, Type};
use std::collections::BTreeSet;
use std::fmt;
use types::{check_type, fits, scan_dtypes};

/// What is wrong with a program ([`VerifyError::kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VerifyErrorKind {
    /// `nodes`, `types` and `spans` differ in length.
    ArrayLengths,
    /// A node refers to a child that does not come before it (or does not exist).
    ChildOrder,
    /// A stencil's root is not a node of the arena.
    RootOutOfRange,
    /// A field id (in a node or among a stencil's outputs) is out of range.
    FieldOutOfRange,
    /// A scalar id is out of range.
    ScalarOutOfRange,
    /// A node's type does not follow from its children's (or the node is ill-typed).
    Type,
    /// A scan carry outside the body of its scan, or a scan malformed.
    Scan,
    /// A stencil's outputs: not writable, of other dims than its iteration space, or
    /// not fitting the root's type.
    Output,
    /// A stencil's domain is not well formed for its outputs.
    Domain,
}

/// A violated IR invariant: where (program, stencil, node) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyError {
    /// The program.
    pub program: String,
    /// The stencil, when the error belongs to one.
    pub stencil: Option<String>,
    /// The node, when the error belongs to one.
    pub node: Option<ExprId>,
    /// What kind of invariant is violated.
    pub kind: VerifyErrorKind,
    /// What is wrong, in words.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid IR in program `{}`", self.program)?;
        if let Some(s) = &self.stencil {
            write!(f, ", stencil `{s}`")?;
        }
        if let Some(n) = self.node {
            write!(f, ", node %{}", n.0)?;
        }
        write!(f, ": {} ({:?})", self.message, self.kind)
    }
}

impl std::error::Error for VerifyError {}

type R = Result<(), VerifyError>;

struct Checker<'a> {
    p: &'a Program,
    stencil: Option<&'a str>,
}

impl Checker<'_> {
    fn err(&self, node: Option<ExprId>, kind: VerifyErrorKind, message: String) -> VerifyError {
        VerifyError {
            program: self.p.name.clone(),
            stencil: self.stencil.map(str::to_string),
            node,
            kind,
            message,
        }
    }
}

/// Checks the IR invariants of `p` (see the module documentation); the first violation
/// found is the error.
pub fn verify(p: &Program) -> R {
    let mut c = Checker { p, stencil: None };
    check_arena(&c)?;
    let scans = scan_dtypes(&c)?;
    // Types of the nodes each stencil reaches (errors name the first such stencil).
    let mut typed = vec![false; p.nodes.len()];
    for st in &p.stencils {
        c.stencil = Some(&st.name);
        if st.root.index() >= p.nodes.len() {
            return Err(c.err(
                None,
                VerifyErrorKind::RootOutOfRange,
                format!("root %{} of {} nodes", st.root.0, p.nodes.len()),
            ));
        }
        for id in p.reachable(st.root) {
            if !std::mem::replace(&mut typed[id.index()], true) {
                check_type(&c, id, &scans)?;
            }
        }
        check_stencil(&c, st)?;
    }
    check_carries(&mut c)
}

/// Lengths, child order, field and scalar ids.
fn check_arena(c: &Checker<'_>) -> R {
    let p = c.p;
    let n = p.nodes.len();
    if p.types.len() != n || p.spans.len() != n {
        return Err(c.err(
            None,
            VerifyErrorKind::ArrayLengths,
            format!(
                "{n} nodes but {} types and {} spans",
                p.types.len(),
                p.spans.len()
            ),
        ));
    }
    for (i, node) in p.nodes.iter().enumerate() {
        let id = ExprId(i as u32);
        if let Some(ch) = node.children().into_iter().find(|ch| ch.index() >= i) {
            return Err(c.err(
                Some(id),
                VerifyErrorKind::ChildOrder,
                format!(
                    "child %{} does not come before its parent ({} nodes)",
                    ch.0, n
                ),
            ));
        }
        match node {
            Node::Field(f) if f.0 as usize >= p.fields.len() => {
                return Err(c.err(
                    Some(id),
                    VerifyErrorKind::FieldOutOfRange,
                    format!("reads field {} of {} declared", f.0, p.fields.len()),
                ))
            }
            Node::Scalar(s) if s.0 as usize >= p.scalars.len() => {
                return Err(c.err(
                    Some(id),
                    VerifyErrorKind::ScalarOutOfRange,
                    format!("reads scalar {} of {} declared", s.0, p.scalars.len()),
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Outputs (ids, writability, dims, the root's type) and the domain; the root is in
/// range.
fn check_stencil(c: &Checker<'_>, st: &Stencil) -> R {
    let p = c.p;
    let out = |m: String| c.err(None, VerifyErrorKind::Output, m);
    if st.outputs.is_empty() {
        return Err(out("no outputs".into()));
    }
    let mut seen = BTreeSet::new();
    for o in &st.outputs {
        let Some(d) = p.fields.get(o.0 as usize) else {
            return Err(c.err(
                None,
                VerifyErrorKind::FieldOutOfRange,
                format!("output field {} of {} declared", o.0, p.fields.len()),
            ));
        };
        if !d.role.writable() {
            return Err(out(format!(
                "output `{}` is an {} field",
                d.name,
                d.role.name()
            )));
        }
        if !seen.insert(*o) {
            return Err(out(format!("output `{}` written twice", d.name)));
        }
        let dims = d.ty.dims;
        if dims.local.is_some() || dims.horizontal != st.location || dims.vertical != st.vertical {
            return Err(out(format!(
                "output `{}` has dims {dims}, the stencil iterates over {:?} × {:?}",
                d.name, st.location, st.vertical
            )));
        }
    }
    let root = p.ty(st.root);
    let elems: Vec<&Type> = match (root, st.outputs.len()) {
        (Type::Field(_), 1) => vec![root],
        (Type::Tuple(ts), n) if ts.len() == n && n > 1 => ts.iter().collect(),
        (t, n) => {
            return Err(out(format!(
                "{n} output(s) but the root %{} has type {t}",
                st.root.0
            )))
        }
    };
    for (t, o) in elems.into_iter().zip(&st.outputs) {
        let d = p.field(*o);
        if !fits(t, &Type::Field(d.ty)) {
            return Err(out(format!(
                "output `{}` of type {} gets a value of type {t}",
                d.name, d.ty
            )));
        }
    }
    if let Some(m) = st.domain.misuse(st.location, st.vertical) {
        return Err(c.err(None, VerifyErrorKind::Domain, m));
    }
    Ok(())
}

/// Every carry a stencil reaches is read inside the body of its own scan, the
/// innermost one around it (a scan's initial values read no carry).
fn check_carries(c: &mut Checker<'_>) -> R {
    let p = c.p;
    // (node, innermost scan whose body encloses it); `None`: outside every body.
    let mut seen: BTreeSet<(ExprId, Option<u32>)> = BTreeSet::new();
    for st in &p.stencils {
        c.stencil = Some(&st.name);
        let mut stack = vec![(st.root, None)];
        while let Some((id, scan)) = stack.pop() {
            if !seen.insert((id, scan)) {
                continue;
            }
            match p.node(id) {
                Node::Carry { scan: s, index } if scan != Some(*s) => {
                    let place = match scan {
                        Some(o) => format!("in the body of scan#{o}"),
                        None => "outside every scan body".to_string(),
                    };
                    return Err(c.err(
                        Some(id),
                        VerifyErrorKind::Scan,
                        format!("carry {index} of scan#{s} is read {place}"),
                    ));
                }
                Node::Scan {
                    id: s, init, body, ..
                } => {
                    stack.extend(init.iter().map(|&x| (x, None)));
                    stack.extend(body.iter().map(|&x| (x, Some(*s))));
                }
                node => stack.extend(node.children().into_iter().map(|x| (x, scan))),
            }
        }
    }
    Ok(())
}
