//! `scale_k`: the Smagorinsky factor of this step, `diff_multfac_smag(k) =
//! enh_smag_fac(k) · dtime` (ICON4Py `diffusion_utils.scale_k(field, factor, scaled_field)`,
//! called as `scale_k(enh_smag_fac, dtime, diff_multfac_smag)`).
//!
//! ```text
//! scaled_field(k) = field(k) · factor        for k in [0, nlev)
//! ```
//!
//! Input and output are K-only fields (ICON4Py `KField`), computed as one column.

use foehn::dsl::prelude::*;
use foehn::error::Result;
use foehn::ir::{self, Scalar};
use foehn::runtime::field::access::{f64s, scalar_f64, with_output};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::catalog::Entry;
use foehn_testkit::SplitMix64;

/// Program name.
pub const NAME: &str = "scale_k";

/// Field operator: `field · factor`.
pub fn scale_k_op(field: &Expr, factor: &Expr) -> Expr {
    field * factor
}

/// Adds the program's stencil `scale_k` to `b`: `scaled_field(k) = field(k) · factor` on
/// levels `[0, nlev)` (shared by [`program`] and the fused diffusion step).
pub fn add_stencils(b: &mut ProgramBuilder, field: &Expr, factor: &Expr, scaled_field: &Expr) {
    b.stencil("scale_k", scaled_field, scale_k_op(field, factor))
        .vertical(0, nlev());
}

/// The DSL program: `scaled_field(k) = field(k) · factor` on levels `[0, nlev)`.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let field = b.input("field", K, F64);
        let factor = b.scalar("factor", F64);
        let scaled_field = b.output("scaled_field", K, F64);
        add_stencils(b, &field, &factor, &scaled_field);
    })
}

/// Plain-Rust reference: `scaled_field(k) = field(k) · factor`.
pub fn reference(_program: &ir::Program, _grid: &Grid, args: &mut Args) -> Result<()> {
    with_output(args, "scaled_field", |args, out| {
        let field = f64s(args, "field")?;
        let factor = scalar_f64(args, "factor")?;
        for (k, f) in field.iter().enumerate() {
            out[k] = f * factor;
        }
        Ok(())
    })
}

/// Realistic random inputs: `field` = `enh_smag_fac` (the Smagorinsky scaling factor
/// 0.015, enhanced up to 4× towards the model top), `factor` = `dtime` in [30, 900) s.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = foehn_testkit::random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5eed_0001);
    args.set_field(
        "field",
        Field::from_fn(grid, nlev, K, F64, |_| {
            Scalar::F64(rng.range_f64(0.015, 0.06))
        }),
    );
    args.set_scalar("factor", rng.range_f64(30.0, 900.0));
    args.set_field(
        "scaled_field",
        Field::from_fn(grid, nlev, K, F64, |_| {
            Scalar::F64(rng.range_f64(0.5, 50.0))
        }),
    );
    args
}

/// Catalog entry.
pub fn entry() -> Entry {
    Entry::new(NAME, program, inputs, reference)
}
