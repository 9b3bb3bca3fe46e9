//! Typed access to argument fields for plain-Rust reference implementations: read an
//! input's data, or take an output out of the arguments while computing it (no copies).

use super::{Args, Field, FieldData};
use crate::error::{Error, Result};

/// An `f64` argument field's data (column-major: horizontal fastest, then local, then level).
pub fn f64s<'a>(args: &'a Args, name: &str) -> Result<&'a [f64]> {
    args.field(name)
        .and_then(Field::as_f64)
        .ok_or_else(|| Error::Field(format!("reference: missing f64 field `{name}`")))
}

/// An `i32` argument field's data.
pub fn i32s<'a>(args: &'a Args, name: &str) -> Result<&'a [i32]> {
    args.field(name)
        .and_then(Field::as_i32)
        .ok_or_else(|| Error::Field(format!("reference: missing i32 field `{name}`")))
}

/// An `f64` runtime scalar.
pub fn scalar_f64(args: &Args, name: &str) -> Result<f64> {
    args.scalar(name)
        .map(|s| s.as_f64())
        .ok_or_else(|| Error::Field(format!("reference: missing scalar `{name}`")))
}

/// Runs `body(args, output)` with the named `f64` output taken out of `args`, then puts
/// it back.
pub fn with_output<T>(
    args: &mut Args,
    name: &str,
    body: impl FnOnce(&Args, &mut [f64]) -> Result<T>,
) -> Result<T> {
    with_outputs(args, &[name], |args, outs| body(args, &mut outs[0]))
}

/// Runs `body` with several `f64` outputs taken out of `args` (their data moved, not
/// copied), in the order given, then puts them back.
pub fn with_outputs<T>(
    args: &mut Args,
    names: &[&str],
    body: impl FnOnce(&Args, &mut [Vec<f64>]) -> Result<T>,
) -> Result<T> {
    let mut taken = Vec::with_capacity(names.len());
    let mut data = Vec::with_capacity(names.len());
    for n in names {
        let missing = || Error::Field(format!("reference: missing f64 output `{n}`"));
        let mut f = args.take_field(n).ok_or_else(missing)?;
        match f.data_mut() {
            FieldData::F64(v) => data.push(std::mem::take(v)),
            _ => {
                args.set_field(n, f);
                return Err(missing());
            }
        }
        taken.push(f);
    }
    let r = body(args, &mut data);
    for ((n, mut f), d) in names.iter().zip(taken).zip(data) {
        *f.data_mut() = FieldData::F64(d);
        args.set_field(n, f);
    }
    r
}
