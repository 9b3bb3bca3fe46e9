//! The IR's invariants, checked: what the lowering establishes and every optimiser
//! pass must keep. [`verify`] runs after the lowering and after every optimiser pass
//! in debug builds (and so in tests); a failure is a compiler bug, named by program,
//! stencil and node.
//!
//! Checked: the parallel arrays have one entry per node; children come before their
//! parents; field, scalar and root ids are in range; every node's type follows from
//! its children's types by the rules of the lowering (shared with it: [`Dims::union`],
//! [`Dims::shifted`], [`Dims::reduced`], [`super::UnaryOp::result_dtype`],
//! [`super::BinaryOp::result_dtype`]); scan carries appear only in the body of their
//! own (innermost) scan; outputs are writable fields whose type the root's fits;
//! domains are well formed ([`super::Domain::misuse`]).
//!
//! Types are checked on the nodes some stencil reaches: passes leave unreachable
//! nodes for compaction (dead stencils' field reads, say, renumbered to field 0). A
//! node's type must equal the one its children give, with one exception: a
//! `concat_where` may have more dimensions than its branches and region give (region
//! specialisation drops intervals from a region and keeps the node's type; the value
//! is independent of the extra dimensions). A stencil's root may have fewer dimensions
//! than its outputs (the lowering allows it: the value is broadcast).

use super::{DType, Dims, ExprId, FieldType, Node, Program, Stencil, Type};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

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

/// The carry element types of every scan, by scan number; scans sharing a number must
/// agree on them.
fn scan_dtypes(c: &Checker<'_>) -> Result<BTreeMap<u32, Vec<DType>>, VerifyError> {
    let p = c.p;
    let mut scans = BTreeMap::new();
    for (i, node) in p.nodes.iter().enumerate() {
        let Node::Scan { id, init, body, .. } = node else {
            continue;
        };
        let here = Some(ExprId(i as u32));
        if init.is_empty() || init.len() != body.len() {
            return Err(c.err(
                here,
                VerifyErrorKind::Scan,
                format!(
                    "scan has {} initial values and {} body values",
                    init.len(),
                    body.len()
                ),
            ));
        }
        let mut dtypes = vec![];
        for x in init {
            match p.ty(*x) {
                Type::Field(t) if t.dims.is_scalar() => dtypes.push(t.dtype),
                t => {
                    return Err(c.err(
                        here,
                        VerifyErrorKind::Type,
                        format!("initial value %{} of scan#{id} is {t}, not a scalar", x.0),
                    ))
                }
            }
        }
        if let Some(other) = scans.insert(*id, dtypes.clone()) {
            if other != dtypes {
                return Err(c.err(
                    here,
                    VerifyErrorKind::Scan,
                    format!("two scans numbered {id} with different carry types"),
                ));
            }
        }
    }
    Ok(scans)
}

/// The field type of child `x` of node `id`.
fn field_of(c: &Checker<'_>, id: ExprId, x: ExprId) -> Result<FieldType, VerifyError> {
    match c.p.ty(x) {
        Type::Field(t) => Ok(*t),
        t => Err(c.err(
            Some(id),
            VerifyErrorKind::Type,
            format!(
                "operand %{} is a tuple ({t}) where a single value is needed",
                x.0
            ),
        )),
    }
}

/// The type of node `id` as its children's types give it.
fn expected_type(
    c: &Checker<'_>,
    id: ExprId,
    scans: &BTreeMap<u32, Vec<DType>>,
) -> Result<Type, VerifyError> {
    let p = c.p;
    let bad = |m: String| c.err(Some(id), VerifyErrorKind::Type, m);
    let union = |a: Dims, b: Dims| a.union(b).map_err(|x| bad(format!("operands with {x}")));
    let f = |x: ExprId| field_of(c, id, x);
    let field = |dims: Dims, dtype: DType| Ok(Type::Field(FieldType::new(dims, dtype)));
    let vertical = |t: FieldType| {
        if t.dims.vertical.is_none() {
            Err(bad(format!(
                "vertical access to a value of dims {}",
                t.dims
            )))
        } else {
            Ok(t)
        }
    };
    match p.node(id) {
        Node::Field(fid) => Ok(Type::Field(p.field(*fid).ty)),
        Node::Scalar(s) => field(Dims::SCALAR, p.scalars[s.0 as usize].dtype),
        Node::Const(v) => field(Dims::SCALAR, v.dtype()),
        Node::HIndex(l) => field(
            Dims {
                horizontal: Some(*l),
                ..Dims::SCALAR
            },
            DType::I32,
        ),
        Node::KIndex(v) => field(
            Dims {
                vertical: Some(*v),
                ..Dims::SCALAR
            },
            DType::I32,
        ),
        Node::Unary(op, a) => {
            let t = f(*a)?;
            let dt = op.result_dtype(t.dtype).map_err(|need| {
                bad(format!(
                    "`{}` needs {need} operand, got {}",
                    op.name(),
                    t.dtype
                ))
            })?;
            field(t.dims, dt)
        }
        Node::Binary(op, a, b) => {
            let (ta, tb) = (f(*a)?, f(*b)?);
            if ta.dtype != tb.dtype {
                return Err(bad(format!(
                    "operands of `{}` are {} and {}",
                    op.symbol(),
                    ta.dtype,
                    tb.dtype
                )));
            }
            let dt = op.result_dtype(ta.dtype).map_err(|need| {
                bad(format!(
                    "`{}` needs {need} operands, got {}",
                    op.symbol(),
                    ta.dtype
                ))
            })?;
            field(union(ta.dims, tb.dims)?, dt)
        }
        Node::Where(m, a, b) => {
            let tm = f(*m)?;
            if tm.dtype != DType::Bool {
                return Err(bad(format!("the mask of `where` is {}", tm.dtype)));
            }
            select(c, id, *a, *b, tm.dims)
        }
        Node::ConcatWhere(region, a, b) => {
            let mut rd = Dims::SCALAR;
            for iv in &region.intervals {
                let d = match iv.dim {
                    super::IndexDim::H(l) => Dims {
                        horizontal: Some(l),
                        ..Dims::SCALAR
                    },
                    super::IndexDim::V(v) => Dims {
                        vertical: Some(v),
                        ..Dims::SCALAR
                    },
                };
                rd = union(rd, d)?;
                if let Some(m) = iv.lo.iter().chain(&iv.hi).find_map(|b| b.misuse(iv.dim)) {
                    return Err(bad(m));
                }
            }
            select(c, id, *a, *b, rd)
        }
        Node::Cast(dt, a) => field(f(*a)?.dims, *dt),
        Node::Shift(conn, a) | Node::Neighbor(conn, _, a) => {
            let t = f(*a)?;
            let all = matches!(p.node(id), Node::Shift(..));
            if let Node::Neighbor(_, slot, _) = p.node(id) {
                if usize::from(*slot) >= conn.width() {
                    return Err(bad(format!(
                        "neighbour slot {slot} of {conn}, which has {}",
                        conn.width()
                    )));
                }
            }
            let dims = t.dims.shifted(*conn, all).map_err(|e| {
                bad(format!(
                    "a value of dims {} shifted through {conn}: {e:?}",
                    t.dims
                ))
            })?;
            field(dims, t.dtype)
        }
        Node::Pick(slot, a) => {
            let t = f(*a)?;
            match t.dims.local {
                Some(l) if usize::from(*slot) < l.width() => field(
                    Dims {
                        local: None,
                        ..t.dims
                    },
                    t.dtype,
                ),
                _ => Err(bad(format!("slot {slot} of a value of dims {}", t.dims))),
            }
        }
        Node::Reduce(op, conn, a) => {
            let t = f(*a)?;
            let dims = t.dims.reduced(*conn).ok_or_else(|| {
                bad(format!(
                    "{} over {conn} of a value of dims {}",
                    op.name(),
                    t.dims
                ))
            })?;
            if !t.dtype.is_numeric() {
                return Err(bad(format!("{} of {} values", op.name(), t.dtype)));
            }
            field(dims, t.dtype)
        }
        Node::KShift(_, a) => Ok(Type::Field(vertical(f(*a)?)?)),
        Node::KOffset(a, o) => {
            let (t, to) = (vertical(f(*a)?)?, f(*o)?);
            if to.dtype != DType::I32 {
                return Err(bad(format!("a vertical offset of type {}", to.dtype)));
            }
            field(union(t.dims, to.dims)?, t.dtype)
        }
        Node::VCast(v, a) => {
            let t = vertical(f(*a)?)?;
            field(
                Dims {
                    vertical: Some(*v),
                    ..t.dims
                },
                t.dtype,
            )
        }
        Node::Broadcast(dims, a) => {
            let t = f(*a)?;
            Dims::from_list(&dims.list()).map_err(|m| bad(format!("broadcast to {dims}: {m}")))?;
            if !t.dims.fits_in(dims) {
                return Err(bad(format!(
                    "broadcast of a value of dims {} to {dims}",
                    t.dims
                )));
            }
            field(*dims, t.dtype)
        }
        Node::Tuple(items) => Ok(Type::Tuple(
            items.iter().map(|x| p.ty(*x).clone()).collect(),
        )),
        Node::Get(i, a) => match p.ty(*a) {
            Type::Tuple(ts) if (*i as usize) < ts.len() => Ok(ts[*i as usize].clone()),
            t => Err(bad(format!("element {i} of {t}"))),
        },
        Node::Scan {
            id: sid,
            kind,
            body,
            ..
        } => {
            let dtypes = &scans[sid];
            let mut dims = Dims {
                vertical: Some(*kind),
                ..Dims::SCALAR
            };
            for (i, (x, dt)) in body.iter().zip(dtypes).enumerate() {
                let t = f(*x)?;
                if t.dtype != *dt {
                    return Err(bad(format!(
                        "scan carry {i} is {dt} but the body gives {}",
                        t.dtype
                    )));
                }
                if t.dims.local.is_some() {
                    return Err(bad(format!(
                        "scan body value %{} has a local dimension ({})",
                        x.0, t.dims
                    )));
                }
                dims = union(dims, t.dims)?;
            }
            let tys: Vec<Type> = dtypes
                .iter()
                .map(|&d| Type::Field(FieldType::new(dims, d)))
                .collect();
            Ok(match &tys[..] {
                [one] => one.clone(),
                _ => Type::Tuple(tys),
            })
        }
        Node::Carry { scan, index } => {
            let dt = scans
                .get(scan)
                .and_then(|d| d.get(*index as usize))
                .ok_or_else(|| {
                    c.err(
                        Some(id),
                        VerifyErrorKind::Scan,
                        format!("carry {index} of scan#{scan}, which has no such carry"),
                    )
                })?;
            field(Dims::SCALAR, *dt)
        }
    }
}

/// The type of a select (`where`, `concat_where`) of `a` and `b` with a condition of
/// dims `extra`; tuples element-wise.
fn select(
    c: &Checker<'_>,
    id: ExprId,
    a: ExprId,
    b: ExprId,
    extra: Dims,
) -> Result<Type, VerifyError> {
    let bad = |m: String| c.err(Some(id), VerifyErrorKind::Type, m);
    let one = |x: &Type, y: &Type| match (x, y) {
        (Type::Field(x), Type::Field(y)) if x.dtype == y.dtype => {
            let d = x
                .dims
                .union(y.dims)
                .and_then(|d| d.union(extra))
                .map_err(|e| bad(format!("branches with {e}")))?;
            Ok(Type::Field(FieldType::new(d, x.dtype)))
        }
        _ => Err(bad(format!("branches of types {x} and {y}"))),
    };
    match (c.p.ty(a), c.p.ty(b)) {
        (Type::Tuple(xs), Type::Tuple(ys)) if xs.len() == ys.len() => Ok(Type::Tuple(
            xs.iter()
                .zip(ys)
                .map(|(x, y)| one(x, y))
                .collect::<Result<_, _>>()?,
        )),
        (x, y) => one(x, y),
    }
}

/// True when a value of type `want` may be stored as `have`: equal up to dimensions
/// `have` has more of (the value is broadcast along them).
fn fits(want: &Type, have: &Type) -> bool {
    match (want, have) {
        (Type::Field(w), Type::Field(h)) => w.dtype == h.dtype && w.dims.fits_in(&h.dims),
        (Type::Tuple(ws), Type::Tuple(hs)) => {
            ws.len() == hs.len() && ws.iter().zip(hs).all(|(w, h)| fits(w, h))
        }
        _ => false,
    }
}

fn check_type(c: &Checker<'_>, id: ExprId, scans: &BTreeMap<u32, Vec<DType>>) -> R {
    let want = expected_type(c, id, scans)?;
    let have = c.p.ty(id);
    // A `concat_where` whose region region specialisation narrowed keeps its type.
    let ok = match c.p.node(id) {
        Node::ConcatWhere(..) => fits(&want, have),
        _ => want == *have,
    };
    if !ok {
        return Err(c.err(
            Some(id),
            VerifyErrorKind::Type,
            format!(
                "`{}` has type {have}, but its operands give {want}",
                c.p.node_text(id)
            ),
        ));
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
