//! The plain-Rust reference that checks the program
//! [`compute_exner_from_rhotheta`](crate::solve_nonhydro::stencils::compute_exner_from_rhotheta):
//! written straight from the math of that module's doc, independently of the DSL.

use super::{cell_levels, for_each_cell_point, lateral_boundary_cells};
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// The Exner pressure `(rd/p0ref·ρ·θv)^(rd/cvd)` from the equation of state, as ICON
/// computes it: `exp(rd_o_cvd·ln(rd_o_p0ref·ρ·θv))`.
pub fn exner_from_rho_theta(rho: f64, theta_v: f64, rd_o_cvd: f64, rd_o_p0ref: f64) -> f64 {
    (rd_o_cvd * (rd_o_p0ref * rho * theta_v).ln()).exp()
}

/// Plain-Rust reference over the cells `[LATERAL_BOUNDARY, LATERAL_BOUNDARY_LEVEL_4
/// end)` × levels `[0, nlev)`.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let cells = lateral_boundary_cells(grid)?;
    let nlev = cell_levels(grid, args, "rho")?;
    let rd_o_cvd = scalar_f64(args, "rd_o_cvd")?;
    let rd_o_p0ref = scalar_f64(args, "rd_o_p0ref")?;
    with_outputs(args, &["theta_v", "exner"], |args, out| {
        let rho = f64s(args, "rho")?;
        let [theta_v, exner] = out else {
            unreachable!("two outputs")
        };
        for_each_cell_point(grid, cells, (0, nlev), |_, i| {
            let stored_theta_v = exner[i];
            theta_v[i] = stored_theta_v;
            exner[i] = exner_from_rho_theta(rho[i], stored_theta_v, rd_o_cvd, rd_o_p0ref);
        });
        Ok(())
    })
}
