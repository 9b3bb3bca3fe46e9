//! The plain-Rust reference that checks the program
//! [`compute_rayleigh_damping_factor`](crate::solve_nonhydro::stencils::compute_rayleigh_damping_factor):
//! written straight from the math of that module's doc, independently of the DSL.

use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_output};
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// Plain-Rust reference: `rayleigh_damping_factor(k) = 1/(1 + dtime·rayleigh_w(k))` for
/// every level `k` of the output (`nlev`; the interface `nlev` of `rayleigh_w` unread).
pub fn reference(_program: &ir::Program, _grid: &Grid, args: &mut Args) -> Result<()> {
    let dtime = scalar_f64(args, "dtime")?;
    with_output(args, "rayleigh_damping_factor", |args, factor| {
        let rayleigh_w = f64s(args, "rayleigh_w")?;
        for (k, out) in factor.iter_mut().enumerate() {
            *out = 1.0 / (1.0 + dtime * rayleigh_w[k]);
        }
        Ok(())
    })
}
