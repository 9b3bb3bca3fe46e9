//! The vertically implicit solver shared by
//! [`vertically_implicit_solver_at_predictor_step`](super::vertically_implicit_solver_at_predictor_step)
//! (P9) and
//! [`vertically_implicit_solver_at_corrector_step`](super::vertically_implicit_solver_at_corrector_step)
//! (P10): ICON `mo_solve_nonhydro` stencils 41–55 (ICON4Py's operators of
//! `vertically_implicit_dycore_solver.py` and the stencil modules it imports).
//!
//! Per column of cells `[NUDGING, LOCAL end)`, `n = nlev`, half levels `k` (the
//! interface above full level `k`), in ICON's short names (`x(k)` of a full-level field
//! is the layer below interface `k`, `x(k−1)` the one above):
//!
//! ```text
//! z_flxdiv_mass  = Σ_{C2E} geofac_div·mass_fl_e,  z_flxdiv_theta = Σ_{C2E} geofac_div·z_theta_v_fl_e
//! z_w_expl(k)       = w_nnow + dtime·(ddt_w_adv − cpd·z_th_ddz_exner_c)     (1 ≤ k < n; 0 else)
//! z_contr_w_fl_l(k) = rho_ic·(−w_concorr_c + vwind_expl_wgt·w_nnow)         (1 ≤ k < n; 0 else)
//! z_alpha(k)        = vwind_impl_wgt·theta_v_ic·rho_ic                      (k < n; 0 at k = n)
//! z_beta            = dtime·rd·exner_nnow/(cvd·rho_nnow·theta_v_nnow)·inv_ddqz_z_full
//! z_rho_expl   = rho_nnow − dtime·inv_ddqz_z_full·(z_flxdiv_mass + z_contr_w_fl_l(k) − z_contr_w_fl_l(k+1))
//! z_exner_expl = exner_pr − z_beta·(z_flxdiv_theta + theta_v_ic(k)·z_contr_w_fl_l(k)
//!                                   − theta_v_ic(k+1)·z_contr_w_fl_l(k+1)) + dtime·ddt_exner_phy
//! is_iau_active: z_rho_expl += iau_wgt_dyn·rho_incr, z_exner_expl += iau_wgt_dyn·exner_incr
//! ```
//!
//! The tridiagonal system for `w` on half levels `1 ≤ k < n` (`w(0) = 0`; `w(n)`, the
//! surface condition set before, does not couple since `z_alpha(n) = 0`):
//!
//! ```text
//! z_gamma = dtime·cpd·vwind_impl_wgt·theta_v_ic/ddqz_z_half
//! a = −z_gamma·z_beta(k−1)·z_alpha(k−1)      c = −z_gamma·z_beta(k)·z_alpha(k+1)
//! b = 1 + z_gamma·z_alpha(k)·(z_beta(k−1) + z_beta(k))
//! d = z_w_expl − z_gamma·(z_exner_expl(k−1) − z_exner_expl(k))
//! a·w(k−1) + b·w(k) + c·w(k+1) = d
//! ```
//!
//! solved by the Thomas algorithm: a forward scan with the tuple carry `(c'_{k−1},
//! d'_{k−1})`, `(0, 0)` at `k = 0`, `m = 1/(b + a·c'_{k−1})`, `c'_k = −c·m`, `d'_k = (d −
//! a·d'_{k−1})·m` (stencil 52), then a backward scan from `k = n − 1` (carry 0), `w(k) =
//! d'_k + c'_k·w(k+1)` (stencil 53). Rayleigh damping (Klemp, `rayleigh_type = 2`, the
//! only one supported), `0 < k ≤ nrdmax`: `w *= z_raylfac(k)` (stencil 54). Then on full
//! levels (stencil 55):
//!
//! ```text
//! rho_new     = z_rho_expl − vwind_impl_wgt·dtime·inv_ddqz_z_full·(rho_ic(k)·w(k) − rho_ic(k+1)·w(k+1))
//! exner_new   = z_exner_expl + exner_ref_mc − z_beta·(z_alpha(k)·w(k) − z_alpha(k+1)·w(k+1))
//! theta_v_new = rho_nnow·theta_v_nnow·((exner_new/exner_nnow − 1)·cvd/rd + 1)/rho_new
//! ```
//!
//! The explicit terms are program temporaries on the solver's cells: `z_w_expl`,
//! `z_contr_w_fl_l` and `z_alpha` on half levels `[0, nlev]`, `z_beta`, `z_rho_expl`
//! and `z_exner_expl` on full levels `[0, nlev)`. ICON4Py's names: `w_concorr_c` =
//! `contravariant_correction_at_cells_on_half_levels`, `z_th_ddz_exner_c` =
//! `nonhydro_buoy_at_cells_on_half_levels` (`nlev` levels, level `k` holding interface
//! `k`), `rho_ic`/`theta_v_ic` = `rho`/`theta_v_at_cells_on_half_levels`, `mass_fl_e` =
//! `mass_flux_at_edges_on_model_levels`, `z_theta_v_fl_e` =
//! `theta_v_flux_at_edges_on_model_levels`, `vwind_expl_wgt`/`vwind_impl_wgt` =
//! `exner_w_explicit`/`implicit_weight_parameter`, `exner_pr` =
//! `perturbed_exner_at_cells_on_model_levels`, `ddt_exner_phy` =
//! `exner_tendency_due_to_slow_physics`, `rho_incr`/`exner_incr` =
//! `rho`/`exner_iau_increment`, `z_raylfac` = `rayleigh_damping_factor`, `exner_ref_mc`
//! = `reference_exner_at_cells_on_model_levels`, `*_nnow` = `current_*`, `*_new` =
//! `next_*`.

use crate::common::constants::{CPD, CVD, RD};
use crate::solve_nonhydro::CVD_O_RD;
use foehn::dsl::prelude::*;

/// ICON4Py `RayleighType.KLEMP`, the only `rayleigh_type` the solver supports.
pub const RAYLEIGH_KLEMP: i32 = 2;

/// The cells of the solver, `[NUDGING, LOCAL end)` (ICON4Py `start_cell_index_nudging`,
/// `end_cell_index_local`).
pub fn solver_cells(stencil: &mut StencilDecl) -> &mut StencilDecl {
    stencil.horizontal(start(Zone::Nudging(1)), end(Zone::Local))
}

/// The fields and scalars both solvers read and write (ICON4Py's names in the docs;
/// `(Cell, K)` unless stated).
pub struct Solver {
    /// `geofac_div` (`Cell, C2E`).
    pub geofac_div: Expr,
    /// `mass_flux_at_edges_on_model_levels` (`Edge, K`).
    pub mass_fl_e: Expr,
    /// `theta_v_flux_at_edges_on_model_levels` (`Edge, K`).
    pub z_theta_v_fl_e: Expr,
    /// `nonhydro_buoy_at_cells_on_half_levels` (`z_th_ddz_exner_c`).
    pub z_th_ddz_exner_c: Expr,
    /// `rho_at_cells_on_half_levels` (`Cell, KHALF`).
    pub rho_ic: Expr,
    /// `contravariant_correction_at_cells_on_half_levels` (`Cell, KHALF`).
    pub w_concorr_c: Expr,
    /// The part declared in the same order by both programs.
    pub common: Common,
    /// Output `next_w` (`Cell, KHALF`).
    pub next_w: Expr,
    /// Output `next_rho`.
    pub next_rho: Expr,
    /// Output `next_exner`.
    pub next_exner: Expr,
    /// Output `next_theta_v`.
    pub next_theta_v: Expr,
    /// Scalar `dtime`.
    pub dtime: Expr,
    /// Scalar `iau_wgt_dyn`.
    pub iau_wgt_dyn: Expr,
}

/// The run of arguments both programs declare in the same order, from
/// `exner_w_explicit_weight_parameter` to `reference_exner_at_cells_on_model_levels`.
pub struct Common {
    /// `exner_w_explicit_weight_parameter` (`vwind_expl_wgt`, `Cell`).
    pub vwind_expl_wgt: Expr,
    /// `current_exner`.
    pub exner_nnow: Expr,
    /// `current_rho`.
    pub rho_nnow: Expr,
    /// `current_theta_v`.
    pub theta_v_nnow: Expr,
    /// `current_w` (`Cell, KHALF`).
    pub w_nnow: Expr,
    /// `inv_ddqz_z_full`.
    pub inv_ddqz_z_full: Expr,
    /// `exner_w_implicit_weight_parameter` (`vwind_impl_wgt`, `Cell`).
    pub vwind_impl_wgt: Expr,
    /// `theta_v_at_cells_on_half_levels` (`Cell, KHALF`).
    pub theta_v_ic: Expr,
    /// `perturbed_exner_at_cells_on_model_levels`.
    pub exner_pr: Expr,
    /// `exner_tendency_due_to_slow_physics`.
    pub ddt_exner_phy: Expr,
    /// `rho_iau_increment`.
    pub rho_incr: Expr,
    /// `exner_iau_increment`.
    pub exner_incr: Expr,
    /// `ddqz_z_half` (`Cell, KHALF`).
    pub ddqz_z_half: Expr,
    /// `rayleigh_damping_factor` (`K`).
    pub z_raylfac: Expr,
    /// `reference_exner_at_cells_on_model_levels`.
    pub exner_ref_mc: Expr,
}

/// Declares [`Common`]'s fields in ICON4Py's order.
pub fn declare_common(b: &mut ProgramBuilder) -> Common {
    let (full, half) = ((CELL, K), (CELL, KHALF));
    Common {
        vwind_expl_wgt: b.input("exner_w_explicit_weight_parameter", CELL, F64),
        exner_nnow: b.input("current_exner", full, F64),
        rho_nnow: b.input("current_rho", full, F64),
        theta_v_nnow: b.input("current_theta_v", full, F64),
        w_nnow: b.input("current_w", half, F64),
        inv_ddqz_z_full: b.input("inv_ddqz_z_full", full, F64),
        vwind_impl_wgt: b.input("exner_w_implicit_weight_parameter", CELL, F64),
        theta_v_ic: b.input("theta_v_at_cells_on_half_levels", half, F64),
        exner_pr: b.input("perturbed_exner_at_cells_on_model_levels", full, F64),
        ddt_exner_phy: b.input("exner_tendency_due_to_slow_physics", full, F64),
        rho_incr: b.input("rho_iau_increment", full, F64),
        exner_incr: b.input("exner_iau_increment", full, F64),
        ddqz_z_half: b.input("ddqz_z_half", half, F64),
        z_raylfac: b.input("rayleigh_damping_factor", K, F64),
        exner_ref_mc: b.input("reference_exner_at_cells_on_model_levels", full, F64),
    }
}

/// The solver's temporaries (ICON4Py's local names in the docs).
pub struct Temporaries {
    /// `z_w_expl` (`w_explicit_term`, `Cell, KHALF`).
    pub z_w_expl: Expr,
    /// `z_contr_w_fl_l` (`vertical_mass_flux_at_cells_on_half_levels`, `Cell, KHALF`).
    pub z_contr_w_fl_l: Expr,
    /// `z_alpha` (`tridiagonal_alpha_coeff_at_cells_on_half_levels`, `Cell, KHALF`).
    pub z_alpha: Expr,
    /// `z_beta` (`tridiagonal_beta_coeff_at_cells_on_model_levels`).
    pub z_beta: Expr,
    /// `z_rho_expl` (`rho_explicit_term`).
    pub z_rho_expl: Expr,
    /// `z_exner_expl` (`exner_explicit_term`).
    pub z_exner_expl: Expr,
}

impl Temporaries {
    /// Declares the temporaries under ICON4Py's local names.
    pub fn declare(b: &mut ProgramBuilder) -> Temporaries {
        let (full, half) = ((CELL, K), (CELL, KHALF));
        Temporaries {
            z_w_expl: b.temporary("w_explicit_term", half, F64),
            z_contr_w_fl_l: b.temporary("vertical_mass_flux_at_cells_on_half_levels", half, F64),
            z_alpha: b.temporary("tridiagonal_alpha_coeff_at_cells_on_half_levels", half, F64),
            z_beta: b.temporary("tridiagonal_beta_coeff_at_cells_on_model_levels", full, F64),
            z_rho_expl: b.temporary("rho_explicit_term", full, F64),
            z_exner_expl: b.temporary("exner_explicit_term", full, F64),
        }
    }
}

/// The solver's statics.
#[derive(Clone, Copy, Debug)]
pub struct Statics {
    /// `is_iau_active`.
    pub is_iau_active: bool,
    /// `end_index_of_damping_layer` (`nrdmax`).
    pub nrdmax: i32,
}

/// `(Σ_{C2E} geofac_div·mass_fl_e, Σ_{C2E} geofac_div·z_theta_v_fl_e)` (ICON4Py
/// `_compute_divergence_of_fluxes_of_rho_and_theta`).
pub fn compute_divergence_of_fluxes_of_rho_and_theta(
    geofac_div: &Expr,
    mass_fl_e: &Expr,
    z_theta_v_fl_e: &Expr,
) -> (Expr, Expr) {
    let divergence = |x: &Expr| (geofac_div * x.shift(C2E)).sum_over(C2E);
    (divergence(mass_fl_e), divergence(z_theta_v_fl_e))
}

/// `z_beta = dtime·rd·exner_nnow/(cvd·rho_nnow·theta_v_nnow)·inv_ddqz_z_full` on full
/// levels (the first result of ICON4Py `_compute_solver_coefficients_matrix`).
pub fn compute_beta(c: &Common, dtime: &Expr) -> Expr {
    dtime * RD * &c.exner_nnow / (CVD * &c.rho_nnow * &c.theta_v_nnow) * &c.inv_ddqz_z_full
}

/// `z_alpha = vwind_impl_wgt·theta_v_ic·rho_ic` on half levels `[0, nlev)`, 0 at the
/// surface (the second result of ICON4Py `_compute_solver_coefficients_matrix`).
pub fn compute_alpha(c: &Common, rho_ic: &Expr) -> Expr {
    concat_where(
        index(KHALF).lt(nlev()),
        &c.vwind_impl_wgt * &c.theta_v_ic * rho_ic,
        0.0,
    )
}

/// `z_contr_w_fl_l = rho_ic·(−w_concorr_c + vwind_expl_wgt·w_nnow)` on half levels
/// `[1, nlev)`, 0 at the top and the surface.
pub fn compute_vertical_mass_flux(c: &Common, rho_ic: &Expr, w_concorr_c: &Expr) -> Expr {
    concat_where(
        index(KHALF).in_range(1, nlev()),
        rho_ic * (-w_concorr_c + &c.vwind_expl_wgt * &c.w_nnow),
        0.0,
    )
}

/// `w_nnow + dtime·(ddt_w_adv − cpd·z_th_ddz_exner_c)` on half levels, `ddt_w_adv` the
/// advective tendency to apply (ICON4Py
/// `_compute_w_explicit_term_with_predictor_advective_tendency` and, with the weighted
/// tendency, `…_with_interpolated_predictor_corrector_advective_tendency`).
pub fn compute_w_explicit_term(
    w_nnow: &Expr,
    ddt_w_adv: &Expr,
    z_th_ddz_exner_c: &Expr,
    dtime: &Expr,
) -> Expr {
    w_nnow + dtime * (ddt_w_adv - CPD * z_th_ddz_exner_c.as_half())
}

/// `(z_rho_expl, z_exner_expl)` on full levels from the half-level flux `z_contr_w_fl_l`
/// (ICON4Py `_compute_explicit_part_for_rho_and_exner`), with the IAU increments when
/// `is_iau_active` (`_add_analysis_increments_from_data_assimilation`).
pub fn compute_explicit_part_for_rho_and_exner(
    s: &Solver,
    z_contr_w_fl_l: &Expr,
    z_beta: &Expr,
    is_iau_active: bool,
) -> (Expr, Expr) {
    let c = &s.common;
    let (div_mass, div_theta) = compute_divergence_of_fluxes_of_rho_and_theta(
        &s.geofac_div,
        &s.mass_fl_e,
        &s.z_theta_v_fl_e,
    );
    let (contr, contr_below) = (
        z_contr_w_fl_l.as_full(),
        z_contr_w_fl_l.k_shift(1).as_full(),
    );
    let (theta_ic, theta_ic_below) = (c.theta_v_ic.as_full(), c.theta_v_ic.k_shift(1).as_full());
    let mut rho = &c.rho_nnow - &s.dtime * &c.inv_ddqz_z_full * (div_mass + &contr - &contr_below);
    let mut exner = &c.exner_pr
        - z_beta * (div_theta + theta_ic * contr - theta_ic_below * contr_below)
        + &s.dtime * &c.ddt_exner_phy;
    if is_iau_active {
        rho = rho + &s.iau_wgt_dyn * &c.rho_incr;
        exner = exner + &s.iau_wgt_dyn * &c.exner_incr;
    }
    (rho, exner)
}

/// `w` on half levels `[0, nlev)` from the tridiagonal system of the module doc: the
/// forward sweep (ICON4Py `_solve_tridiagonal_matrix_for_w_forward_sweep`, `(0, 0)` at
/// `k = 0`) and the back substitution
/// (`_solve_tridiagonal_matrix_for_w_back_substitution_scan`). To be the value of a
/// stencil over half levels `[0, nlev)`.
pub fn solve_tridiagonal_matrix_for_w(s: &Solver, t: &Temporaries) -> Expr {
    let c = &s.common;
    let z_gamma = &s.dtime * CPD * &c.vwind_impl_wgt * &c.theta_v_ic / &c.ddqz_z_half;
    let (beta_above, beta_below) = (t.z_beta.k_shift(-1).as_half(), t.z_beta.as_half());
    let a = (0.0 - &z_gamma) * &beta_above * t.z_alpha.k_shift(-1);
    let cc = (0.0 - &z_gamma) * &beta_below * t.z_alpha.k_shift(1);
    let b = 1.0 + &z_gamma * &t.z_alpha * (beta_above + beta_below);
    let exner_jump = t.z_exner_expl.k_shift(-1).as_half() - t.z_exner_expl.as_half();
    let d = &t.z_w_expl - &z_gamma * exner_jump;
    let [c_new, d_new] = scan(KHALF, FORWARD, (0.0, 0.0), |prev| {
        let m = 1.0 / (&b + &a * &prev[0]);
        let top = || index(KHALF).lt(1);
        (
            concat_where(top(), 0.0, (0.0 - &cc) * &m),
            concat_where(top(), 0.0, (&d - &a * &prev[1]) * &m),
        )
    })
    .split();
    scan(KHALF, BACKWARD, 0.0, |below| &d_new + &below[0] * &c_new)
}

/// `z_raylfac·w` on half levels `(0, nrdmax]`, `w` elsewhere (ICON4Py
/// `_apply_rayleigh_damping_mechanism` under `rayleigh_type = KLEMP`).
pub fn apply_rayleigh_damping_mechanism(z_raylfac: &Expr, w: &Expr, nrdmax: i32) -> Expr {
    concat_where(
        index(KHALF).in_range(1, nrdmax + 1),
        z_raylfac.as_half() * w,
        w,
    )
}

/// `(rho_new, exner_new, theta_v_new)` on full levels from the new `w` (a half-level
/// field; ICON4Py `_compute_results_for_thermodynamic_variables`).
pub fn compute_results_for_thermodynamic_variables(
    s: &Solver,
    t: &Temporaries,
    w: &Expr,
) -> (Expr, Expr, Expr) {
    let c = &s.common;
    let (w_above, w_below) = (w.as_full(), w.k_shift(1).as_full());
    let rho_ic_below = s.rho_ic.k_shift(1).as_full();
    let rho = &t.z_rho_expl
        - &c.vwind_impl_wgt
            * &s.dtime
            * &c.inv_ddqz_z_full
            * (s.rho_ic.as_full() * &w_above - rho_ic_below * &w_below);
    let alpha_below = t.z_alpha.k_shift(1).as_full();
    let exner = &t.z_exner_expl + &c.exner_ref_mc
        - &t.z_beta * (t.z_alpha.as_full() * &w_above - alpha_below * &w_below);
    let theta_v =
        &c.rho_nnow * &c.theta_v_nnow * ((&exner / &c.exner_nnow - 1.0) * CVD_O_RD + 1.0) / &rho;
    (rho, exner, theta_v)
}

/// Adds the solver's stencils on cells `[NUDGING, LOCAL end)` to `b`, after the surface
/// condition `next_w(nlev)`: the half-level explicit terms on `[0, nlev]` (`w_explicit`
/// the value of `z_w_expl` on `[1, nlev)`), the full-level ones on `[0, nlev)`, `next_w`
/// on half levels `[0, nlev)` (solve and Rayleigh damping), then `next_rho`,
/// `next_exner`, `next_theta_v` on `[0, nlev)`.
pub fn add_solver_stencils(
    b: &mut ProgramBuilder,
    s: &Solver,
    t: &Temporaries,
    w_explicit: Expr,
    st: Statics,
) {
    let c = &s.common;
    let z_w_expl = concat_where(index(KHALF).in_range(1, nlev()), w_explicit, 0.0);
    solver_cells(b.stencil(
        "compute_explicit_terms_on_half_levels",
        (&t.z_w_expl, &t.z_contr_w_fl_l, &t.z_alpha),
        tuple((
            z_w_expl,
            compute_vertical_mass_flux(c, &s.rho_ic, &s.w_concorr_c),
            compute_alpha(c, &s.rho_ic),
        )),
    ))
    .vertical(0, nlev() + 1);
    let z_beta = compute_beta(c, &s.dtime);
    let (rho_expl, exner_expl) =
        compute_explicit_part_for_rho_and_exner(s, &t.z_contr_w_fl_l, &z_beta, st.is_iau_active);
    solver_cells(b.stencil(
        "compute_explicit_part_for_rho_and_exner",
        (&t.z_beta, &t.z_rho_expl, &t.z_exner_expl),
        tuple((z_beta, rho_expl, exner_expl)),
    ))
    .vertical(0, nlev());
    let w = solve_tridiagonal_matrix_for_w(s, t);
    let w = apply_rayleigh_damping_mechanism(&c.z_raylfac, &w, st.nrdmax);
    solver_cells(b.stencil("solve_w", &s.next_w, w)).vertical(0, nlev());
    let (rho, exner, theta_v) = compute_results_for_thermodynamic_variables(s, t, &s.next_w);
    solver_cells(b.stencil(
        "compute_results_for_thermodynamic_variables",
        (&s.next_rho, &s.next_exner, &s.next_theta_v),
        tuple((rho, exner, theta_v)),
    ))
    .vertical(0, nlev());
}

/// Adds the surface condition `next_w(nlev) = w_concorr_c(nlev)` on the solver's cells
/// (ICON4Py `_set_surface_boundary_condition_for_computation_of_w`).
pub fn add_surface_boundary_condition(b: &mut ProgramBuilder, s: &Solver) {
    solver_cells(b.stencil(
        "set_surface_boundary_condition_for_computation_of_w",
        &s.next_w,
        &s.w_concorr_c,
    ))
    .vertical(nlev(), nlev() + 1);
}
