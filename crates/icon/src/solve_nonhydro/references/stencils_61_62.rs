//! The plain-Rust reference that checks the program
//! [`stencils_61_62`](crate::solve_nonhydro::stencils::stencils_61_62): written straight
//! from the math of that module's doc, independently of the DSL.

use super::{cell_levels, for_each_cell_point, lateral_boundary_cells};
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// Plain-Rust reference over the cells `[LATERAL_BOUNDARY, LATERAL_BOUNDARY_LEVEL_4
/// end)`: ρ and θv on levels `[0, nlev)`, `w` on `[0, nlev]`.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let cells = lateral_boundary_cells(grid)?;
    let nlev = cell_levels(grid, args, "rho_now")?;
    let dtime = scalar_f64(args, "dtime")?;
    with_outputs(args, &["rho_new", "exner_new", "w_new"], |args, out| {
        let (rho_now, grf_tend_rho) = (f64s(args, "rho_now")?, f64s(args, "grf_tend_rho")?);
        let (theta_v_now, grf_tend_thv) = (f64s(args, "theta_v_now")?, f64s(args, "grf_tend_thv")?);
        let (w_now, grf_tend_w) = (f64s(args, "w_now")?, f64s(args, "grf_tend_w")?);
        let [rho_new, exner_new, w_new] = out else {
            unreachable!("three outputs")
        };
        for_each_cell_point(grid, cells, (0, nlev), |_, i| {
            rho_new[i] = rho_now[i] + dtime * grf_tend_rho[i];
            exner_new[i] = theta_v_now[i] + dtime * grf_tend_thv[i];
        });
        for_each_cell_point(grid, cells, (0, nlev + 1), |_, i| {
            w_new[i] = w_now[i] + dtime * grf_tend_w[i];
        });
        Ok(())
    })
}
