//! The meaning of unary and binary operators on scalar values, shared by the
//! interpreter and constant folding; code generators must match it (C semantics:
//! IEEE floats, `fmin`/`fmax`, `fmod`; wrapping `i32` arithmetic; `exp` and `log` are
//! foehn's own, [`portable_math`], the same bits on every engine).

use super::{portable_math, BinaryOp, Scalar, UnaryOp};

macro_rules! float_unary {
    ($op:expr, $x:expr, $wrap:path, $exp:path, $log:path) => {{
        let x = $x;
        match $op {
            UnaryOp::Neg => $wrap(-x),
            UnaryOp::Abs => $wrap(x.abs()),
            UnaryOp::Sqrt => $wrap(x.sqrt()),
            UnaryOp::Cbrt => $wrap(x.cbrt()),
            UnaryOp::Exp => $wrap($exp(x)),
            UnaryOp::Log => $wrap($log(x)),
            UnaryOp::Sin => $wrap(x.sin()),
            UnaryOp::Cos => $wrap(x.cos()),
            UnaryOp::Tan => $wrap(x.tan()),
            UnaryOp::Asin => $wrap(x.asin()),
            UnaryOp::Acos => $wrap(x.acos()),
            UnaryOp::Atan => $wrap(x.atan()),
            UnaryOp::Sinh => $wrap(x.sinh()),
            UnaryOp::Cosh => $wrap(x.cosh()),
            UnaryOp::Tanh => $wrap(x.tanh()),
            UnaryOp::Asinh => $wrap(x.asinh()),
            UnaryOp::Acosh => $wrap(x.acosh()),
            UnaryOp::Atanh => $wrap(x.atanh()),
            UnaryOp::Floor => $wrap(x.floor()),
            UnaryOp::Ceil => $wrap(x.ceil()),
            UnaryOp::Trunc => $wrap(x.trunc()),
            UnaryOp::IsFinite => Scalar::Bool(x.is_finite()),
            UnaryOp::IsNan => Scalar::Bool(x.is_nan()),
            UnaryOp::IsInf => Scalar::Bool(x.is_infinite()),
            UnaryOp::Not | UnaryOp::Stage => $wrap(x),
        }
    }};
}

/// Applies a unary operator (types were checked when the program was built).
pub fn unary(op: UnaryOp, x: Scalar) -> Scalar {
    match x {
        Scalar::F64(v) => float_unary!(op, v, Scalar::F64, portable_math::exp, portable_math::log),
        Scalar::F32(v) => float_unary!(
            op,
            v,
            Scalar::F32,
            portable_math::exp_f32,
            portable_math::log_f32
        ),
        Scalar::I32(v) => match op {
            UnaryOp::Neg => Scalar::I32(v.wrapping_neg()),
            UnaryOp::Abs => Scalar::I32(v.wrapping_abs()),
            _ => x,
        },
        Scalar::Bool(b) => Scalar::Bool(if op == UnaryOp::Not { !b } else { b }),
    }
}

macro_rules! float_binary {
    ($op:expr, $a:expr, $b:expr, $wrap:path) => {{
        let (a, b) = ($a, $b);
        match $op {
            BinaryOp::Add => $wrap(a + b),
            BinaryOp::Sub => $wrap(a - b),
            BinaryOp::Mul => $wrap(a * b),
            BinaryOp::Div => $wrap(a / b),
            BinaryOp::Rem => $wrap(a % b),
            BinaryOp::Pow => $wrap(a.powf(b)),
            BinaryOp::Min => $wrap(a.min(b)),
            BinaryOp::Max => $wrap(a.max(b)),
            _ => return Err("internal: logical op on floats".into()),
        }
    }};
}

/// `a op b` for a comparison operator on numbers; `None` for any other operator.
fn compare<T: PartialOrd>(op: BinaryOp, a: T, b: T) -> Option<bool> {
    match op {
        BinaryOp::Eq => Some(a == b),
        BinaryOp::Ne => Some(a != b),
        BinaryOp::Lt => Some(a < b),
        BinaryOp::Le => Some(a <= b),
        BinaryOp::Gt => Some(a > b),
        BinaryOp::Ge => Some(a >= b),
        _ => None,
    }
}

/// Applies a binary operator (types were checked when the program was built).
pub fn binary(op: BinaryOp, x: Scalar, y: Scalar) -> Result<Scalar, String> {
    let compared = match (x, y) {
        (Scalar::F64(a), Scalar::F64(b)) => compare(op, a, b),
        (Scalar::F32(a), Scalar::F32(b)) => compare(op, a, b),
        (Scalar::I32(a), Scalar::I32(b)) => compare(op, a, b),
        _ => None,
    };
    if let Some(c) = compared {
        return Ok(Scalar::Bool(c));
    }
    Ok(match (x, y) {
        (Scalar::F64(a), Scalar::F64(b)) => float_binary!(op, a, b, Scalar::F64),
        (Scalar::F32(a), Scalar::F32(b)) => float_binary!(op, a, b, Scalar::F32),
        (Scalar::I32(a), Scalar::I32(b)) => match op {
            BinaryOp::Add => Scalar::I32(a.wrapping_add(b)),
            BinaryOp::Sub => Scalar::I32(a.wrapping_sub(b)),
            BinaryOp::Mul => Scalar::I32(a.wrapping_mul(b)),
            BinaryOp::Div => Scalar::I32(a.checked_div(b).ok_or("integer division by zero")?),
            BinaryOp::Rem => Scalar::I32(a.checked_rem(b).ok_or("integer remainder by zero")?),
            BinaryOp::Min => Scalar::I32(a.min(b)),
            BinaryOp::Max => Scalar::I32(a.max(b)),
            _ => return Err(format!("internal: {op:?} on i32")),
        },
        (Scalar::Bool(a), Scalar::Bool(b)) => match op {
            BinaryOp::And => Scalar::Bool(a & b),
            BinaryOp::Or => Scalar::Bool(a | b),
            BinaryOp::Xor | BinaryOp::Ne => Scalar::Bool(a ^ b),
            BinaryOp::Eq => Scalar::Bool(a == b),
            _ => return Err(format!("internal: {op:?} on bool")),
        },
        (a, b) => return Err(format!("internal: operands {a} and {b} of different types")),
    })
}
