//! The plain-Rust reference that checks the program
//! [`init_cell_kdim_field_with_zero_wp`](crate::solve_nonhydro::stencils::init_cell_kdim_field_with_zero_wp):
//! written straight from the math of that module's doc, independently of the DSL.

use super::{cell_levels, for_each_cell_point, lateral_boundary_cells};
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::with_output;
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// Plain-Rust reference: zero on the cells `[LATERAL_BOUNDARY, LATERAL_BOUNDARY_LEVEL_4
/// end)` × half levels `[0, nlev]`.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let cells = lateral_boundary_cells(grid)?;
    let levels = cell_levels(grid, args, "field_with_zero_wp")?;
    with_output(args, "field_with_zero_wp", |_, field| {
        for_each_cell_point(grid, cells, (0, levels), |_, i| field[i] = 0.0);
        Ok(())
    })
}
