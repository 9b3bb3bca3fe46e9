//! foehn's own `exp` and `log`, computed with the same operations in the same order by
//! every engine: the interpreter and constant folding call these Rust functions, the C
//! and CUDA code generators emit their C twins (`foehn_exp`, `foehn_log` in
//! `codegen::c::prelude`). Each engine's math library would round differently in the
//! last bit (the host's libm against CUDA's); with these, the engines agree bit for bit
//! (ADR 0035). Both are within 1 ulp of the correctly rounded result; only `+ − × ÷`,
//! `floor` and exponent-bit arithmetic are used, none of which a compiler may contract.
//!
//! `exp`: `x = k·ln 2 + r`, `k = ⌊x/ln 2 + ½⌋`, `|r| ≤ ln 2 / 2` (ln 2 in two parts so
//! that `k·ln2_hi` is exact), `eʳ` by its Taylor series to `r¹³/13!`, then `2ᵏ` through
//! the exponent bits (in two factors where `2ᵏ` or the result leaves the normal range).
//! `log`: `x = 2ᵉ·m`, `m ∈ [√½, √2)`, `f = m − 1` (exact), `s = f/(2 + f)`,
//! `log(1 + f) = 2 artanh s = f − (f²/2 − s·(f²/2 + R))` with
//! `R = 2s²·Σ s²ⁿ⁻²/(2n + 1)` to `n = 10`, plus `e·ln 2` in two parts.

/// ln 2, leading 32 bits (its product with any exponent is exact).
pub const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
/// ln 2 − [`LN2_HI`].
pub const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
/// 1 / ln 2.
pub const INV_LN2: f64 = f64::from_bits(0x3FF7_1547_652B_82FE);
/// √2 (rounded).
pub const SQRT2: f64 = f64::from_bits(0x3FF6_A09E_667F_3BCD);
/// Largest `x` with a finite `eˣ`.
pub const EXP_MAX: f64 = 709.782712893384;
/// Below this `eˣ` rounds to zero.
pub const EXP_MIN: f64 = -745.1332191019412;
/// `1/n!` for `n = 2, …, 13`.
pub const INV_FACTORIALS: [f64; 12] = [
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362880.0,
    1.0 / 3628800.0,
    1.0 / 39916800.0,
    1.0 / 479001600.0,
    1.0 / 6227020800.0,
];
/// `1/(2n + 1)` for `n = 1, …, 10`.
pub const INV_ODD: [f64; 10] = [
    1.0 / 3.0,
    1.0 / 5.0,
    1.0 / 7.0,
    1.0 / 9.0,
    1.0 / 11.0,
    1.0 / 13.0,
    1.0 / 15.0,
    1.0 / 17.0,
    1.0 / 19.0,
    1.0 / 21.0,
];

/// `2ⁿ` for `n ∈ [−1022, 1023]`.
fn pow2(n: i64) -> f64 {
    f64::from_bits(((n + 1023) as u64) << 52)
}

/// `eˣ` within 1 ulp, the same bits on every engine.
pub fn exp(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > EXP_MAX {
        return f64::INFINITY;
    }
    if x < EXP_MIN {
        return 0.0;
    }
    let k = (x * INV_LN2 + 0.5).floor();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut p = INV_FACTORIALS[11];
    for c in INV_FACTORIALS[..11].iter().rev() {
        p = p * r + c;
    }
    let y = (p * r + 1.0) * r + 1.0;
    let k = k as i64;
    if k > 1023 {
        y * pow2(1023) * pow2(k - 1023)
    } else if k < -1022 {
        y * pow2(k + 54) * pow2(-54)
    } else {
        y * pow2(k)
    }
}

/// The natural logarithm within 1 ulp, the same bits on every engine (NaN for
/// negative `x` and NaN, −∞ for ±0).
pub fn log(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x == f64::INFINITY {
        return x;
    }
    let (mut bits, mut e) = (x.to_bits(), 0i64);
    if bits < 1 << 52 {
        bits = (x * pow2(54)).to_bits();
        e = -54;
    }
    e += (bits >> 52) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000);
    if m > SQRT2 {
        m *= 0.5;
        e += 1;
    }
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let mut p = INV_ODD[9];
    for c in INV_ODD[..9].iter().rev() {
        p = p * z + c;
    }
    let hfsq = 0.5 * f * f;
    let r = 2.0 * z * p;
    let l = f - (hfsq - s * (hfsq + r));
    let ef = e as f64;
    ef * LN2_HI + (l + ef * LN2_LO)
}

/// The same functions on `f32`: computed in `f64` and rounded.
pub fn exp_f32(x: f32) -> f32 {
    exp(f64::from(x)) as f32
}

/// See [`exp_f32`].
pub fn log_f32(x: f32) -> f32 {
    log(f64::from(x)) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `|a − b|` in units in the last place of `b`.
    fn ulps(a: f64, b: f64) -> f64 {
        if a == b {
            return 0.0;
        }
        let u = b.abs().max(f64::MIN_POSITIVE).to_bits();
        ((a - b) / (f64::from_bits(u + 1) - f64::from_bits(u))).abs()
    }

    /// xorshift64 uniform in [0, 1).
    fn uniform(s: &mut u64) -> f64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        (*s >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn exp_is_within_one_ulp_of_the_host_library_over_its_range() {
        let mut s = 0x9E37_79B9_7F4A_7C15;
        for i in 0..200_000 {
            let u = uniform(&mut s);
            let x = match i % 4 {
                0 => EXP_MIN + (EXP_MAX - EXP_MIN) * u,
                1 => -5.0 + 10.0 * u,
                2 => -1e-3 + 2e-3 * u,
                _ => -746.0 + 40.0 * u, // subnormal results and underflow
            };
            assert!(ulps(exp(x), x.exp()) <= 1.0, "exp({x:e}) = {:e}", exp(x));
        }
    }

    #[test]
    fn log_is_within_one_ulp_of_the_host_library_over_its_range() {
        let mut s = 0x2545_F491_4F6C_DD1D;
        for i in 0..200_000 {
            let u = uniform(&mut s);
            let x = match i % 4 {
                0 => f64::from_bits((u * 0x7FEF_FFFF_FFFF_FFFFu64 as f64) as u64),
                1 => 0.5 + u,
                2 => 1.0 + (u - 0.5) * 1e-6,
                _ => f64::from_bits((u * (1u64 << 52) as f64) as u64 + 1), // subnormal
            };
            assert!(ulps(log(x), x.ln()) <= 1.0, "log({x:e}) = {:e}", log(x));
        }
    }

    #[test]
    fn special_values_are_ieee_s() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-0.0), 1.0);
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(710.0), f64::INFINITY);
        assert_eq!(exp(-746.0), 0.0);
        assert_eq!(exp(EXP_MIN + 1e-9), 5e-324);
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(log(1.0), 0.0);
        assert_eq!(log(0.0), f64::NEG_INFINITY);
        assert_eq!(log(-0.0), f64::NEG_INFINITY);
        assert_eq!(log(f64::INFINITY), f64::INFINITY);
        assert!(log(-1.0).is_nan() && log(f64::NAN).is_nan());
        assert_eq!(log(2.0), std::f64::consts::LN_2);
        assert_eq!(log(std::f64::consts::E), 1.0);
        assert_eq!(log(5e-324), (5e-324f64).ln());
        assert_eq!(exp_f32(1.0), std::f32::consts::E);
        assert_eq!(log_f32(std::f32::consts::E), std::f32::consts::E.ln());
    }
}
