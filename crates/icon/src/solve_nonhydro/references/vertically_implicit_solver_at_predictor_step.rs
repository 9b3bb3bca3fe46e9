//! The plain-Rust reference that checks the program
//! [`vertically_implicit_solver_at_predictor_step`](crate::solve_nonhydro::stencils::vertically_implicit_solver_at_predictor_step):
//! written straight from the math of that module's doc (the solver's in
//! [`implicit_solver`](super::implicit_solver)), independently of the DSL.

use super::cells;
use super::implicit_solver::{
    cell_sum_of_edges, solve_column, static_i32, w_explicit_term, write_column, Fields, Setup,
};
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::{f64s, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::{Grid, Location, Zone};

/// The contravariant correction `w_concorr_c` on cells `[LATERAL_BOUNDARY_LEVEL_3, HALO
/// end)` × half levels `[flat_level_index_plus1, nlev]` (part (a)).
fn contravariant_correction(grid: &Grid, args: &mut Args, flat_plus1: usize) -> Result<()> {
    let (c0, c1) = cells(grid, Zone::LateralBoundary(3), Zone::Halo(1))?;
    let nc = grid.size(Location::Cell);
    let name = "contravariant_correction_at_cells_on_half_levels";
    with_outputs(args, &[name], |args, out| {
        let [w_concorr_c] = out else {
            unreachable!("one output")
        };
        let me = f64s(args, "contravariant_correction_at_edges_on_model_levels")?;
        let e_bln_c_s = f64s(args, "e_bln_c_s")?;
        let (wgtfac_c, wgtfacq_c) = (f64s(args, "wgtfac_c")?, f64s(args, "wgtfacq_c")?);
        let nlev = wgtfacq_c.len() / nc;
        for c in c0..c1 {
            let mc = |k: usize| cell_sum_of_edges(grid, e_bln_c_s, me, c, k);
            for k in flat_plus1.max(1)..nlev {
                let i = c + nc * k;
                w_concorr_c[i] = wgtfac_c[i] * mc(k)? + (1.0 - wgtfac_c[i]) * mc(k - 1)?;
            }
            let mut surface = 0.0;
            for j in 1..=3 {
                surface += wgtfacq_c[c + nc * (nlev - j)] * mc(nlev - j)?;
            }
            if flat_plus1 <= nlev {
                w_concorr_c[c + nc * nlev] = surface;
            }
        }
        Ok(())
    })
}

/// Plain-Rust reference: part (a) on its cells and levels, then per cell of `[NUDGING,
/// LOCAL end)` the surface condition, the column solve with the predictor's tendency,
/// `z_dwdz_dd` for `divdamp_type ≥ 3` and `exner_dyn_incr` on `[kstart_moist, nlev)` at
/// the first substep, in the variant of `program`.
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let setup = Setup::of(program, args)?;
    let flat_plus1 = static_i32(program, "flat_level_index_plus1")?.max(0) as usize;
    let kstart_moist = static_i32(program, "kstart_moist")?.max(0) as usize;
    let dwdz = static_i32(program, "divdamp_type")? >= 3;
    let first = program.variant.get("at_first_substep") == Some(true.into());
    contravariant_correction(grid, args, flat_plus1)?;
    let (c0, c1) = cells(grid, Zone::Nudging(1), Zone::Local)?;
    let nc = grid.size(Location::Cell);
    let outputs = [
        "next_w",
        "next_rho",
        "next_exner",
        "next_theta_v",
        "dwdz_at_cells_on_model_levels",
        "exner_dynamical_increment",
    ];
    with_outputs(args, &outputs, |args, out| {
        let f = Fields::read(args)?;
        let ddt_w_adv_pc = f64s(args, "predictor_vertical_wind_advective_tendency")?;
        let nlev = f.exner_nnow.len() / nc;
        for c in c0..c1 {
            let w_expl = w_explicit_term(grid, &f, c, &setup, |i| ddt_w_adv_pc[i]);
            let surface = f.w_concorr_c[c + nc * nlev];
            let col = solve_column(grid, &f, c, &w_expl, surface, &setup)?;
            write_column(grid, &col, c, out);
            for k in 0..nlev {
                let (i, below) = (c + nc * k, c + nc * (k + 1));
                if dwdz {
                    let dw = col.w[k] - col.w[k + 1];
                    let dw_concorr = f.w_concorr_c[i] - f.w_concorr_c[below];
                    out[4][i] = f.inv_ddqz_z_full[i] * (dw - dw_concorr);
                }
                if first && k >= kstart_moist {
                    out[5][i] = f.exner_nnow[i];
                }
            }
        }
        Ok(())
    })
}
