//! The plain-Rust reference that checks the program
//! [`compute_perturbed_quantities_and_interpolation`](crate::solve_nonhydro::stencils::compute_perturbed_quantities_and_interpolation):
//! written straight from the math and the domain table of that module's doc,
//! independently of the DSL, one cell column at a time.

use super::{cell_levels, cells};
use crate::solve_nonhydro::stencils::compute_perturbed_quantities_and_interpolation::{
    NAME, NFLATLEV, NFLAT_GRADP, TAYLOR_HYDRO,
};
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::{Grid, Location, Zone};

/// The written fields, in ICON4Py's argument order.
const OUTPUTS: [&str; 9] = [
    "temporal_extrapolation_of_perturbed_exner",
    "ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels",
    "d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels",
    "perturbed_exner_at_cells_on_model_levels",
    "perturbed_rho_at_cells_on_model_levels",
    "perturbed_theta_v_at_cells_on_model_levels",
    "rho_at_cells_on_half_levels",
    "theta_v_at_cells_on_half_levels",
    "nonhydro_buoy_at_cells_on_half_levels",
];

/// The i32 static `name` of `program` (`default` when absent), refused when negative.
fn static_of(program: &ir::Program, name: &str, default: i32) -> Result<i32> {
    match program.variant.get(name) {
        None => Ok(default),
        Some(ir::StaticValue::I32(n)) if n >= 0 => Ok(n),
        Some(other) => Err(Error::Variant {
            program: NAME.into(),
            message: format!("static `{name}` must be an i32 ≥ 0, not {other}"),
        }),
    }
}

/// The surface value `Σ_{j=1..3} wgtfacq_c(nlev−j)·x(nlev−j)` of the column `x` (full
/// levels) of cell `c`.
fn extrapolate_to_surface(wgtfacq_c: &[f64], x: &[f64], c: usize, nc: usize, nlev: usize) -> f64 {
    (1..=3)
        .map(|j| wgtfacq_c[c + nc * (nlev - j)] * x[nlev - j])
        .sum()
}

/// Plain-Rust reference: each cell of `[LATERAL_BOUNDARY_LEVEL_3, HALO_LEVEL_2 end)`
/// computes its whole column and writes each output on its own cells and levels (the
/// module doc's table).
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let igradp_method = static_of(program, "igradp_method", TAYLOR_HYDRO)?;
    if igradp_method != TAYLOR_HYDRO {
        return Err(Error::Variant {
            program: NAME.into(),
            message: format!("only igradp_method = {TAYLOR_HYDRO}, not {igradp_method}"),
        });
    }
    let flat = static_of(program, "nflatlev", NFLATLEV)?.max(1) as usize;
    let flat_gradp = static_of(program, "nflat_gradp", NFLAT_GRADP)?.max(1) as usize;
    let (c0, halo_2) = cells(grid, Zone::LateralBoundary(3), Zone::Halo(2))?;
    let local = cells(grid, Zone::LateralBoundary(3), Zone::Local)?.1;
    let halo = cells(grid, Zone::LateralBoundary(3), Zone::Halo(1))?.1;
    let nlev = cell_levels(grid, args, "current_rho")?;
    let nc = grid.size(Location::Cell);
    with_outputs(args, &OUTPUTS, |args, out| {
        let (rho, rho_ref) = (
            f64s(args, "current_rho")?,
            f64s(args, "reference_rho_at_cells_on_model_levels")?,
        );
        let (theta, theta_ref) = (
            f64s(args, "current_theta_v")?,
            f64s(args, "reference_theta_at_cells_on_model_levels")?,
        );
        let theta_ref_ic = f64s(args, "reference_theta_at_cells_on_half_levels")?;
        let (wgtfacq_c, wgtfac_c) = (f64s(args, "wgtfacq_c")?, f64s(args, "wgtfac_c")?);
        let expl = f64s(args, "exner_w_explicit_weight_parameter")?;
        let dexner_ref = f64s(args, "ddz_of_reference_exner_at_cells_on_half_levels")?;
        let ddqz_z_half = f64s(args, "ddqz_z_half")?;
        let exfac = f64s(args, "time_extrapolation_parameter_for_exner")?;
        let (exner, exner_ref) = (
            f64s(args, "current_exner")?,
            f64s(args, "reference_exner_at_cells_on_model_levels")?,
        );
        let inv_dz = f64s(args, "inv_ddqz_z_full")?;
        let (fac1, fac2) = (
            f64s(args, "d2dexdz2_fac1_mc")?,
            f64s(args, "d2dexdz2_fac2_mc")?,
        );
        let [ex_pr, dexner_1, dexner_2, exner_pr, rth_pr_1, rth_pr_2, rho_ic, theta_ic, buoy] = out
        else {
            unreachable!("nine outputs")
        };
        for (c, &vwind_expl_wgt) in expl.iter().enumerate().take(halo_2).skip(c0) {
            let at = |k: usize| c + nc * k;
            // The column's full-level quantities (index k = full level k).
            let pr_rho: Vec<f64> = (0..nlev).map(|k| rho[at(k)] - rho_ref[at(k)]).collect();
            let pr_theta: Vec<f64> = (0..nlev).map(|k| theta[at(k)] - theta_ref[at(k)]).collect();
            for k in 0..nlev {
                rth_pr_1[at(k)] = pr_rho[k];
                rth_pr_2[at(k)] = pr_theta[k];
            }
            if c >= halo {
                continue;
            }
            let pr_exner: Vec<f64> = (0..nlev).map(|k| exner[at(k)] - exner_ref[at(k)]).collect();
            let extrapolated: Vec<f64> = (0..nlev)
                .map(|k| (1.0 + exfac[at(k)]) * pr_exner[k] - exfac[at(k)] * exner_pr[at(k)])
                .collect();
            // Interface k (1 ≤ k < nlev) lies between full levels k − 1 and k.
            let to_interface = |x: &[f64], k: usize| {
                let w = wgtfac_c[at(k)];
                w * x[k] + (1.0 - w) * x[k - 1]
            };
            let mut theta_pr_ic = vec![0.0; nlev + 1];
            let mut exner_ic = vec![0.0; nlev + 1];
            for k in 1..nlev {
                theta_pr_ic[k] = to_interface(&pr_theta, k);
                exner_ic[k] = to_interface(&extrapolated, k);
            }
            theta_pr_ic[nlev] = extrapolate_to_surface(wgtfacq_c, &pr_theta, c, nc, nlev);
            exner_ic[nlev] = extrapolate_to_surface(wgtfacq_c, &extrapolated, c, nc, nlev);
            let theta_col: Vec<f64> = (0..nlev).map(|k| theta[at(k)]).collect();
            for k in 0..nlev {
                ex_pr[at(k)] = extrapolated[k];
                exner_pr[at(k)] = pr_exner[k];
            }
            for k in 1..nlev {
                theta_ic[at(k)] = to_interface(&theta_col, k);
            }
            theta_ic[at(nlev)] = theta_ref_ic[at(nlev)] + theta_pr_ic[nlev];
            for k in flat..nlev {
                dexner_1[at(k)] = (exner_ic[k] - exner_ic[k + 1]) * inv_dz[at(k)];
            }
            for k in flat_gradp..nlev {
                let jump = theta_pr_ic[k] - theta_pr_ic[k + 1];
                dexner_2[at(k)] = -0.5 * (jump * fac1[at(k)] + pr_theta[k] * fac2[at(k)]);
            }
            if c >= local {
                continue;
            }
            let rho_col: Vec<f64> = (0..nlev).map(|k| rho[at(k)]).collect();
            for k in 1..nlev {
                rho_ic[at(k)] = to_interface(&rho_col, k);
                let dexner = pr_exner[k - 1] - pr_exner[k];
                buoy[at(k)] = vwind_expl_wgt * theta_ic[at(k)] * dexner / ddqz_z_half[at(k)]
                    + theta_pr_ic[k] * dexner_ref[at(k)];
            }
        }
        Ok(())
    })
}
