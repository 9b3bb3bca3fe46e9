//! Printing DSL expressions (for error messages): infix, with field names, depth-limited.

use super::expr::{EKind, Expr};
use std::fmt;

const MAX_DEPTH: usize = 6;

fn write_expr(e: &Expr, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
    if depth > MAX_DEPTH {
        return f.write_str("…");
    }
    let sub = |x: &Expr, f: &mut fmt::Formatter<'_>| write_expr(x, f, depth + 1);
    match e.kind() {
        EKind::Field { name, .. } | EKind::Scalar { name, .. } => f.write_str(name),
        EKind::Const(c, _) => write!(f, "{c}"),
        EKind::HIndex(l) => write!(f, "index({l})"),
        EKind::KIndex(v) => write!(f, "index({v})"),
        EKind::Unary(op, a) => {
            match op {
                crate::ir::UnaryOp::Neg => f.write_str("-")?,
                crate::ir::UnaryOp::Not => f.write_str("!")?,
                _ => write!(f, "{}", op.name())?,
            }
            f.write_str("(")?;
            sub(a, f)?;
            f.write_str(")")
        }
        EKind::Binary(op, a, b) if op.is_function() => {
            write!(f, "{}(", op.symbol())?;
            sub(a, f)?;
            f.write_str(", ")?;
            sub(b, f)?;
            f.write_str(")")
        }
        EKind::Binary(op, a, b) => {
            f.write_str("(")?;
            sub(a, f)?;
            write!(f, " {} ", op.symbol())?;
            sub(b, f)?;
            f.write_str(")")
        }
        EKind::Where(m, a, b) => {
            f.write_str("where(")?;
            sub(m, f)?;
            f.write_str(", ")?;
            sub(a, f)?;
            f.write_str(", ")?;
            sub(b, f)?;
            f.write_str(")")
        }
        EKind::ConcatWhere(r, a, b) => {
            write!(f, "concat_where({r}, ")?;
            sub(a, f)?;
            f.write_str(", ")?;
            sub(b, f)?;
            f.write_str(")")
        }
        EKind::Cast(t, a) => {
            sub(a, f)?;
            write!(f, ".cast({t})")
        }
        EKind::Shift(c, a) => {
            sub(a, f)?;
            write!(f, "({c})")
        }
        EKind::Neighbor(c, s, a) => {
            sub(a, f)?;
            write!(f, "({c}[{s}])")
        }
        EKind::Pick(s, a) => {
            sub(a, f)?;
            write!(f, "[{s}]")
        }
        EKind::Reduce(op, c, a) => {
            write!(f, "{}(", op.name())?;
            sub(a, f)?;
            write!(f, ", axis={c})")
        }
        EKind::KShift(n, a) => {
            sub(a, f)?;
            write!(f, "(K{n:+})")
        }
        EKind::KOffset(a, o) => {
            sub(a, f)?;
            f.write_str("(K+")?;
            sub(o, f)?;
            f.write_str(")")
        }
        EKind::VCast(v, a) => {
            sub(a, f)?;
            write!(
                f,
                ".as_{}()",
                if *v == crate::ir::VKind::Full {
                    "full"
                } else {
                    "half"
                }
            )
        }
        EKind::Broadcast(d, a) => {
            f.write_str("broadcast(")?;
            sub(a, f)?;
            let names: Vec<String> = d.iter().map(|x| x.to_string()).collect();
            write!(f, ", ({}))", names.join(", "))
        }
        EKind::Tuple(v) => {
            f.write_str("(")?;
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                sub(x, f)?;
            }
            f.write_str(")")
        }
        EKind::Get(i, a) => {
            sub(a, f)?;
            write!(f, "[{i}]")
        }
        EKind::Scan {
            axis,
            dir,
            init,
            body,
            ..
        } => {
            write!(f, "scan({axis}, {dir:?}, init=(")?;
            for (i, x) in init.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                sub(x, f)?;
            }
            f.write_str("), body=(")?;
            for (i, x) in body.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                sub(x, f)?;
            }
            f.write_str("))")
        }
        EKind::Carry { index, .. } => write!(f, "carry[{index}]"),
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(self, f, 0)
    }
}
