//! The type rules: every reachable node's type as its children's types give it.

use super::{Checker, VerifyError, VerifyErrorKind, R};
use crate::ir::{DType, Dims, ExprId, FieldType, Node, Type};
use std::collections::BTreeMap;

/// The carry element types of every scan, by scan number; scans sharing a number must
/// agree on them.
pub(super) fn scan_dtypes(c: &Checker<'_>) -> Result<BTreeMap<u32, Vec<DType>>, VerifyError> {
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
                    crate::ir::IndexDim::H(l) => Dims {
                        horizontal: Some(l),
                        ..Dims::SCALAR
                    },
                    crate::ir::IndexDim::V(v) => Dims {
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
pub(super) fn fits(want: &Type, have: &Type) -> bool {
    match (want, have) {
        (Type::Field(w), Type::Field(h)) => w.dtype == h.dtype && w.dims.fits_in(&h.dims),
        (Type::Tuple(ws), Type::Tuple(hs)) => {
            ws.len() == hs.len() && ws.iter().zip(hs).all(|(w, h)| fits(w, h))
        }
        _ => false,
    }
}

pub(super) fn check_type(c: &Checker<'_>, id: ExprId, scans: &BTreeMap<u32, Vec<DType>>) -> R {
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
