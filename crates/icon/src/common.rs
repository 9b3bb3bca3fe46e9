//! Small helpers shared by the program references and input generators.

use foehn::error::{Error, Result};
use foehn::field::{Args, Field};

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

/// Runs `body(args, output)` with the named output taken out of `args` (no copies), then
/// puts it back.
pub fn with_output<T>(
    args: &mut Args,
    name: &str,
    body: impl FnOnce(&Args, &mut [f64]) -> Result<T>,
) -> Result<T> {
    let mut out = args
        .take_field(name)
        .ok_or_else(|| Error::Field(format!("reference: missing output `{name}`")))?;
    let r = match out.as_f64_mut() {
        Some(data) => body(args, data),
        None => Err(Error::Field(format!(
            "reference: output `{name}` is not f64"
        ))),
    };
    args.set_field(name, out);
    r
}

/// Runs `body` with several outputs taken out of `args`, in the order given.
pub fn with_outputs<T>(
    args: &mut Args,
    names: &[&str],
    body: impl FnOnce(&Args, &mut [Vec<f64>]) -> Result<T>,
) -> Result<T> {
    let mut taken = Vec::new();
    for n in names {
        let f = args
            .take_field(n)
            .ok_or_else(|| Error::Field(format!("reference: missing output `{n}`")))?;
        taken.push(f);
    }
    let mut data: Vec<Vec<f64>> = taken
        .iter()
        .map(|f| f.as_f64().map(<[f64]>::to_vec).unwrap_or_default())
        .collect();
    let r = body(args, &mut data);
    for ((n, mut f), d) in names.iter().zip(taken).zip(data) {
        if let Some(v) = f.as_f64_mut() {
            v.copy_from_slice(&d);
        }
        args.set_field(n, f);
    }
    r
}
