//! C types, literals and operators with the interpreter's semantics.

use super::*;

pub(super) fn ctype(t: DType) -> &'static str {
    match t {
        DType::F64 => "double",
        DType::F32 => "float",
        DType::I32 => "int32_t",
        DType::Bool => "int",
    }
}

pub(super) fn storage_type(t: DType) -> &'static str {
    match t {
        DType::Bool => "uint8_t",
        t => ctype(t),
    }
}

pub(super) fn conn_index(c: Connectivity) -> usize {
    Connectivity::ALL
        .iter()
        .position(|&x| x == c)
        .expect("every connectivity is listed")
}

/// A C literal for a constant.
pub(super) fn literal(s: crate::ir::Scalar) -> String {
    use crate::ir::Scalar;
    match s {
        Scalar::F64(x) if x.is_nan() => "NAN".into(),
        Scalar::F64(x) if x.is_infinite() => {
            if x > 0.0 { "INFINITY" } else { "(-INFINITY)" }.into()
        }
        Scalar::F64(x) => format!("{x:?}"),
        Scalar::F32(x) if x.is_nan() => "NAN".into(),
        Scalar::F32(x) if x.is_infinite() => {
            if x > 0.0 { "INFINITY" } else { "(-INFINITY)" }.into()
        }
        Scalar::F32(x) => format!("{x:?}f"),
        Scalar::I32(i32::MIN) => "INT32_MIN".into(),
        Scalar::I32(x) => format!("{x}"),
        Scalar::Bool(b) => format!("{}", b as i32),
    }
}

impl Gen<'_> {
    pub(super) fn unary(&mut self, op: UnaryOp, a: &str, t: DType) -> String {
        let f32s = t == DType::F32;
        let math = |name: &str| {
            if f32s {
                format!("{name}f({a})")
            } else {
                format!("{name}({a})")
            }
        };
        match op {
            UnaryOp::Stage => a.to_string(),
            UnaryOp::Neg if t == DType::I32 => format!("foehn_wrap(-(int64_t){a})"),
            UnaryOp::Neg => format!("(-{a})"),
            UnaryOp::Not => format!("(!{a})"),
            UnaryOp::Abs if t == DType::I32 => {
                format!("foehn_wrap({a} < 0 ? -(int64_t){a} : (int64_t){a})")
            }
            UnaryOp::Abs => math("fabs"),
            UnaryOp::IsFinite => format!("(isfinite({a}) != 0)"),
            UnaryOp::IsNan => format!("(isnan({a}) != 0)"),
            UnaryOp::IsInf => format!("(isinf({a}) != 0)"),
            // foehn's own, the same bits on every engine (ir::portable_math).
            UnaryOp::Exp | UnaryOp::Log if f32s => {
                format!("((float)foehn_{}((double)({a})))", op.name())
            }
            UnaryOp::Exp | UnaryOp::Log => format!("foehn_{}({a})", op.name()),
            op => math(op.name()),
        }
    }

    pub(super) fn binary(&mut self, op: BinaryOp, a: &str, b: &str, t: DType) -> String {
        use BinaryOp::*;
        let f32s = t == DType::F32;
        match (op, t) {
            (Add | Sub | Mul, DType::I32) => {
                format!("foehn_wrap((int64_t){a} {} (int64_t){b})", op.symbol())
            }
            (Div | Rem, DType::I32) => {
                let site = self.site(&format!(
                    "integer {} by zero",
                    if op == Div { "division" } else { "remainder" }
                ));
                let d = self.fresh("d");
                self.line(format!("int32_t {d} = {b};"));
                self.line(format!("if ({d} == 0) {{ FOEHN_ERR({site}); {d} = 1; }}"));
                format!("foehn_wrap((int64_t){a} {} (int64_t){d})", op.symbol())
            }
            (Rem, _) => {
                if f32s {
                    format!("fmodf({a}, {b})")
                } else {
                    format!("fmod({a}, {b})")
                }
            }
            (Pow, _) => {
                if f32s {
                    format!("powf({a}, {b})")
                } else {
                    format!("pow({a}, {b})")
                }
            }
            (Min, DType::I32) => format!("foehn_imin({a}, {b})"),
            (Max, DType::I32) => format!("foehn_imax({a}, {b})"),
            (Min, _) => {
                if f32s {
                    format!("fminf({a}, {b})")
                } else {
                    format!("fmin({a}, {b})")
                }
            }
            (Max, _) => {
                if f32s {
                    format!("fmaxf({a}, {b})")
                } else {
                    format!("fmax({a}, {b})")
                }
            }
            (And, _) => format!("({a} && {b})"),
            (Or, _) => format!("({a} || {b})"),
            (Xor, _) => format!("(({a} != 0) != ({b} != 0))"),
            _ => format!("({a} {} {b})", op.symbol()),
        }
    }
}

/// C conversion with the interpreter's semantics (saturating float → int, non-zero → true).
pub(super) fn cast(a: &str, from: DType, to: DType) -> String {
    match (from, to) {
        (f, t) if f == t => a.to_string(),
        (_, DType::Bool) => format!("({a} != 0)"),
        (DType::F64 | DType::F32, DType::I32) => format!("foehn_f2i((double){a})"),
        (_, t) => format!("(({}){a})", ctype(t)),
    }
}
