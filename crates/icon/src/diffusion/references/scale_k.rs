//! The plain-Rust reference that checks the program
//! [`scale_k`](crate::diffusion::stencils::scale_k):
//! written straight from the math of that module's doc, independently of the DSL.

use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_output};
use foehn::runtime::field::Args;
use foehn_grid::Grid;

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
