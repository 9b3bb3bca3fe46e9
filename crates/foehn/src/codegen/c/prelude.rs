//! The fixed parts of the generated translation units: C and CUDA preludes (types,
//! the argument block `foehn_ctx`) and helper functions.

use crate::ir::portable_math as pm;
use crate::ir::Program;

pub(super) const C_PRELUDE: &str = r#"#include <stdint.h>
#include <math.h>

#define FOEHN_RESTRICT restrict
#define FOEHN_FN static inline
typedef int64_t foehn_idx;
typedef union { double f64; float f32; int32_t i32; uint8_t b; } foehn_scalar;
typedef struct {
    const void* const* rd;
    void* const* wr;
    const int64_t* sh;
    const int64_t* sj;
    const int64_t* sk;
    const int64_t* nk;
    const int32_t* const* tab;
    const foehn_scalar* sc;
    const int64_t* bounds;
    int32_t* err;
    const int64_t* dom;
} foehn_ctx;

#define FOEHN_ERR(site) __atomic_store_n(ctx->err, (site) + 1, __ATOMIC_RELAXED)
FOEHN_FN uint64_t foehn_f64_bits(double x) { union { double d; uint64_t u; } v; v.d = x; return v.u; }
FOEHN_FN double foehn_f64_from_bits(uint64_t b) { union { double d; uint64_t u; } v; v.u = b; return v.d; }
"#;

pub(super) const CUDA_PRELUDE: &str = r#"typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef unsigned char uint8_t;
#define INT32_MAX 2147483647
#define INT32_MIN (-2147483647 - 1)
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)
#define FOEHN_RESTRICT __restrict__
#define FOEHN_FN __device__ static inline
#ifdef FOEHN_IDX32
typedef int foehn_idx;
#else
typedef long long foehn_idx;
#endif
typedef union { double f64; float f32; int32_t i32; uint8_t b; } foehn_scalar;
#define FOEHN_ERR(site) atomicExch(ctx->err, (site) + 1)
FOEHN_FN uint64_t foehn_f64_bits(double x) { return (uint64_t)__double_as_longlong(x); }
FOEHN_FN double foehn_f64_from_bits(uint64_t b) { return __longlong_as_double((long long)b); }
"#;

pub(super) const HELPERS: &str = r#"FOEHN_FN int32_t foehn_f2i(double x) {
    if (x != x) return 0;
    if (x >= 2147483647.0) return INT32_MAX;
    if (x <= -2147483648.0) return INT32_MIN;
    return (int32_t)x;
}
FOEHN_FN int32_t foehn_imin(int32_t a, int32_t b) { return a < b ? a : b; }
FOEHN_FN int32_t foehn_imax(int32_t a, int32_t b) { return a > b ? a : b; }
FOEHN_FN int32_t foehn_wrap(int64_t x) { return (int32_t)(uint32_t)(uint64_t)x; }
"#;

/// The CUDA argument block: every member 8 bytes, arrays sized for the program; `dom`
/// holds the member domains `[h0, h1, k0, k1]` of the kernel being launched.
pub(super) fn cuda_ctx(prog: &Program, n_bounds: usize, max_members: usize) -> String {
    let nf = prog.fields.len().max(1);
    let ns = prog.scalars.len().max(1);
    let nb = n_bounds.max(1);
    let nd = 4 * max_members.max(1);
    format!(
        "typedef struct {{\n    const void* rd[{nf}];\n    void* wr[{nf}];\n    int64_t sh[{nf}];\n    \
         int64_t sj[{nf}];\n    int64_t sk[{nf}];\n    int64_t nk[{nf}];\n    const int32_t* tab[14];\n    \
         foehn_scalar sc[{ns}];\n    int64_t bounds[{nb}];\n    int32_t* err;\n    int64_t dom[{nd}];\n    \
         const int32_t* tile_list;\n    const int32_t* tile_count;\n    const int32_t* tile_pos;\n    \
         int64_t tile_m;\n}} foehn_ctx;\n"
    )
}

/// The C twins of [`crate::ir::portable_math`]'s `exp` and `log`: the same operations in
/// the same order and the same constants (printed shortest round-trip), so C, CUDA and
/// the interpreter give the same bits (ADR 0035). Formatted once per process.
pub(super) fn portable_math() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(portable_math_text)
}

fn portable_math_text() -> String {
    let horner = |var: &str, coeffs: &[f64], x: &str| {
        let (last, rest) = coeffs.split_last().expect("coefficients");
        let mut out = format!("    double {var} = {last:e};\n");
        for c in rest.iter().rev() {
            out.push_str(&format!("    {var} = {var} * {x} + {c:e};\n"));
        }
        out
    };
    let inf = "foehn_f64_from_bits(0x7FF0000000000000ULL)";
    format!(
        "FOEHN_FN double foehn_pow2(int64_t n) {{ return foehn_f64_from_bits((uint64_t)(n + 1023) << 52); }}
FOEHN_FN double foehn_exp(double x) {{
    if (x != x) return x;
    if (x > {max:e}) return {inf};
    if (x < {min:e}) return 0.0;
    double k = floor(x * {inv_ln2:e} + 0.5);
    double r = (x - k * {hi:e}) - k * {lo:e};
{exp_poly}    double y = (p * r + 1.0) * r + 1.0;
    int64_t n = (int64_t)k;
    if (n > 1023) return y * foehn_pow2(1023) * foehn_pow2(n - 1023);
    if (n < -1022) return y * foehn_pow2(n + 54) * foehn_pow2(-54);
    return y * foehn_pow2(n);
}}
FOEHN_FN double foehn_log(double x) {{
    if (x != x || x < 0.0) return foehn_f64_from_bits(0x7FF8000000000000ULL);
    if (x == 0.0) return -{inf};
    if (x == {inf}) return x;
    uint64_t bits = foehn_f64_bits(x);
    int64_t e = 0;
    if (bits < ((uint64_t)1 << 52)) {{ bits = foehn_f64_bits(x * foehn_pow2(54)); e = -54; }}
    e += (int64_t)(bits >> 52) - 1023;
    double m = foehn_f64_from_bits((bits & 0x000FFFFFFFFFFFFFULL) | 0x3FF0000000000000ULL);
    if (m > {sqrt2:e}) {{ m *= 0.5; e += 1; }}
    double f = m - 1.0;
    double s = f / (2.0 + f);
    double z = s * s;
{log_poly}    double hfsq = 0.5 * f * f;
    double r = 2.0 * z * p;
    double l = f - (hfsq - s * (hfsq + r));
    double ef = (double)e;
    return ef * {hi:e} + (l + ef * {lo:e});
}}
",
        max = pm::EXP_MAX,
        min = pm::EXP_MIN,
        inv_ln2 = pm::INV_LN2,
        hi = pm::LN2_HI,
        lo = pm::LN2_LO,
        sqrt2 = pm::SQRT2,
        exp_poly = horner("p", &pm::INV_FACTORIALS, "r"),
        log_poly = horner("p", &pm::INV_ODD, "z"),
    )
}
