//! `exp` and `log` are foehn's own (`ir::portable_math`): the interpreter, the C backend
//! and CUDA give the same bits on values across their whole range (normal, subnormal,
//! overflowing and underflowing arguments, ±0, ±∞, NaN), in f64 and f32 (ADR 0035);
//! `Program::math_library_functions` names only the functions that still come from each
//! engine's library.

use foehn::dsl::prelude::*;
use foehn::runtime::field::{Args, Field, FieldData};
use foehn::runtime::{interp::Interpreter, Backend};
use foehn_testkit::compare::assert_fields_bitwise;
use foehn_testkit::grids::small_global;

mod common;
use common::cpu;

const NLEV: usize = 4;

/// `exp(x)`, `log(x)` and `exp(log(x))` in f64 and f32.
fn program() -> ProgramDef {
    ProgramDef::new("portable_exp_log", |b| {
        let x = b.input("x", (CELL, K), F64);
        let x32 = b.input("x32", (CELL, K), F32);
        let e = b.output("e", (CELL, K), F64);
        let l = b.output("l", (CELL, K), F64);
        let el = b.output("el", (CELL, K), F64);
        let e32 = b.output("e32", (CELL, K), F32);
        let l32 = b.output("l32", (CELL, K), F32);
        b.stencil("exp", &e, exp(&x));
        b.stencil("log", &l, log(&x));
        b.stencil("exp_log", &el, exp(log(&x)));
        b.stencil("exp32", &e32, exp(&x32));
        b.stencil("log32", &l32, log(&x32));
    })
}

/// Arguments over the whole range: special values first, then random magnitudes of
/// either sign from subnormal to huge, and arguments near exp's overflow and underflow.
fn args() -> Args {
    let g = small_global();
    let special = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        0.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        709.78,
        709.79,
        -708.5,
        -720.0,
        -745.13,
        -745.14,
        std::f64::consts::E,
    ];
    let mut x = Field::zeros(g, NLEV, (CELL, K), F64);
    let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
    for (i, v) in x.as_f64_mut().unwrap().iter_mut().enumerate() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        *v = match special.get(i) {
            Some(&v) => v,
            None if i % 3 == 0 => -750.0 + 1500.0 * (s >> 11) as f64 / (1u64 << 53) as f64,
            None => f64::from_bits(s & 0xFFF0_FFFF_FFFF_FFFF | (s & 1) << 63),
        };
    }
    let narrowed = x.as_f64().unwrap().iter().map(|&v| v as f32).collect();
    let x32 = Field::new(x.dims(), x.shape().to_vec(), FieldData::F32(narrowed)).unwrap();
    let mut a = Args::new().with_field("x", x).with_field("x32", x32);
    for (name, t) in [
        ("e", F64),
        ("l", F64),
        ("el", F64),
        ("e32", F32),
        ("l32", F32),
    ] {
        a = a.with_field(name, Field::zeros(g, NLEV, (CELL, K), t));
    }
    a
}

#[test]
fn exp_and_log_are_not_math_library_functions_but_sin_and_pow_are() {
    let p = program().specialize(&Variant::new()).unwrap();
    assert!(p.math_library_functions().is_empty());
    let q = ProgramDef::new("libm", |b| {
        let x = b.input("x", (CELL, K), F64);
        let y = b.output("y", (CELL, K), F64);
        b.stencil("s", &y, sin(&x) + x.pow(2.5) + exp(&x));
    })
    .specialize(&Variant::new())
    .unwrap();
    assert_eq!(q.math_library_functions(), ["pow", "sin"]);
}

#[test]
fn the_interpreter_and_the_cpu_backend_give_the_same_bits() {
    let (g, p) = (small_global(), program());
    let mut want = args();
    Interpreter.run(&p, &Variant::new(), g, &mut want).unwrap();
    let mut got = args();
    cpu().run(&p, &Variant::new(), g, &mut got).unwrap();
    assert_fields_bitwise("exp/log", "cpu", &want, &got);
    // And they are within 1 ulp of the host's library where it is finite.
    let (x, e) = (want.field("x").unwrap(), want.field("e").unwrap());
    for (x, e) in x.as_f64().unwrap().iter().zip(e.as_f64().unwrap()) {
        let libm = x.exp();
        assert!(
            e.to_bits().abs_diff(libm.to_bits()) <= 1 || (e.is_nan() && libm.is_nan()),
            "exp({x:e}) = {e:e}, libm {libm:e}"
        );
    }
}

#[test]
fn cuda_gives_the_interpreters_bits() {
    let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("the portable exp/log test") else {
        return;
    };
    let (g, p) = (small_global(), program());
    let mut want = args();
    Interpreter.run(&p, &Variant::new(), g, &mut want).unwrap();
    let mut got = args();
    cuda.run(&p, &Variant::new(), g, &mut got).unwrap();
    assert_fields_bitwise("exp/log", "cuda", &want, &got);
}
