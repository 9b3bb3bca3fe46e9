//! DSL → IR for stencils: outputs, the root expression against them, the domain, and
//! read/write conflicts.

use super::ctx::{is_default_vertical, Lowerer};
use crate::dsl::decl::StencilDecl;
use crate::dsl::expr::EKind;
use crate::error::{CheckError, CheckErrorKind as K};
use crate::ir::{self, BoundBase, FieldId, FieldType, IndexDim, Node, SrcLoc, Type};
use std::collections::BTreeSet;

type R<T> = Result<T, Box<CheckError>>;

fn output_error(lw: &Lowerer<'_>, s: &StencilDecl, kind: K, message: String) -> Box<CheckError> {
    Box::new(CheckError {
        program: lw.b.name.clone(),
        stencil: Some(s.name.clone()),
        kind,
        message,
        expr: Some(s.expr.to_string()),
        span: Some(SrcLoc::from_panic(s.loc)),
    })
}

/// Lowers one stencil: checks outputs, the expression against them, and the domain.
pub(crate) fn lower_stencil(lw: &mut Lowerer<'_>, s: &StencilDecl) -> R<ir::Stencil> {
    let mut outs = vec![];
    for o in &s.outputs {
        let EKind::Field { id, name } = o.kind() else {
            return Err(output_error(
                lw,
                s,
                K::Output,
                format!("stencil outputs must be declared fields, got `{o}`"),
            ));
        };
        let d = &lw.b.fields[*id as usize];
        if !d.role.writable() {
            return Err(output_error(
                lw,
                s,
                K::Output,
                format!("output `{name}` is an input field (declare it with output, inout or temporary)"),
            ));
        }
        outs.push((FieldId(*id), name.clone(), FieldType::new(d.dims, d.dtype)));
    }
    let Some(first) = outs.first().map(|o| o.2) else {
        return Err(output_error(
            lw,
            s,
            K::Output,
            "stencil has no outputs".to_string(),
        ));
    };
    let location = first.dims.horizontal;
    if location.is_none() && first.dims.vertical.is_none() {
        return Err(output_error(
            lw,
            s,
            K::Output,
            format!(
                "output `{}` has no dimension (a scalar output is not a field)",
                outs[0].1
            ),
        ));
    }
    for (_, name, t) in &outs {
        if t.dims.local.is_some()
            || t.dims.horizontal != location
            || t.dims.vertical != first.dims.vertical
        {
            return Err(output_error(
                lw,
                s,
                K::Output,
                format!(
                    "output `{name}` has dims {}; all outputs of a stencil need dims {first} without a local dimension",
                    t.dims,
                    first = first.dims
                ),
            ));
        }
    }
    // The root: tuples are lowered element-wise so weak literals adapt to each output.
    let root = match (s.expr.kind(), outs.len()) {
        (EKind::Tuple(items), n) if items.len() == n && n > 1 => {
            let mut ids = vec![];
            let mut tys = vec![];
            for (x, o) in items.iter().zip(&outs) {
                let l = lw.lower(x)?;
                let l = lw.adapt_to(x, &l, o.2.dtype).unwrap_or(l);
                ids.push(l.id);
                tys.push(l.ty);
            }
            lw.make(&s.expr, Node::Tuple(ids), Type::Tuple(tys))
        }
        _ => {
            let l = lw.lower(&s.expr)?;
            lw.adapt_to(&s.expr, &l, first.dtype).unwrap_or(l)
        }
    };
    let elems: Vec<Type> = match (&root.ty, outs.len()) {
        (Type::Field(_), 1) => vec![root.ty.clone()],
        (Type::Tuple(ts), n) if ts.len() == n && n > 1 => ts.clone(),
        (t, n) => {
            return Err(output_error(
                lw,
                s,
                K::Tuple,
                format!("stencil writes {n} output(s) but its expression has type {t}"),
            ));
        }
    };
    for (t, (_, name, ot)) in elems.iter().zip(&outs) {
        let Type::Field(t) = t else {
            return Err(output_error(
                lw,
                s,
                K::Tuple,
                format!("output `{name}` gets a tuple ({t})"),
            ));
        };
        if !t.dims.fits_in(&ot.dims) {
            let kind = match (t.dims.vertical, ot.dims.vertical) {
                (Some(a), Some(b)) if a != b => K::VerticalKind,
                _ => K::DimensionMismatch,
            };
            let hint = if kind == K::VerticalKind {
                "; a half-level value needs .as_full() to be written on full levels (and full needs .as_half())"
            } else {
                ""
            };
            return Err(output_error(
                lw,
                s,
                kind,
                format!(
                    "expression with dims {} does not fit output `{name}` with dims {}{hint}",
                    t.dims, ot.dims
                ),
            ));
        }
        if t.dtype != ot.dtype {
            return Err(output_error(
                lw,
                s,
                K::TypeMismatch,
                format!(
                    "type mismatch: output `{name}` is {} but the expression is {}",
                    ot.dtype, t.dtype
                ),
            ));
        }
    }
    // The domain.
    let hdim = IndexDim::H(location.unwrap_or(foehn_grid::Location::Cell));
    if location.is_none() && s.domain.horizontal != ir::Domain::default().horizontal {
        return Err(output_error(
            lw,
            s,
            K::Output,
            "a horizontal domain is given but the outputs have no horizontal dimension".into(),
        ));
    }
    for b in [s.domain.horizontal.0, s.domain.horizontal.1] {
        if b.base == BoundBase::Nlev {
            return Err(output_error(
                lw,
                s,
                K::Output,
                format!("horizontal domain bound {b} uses nlev"),
            ));
        }
        if let Some(m) = b.misuse(hdim) {
            return Err(output_error(lw, s, K::Output, m));
        }
    }
    match first.dims.vertical {
        Some(v) => {
            for b in [s.domain.vertical.0, s.domain.vertical.1] {
                if let Some(m) = b.misuse(IndexDim::V(v)) {
                    return Err(output_error(lw, s, K::Output, m));
                }
            }
        }
        None if !is_default_vertical(s) => {
            return Err(output_error(
                lw,
                s,
                K::Output,
                "a vertical domain is given but the outputs have no vertical dimension".into(),
            ));
        }
        None => {}
    }
    Ok(ir::Stencil {
        name: s.name.clone(),
        outputs: outs.iter().map(|o| o.0).collect(),
        location,
        vertical: first.dims.vertical,
        domain: s.domain,
        root: root.id,
        span: Some(SrcLoc::from_panic(s.loc)),
    })
}

/// Rejects reads of the stencil's own outputs through shifts (a race once parallel) and
/// scans read through horizontal shifts (their columns exist only at the current point).
pub(crate) fn check_conflicts(lw: &Lowerer<'_>, s: &StencilDecl, st: &ir::Stencil) -> R<()> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![(st.root, false, false)];
    while let Some((id, shifted, hshifted)) = stack.pop() {
        if !seen.insert((id, shifted, hshifted)) {
            continue;
        }
        let node = &lw.nodes[id.index()];
        match node {
            Node::Field(f) if shifted && st.outputs.contains(f) => {
                let name = &lw.b.fields[f.0 as usize].name;
                return Err(output_error(
                    lw,
                    s,
                    K::ReadWriteConflict,
                    format!(
                        "stencil reads `{name}` through a shift while writing it; write to a temporary or another field instead"
                    ),
                ));
            }
            Node::Scan { .. } if hshifted => {
                return Err(output_error(
                    lw,
                    s,
                    K::Scan,
                    "a scan result is read through a horizontal shift; write it to a temporary first".into(),
                ));
            }
            Node::Scan { kind, .. } if st.vertical != Some(*kind) => {
                let over = st
                    .vertical
                    .map_or("no vertical dimension".to_string(), |v| format!("{v}"));
                return Err(output_error(
                    lw,
                    s,
                    K::Scan,
                    format!("a scan along {kind} in a stencil over {over}: scans run along the outputs' vertical dimension"),
                ));
            }
            _ => {}
        }
        let (sh, hs) = match node {
            Node::Shift(..) | Node::Neighbor(..) => (true, true),
            Node::KShift(..) => (true, hshifted),
            _ => (shifted, hshifted),
        };
        if let Node::KOffset(a, o) = node {
            stack.push((*a, true, hshifted));
            stack.push((*o, shifted, hshifted));
            continue;
        }
        for c in node.children() {
            stack.push((c, sh, hs));
        }
    }
    Ok(())
}
