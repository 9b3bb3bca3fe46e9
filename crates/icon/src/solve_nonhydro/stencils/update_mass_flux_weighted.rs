//! `update_mass_flux_weighted` (ICON `mo_solve_nonhydro` stencil 65, corrector of every
//! substep, limited area with `lprep_adv`; ICON4Py program of the same name, formerly
//! `_mo_solve_nonhydro_stencil_65`): the lateral-boundary cells' vertical mass flux for
//! the tracer advection, accumulated over the substeps with the solver's time weights.
//!
//! Cells `[LATERAL_BOUNDARY, LATERAL_BOUNDARY_LEVEL_4 end)` × half levels `[1, nlev)`
//! (ICON4Py's `horizontal_start = start_cell_lateral_boundary`, `horizontal_end =
//! end_cell_lateral_boundary_level_4`, `vertical_start = 1`, `vertical_end = nlev`): the
//! model top and the surface interface keep their values, as does every cell outside.
//!
//! ```text
//! mass_flx_ic += r_nsubsteps·rho_ic·(vwind_expl_wgt·w_now + vwind_impl_wgt·w_new − w_concorr_c)
//! ```
//!
//! `rho_ic`, `w_now`, `w_new`, `w_concorr_c` and `mass_flx_ic` on half levels;
//! `vwind_expl_wgt`, `vwind_impl_wgt` the off-centering weights of the implicit solver
//! (per cell, summing to one); `r_nsubsteps = 1/ndyn_substeps`. One variant.

use super::on_lateral_boundary_cells;
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "update_mass_flux_weighted";

/// The program's fields and scalar (ICON4Py's names; `(Cell, KHALF)` unless stated).
pub struct Handles<'a> {
    /// `rho_ic`: density at the interfaces.
    pub rho_ic: &'a Expr,
    /// `vwind_expl_wgt`: explicit weight of the vertical wind (`Cell`).
    pub vwind_expl_wgt: &'a Expr,
    /// `vwind_impl_wgt`: implicit weight of the vertical wind (`Cell`).
    pub vwind_impl_wgt: &'a Expr,
    /// `w_now`: vertical wind at time level now.
    pub w_now: &'a Expr,
    /// `w_new`: vertical wind at time level new.
    pub w_new: &'a Expr,
    /// `w_concorr_c`: contravariant correction at cells on half levels.
    pub w_concorr_c: &'a Expr,
    /// In/out `mass_flx_ic`: the accumulated vertical mass flux.
    pub mass_flx_ic: &'a Expr,
    /// Runtime scalar `r_nsubsteps`: `1/ndyn_substeps`.
    pub r_nsubsteps: &'a Expr,
}

/// `mass_flx_ic + r_nsubsteps·rho_ic·(vwind_expl_wgt·w_now + vwind_impl_wgt·w_new −
/// w_concorr_c)` (ICON4Py `_update_mass_flux_weighted`).
pub fn update_mass_flux_weighted(f: &Handles<'_>) -> Expr {
    let w_weighted = f.vwind_expl_wgt * f.w_now + f.vwind_impl_wgt * f.w_new - f.w_concorr_c;
    f.mass_flx_ic + f.r_nsubsteps * f.rho_ic * w_weighted
}

/// Adds the program's stencil `update_mass_flux_weighted` to `b`: `mass_flx_ic` on the
/// lateral-boundary cells, half levels `[1, nlev)`.
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>) {
    let stencil = b.stencil(NAME, f.mass_flx_ic, update_mass_flux_weighted(f));
    on_lateral_boundary_cells(stencil).vertical(1, nlev());
}

/// The DSL program, with ICON4Py's arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let rho_ic = b.input("rho_ic", (CELL, KHALF), F64);
        let vwind_expl_wgt = b.input("vwind_expl_wgt", CELL, F64);
        let vwind_impl_wgt = b.input("vwind_impl_wgt", CELL, F64);
        let w_now = b.input("w_now", (CELL, KHALF), F64);
        let w_new = b.input("w_new", (CELL, KHALF), F64);
        let w_concorr_c = b.input("w_concorr_c", (CELL, KHALF), F64);
        let mass_flx_ic = b.inout("mass_flx_ic", (CELL, KHALF), F64);
        let r_nsubsteps = b.scalar("r_nsubsteps", F64);
        let f = Handles {
            rho_ic: &rho_ic,
            vwind_expl_wgt: &vwind_expl_wgt,
            vwind_impl_wgt: &vwind_impl_wgt,
            w_now: &w_now,
            w_new: &w_new,
            w_concorr_c: &w_concorr_c,
            mass_flx_ic: &mass_flx_ic,
            r_nsubsteps: &r_nsubsteps,
        };
        add_stencils(b, &f);
    })
}
