//! `compute_hydrostatic_correction_term` (ICON `mo_solve_nonhydro` stencil 21, predictor
//! of every substep with `igradp_method = 3`; ICON4Py program of the same name, formerly
//! `_mo_solve_nonhydro_stencil_21`): the hydrostatic correction of the horizontal Exner
//! pressure gradient at edges where the Taylor expansion reaches below a neighbour's
//! surface, later added as `z_gradh_exner += z_hydro_corr·pg_exdist`.
//!
//! Edges `[NUDGING_LEVEL_2, LOCAL end)` × the lowest full level `[nlev − 1, nlev)`
//! (ICON4Py's `horizontal_start = start_edge_nudging_level_2`, `horizontal_end =
//! end_edge_local`, `vertical_start = nlev − 1`, `vertical_end = nlev`); `z_hydro_corr`
//! keeps its values outside. For the two cells `c_i = E2C[i]` of an edge and the
//! data-dependent level `k_i = k + ikoffset[i]` (ICON `vertidx_gradp`, the neighbour
//! layer holding the edge's height) at distance `zdiff_gradp[i]` from it:
//!
//! ```text
//! z_theta_i    = theta_v(c_i, k_i)
//!                + zdiff_gradp[i]·(theta_v_ic(c_i, k_i) − theta_v_ic(c_i, k_i + 1))·inv_ddqz_z_full(c_i, k_i)
//! z_hydro_corr = grav_o_cpd·inv_dual_edge_length·(z_theta_1 − z_theta_0)·4/(z_theta_0 + z_theta_1)²
//! ```
//!
//! `theta_v` on full levels, `theta_v_ic` on half levels (`k_i` the interface above
//! layer `k_i`, `k_i + 1` the one below); `ikoffset`, `zdiff_gradp` are `(Edge, E2C, K)`;
//! `grav_o_cpd = grav/cpd` is a runtime scalar, as in ICON4Py. `k_i` and `k_i + 1` must
//! lie in the column (ICON's metric fields make them so). `z_hydro_corr` is a whole
//! `(Edge, K)` field here, as in ICON4Py's program signature; ICON4Py's solver allocates
//! only its level `nlev − 1` and reads it as a 1-D `Edge` field. One variant.

use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "compute_hydrostatic_correction_term";

/// The program's fields and scalar (ICON4Py's names).
pub struct Handles<'a> {
    /// `theta_v`: virtual potential temperature (`(Cell, K)`).
    pub theta_v: &'a Expr,
    /// `ikoffset`: ICON's `vertoffset_gradp` (`(Edge, E2C, K)`, i32).
    pub ikoffset: &'a Expr,
    /// `zdiff_gradp`: height of the edge above the neighbour's level `k_i`
    /// (`(Edge, E2C, K)`, m).
    pub zdiff_gradp: &'a Expr,
    /// `theta_v_ic`: θv at the interfaces (`(Cell, KHALF)`).
    pub theta_v_ic: &'a Expr,
    /// `inv_ddqz_z_full`: inverse layer thickness (`(Cell, K)`).
    pub inv_ddqz_z_full: &'a Expr,
    /// `inv_dual_edge_length` (`Edge`).
    pub inv_dual_edge_length: &'a Expr,
    /// Runtime scalar `grav_o_cpd`: `grav/cpd`.
    pub grav_o_cpd: &'a Expr,
    /// Output `z_hydro_corr` (`(Edge, K)`).
    pub z_hydro_corr: &'a Expr,
}

/// `z_theta_i` of the module doc: θv of the cell `E2C[i]` extrapolated from its level
/// `k + ikoffset[i]` to the edge's height.
pub fn theta_at_edge_height(f: &Handles<'_>, i: usize) -> Expr {
    let off = f.ikoffset.pick(i);
    let read = |x: &Expr, shift: &Expr| x.at(E2C, i).k_offset(shift);
    let theta_v = read(f.theta_v, &off);
    // Full level k of `theta_v_ic.as_full()` is the interface above layer k.
    let theta_v_ic = f.theta_v_ic.as_full();
    let upper = read(&theta_v_ic, &off);
    let lower = read(&theta_v_ic, &(&off + 1));
    let inv_ddqz = read(f.inv_ddqz_z_full, &off);
    theta_v + f.zdiff_gradp.pick(i) * (upper - lower) * inv_ddqz
}

/// `grav_o_cpd·inv_dual_edge_length·(z_theta_1 − z_theta_0)·4/(z_theta_0 + z_theta_1)²`
/// (ICON4Py `_compute_hydrostatic_correction_term`).
pub fn compute_hydrostatic_correction_term(f: &Handles<'_>) -> Expr {
    let (z_theta_0, z_theta_1) = (theta_at_edge_height(f, 0), theta_at_edge_height(f, 1));
    let sum = &z_theta_0 + &z_theta_1;
    f.grav_o_cpd * f.inv_dual_edge_length * (z_theta_1 - z_theta_0) * 4.0 / (&sum * &sum)
}

/// Adds the program's stencil `compute_hydrostatic_correction_term` to `b`:
/// `z_hydro_corr` on edges `[NUDGING_LEVEL_2, LOCAL end)`, level `nlev − 1`.
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>) {
    b.stencil(NAME, f.z_hydro_corr, compute_hydrostatic_correction_term(f))
        .horizontal(start(Zone::Nudging(2)), end(Zone::Local))
        .vertical(nlev() - 1, nlev());
}

/// The DSL program, with ICON4Py's arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let theta_v = b.input("theta_v", (CELL, K), F64);
        let ikoffset = b.input("ikoffset", (EDGE, E2C, K), I32);
        let zdiff_gradp = b.input("zdiff_gradp", (EDGE, E2C, K), F64);
        let theta_v_ic = b.input("theta_v_ic", (CELL, KHALF), F64);
        let inv_ddqz_z_full = b.input("inv_ddqz_z_full", (CELL, K), F64);
        let inv_dual_edge_length = b.input("inv_dual_edge_length", EDGE, F64);
        let grav_o_cpd = b.scalar("grav_o_cpd", F64);
        let z_hydro_corr = b.output("z_hydro_corr", (EDGE, K), F64);
        let f = Handles {
            theta_v: &theta_v,
            ikoffset: &ikoffset,
            zdiff_gradp: &zdiff_gradp,
            theta_v_ic: &theta_v_ic,
            inv_ddqz_z_full: &inv_ddqz_z_full,
            inv_dual_edge_length: &inv_dual_edge_length,
            grav_o_cpd: &grav_o_cpd,
            z_hydro_corr: &z_hydro_corr,
        };
        add_stencils(b, &f);
    })
}
