//! `compute_exner_from_rhotheta` (ICON `mo_solve_nonhydro` stencil 67, after the
//! corrector of every substep, limited area only; ICON4Py program of the same name,
//! formerly `_mo_solve_nonhydro_stencil_67`): on the lateral-boundary cells, where
//! [`stencils_61_62`](super::stencils_61_62) stored the driving model's θv in the Exner
//! buffer, θv moves to `theta_v` and the Exner pressure follows from the equation of
//! state.
//!
//! Cells `[LATERAL_BOUNDARY, LATERAL_BOUNDARY_LEVEL_4 end)` × full levels `[0, nlev)`
//! (ICON4Py's `horizontal_start = start_cell_lateral_boundary`, `horizontal_end =
//! end_cell_lateral_boundary_level_4`, `vertical_end = nlev`); both outputs keep their
//! values outside:
//!
//! ```text
//! theta_v = exner                                       (the stored θv)
//! exner   = exp(rd_o_cvd·ln(rd_o_p0ref·rho·theta_v))    (θv the stored one)
//! ```
//!
//! `exner` is read and written (in/out), `theta_v` only written. Runtime scalars
//! `rd_o_cvd = rd/cvd` and `rd_o_p0ref = rd/p0ref` (ICON4Py passes the constants as
//! arguments). One variant.

use super::on_lateral_boundary_cells;
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "compute_exner_from_rhotheta";

/// `(theta_v, exner) = (exner, exp(rd_o_cvd·ln(rd_o_p0ref·rho·exner)))`, `exner` holding
/// θv on entry (ICON4Py `_compute_exner_from_rhotheta`).
pub fn compute_exner_from_rhotheta(
    rho: &Expr,
    exner: &Expr,
    rd_o_cvd: &Expr,
    rd_o_p0ref: &Expr,
) -> Expr {
    let theta_v = exner;
    tuple((
        theta_v.clone(),
        exp(rd_o_cvd * log(rd_o_p0ref * rho * theta_v)),
    ))
}

/// Adds the program's stencil `compute_exner_from_rhotheta` to `b`: `(theta_v, exner)`
/// on the lateral-boundary cells, levels `[0, nlev)`.
pub fn add_stencils(
    b: &mut ProgramBuilder,
    (rho, theta_v, exner): (&Expr, &Expr, &Expr),
    (rd_o_cvd, rd_o_p0ref): (&Expr, &Expr),
) {
    let value = compute_exner_from_rhotheta(rho, exner, rd_o_cvd, rd_o_p0ref);
    let stencil = b.stencil(NAME, (theta_v, exner), value);
    on_lateral_boundary_cells(stencil).vertical(0, nlev());
}

/// The DSL program, with ICON4Py's arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let rho = b.input("rho", (CELL, K), F64);
        let theta_v = b.output("theta_v", (CELL, K), F64);
        let exner = b.inout("exner", (CELL, K), F64);
        let rd_o_cvd = b.scalar("rd_o_cvd", F64);
        let rd_o_p0ref = b.scalar("rd_o_p0ref", F64);
        add_stencils(b, (&rho, &theta_v, &exner), (&rd_o_cvd, &rd_o_p0ref));
    })
}
