//! The plain-Rust reference that checks the program
//! [`compute_dwdz_for_divergence_damping`](crate::solve_nonhydro::stencils::compute_dwdz_for_divergence_damping):
//! written straight from the math of that module's doc, independently of the DSL.

use super::{cell_levels, for_each_cell_point, lateral_boundary_cells};
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::{f64s, with_output};
use foehn::runtime::field::Args;
use foehn_grid::{Grid, Location};

/// Plain-Rust reference over the cells `[LATERAL_BOUNDARY, LATERAL_BOUNDARY_LEVEL_4
/// end)` × levels `[0, nlev)`.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let cells = lateral_boundary_cells(grid)?;
    let nlev = cell_levels(grid, args, "inv_ddqz_z_full")?;
    let nc = grid.size(Location::Cell);
    with_output(args, "z_dwdz_dd", |args, z_dwdz_dd| {
        let inv_ddqz = f64s(args, "inv_ddqz_z_full")?;
        let (w, w_concorr_c) = (f64s(args, "w")?, f64s(args, "w_concorr_c")?);
        for_each_cell_point(grid, cells, (0, nlev), |_, i| {
            // Half level i is the interface above full level i, i + nc the one below.
            let dw = w[i] - w[i + nc];
            let dw_concorr = w_concorr_c[i] - w_concorr_c[i + nc];
            z_dwdz_dd[i] = inv_ddqz[i] * (dw - dw_concorr);
        });
        Ok(())
    })
}
