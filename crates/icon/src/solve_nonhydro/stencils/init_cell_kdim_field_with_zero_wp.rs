//! `init_cell_kdim_field_with_zero_wp` (ICON `mo_solve_nonhydro` stencil 64 on the
//! lateral boundary, corrector of the first substep, limited area with `lprep_adv`;
//! ICON4Py program of the same name, formerly `_mo_solve_nonhydro_stencil_57` or `_64`):
//! the vertical mass flux for the tracer advection, `mass_flx_ic`, is reset before
//! [`update_mass_flux_weighted`](super::update_mass_flux_weighted) accumulates the
//! substeps into it.
//!
//! Cells `[LATERAL_BOUNDARY, LATERAL_BOUNDARY_LEVEL_4 end)` × half levels `[0, nlev]`
//! (ICON4Py's `horizontal_start = start_cell_lateral_boundary`, `horizontal_end =
//! end_cell_lateral_boundary_level_4`, `vertical_end = nlev + 1`); the field keeps its
//! values outside:
//!
//! ```text
//! field_with_zero_wp = 0
//! ```
//!
//! ICON4Py declares the field `(Cell, K)` and calls the program with the `nlev + 1`
//! levels of `mass_flx_ic`
//! (`prep_adv.dynamical_vertical_mass_flux_at_cells_on_half_levels`), so here it is a
//! half-level field. One variant.

use super::on_lateral_boundary_cells;
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "init_cell_kdim_field_with_zero_wp";

/// Zero on cells and half levels (ICON4Py `_init_cell_kdim_field_with_zero_wp`).
pub fn init_cell_kdim_field_with_zero_wp() -> Expr {
    broadcast(f64c(0.0), (CELL, KHALF))
}

/// Adds the program's stencil `init_cell_kdim_field_with_zero_wp` to `b`: zero on the
/// lateral-boundary cells, half levels `[0, nlev]`.
pub fn add_stencils(b: &mut ProgramBuilder, field_with_zero_wp: &Expr) {
    let stencil = b.stencil(
        NAME,
        field_with_zero_wp,
        init_cell_kdim_field_with_zero_wp(),
    );
    on_lateral_boundary_cells(stencil).vertical(0, nlev() + 1);
}

/// The DSL program, with ICON4Py's argument.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let field = b.output("field_with_zero_wp", (CELL, KHALF), F64);
        add_stencils(b, &field);
    })
}
