//! Test support: a deterministic random number generator, random fields, and a
//! generator of random well-typed programs for backend-agreement property tests.

mod gen;
mod rng;

pub use gen::{random_args, GenConfig, RandomProgram};
pub use rng::SplitMix64;

use crate::dsl::IntoDims;
use crate::field::Field;
use crate::ir::{DType, Scalar};
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
