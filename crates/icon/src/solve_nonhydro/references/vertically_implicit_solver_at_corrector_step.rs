//! The plain-Rust reference that checks the program
//! [`vertically_implicit_solver_at_corrector_step`](crate::solve_nonhydro::stencils::vertically_implicit_solver_at_corrector_step):
//! written straight from the math of that module's doc (the solver's in
//! [`implicit_solver`](super::implicit_solver)), independently of the DSL.

use super::cells;
use super::implicit_solver::{
    solve_column, static_i32, w_explicit_term, write_column, Fields, Setup,
};
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::{Grid, Location, Zone};

/// Plain-Rust reference: per cell of `[NUDGING, LOCAL end)` the surface condition, the
/// column solve with the averaged tendency, the tracers' fluxes when `lprep_adv` and the
/// dynamical Exner increment on `[kstart_moist, nlev)` at the last substep, in the
/// variant of `program`.
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let setup = Setup::of(program, args)?;
    let kstart_moist = static_i32(program, "kstart_moist")?.max(0) as usize;
    let is_set = |name: &str| program.variant.get(name) == Some(true.into());
    let (lprep_adv, first, last) = (
        is_set("lprep_adv"),
        is_set("at_first_substep"),
        is_set("at_last_substep"),
    );
    let scalar = |name: &str| scalar_f64(args, name);
    let (wgt_nnow, wgt_nnew) = (
        scalar("advection_explicit_weight_parameter")?,
        scalar("advection_implicit_weight_parameter")?,
    );
    let (r_nsubsteps, ndyn) = (scalar("r_nsubsteps")?, scalar("ndyn_substeps_var")?);
    let (c0, c1) = cells(grid, Zone::Nudging(1), Zone::Local)?;
    let nc = grid.size(Location::Cell);
    let outputs = [
        "next_w",
        "next_rho",
        "next_exner",
        "next_theta_v",
        "dynamical_vertical_mass_flux_at_cells_on_half_levels",
        "dynamical_vertical_volumetric_flux_at_cells_on_half_levels",
        "exner_dynamical_increment",
    ];
    with_outputs(args, &outputs, |args, out| {
        let f = Fields::read(args)?;
        let ddt_pc = f64s(args, "predictor_vertical_wind_advective_tendency")?;
        let ddt_cor = f64s(args, "corrector_vertical_wind_advective_tendency")?;
        let nlev = f.exner_nnow.len() / nc;
        for c in c0..c1 {
            let w_expl = w_explicit_term(grid, &f, c, &setup, |i| {
                wgt_nnow * ddt_pc[i] + wgt_nnew * ddt_cor[i]
            });
            let surface = f.w_concorr_c[c + nc * nlev];
            let col = solve_column(grid, &f, c, &w_expl, surface, &setup)?;
            write_column(grid, &col, c, out);
            for k in 0..nlev {
                let i = c + nc * k;
                if lprep_adv && (k >= 1 || first) {
                    let (mass, vol) = if first {
                        (0.0, 0.0)
                    } else {
                        (out[4][i], out[5][i])
                    };
                    let z_a = r_nsubsteps
                        * (col.system.z_contr_w_fl_l[k]
                            + f.rho_ic[i] * f.vwind_impl_wgt[c] * col.w[k]);
                    let (mass, vol) = if k == 0 {
                        (0.0, 0.0)
                    } else {
                        (mass + z_a, vol + z_a / f.rho_ic[i])
                    };
                    out[4][i] = mass;
                    out[5][i] = vol;
                }
                if last && k >= kstart_moist {
                    out[6][i] =
                        col.exner[k] - (out[6][i] + ndyn * setup.dtime * f.ddt_exner_phy[i]);
                }
            }
        }
        Ok(())
    })
}
