//! The plain-Rust reference that checks the program
//! [`update_mass_flux_weighted`](crate::solve_nonhydro::stencils::update_mass_flux_weighted):
//! written straight from the math of that module's doc, independently of the DSL.

use super::{cell_levels, for_each_cell_point, lateral_boundary_cells};
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_output};
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// Plain-Rust reference over the cells `[LATERAL_BOUNDARY, LATERAL_BOUNDARY_LEVEL_4
/// end)` × half levels `[1, nlev)`.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let cells = lateral_boundary_cells(grid)?;
    let nlev = cell_levels(grid, args, "rho_ic")? - 1;
    let r_nsubsteps = scalar_f64(args, "r_nsubsteps")?;
    with_output(args, "mass_flx_ic", |args, mass_flx_ic| {
        let rho_ic = f64s(args, "rho_ic")?;
        let (expl, imp) = (f64s(args, "vwind_expl_wgt")?, f64s(args, "vwind_impl_wgt")?);
        let (w_now, w_new) = (f64s(args, "w_now")?, f64s(args, "w_new")?);
        let w_concorr_c = f64s(args, "w_concorr_c")?;
        for_each_cell_point(grid, cells, (1, nlev), |c, i| {
            let w = expl[c] * w_now[i] + imp[c] * w_new[i] - w_concorr_c[i];
            mass_flx_ic[i] += r_nsubsteps * rho_ic[i] * w;
        });
        Ok(())
    })
}
