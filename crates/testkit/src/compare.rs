//! The one output comparator of the test suites and the benchmark's verification: the
//! relative difference of two values, of two slices, and of the written arguments of
//! two argument sets; assertions built on them name the field, the element and both
//! values.

use foehn::ir::{DType, Program, Role};
use foehn::runtime::field::{Args, Field};

/// `|x − y| / max(|x|, |y|)`, 0 for bit-identical values (also two NaNs with the same
/// bits), +∞ when exactly one side is NaN.
pub fn rel_diff(x: f64, y: f64) -> f64 {
    if x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) {
        return 0.0;
    }
    let rel = (x - y).abs() / x.abs().max(y.abs()).max(f64::MIN_POSITIVE);
    if rel.is_nan() {
        f64::INFINITY
    } else {
        rel
    }
}

/// The largest relative difference between two slices and where it is: `(index, rel)`;
/// slices of different lengths differ infinitely at the first missing index.
pub fn max_rel_diff_slices(want: &[f64], got: &[f64]) -> (usize, f64) {
    if want.len() != got.len() {
        return (want.len().min(got.len()), f64::INFINITY);
    }
    let mut worst = (0, 0.0f64);
    for (i, (&x, &y)) in want.iter().zip(got).enumerate() {
        let rel = rel_diff(x, y);
        if rel > worst.1 {
            worst = (i, rel);
        }
    }
    worst
}

/// Asserts that every element of `got` equals `want` to `tol` (relative), naming
/// `what`, the element and both values otherwise.
pub fn assert_close(what: &str, want: &[f64], got: &[f64], tol: f64) {
    assert_eq!(want.len(), got.len(), "{what}: lengths differ");
    let (i, rel) = max_rel_diff_slices(want, got);
    assert!(
        rel <= tol,
        "{what}: element {i}: want {:e}, got {:e} (rel {rel:e} > {tol:e})",
        want[i],
        got[i]
    );
}

/// The largest relative difference between the written arguments (outputs and in/out
/// fields, not temporaries) of `ir` in two argument sets: `(field, rel)`.
pub fn max_rel_diff(ir: &Program, a: &Args, b: &Args) -> (String, f64) {
    let mut worst = (String::new(), 0.0f64);
    for d in written_arguments(ir) {
        let (fa, fb) = (
            a.field(&d).expect("argument present"),
            b.field(&d).expect("argument present"),
        );
        let (x, y) = (values(fa), values(fb));
        let (_, rel) = max_rel_diff_slices(&x, &y);
        if rel > worst.1 {
            worst = (d, rel);
        }
    }
    worst
}

/// Asserts that every written argument of `ir` agrees between `want` and `got` to `tol`
/// (relative; bit-identical values always agree).
pub fn assert_outputs_agree(what: &str, ir: &Program, want: &Args, got: &Args, tol: f64) {
    for d in written_arguments(ir) {
        let (x, y) = (
            values(want.field(&d).expect("argument present")),
            values(got.field(&d).expect("argument present")),
        );
        assert_close(&format!("{what}: `{d}`"), &x, &y, tol);
    }
}

/// Asserts that every field of `want` (the interpreter's result) has the same shape in
/// `got` (backend `backend`'s result) and that each element is bit-identical (NaNs
/// alike) or within `tol(dtype)` relative.
pub fn assert_fields_agree(
    what: &str,
    backend: &str,
    want: &Args,
    got: &Args,
    tol: impl Fn(DType) -> f64,
) {
    for (name, fa) in want.fields() {
        let fb = got.field(name).unwrap();
        assert_eq!(fa.shape(), fb.shape(), "{what}: {name}");
        let tol = tol(fa.dtype());
        let (da, db) = (fa.data(), fb.data());
        for i in 0..da.len() {
            let (x, y) = (da.get(i).as_f64(), db.get(i).as_f64());
            let same = x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
            assert!(
                same || (x - y).abs() <= tol * x.abs().max(y.abs()),
                "{what}: field `{name}` element {i}: interpreter {x:e}, {backend} {y:e}"
            );
        }
    }
}

/// Asserts that every field of `want` (the interpreter's result) is bit for bit equal in
/// `got` (backend `backend`'s result; NaNs of any payload alike); a failure names the
/// field, how many elements differ, the largest relative difference and the first one.
pub fn assert_fields_bitwise(what: &str, backend: &str, want: &Args, got: &Args) {
    for (name, fa) in want.fields() {
        let fb = got.field(name).unwrap();
        assert_eq!(fa.shape(), fb.shape(), "{what}: {name}");
        let (da, db) = (fa.data(), fb.data());
        let differ: Vec<(usize, f64, f64)> = (0..da.len())
            .map(|i| (i, da.get(i).as_f64(), db.get(i).as_f64()))
            .filter(|&(_, x, y)| x.to_bits() != y.to_bits() && !(x.is_nan() && y.is_nan()))
            .collect();
        if let Some(&(i, x, y)) = differ.first() {
            let worst = differ
                .iter()
                .map(|&(_, x, y)| (x - y).abs() / x.abs().max(y.abs()))
                .fold(0.0f64, f64::max);
            panic!(
                "{what}: field `{name}` differs from the interpreter's bits in {} of {} \
                 elements (largest relative difference {worst:e}); first, element {i}: \
                 interpreter {x:e}, {backend} {y:e}",
                differ.len(),
                da.len()
            );
        }
    }
}

/// A field's values as f64 (integers and booleans converted).
fn values(f: &Field) -> Vec<f64> {
    let data = f.data();
    (0..data.len()).map(|i| data.get(i).as_f64()).collect()
}

/// The names of the arguments `ir` may write (outputs and in/out fields).
fn written_arguments(ir: &Program) -> Vec<String> {
    ir.fields
        .iter()
        .filter(|d| d.role.writable() && d.role != Role::Temp)
        .map(|d| d.name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_differences_treat_nan_and_identical_bits() {
        assert_eq!(rel_diff(1.0, 1.0), 0.0);
        assert_eq!(rel_diff(f64::NAN, f64::NAN), 0.0);
        assert_eq!(rel_diff(1.0, f64::NAN), f64::INFINITY);
        assert!((rel_diff(1.0, 1.0 + 1e-10) - 1e-10).abs() < 1e-15);
        assert_eq!(max_rel_diff_slices(&[1.0, 2.0], &[1.0, 2.5]).0, 1);
        assert_eq!(max_rel_diff_slices(&[1.0], &[1.0, 2.0]).1, f64::INFINITY);
    }
}
