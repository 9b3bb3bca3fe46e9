//! foehn's test kit: a deterministic random number generator, random fields, a
//! generator of random well-typed programs for backend-agreement property tests, the
//! catalog entry type (program, realistic inputs, reference) with the language's
//! example programs, the one output comparator, the one list of test grids and the GPU
//! tests' CUDA backend (or their skip without a GPU).
//! Production code (the compiler, runtime and the dycore components) does not depend
//! on it; tests, benchmarks and the catalog do.
#![deny(missing_docs)]

pub mod catalog;
pub mod compare;
pub mod examples;
pub mod fuzz;
mod gen;
pub mod gpu;
pub mod grids;
mod rng;

pub use gen::{random_args, GenConfig, RandomProgram};
pub use rng::SplitMix64;

use foehn::dsl::IntoDims;
use foehn::ir::{DType, Scalar};
use foehn::runtime::field::Field;
use foehn_grid::Grid;

/// A field shaped for `grid` with `nlev` levels and random values: floats uniform in
/// `[lo, hi)`, integers uniform in `[lo, hi)` (truncated), booleans fair coins.
pub fn random_field(
    rng: &mut SplitMix64,
    grid: &Grid,
    nlev: usize,
    dims: impl IntoDims,
    dtype: DType,
    lo: f64,
    hi: f64,
) -> Field {
    Field::from_fn(grid, nlev, dims, dtype, |_| match dtype {
        DType::F64 => Scalar::F64(rng.range_f64(lo, hi)),
        DType::F32 => Scalar::F32(rng.range_f64(lo, hi) as f32),
        DType::I32 => Scalar::I32(rng.range_f64(lo, hi).floor() as i32),
        DType::Bool => Scalar::Bool(rng.chance(0.5)),
    })
}

/// Asserts that the writable argument fields of `got` equal those of `want` bit for bit
/// wherever `want` (the program as written) holds a value: a NaN in `want` marks a read
/// of a temporary outside the points its producer computed — undefined, so an
/// optimised program may compute anything there.
pub fn assert_same_where_defined(
    what: &str,
    ir: &foehn::ir::Program,
    want: &foehn::runtime::field::Args,
    got: &foehn::runtime::field::Args,
) {
    for d in ir
        .fields
        .iter()
        .filter(|d| d.role.writable() && d.role != foehn::ir::Role::Temp)
    {
        let (a, b) = (
            want.field(&d.name).expect("argument").data(),
            got.field(&d.name).expect("argument").data(),
        );
        for i in 0..a.len() {
            let (x, y) = (a.get(i).as_f64(), b.get(i).as_f64());
            assert!(
                x.is_nan() || x.to_bits() == y.to_bits(),
                "{what}: `{}`[{i}]: {x:e} vs {y:e}",
                d.name
            );
        }
    }
}

/// The names of `p`'s temporaries, in declaration order.
pub fn temporary_names(p: &foehn::ir::Program) -> Vec<&str> {
    p.fields
        .iter()
        .filter(|d| d.role == foehn::ir::Role::Temp)
        .map(|d| d.name.as_str())
        .collect()
}

/// A cell temporary read by edges through neighbours (the cold-pool pattern): a cell
/// value minus the mean of its three neighbours, then per edge the maximum over its two
/// cells. Recomputing the temporary at both cells loads θ at 4 cells each; the
/// optimiser stages it (tests of inlining, staging and the CUDA tile code).
pub fn deviation_then_edge_max() -> foehn::dsl::ProgramDef {
    use foehn::dsl::prelude::*;
    ProgramDef::new("deviation_then_edge_max", |b| {
        let theta = b.input("theta", (CELL, K), F64);
        let dev = b.temporary("dev", (CELL, K), F64);
        let out = b.output("edge_max", (EDGE, K), F64);
        b.stencil(
            "deviation",
            &dev,
            &theta - theta.shift(C2E2C).sum_over(C2E2C) / 3.0,
        );
        b.stencil("edge_max", &out, dev.shift(E2C).max_over(E2C));
    })
}
