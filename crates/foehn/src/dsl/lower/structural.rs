//! DSL → IR, continued: shifts, reductions, vertical access, tuples and scans.

use super::ctx::{dims_of, Lowered, Lowerer};
use crate::dsl::expr::{EKind, Expr};
use crate::error::{CheckError, CheckErrorKind as K};
use crate::ir::{self, DType, Dim, Dims, ExprId, FieldType, Node, ShiftError, Type};

type R<T> = Result<T, Box<CheckError>>;

fn with(d: Dims, f: impl FnOnce(&mut Dims)) -> Dims {
    let mut d = d;
    f(&mut d);
    d
}

/// Lowers the operand of a vertical operation (`what`), which must have a vertical dimension.
fn lower_vertical(lw: &mut Lowerer<'_>, e: &Expr, a: &Expr, what: &str) -> R<(Lowered, FieldType)> {
    let la = lw.lower(a)?;
    let t = lw.field_type(e, &la)?;
    if t.dims.vertical.is_none() {
        return Err(lw.err(
            e,
            K::DimensionMismatch,
            format!(
                "{what} of a value without a vertical dimension (dims {})",
                t.dims
            ),
        ));
    }
    Ok((la, t))
}

pub(crate) fn lower_structural(lw: &mut Lowerer<'_>, e: &Expr) -> R<Lowered> {
    match e.kind() {
        EKind::Shift(conn, a) | EKind::Neighbor(conn, _, a) => {
            let la = lw.lower(a)?;
            let la = lw.make_concrete(e, la);
            let t = lw.field_type(e, &la)?;
            let all = matches!(e.kind(), EKind::Shift(..));
            let dims = t.dims.shifted(*conn, all).map_err(|why| match why {
                ShiftError::HasLocal(l) => lw.err(
                    e,
                    K::LocalDim,
                    format!(
                        "cannot shift through {conn} a value that already has local dimension {l} (dims {}); reduce it first",
                        t.dims
                    ),
                ),
                ShiftError::WrongLocation(h) => lw.err(
                    e,
                    K::Connectivity,
                    format!(
                        "cannot shift a {h} value (dims {}) through {conn}: {conn} maps each {} to {} {} neighbours, \
                         so it shifts {} values, not {h} values",
                        t.dims,
                        conn.from(),
                        conn.width(),
                        conn.to(),
                        conn.to()
                    ),
                ),
            })?;
            if let EKind::Neighbor(_, slot, _) = e.kind() {
                if *slot >= conn.width() {
                    return Err(lw.err(
                        e,
                        K::Connectivity,
                        format!(
                            "neighbour slot {slot} out of range: {conn} has {} neighbours",
                            conn.width()
                        ),
                    ));
                }
                Ok(lw.make(
                    e,
                    Node::Neighbor(*conn, *slot as u8, la.id),
                    Type::Field(FieldType::new(dims, t.dtype)),
                ))
            } else {
                Ok(lw.make(
                    e,
                    Node::Shift(*conn, la.id),
                    Type::Field(FieldType::new(dims, t.dtype)),
                ))
            }
        }
        EKind::Pick(slot, a) => {
            let la = lw.lower(a)?;
            let t = lw.field_type(e, &la)?;
            let Some(l) = t.dims.local else {
                return Err(lw.err(
                    e,
                    K::LocalDim,
                    format!(
                        "`pick` needs a value with a local dimension, got dims {}",
                        t.dims
                    ),
                ));
            };
            if *slot >= l.width() {
                return Err(lw.err(
                    e,
                    K::LocalDim,
                    format!(
                        "slot {slot} out of range: local dimension {l} has {} entries",
                        l.width()
                    ),
                ));
            }
            let dims = with(t.dims, |d| d.local = None);
            Ok(lw.make(
                e,
                Node::Pick(*slot as u8, la.id),
                Type::Field(FieldType::new(dims, t.dtype)),
            ))
        }
        EKind::Reduce(op, conn, a) => {
            let la = lw.lower(a)?;
            let t = lw.field_type(e, &la)?;
            let Some(dims) = t.dims.reduced(*conn) else {
                return Err(lw.err(
                    e,
                    K::LocalDim,
                    format!(
                        "{} over {conn} needs a value with dims [{}, {conn}, ...], got {}; shift a {} field with .shift({conn}) \
                         or use a sparse ({}, {conn}) field",
                        op.name(),
                        conn.from(),
                        t.dims,
                        conn.to(),
                        conn.from()
                    ),
                ));
            };
            if !t.dtype.is_numeric() {
                return Err(lw.err(
                    e,
                    K::TypeMismatch,
                    format!(
                        "type mismatch: {} of {} values is not defined",
                        op.name(),
                        t.dtype
                    ),
                ));
            }
            Ok(lw.make(
                e,
                Node::Reduce(*op, *conn, la.id),
                Type::Field(FieldType::new(dims, t.dtype)),
            ))
        }
        EKind::KShift(n, a) => {
            let (la, _) = lower_vertical(lw, e, a, "k_shift")?;
            Ok(lw.make(e, Node::KShift(*n, la.id), la.ty.clone()))
        }
        EKind::KOffset(a, off) => {
            let (la, t) = lower_vertical(lw, e, a, "k_offset")?;
            let lo = lw.lower(off)?;
            let lo = lw.adapt_to(e, &lo, DType::I32).unwrap_or(lo);
            let to = lw.field_type(e, &lo)?;
            if to.dtype != DType::I32 {
                return Err(lw.err(
                    e,
                    K::TypeMismatch,
                    format!(
                        "type mismatch: a vertical offset must be i32, got {}",
                        to.dtype
                    ),
                ));
            }
            let dims = lw.union(e, "`k_offset`", t.dims, to.dims)?;
            Ok(lw.make(
                e,
                Node::KOffset(la.id, lo.id),
                Type::Field(FieldType::new(dims, t.dtype)),
            ))
        }
        EKind::VCast(v, a) => {
            let (la, t) = lower_vertical(lw, e, a, &format!("as_{v}"))?;
            let dims = with(t.dims, |d| d.vertical = Some(*v));
            Ok(lw.make(
                e,
                Node::VCast(*v, la.id),
                Type::Field(FieldType::new(dims, t.dtype)),
            ))
        }
        EKind::Broadcast(list, a) => {
            let la = lw.lower(a)?;
            let la = lw.make_concrete(e, la);
            let t = lw.field_type(e, &la)?;
            let dims = dims_of(list)
                .map_err(|m| lw.err(e, K::DimensionMismatch, format!("broadcast: {m}")))?;
            if !t.dims.fits_in(&dims) {
                return Err(lw.err(
                    e,
                    K::DimensionMismatch,
                    format!("cannot broadcast a value with dims {} to {dims}", t.dims),
                ));
            }
            Ok(lw.make(
                e,
                Node::Broadcast(dims, la.id),
                Type::Field(FieldType::new(dims, t.dtype)),
            ))
        }
        EKind::Tuple(items) => {
            let mut ids = vec![];
            let mut tys = vec![];
            for x in items {
                let l = lw.lower(x)?;
                let l = lw.make_concrete(x, l);
                ids.push(l.id);
                tys.push(l.ty);
            }
            Ok(lw.make(e, Node::Tuple(ids), Type::Tuple(tys)))
        }
        EKind::Get(i, a) => {
            let la = lw.lower(a)?;
            match &la.ty {
                Type::Tuple(ts) if *i < ts.len() => {
                    let ty = ts[*i].clone();
                    Ok(lw.make(e, Node::Get(*i as u32, la.id), ty))
                }
                t => Err(lw.err(
                    e,
                    K::Tuple,
                    format!("element {i} of a value of type {t}, which is not a tuple that long"),
                )),
            }
        }
        EKind::Carry { tag, index } => match lw.carry_type(*tag, *index) {
            Some((dt, scan)) => Ok(lw.make(
                e,
                Node::Carry {
                    scan,
                    index: *index as u32,
                },
                Type::Field(FieldType::scalar(dt)),
            )),
            None => Err(lw.err(
                e,
                K::Scan,
                "a scan carry is used outside the body of its own scan".to_string(),
            )),
        },
        EKind::Scan {
            axis,
            dir,
            init,
            body,
            tag,
        } => {
            let Dim::V(kind) = *axis else {
                return Err(lw.err(
                    e,
                    K::ScanAxis,
                    format!("scan over dimension {axis}: scans run along a vertical dimension (K or KHalf), not a horizontal or local one"),
                ));
            };
            if init.len() != body.len() || init.is_empty() {
                return Err(lw.err(
                    e,
                    K::Scan,
                    format!(
                        "scan has {} initial values but its body gives {}",
                        init.len(),
                        body.len()
                    ),
                ));
            }
            let mut init_ids = vec![];
            let mut dtypes = vec![];
            // Initial values may not read any carry: a frame no carry matches.
            lw.push_barrier();
            let lowered: R<Vec<Lowered>> = init.iter().map(|x| lw.lower(x)).collect();
            lw.pop_scan();
            for (x, l) in init.iter().zip(lowered?) {
                let l = lw.make_concrete(x, l);
                let t = lw.field_type(x, &l)?;
                if !t.dims.is_scalar() {
                    return Err(lw.err(
                        e,
                        K::Scan,
                        format!(
                            "a scan's initial values must be scalars, got dims {}",
                            t.dims
                        ),
                    ));
                }
                init_ids.push(l.id);
                dtypes.push(t.dtype);
            }
            let sid = lw.push_scan(*tag, dtypes.clone());
            let result = lower_scan_body(lw, e, kind, body, &dtypes);
            lw.pop_scan();
            let (body_ids, dims) = result?;
            let tys: Vec<Type> = dtypes
                .iter()
                .map(|&d| Type::Field(FieldType::new(dims, d)))
                .collect();
            let ty = if tys.len() == 1 {
                tys[0].clone()
            } else {
                Type::Tuple(tys)
            };
            Ok(lw.make(
                e,
                Node::Scan {
                    id: sid,
                    dir: *dir,
                    kind,
                    init: init_ids,
                    body: body_ids,
                },
                ty,
            ))
        }
        _ => unreachable!("handled in lower.rs"),
    }
}

fn lower_scan_body(
    lw: &mut Lowerer<'_>,
    e: &Expr,
    kind: ir::VKind,
    body: &[Expr],
    dtypes: &[DType],
) -> R<(Vec<ExprId>, Dims)> {
    let mut dims = Dims {
        vertical: Some(kind),
        ..Dims::SCALAR
    };
    let mut ids = vec![];
    for (i, (x, &dt)) in body.iter().zip(dtypes).enumerate() {
        let l = lw.lower(x)?;
        let l = lw.adapt_to(x, &l, dt).unwrap_or(l);
        let t = lw.field_type(x, &l)?;
        if t.dtype != dt {
            return Err(lw.err(
                e,
                K::TypeMismatch,
                format!(
                    "type mismatch: scan carry {i} is {dt} but the body gives {}",
                    t.dtype
                ),
            ));
        }
        if t.dims.local.is_some() {
            return Err(lw.err(
                e,
                K::LocalDim,
                format!(
                    "a scan body value has local dimension (dims {}); reduce it first",
                    t.dims
                ),
            ));
        }
        dims = lw.union(e, "the scan body", dims, t.dims)?;
        ids.push(l.id);
    }
    Ok((ids, dims))
}
