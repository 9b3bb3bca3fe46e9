//! `stencils_61_62` (ICON `mo_solve_nonhydro` stencils 61 and 62, end of the predictor,
//! limited area only; ICON4Py `solve_nonhydro_stencils.stencils_61_62` with the field
//! operators `_update_density_exner_wind`, formerly `_mo_solve_nonhydro_stencil_61`, and
//! `_update_wind`, formerly `_mo_solve_nonhydro_stencil_62`): the lateral-boundary
//! cells take the state of the driving model, the time level `now` advanced by the
//! boundary tendencies `grf_tend_*` over the substep.
//!
//! Cells `[LATERAL_BOUNDARY, LATERAL_BOUNDARY_LEVEL_4 end)` (ICON4Py's
//! `horizontal_start = start_cell_lateral_boundary`, `horizontal_end =
//! end_cell_lateral_boundary_level_4`, `vertical_end = nlev + 1`), full levels
//! `[0, nlev)` for ρ and θv, half levels `[0, nlev]` (the surface interface included)
//! for `w`; every output keeps its values outside:
//!
//! ```text
//! rho_new   = rho_now     + dtime·grf_tend_rho      k in [0, nlev)
//! exner_new = theta_v_now + dtime·grf_tend_thv      k in [0, nlev)
//! w_new     = w_now       + dtime·grf_tend_w        k in [0, nlev]
//! ```
//!
//! `exner_new` holds θv here, not the Exner pressure: the limited-area fix-up
//! [`compute_exner_from_rhotheta`](super::compute_exner_from_rhotheta) moves it to
//! `theta_v_new` after the corrector and computes the Exner pressure from ρ and θv.
//! ICON4Py writes `w` at `k = nlev` with a second stencil (`_update_wind`); here `w_new`
//! is one half-level stencil over `[0, nlev]`, the same points. One variant.

use super::on_lateral_boundary_cells;
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "stencils_61_62";

/// `rho_now + dtime·grf_tend_rho` and `theta_v_now + dtime·grf_tend_thv` (the ρ and θv
/// parts of ICON4Py `_update_density_exner_wind`).
pub fn update_density_exner(
    rho_now: &Expr,
    grf_tend_rho: &Expr,
    theta_v_now: &Expr,
    grf_tend_thv: &Expr,
    dtime: &Expr,
) -> Expr {
    tuple((
        rho_now + dtime * grf_tend_rho,
        theta_v_now + dtime * grf_tend_thv,
    ))
}

/// `w_now + dtime·grf_tend_w` (ICON4Py `_update_wind`).
pub fn update_wind(w_now: &Expr, grf_tend_w: &Expr, dtime: &Expr) -> Expr {
    w_now + dtime * grf_tend_w
}

/// The program's fields and scalar (ICON4Py's names; `(Cell, K)` unless stated).
pub struct Handles<'a> {
    /// `rho_now`: density at time level now.
    pub rho_now: &'a Expr,
    /// `grf_tend_rho`: boundary tendency of ρ.
    pub grf_tend_rho: &'a Expr,
    /// `theta_v_now`: virtual potential temperature at time level now.
    pub theta_v_now: &'a Expr,
    /// `grf_tend_thv`: boundary tendency of θv.
    pub grf_tend_thv: &'a Expr,
    /// `w_now`: vertical wind at time level now (`Cell, KHALF`).
    pub w_now: &'a Expr,
    /// `grf_tend_w`: boundary tendency of `w` (`Cell, KHALF`).
    pub grf_tend_w: &'a Expr,
    /// Output `rho_new`.
    pub rho_new: &'a Expr,
    /// Output `exner_new` (θv at the boundary until `compute_exner_from_rhotheta`).
    pub exner_new: &'a Expr,
    /// Output `w_new` (`Cell, KHALF`).
    pub w_new: &'a Expr,
    /// Runtime scalar `dtime`: the substep.
    pub dtime: &'a Expr,
}

/// Adds the program's stencils to `b`: `update_density_exner` (ρ, θv on full levels
/// `[0, nlev)`) and `update_wind` (`w` on half levels `[0, nlev]`), both on the
/// lateral-boundary cells.
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>) {
    let value = update_density_exner(
        f.rho_now,
        f.grf_tend_rho,
        f.theta_v_now,
        f.grf_tend_thv,
        f.dtime,
    );
    let stencil = b.stencil("update_density_exner", (f.rho_new, f.exner_new), value);
    on_lateral_boundary_cells(stencil).vertical(0, nlev());
    let value = update_wind(f.w_now, f.grf_tend_w, f.dtime);
    let stencil = b.stencil("update_wind", f.w_new, value);
    on_lateral_boundary_cells(stencil).vertical(0, nlev() + 1);
}

/// The DSL program, with ICON4Py's arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let rho_now = b.input("rho_now", (CELL, K), F64);
        let grf_tend_rho = b.input("grf_tend_rho", (CELL, K), F64);
        let theta_v_now = b.input("theta_v_now", (CELL, K), F64);
        let grf_tend_thv = b.input("grf_tend_thv", (CELL, K), F64);
        let w_now = b.input("w_now", (CELL, KHALF), F64);
        let grf_tend_w = b.input("grf_tend_w", (CELL, KHALF), F64);
        let rho_new = b.output("rho_new", (CELL, K), F64);
        let exner_new = b.output("exner_new", (CELL, K), F64);
        let w_new = b.output("w_new", (CELL, KHALF), F64);
        let dtime = b.scalar("dtime", F64);
        let f = Handles {
            rho_now: &rho_now,
            grf_tend_rho: &grf_tend_rho,
            theta_v_now: &theta_v_now,
            grf_tend_thv: &grf_tend_thv,
            w_now: &w_now,
            grf_tend_w: &grf_tend_w,
            rho_new: &rho_new,
            exner_new: &exner_new,
            w_new: &w_new,
            dtime: &dtime,
        };
        add_stencils(b, &f);
    })
}
