//! The plain-Rust reference that checks the program
//! [`compute_interpolation_and_nonhydro_buoy`](crate::solve_nonhydro::stencils::compute_interpolation_and_nonhydro_buoy):
//! written straight from the math of that module's doc, independently of the DSL.

use super::{cell_levels, cells, for_each_cell_point};
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::{Grid, Location, Zone};

/// The outputs, in ICON4Py's order: `rho_ic`, `theta_v_ic` (half levels) and
/// `z_th_ddz_exner_c` (`nlev` levels).
const OUTPUTS: [&str; 3] = [
    "rho_at_cells_on_half_levels",
    "theta_v_at_cells_on_half_levels",
    "nonhydro_buoy_at_cells_on_half_levels",
];

/// Plain-Rust reference over the cells `[LATERAL_BOUNDARY_LEVEL_3, LOCAL end)` ×
/// interfaces `[1, nlev)`.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let domain = cells(grid, Zone::LateralBoundary(3), Zone::Local)?;
    let nlev = cell_levels(grid, args, "current_rho")?;
    let nc = grid.size(Location::Cell);
    let dtime = scalar_f64(args, "dtime")?;
    let wnow = scalar_f64(args, "rhotheta_explicit_weight_parameter")?;
    let wnew = scalar_f64(args, "rhotheta_implicit_weight_parameter")?;
    with_outputs(args, &OUTPUTS, |args, out| {
        let w = f64s(args, "w")?;
        let w_concorr_c = f64s(args, "contravariant_correction_at_cells_on_half_levels")?;
        let (rho_now, rho_new) = (f64s(args, "current_rho")?, f64s(args, "next_rho")?);
        let theta_now = f64s(args, "current_theta_v")?;
        let theta_new = f64s(args, "next_theta_v")?;
        let exner_pr = f64s(args, "perturbed_exner_at_cells_on_model_levels")?;
        let theta_ref = f64s(args, "reference_theta_at_cells_on_model_levels")?;
        let dexner_ref = f64s(args, "ddz_of_reference_exner_at_cells_on_half_levels")?;
        let ddqz_z_half = f64s(args, "ddqz_z_half")?;
        let wgtfac_c = f64s(args, "wgtfac_c")?;
        let expl = f64s(args, "exner_w_explicit_weight_parameter")?;
        let [rho_ic, theta_ic, buoy] = out else {
            unreachable!("three outputs")
        };
        for_each_cell_point(grid, domain, (1, nlev), |c, i| {
            // `i` is interface k of cell c, and full level k (below it); `above` is
            // full level k − 1.
            let above = i - nc;
            let backtraj = -(w[i] - w_concorr_c[i]) * dtime * 0.5 / ddqz_z_half[i];
            let (g, h) = (wgtfac_c[i], 1.0 - wgtfac_c[i]);
            let rho_below = wnow * rho_now[i] + wnew * rho_new[i];
            let rho_above = wnow * rho_now[above] + wnew * rho_new[above];
            let theta_below = wnow * theta_now[i] + wnew * theta_new[i];
            let theta_above = wnow * theta_now[above] + wnew * theta_new[above];
            rho_ic[i] = g * rho_below + h * rho_above + backtraj * (rho_above - rho_below);
            theta_ic[i] =
                g * theta_below + h * theta_above + backtraj * (theta_above - theta_below);
            let theta_pr_ic =
                g * (theta_below - theta_ref[i]) + h * (theta_above - theta_ref[above]);
            buoy[i] = expl[c] * theta_ic[i] * (exner_pr[above] - exner_pr[i]) / ddqz_z_half[i]
                + theta_pr_ic * dexner_ref[i];
        });
        Ok(())
    })
}
