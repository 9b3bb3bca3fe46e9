//! The fixed parts of the generated translation units: C and CUDA preludes (types,
//! the argument block `foehn_ctx`) and helper functions.

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
