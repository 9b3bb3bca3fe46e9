//! `compute_interpolation_and_nonhydro_buoy` (ICON `mo_solve_nonhydro` stencils 10–11 of
//! the corrector of every substep; ICON4Py program of the same name, formerly
//! `fused_solve_nonhydro_stencil_1_to_13_corrector`): ρ and θv at the interfaces from
//! the time-averaged new and old states, upwinded along the vertical back-trajectory, and
//! the vertical pressure-gradient and buoyancy term of the w equation. The θv
//! perturbation at the interfaces (`z_theta_v_pr_ic`) is a temporary of the program, as
//! in ICON4Py's current version (which no longer writes it out).
//!
//! Cells `[LATERAL_BOUNDARY_LEVEL_3, LOCAL end)` × half levels `[1, nlev)` (ICON4Py's
//! `horizontal_start = start_cell_lateral_boundary_level_3`, `horizontal_end =
//! end_cell_local`, `vertical_start = 1`, `vertical_end = nlev`); every output keeps its
//! values outside, the model top and the surface interface included. In ICON's short
//! names (`wnow`, `wnew` = `rhotheta_explicit/implicit_weight_parameter`, ICON's
//! `wgt_nnow_rth`, `wgt_nnew_rth`; `x(k−1)` the full level above interface `k`, `x(k)`
//! the one below):
//!
//! ```text
//! z_w_backtraj = −(w − w_concorr_c)·dtime·½/ddqz_z_half
//! ρ̄           = wnow·rho_now + wnew·rho_new                  θ̄ likewise from theta_v
//! rho_ic       = wgtfac_c·ρ̄(k) + (1 − wgtfac_c)·ρ̄(k−1) + z_w_backtraj·(ρ̄(k−1) − ρ̄(k))
//! theta_v_ic   = wgtfac_c·θ̄(k) + (1 − wgtfac_c)·θ̄(k−1) + z_w_backtraj·(θ̄(k−1) − θ̄(k))
//! z_theta_v_pr_ic  = wgtfac_c·(θ̄(k) − theta_ref_mc(k)) + (1 − wgtfac_c)·(θ̄(k−1) − theta_ref_mc(k−1))
//! z_th_ddz_exner_c = vwind_expl_wgt·theta_v_ic·(exner_pr(k−1) − exner_pr(k))/ddqz_z_half
//!                    + z_theta_v_pr_ic·d_exner_dz_ref_ic
//! ```
//!
//! ICON4Py's names: `rho_ic` = `rho_at_cells_on_half_levels`, `theta_v_ic` =
//! `theta_v_at_cells_on_half_levels`, `z_th_ddz_exner_c` =
//! `nonhydro_buoy_at_cells_on_half_levels`, `w_concorr_c` =
//! `contravariant_correction_at_cells_on_half_levels`, `exner_pr` =
//! `perturbed_exner_at_cells_on_model_levels`, `theta_ref_mc` =
//! `reference_theta_at_cells_on_model_levels`, `d_exner_dz_ref_ic` =
//! `ddz_of_reference_exner_at_cells_on_half_levels`, `vwind_expl_wgt` =
//! `exner_w_explicit_weight_parameter`. `rho_ic` and `theta_v_ic` are half-level fields;
//! `z_th_ddz_exner_c` has `nlev` levels (as in ICON4Py), level `k` holding interface `k`.
//! The weights and `dtime` are runtime scalars. One variant.

use crate::diffusion::stencils::calculate_diagnostic_quantities_for_turbulence::full_to_half_level;
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "compute_interpolation_and_nonhydro_buoy";

/// The program's fields and scalars (ICON4Py's names, ICON's in the docs; `(Cell,
/// KHALF)` unless stated).
pub struct Handles<'a> {
    /// Output `rho_at_cells_on_half_levels` (`rho_ic`).
    pub rho_ic: &'a Expr,
    /// Temporary `z_theta_v_pr_ic` (ICON's name): the θv perturbation at the interfaces.
    pub theta_v_pr_ic: &'a Expr,
    /// Output `theta_v_at_cells_on_half_levels` (`theta_v_ic`).
    pub theta_v_ic: &'a Expr,
    /// Output `nonhydro_buoy_at_cells_on_half_levels` (`z_th_ddz_exner_c`; `(Cell, K)`).
    pub buoy: &'a Expr,
    /// `w`: vertical wind at time level new.
    pub w: &'a Expr,
    /// `contravariant_correction_at_cells_on_half_levels` (`w_concorr_c`).
    pub w_concorr_c: &'a Expr,
    /// `current_rho` (`rho_now`; `(Cell, K)`).
    pub rho_now: &'a Expr,
    /// `next_rho` (`rho_new`; `(Cell, K)`).
    pub rho_new: &'a Expr,
    /// `current_theta_v` (`theta_v_now`; `(Cell, K)`).
    pub theta_v_now: &'a Expr,
    /// `next_theta_v` (`theta_v_new`; `(Cell, K)`).
    pub theta_v_new: &'a Expr,
    /// `perturbed_exner_at_cells_on_model_levels` (`exner_pr`; `(Cell, K)`).
    pub exner_pr: &'a Expr,
    /// `reference_theta_at_cells_on_model_levels` (`theta_ref_mc`; `(Cell, K)`).
    pub theta_ref_mc: &'a Expr,
    /// `ddz_of_reference_exner_at_cells_on_half_levels` (`d_exner_dz_ref_ic`).
    pub d_exner_dz_ref_ic: &'a Expr,
    /// `ddqz_z_half`: distance between the full levels around each interface.
    pub ddqz_z_half: &'a Expr,
    /// `wgtfac_c`: weight of the level below in the full-to-half interpolation.
    pub wgtfac_c: &'a Expr,
    /// `exner_w_explicit_weight_parameter` (`vwind_expl_wgt`; `Cell`).
    pub vwind_expl_wgt: &'a Expr,
    /// Runtime scalar `dtime`.
    pub dtime: &'a Expr,
    /// Runtime scalar `rhotheta_explicit_weight_parameter` (`wgt_nnow_rth`).
    pub wnow: &'a Expr,
    /// Runtime scalar `rhotheta_implicit_weight_parameter` (`wgt_nnew_rth`).
    pub wnew: &'a Expr,
}

/// `wnow·now + wnew·new` on full levels: the time average of ρ or θv.
pub fn time_average(f: &Handles<'_>, now: &Expr, new: &Expr) -> Expr {
    f.wnow * now + f.wnew * new
}

/// The interface value of the full-level `avg` upwinded along the back-trajectory:
/// `wgtfac_c·avg(k) + (1 − wgtfac_c)·avg(k−1) + z_w_backtraj·(avg(k−1) − avg(k))`.
pub fn upwinded_to_half_level(f: &Handles<'_>, z_w_backtraj: &Expr, avg: &Expr) -> Expr {
    let jump = avg.k_shift(-1).as_half() - avg.as_half();
    full_to_half_level(f.wgtfac_c, avg) + z_w_backtraj * jump
}

/// `(rho_ic, z_theta_v_pr_ic, theta_v_ic)` of the module doc (ICON4Py
/// `_compute_interpolation_and_nonhydro_buoy`: its first two results and the local
/// `perturbed_theta_v_at_cells_on_half_levels`).
pub fn interpolate_to_half_levels(f: &Handles<'_>) -> Expr {
    let z_w_backtraj = -(f.w - f.w_concorr_c) * f.dtime * 0.5 / f.ddqz_z_half;
    let rho_avg = time_average(f, f.rho_now, f.rho_new);
    let theta_avg = time_average(f, f.theta_v_now, f.theta_v_new);
    let theta_pr_avg = &theta_avg - f.theta_ref_mc;
    tuple((
        upwinded_to_half_level(f, &z_w_backtraj, &rho_avg),
        full_to_half_level(f.wgtfac_c, &theta_pr_avg),
        upwinded_to_half_level(f, &z_w_backtraj, &theta_avg),
    ))
}

/// `z_th_ddz_exner_c = vwind_expl_wgt·theta_v_ic·(exner_pr(k−1) − exner_pr(k))/ddqz_z_half
/// + z_theta_v_pr_ic·d_exner_dz_ref_ic` on interface `k`, stored at full level `k`
/// (ICON4Py `_compute_interpolation_and_nonhydro_buoy`, its last result).
pub fn nonhydro_buoy(f: &Handles<'_>) -> Expr {
    let dexner = f.exner_pr.k_shift(-1).as_half() - f.exner_pr.as_half();
    let pressure = f.vwind_expl_wgt * f.theta_v_ic * dexner / f.ddqz_z_half;
    (pressure + f.theta_v_pr_ic * f.d_exner_dz_ref_ic).as_full()
}

/// Adds the program's stencils to `b`: the two interface fields and the temporary
/// `z_theta_v_pr_ic`, then `z_th_ddz_exner_c` from `theta_v_ic` and `z_theta_v_pr_ic`, on cells
/// `[LATERAL_BOUNDARY_LEVEL_3, LOCAL end)` × levels `[1, nlev)`.
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>) {
    let cells = (start(Zone::LateralBoundary(3)), end(Zone::Local));
    b.stencil(
        "interpolate_to_half_levels",
        (f.rho_ic, f.theta_v_pr_ic, f.theta_v_ic),
        interpolate_to_half_levels(f),
    )
    .horizontal(cells.0, cells.1)
    .vertical(1, nlev());
    b.stencil("compute_nonhydro_buoy", f.buoy, nonhydro_buoy(f))
        .horizontal(cells.0, cells.1)
        .vertical(1, nlev());
}

/// The DSL program, with ICON4Py's arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let half = (CELL, KHALF);
        let full = (CELL, K);
        let rho_ic = b.output("rho_at_cells_on_half_levels", half, F64);
        let theta_v_ic = b.output("theta_v_at_cells_on_half_levels", half, F64);
        let buoy = b.output("nonhydro_buoy_at_cells_on_half_levels", full, F64);
        let w = b.input("w", half, F64);
        let w_concorr_c = b.input(
            "contravariant_correction_at_cells_on_half_levels",
            half,
            F64,
        );
        let rho_now = b.input("current_rho", full, F64);
        let rho_new = b.input("next_rho", full, F64);
        let theta_v_now = b.input("current_theta_v", full, F64);
        let theta_v_new = b.input("next_theta_v", full, F64);
        let exner_pr = b.input("perturbed_exner_at_cells_on_model_levels", full, F64);
        let theta_ref_mc = b.input("reference_theta_at_cells_on_model_levels", full, F64);
        let d_exner_dz_ref_ic =
            b.input("ddz_of_reference_exner_at_cells_on_half_levels", half, F64);
        let ddqz_z_half = b.input("ddqz_z_half", half, F64);
        let wgtfac_c = b.input("wgtfac_c", half, F64);
        let vwind_expl_wgt = b.input("exner_w_explicit_weight_parameter", CELL, F64);
        let dtime = b.scalar("dtime", F64);
        let wnow = b.scalar("rhotheta_explicit_weight_parameter", F64);
        let wnew = b.scalar("rhotheta_implicit_weight_parameter", F64);
        let theta_v_pr_ic = b.temporary("z_theta_v_pr_ic", half, F64);
        let f = Handles {
            rho_ic: &rho_ic,
            theta_v_pr_ic: &theta_v_pr_ic,
            theta_v_ic: &theta_v_ic,
            buoy: &buoy,
            w: &w,
            w_concorr_c: &w_concorr_c,
            rho_now: &rho_now,
            rho_new: &rho_new,
            theta_v_now: &theta_v_now,
            theta_v_new: &theta_v_new,
            exner_pr: &exner_pr,
            theta_ref_mc: &theta_ref_mc,
            d_exner_dz_ref_ic: &d_exner_dz_ref_ic,
            ddqz_z_half: &ddqz_z_half,
            wgtfac_c: &wgtfac_c,
            vwind_expl_wgt: &vwind_expl_wgt,
            dtime: &dtime,
            wnow: &wnow,
            wnew: &wnew,
        };
        add_stencils(b, &f);
    })
}
