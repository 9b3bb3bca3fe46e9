//! `compute_dwdz_for_divergence_damping` (ICON `mo_solve_nonhydro` stencil 56/63 on the
//! lateral boundary, end of the predictor, limited area with `divdamp_type ≥ 3`; ICON4Py
//! program of the same name, formerly `_mo_solve_nonhydro_stencil_56_63`): the vertical
//! derivative of the contravariant vertical wind for the 3-D divergence damping,
//! `z_dwdz_dd`, on the boundary cells, where the implicit solver does not compute it.
//!
//! Cells `[LATERAL_BOUNDARY, LATERAL_BOUNDARY_LEVEL_4 end)` × full levels `[0, nlev)`
//! (ICON4Py's `horizontal_start = start_cell_lateral_boundary`, `horizontal_end =
//! end_cell_lateral_boundary_level_4`, `vertical_end = nlev`); `z_dwdz_dd` keeps its
//! values outside. With `w` and `w_concorr_c` on half levels (`k` the interface above
//! full level `k`, `k + 1` the one below):
//!
//! ```text
//! z_dwdz_dd(k) = inv_ddqz_z_full(k)·((w(k) − w(k+1)) − (w_concorr_c(k) − w_concorr_c(k+1)))
//! ```
//!
//! Inputs: `inv_ddqz_z_full` (inverse layer thickness), `w` (new), `w_concorr_c`
//! (contravariant correction at cells on half levels). One variant.

use super::on_lateral_boundary_cells;
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "compute_dwdz_for_divergence_damping";

/// `inv_ddqz_z_full·((w(k) − w(k+1)) − (w_concorr_c(k) − w_concorr_c(k+1)))` on full
/// levels, `w` and `w_concorr_c` half-level fields (ICON4Py
/// `_compute_dwdz_for_divergence_damping`).
pub fn compute_dwdz_for_divergence_damping(
    inv_ddqz_z_full: &Expr,
    w: &Expr,
    w_concorr_c: &Expr,
) -> Expr {
    let difference = |x: &Expr| x.as_full() - x.k_shift(1).as_full();
    inv_ddqz_z_full * (difference(w) - difference(w_concorr_c))
}

/// Adds the program's stencil `compute_dwdz_for_divergence_damping` to `b`: `z_dwdz_dd`
/// on the lateral-boundary cells, levels `[0, nlev)`.
pub fn add_stencils(
    b: &mut ProgramBuilder,
    inv_ddqz_z_full: &Expr,
    w: &Expr,
    w_concorr_c: &Expr,
    z_dwdz_dd: &Expr,
) {
    let value = compute_dwdz_for_divergence_damping(inv_ddqz_z_full, w, w_concorr_c);
    let stencil = b.stencil(NAME, z_dwdz_dd, value);
    on_lateral_boundary_cells(stencil).vertical(0, nlev());
}

/// The DSL program, with ICON4Py's arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let inv_ddqz_z_full = b.input("inv_ddqz_z_full", (CELL, K), F64);
        let w = b.input("w", (CELL, KHALF), F64);
        let w_concorr_c = b.input("w_concorr_c", (CELL, KHALF), F64);
        let z_dwdz_dd = b.output("z_dwdz_dd", (CELL, K), F64);
        add_stencils(b, &inv_ddqz_z_full, &w, &w_concorr_c, &z_dwdz_dd);
    })
}
