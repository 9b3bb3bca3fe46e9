//! `update_theta_and_exner_in_halo` (ICON `mo_solve_nonhydro` stencils 66 and 68, after
//! the corrector of every substep; ICON4Py program of the same name, which merges the
//! two): θv and the Exner pressure of the halo cells, which the solver did not update,
//! from the exchanged `rho_new` and `exner_new`.
//!
//! Cells `[HALO, END)` × full levels `[0, nlev)` (ICON4Py's `horizontal_start =
//! start_cell_halo`, `horizontal_end = end_cell_end`, `vertical_end = nlev`); both
//! outputs keep their values outside. `mask_prog_halo_c` is true at the prognostic halo
//! cells; the others are the lateral-boundary cells of a limited area lying in the halo
//! (ICON's `bdy_halo_c`), where `exner_new` holds the driving model's θv (see
//! [`stencils_61_62`](super::stencils_61_62)):
//!
//! ```text
//! mask_prog_halo_c:   theta_v_new = rho_now·theta_v_now·((exner_new/exner_now − 1)·cvd/rd + 1)/rho_new
//!                     exner_new   unchanged
//! else:               theta_v_new = exner_new                                   (the stored θv)
//!                     exner_new   = exp(rd/cvd·ln(rd/p0ref·rho_new·theta_v_new))
//! ```
//!
//! The constants `cvd/rd` ([`CVD_O_RD`]), `rd/cvd` ([`RD_O_CVD`]) and `rd/p0ref`
//! ([`RD_O_P0REF`]) are compiled in, as in ICON4Py. `exner_new` is in/out, `theta_v_new`
//! only written. A grid without halo cells (every grid of one process, both test grids
//! included) has an empty domain; [`program_on`] gives the same program on other cells,
//! which the tests use to check the math. [`program_on_all_cells`]
//! ([`NAME_ON_ALL_CELLS`]) runs it on every cell, as ICON4Py's `StencilTest` does
//! (`horizontal_start = 0`, `horizontal_end = num_cells`): the setting GT4Py's time for
//! this program was measured in, so `foehn bench` has a comparable figure on a grid of
//! one process. One variant.

use crate::common::constants::RD_O_CVD;
use crate::solve_nonhydro::{CVD_O_RD, RD_O_P0REF};
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "update_theta_and_exner_in_halo";

/// Name of the catalog entry that runs the program on every cell ([`program_on_all_cells`]).
pub const NAME_ON_ALL_CELLS: &str = "update_theta_and_exner_in_halo_on_all_cells";

/// The program's fields (ICON4Py's names; `(Cell, K)` unless stated).
pub struct Handles<'a> {
    /// `mask_prog_halo_c`: true at prognostic halo cells (`Cell`, bool).
    pub mask_prog_halo_c: &'a Expr,
    /// `rho_now`: density at time level now.
    pub rho_now: &'a Expr,
    /// `rho_new`: density at time level new.
    pub rho_new: &'a Expr,
    /// `theta_v_now`: virtual potential temperature at time level now.
    pub theta_v_now: &'a Expr,
    /// Output `theta_v_new`.
    pub theta_v_new: &'a Expr,
    /// In/out `exner_new`: the Exner pressure at time level new (θv at boundary cells).
    pub exner_new: &'a Expr,
    /// `exner_now`: the Exner pressure at time level now.
    pub exner_now: &'a Expr,
}

/// `(theta_v_new, exner_new)` of the module doc (ICON4Py
/// `_update_theta_and_exner_in_halo`).
pub fn update_theta_and_exner_in_halo(f: &Handles<'_>) -> Expr {
    let prognostic_theta_v =
        f.rho_now * f.theta_v_now * ((f.exner_new / f.exner_now - 1.0) * CVD_O_RD + 1.0)
            / f.rho_new;
    let boundary_exner = exp(RD_O_CVD * log(RD_O_P0REF * f.rho_new * f.exner_new));
    tuple((
        where_(f.mask_prog_halo_c, prognostic_theta_v, f.exner_new),
        where_(f.mask_prog_halo_c, f.exner_new, boundary_exner),
    ))
}

/// Adds the program's stencil `update_theta_and_exner_in_halo` to `b` on cells
/// `[start(from), end(to))` × levels `[0, nlev)`.
pub fn add_stencils_on(b: &mut ProgramBuilder, f: &Handles<'_>, from: Zone, to: Zone) {
    let value = update_theta_and_exner_in_halo(f);
    b.stencil(NAME, (f.theta_v_new, f.exner_new), value)
        .horizontal(start(from), end(to))
        .vertical(0, nlev());
}

/// Adds the program's stencil to `b` on ICON's cells `[HALO, END)`.
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>) {
    add_stencils_on(b, f, Zone::Halo(1), Zone::End);
}

/// The program on cells `[start(from), end(to))`, with ICON4Py's arguments in its order
/// ([`program`] is ICON's `[HALO, END)`).
pub fn program_on(from: Zone, to: Zone) -> ProgramDef {
    named_program_on(NAME, from, to)
}

/// The program on every cell `[0, END)`, named [`NAME_ON_ALL_CELLS`] (the catalog entry
/// that compares with ICON4Py's `StencilTest` timing).
pub fn program_on_all_cells() -> ProgramDef {
    named_program_on(NAME_ON_ALL_CELLS, Zone::LateralBoundary(1), Zone::End)
}

/// The program named `name` on cells `[start(from), end(to))`.
fn named_program_on(name: &'static str, from: Zone, to: Zone) -> ProgramDef {
    ProgramDef::new(name, move |b| {
        let mask_prog_halo_c = b.input("mask_prog_halo_c", CELL, BOOL);
        let rho_now = b.input("rho_now", (CELL, K), F64);
        let rho_new = b.input("rho_new", (CELL, K), F64);
        let theta_v_now = b.input("theta_v_now", (CELL, K), F64);
        let theta_v_new = b.output("theta_v_new", (CELL, K), F64);
        let exner_new = b.inout("exner_new", (CELL, K), F64);
        let exner_now = b.input("exner_now", (CELL, K), F64);
        let f = Handles {
            mask_prog_halo_c: &mask_prog_halo_c,
            rho_now: &rho_now,
            rho_new: &rho_new,
            theta_v_now: &theta_v_now,
            theta_v_new: &theta_v_new,
            exner_new: &exner_new,
            exner_now: &exner_now,
        };
        add_stencils_on(b, &f, from, to);
    })
}

/// The DSL program on ICON's cells `[HALO, END)`.
pub fn program() -> ProgramDef {
    program_on(Zone::Halo(1), Zone::End)
}
