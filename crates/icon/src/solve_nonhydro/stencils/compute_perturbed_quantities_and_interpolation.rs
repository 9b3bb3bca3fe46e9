//! `compute_perturbed_quantities_and_interpolation` (ICON `mo_solve_nonhydro` stencils
//! 1–13 of the predictor of every substep; ICON4Py program of the same name in
//! `compute_cell_diagnostics_for_dycore.py`, formerly
//! `fused_solve_nonhydro_stencil_1_to_13_predictor`): the perturbations of ρ, θv and the
//! Exner pressure from the reference atmosphere, the temporally extrapolated Exner
//! perturbation and its first and second vertical derivatives (for the horizontal
//! pressure gradient, `igradp_method = 3`), ρ and θv at the interfaces and the vertical
//! pressure-gradient and buoyancy term of the w equation.
//!
//! In ICON's short names (`x(k−1)` the full level above interface `k`, `x(k)` the one
//! below; `Σ_q` the quadratic surface extrapolation `Σ_{j=1..3} wgtfacq_c(nlev−j)·x(nlev−j)`):
//!
//! ```text
//! z_exner_ex_pr    = (1 + exner_exfac)·(exner − exner_ref_mc) − exner_exfac·exner_pr  (stencil 02)
//! exner_pr        := exner − exner_ref_mc                                     (stencil 02)
//! z_rth_pr_1       = rho − rho_ref_mc,  z_rth_pr_2 = theta_v − theta_ref_mc   (stencils 01, 07, 13)
//! rho_ic           = wgtfac_c·rho(k) + (1 − wgtfac_c)·rho(k−1)                (stencil 08)
//! z_theta_v_pr_ic  = wgtfac_c·z_rth_pr_2(k) + (1 − wgtfac_c)·z_rth_pr_2(k−1)  (k < nlev),
//!                    Σ_q z_rth_pr_2                                           (k = nlev; stencils 09, 11)
//! theta_v_ic       = wgtfac_c·theta_v(k) + (1 − wgtfac_c)·theta_v(k−1)        (k < nlev),
//!                    theta_ref_ic + z_theta_v_pr_ic                           (k = nlev; stencils 09, 11)
//! z_th_ddz_exner_c = vwind_expl_wgt·theta_v_ic·(exner_pr(k−1) − exner_pr(k))/ddqz_z_half
//!                    + z_theta_v_pr_ic·d_exner_dz_ref_ic  (the new exner_pr)  (stencil 09)
//! z_exner_ic       = wgtfac_c·z_exner_ex_pr(k) + (1 − wgtfac_c)·z_exner_ex_pr(k−1) (k < nlev),
//!                    Σ_q z_exner_ex_pr                                        (k = nlev; stencils 03, 04)
//! z_dexner_dz_c_1  = (z_exner_ic(k) − z_exner_ic(k+1))·inv_ddqz_z_full         (stencil 05)
//! z_dexner_dz_c_2  = −½·((z_theta_v_pr_ic(k) − z_theta_v_pr_ic(k+1))·d2dexdz2_fac1_mc
//!                       + z_rth_pr_2·d2dexdz2_fac2_mc)                         (stencil 12)
//! ```
//!
//! Each output has its own domain, all starting at cell `LATERAL_BOUNDARY_LEVEL_3`
//! (ICON4Py `start_cell_lateral_boundary_level_3`; the zone bounds `end_cell_local`,
//! `end_cell_halo`, `end_cell_halo_level_2`, `model_top = 0` and `surface_level = nlev +
//! 1` of ICON4Py's argument list are the stencils' domains here); every output keeps its
//! values outside:
//!
//! | output | cells up to the end of | levels |
//! |---|---|---|
//! | `z_rth_pr_1`, `z_rth_pr_2` | `HALO_LEVEL_2` | `[0, nlev)` |
//! | `exner_pr`, `z_exner_ex_pr` | `HALO` | `[0, nlev)` |
//! | `rho_ic`, `z_th_ddz_exner_c` | `LOCAL` | `[1, nlev)` |
//! | `theta_v_ic` | `HALO` | `[1, nlev]` (the surface interface included) |
//! | `z_dexner_dz_c_1` | `HALO` | `[max(1, nflatlev), nlev)` |
//! | `z_dexner_dz_c_2` | `HALO` | `[max(1, nflat_gradp), nlev)` |
//!
//! (`max(1, …)` is ICON's `MAX(2, nflatlev)`: the top level would need an upward
//! extrapolation.) `z_theta_v_pr_ic` and `z_exner_ic` are temporaries under ICON's
//! names (private to the program; ICON4Py calls them
//! `perturbed_theta_v_at_cells_on_half_levels`, `exner_at_cells_on_half_levels`) on
//! cells to the end of `HALO` × interfaces `[1, nlev]` and `[max(1, nflatlev), nlev]`.
//! `z_exner_ex_pr` is a full-level field: ICON4Py allocates it with `nlev + 1` levels
//! (ICON's `z_exner_ex_pr(nlevp1)`, set to 0 in ICON), but no program writes or reads
//! level `nlev` (this one writes `[0, nlev)`, the pressure gradient of
//! [`compute_rho_theta_pgrad_and_update_vn`](super::compute_rho_theta_pgrad_and_update_vn)
//! reads full levels), so it has `nlev` levels here, as that program declares it.
//! `z_th_ddz_exner_c` has `nlev` levels (as in ICON4Py), level `k` holding interface `k`.
//!
//! ICON4Py's names: `z_exner_ex_pr` = `temporal_extrapolation_of_perturbed_exner`,
//! `z_dexner_dz_c_1` = `ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels`,
//! `z_dexner_dz_c_2` = `d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels`,
//! `exner_pr` = `perturbed_exner_at_cells_on_model_levels` (read, then overwritten),
//! `z_rth_pr_1`/`_2` = `perturbed_rho`/`perturbed_theta_v_at_cells_on_model_levels`,
//! `rho_ic` = `rho_at_cells_on_half_levels`, `theta_v_ic` =
//! `theta_v_at_cells_on_half_levels`, `z_th_ddz_exner_c` =
//! `nonhydro_buoy_at_cells_on_half_levels`, `rho`/`theta_v`/`exner` =
//! `current_rho`/`_theta_v`/`_exner`, `rho_ref_mc`/`theta_ref_mc`/`exner_ref_mc` =
//! `reference_rho`/`_theta`/`_exner_at_cells_on_model_levels`, `theta_ref_ic` =
//! `reference_theta_at_cells_on_half_levels`, `vwind_expl_wgt` =
//! `exner_w_explicit_weight_parameter`, `d_exner_dz_ref_ic` =
//! `ddz_of_reference_exner_at_cells_on_half_levels`, `exner_exfac` =
//! `time_extrapolation_parameter_for_exner`. `wgtfacq_c` is a full-level field whose
//! lowest three levels hold ICON's `wgtfacq_c(1..3)` (`nlev − 1` holds `wgtfacq_c(1)`),
//! as `wgtfacq_e` is in velocity advection.
//!
//! Statics: `igradp_method` (only 3, ICON4Py `TAYLOR_HYDRO`, ICON's default: any other
//! value is refused when the program is specialised), `nflatlev` and `nflat_gradp` (open;
//! the catalog fixes [`NFLATLEV`] and [`NFLAT_GRADP`]). One variant.

use crate::diffusion::stencils::calculate_diagnostic_quantities_for_turbulence::full_to_half_level;
use crate::velocity_advection::stencils::compute_diagnostics_from_normal_wind::{
    self as diagnostics, extrapolate_at_top,
};
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "compute_perturbed_quantities_and_interpolation";

/// ICON's `igradp_method` of the Taylor-expanded hydrostatic pressure gradient
/// (ICON4Py `HorizontalPressureDiscretizationType.TAYLOR_HYDRO`): the only one supported.
pub const TAYLOR_HYDRO: i32 = 3;

/// The catalog's `nflatlev`: the one of velocity advection and the predictor's P8
/// (full levels on both sides of it in a 10-level test column).
pub const NFLATLEV: i32 = diagnostics::NFLATLEV;

/// The catalog's `nflat_gradp`: below [`NFLATLEV`] (as in ICON, where the
/// multi-level pressure gradient starts below the flat levels), levels on both sides of
/// it in a 10-level test column (ICON4Py's stencil test uses `nflatlev = 5`,
/// `nflat_gradp = 34`, the values of MeteoSwiss' ch1 experiment).
pub const NFLAT_GRADP: i32 = 6;

/// The program's fields (ICON4Py's names in the docs; `(Cell, K)` unless stated).
pub struct Handles<'a> {
    /// Output `temporal_extrapolation_of_perturbed_exner` (`z_exner_ex_pr`).
    pub z_exner_ex_pr: &'a Expr,
    /// Output `ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels` (`z_dexner_dz_c_1`).
    pub z_dexner_dz_c_1: &'a Expr,
    /// Output `d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels` (`z_dexner_dz_c_2`).
    pub z_dexner_dz_c_2: &'a Expr,
    /// In/out `perturbed_exner_at_cells_on_model_levels` (`exner_pr`).
    pub exner_pr: &'a Expr,
    /// Output `perturbed_rho_at_cells_on_model_levels` (`z_rth_pr_1`).
    pub z_rth_pr_1: &'a Expr,
    /// Output `perturbed_theta_v_at_cells_on_model_levels` (`z_rth_pr_2`).
    pub z_rth_pr_2: &'a Expr,
    /// Output `rho_at_cells_on_half_levels` (`rho_ic`; `(Cell, KHALF)`).
    pub rho_ic: &'a Expr,
    /// Output `theta_v_at_cells_on_half_levels` (`theta_v_ic`; `(Cell, KHALF)`).
    pub theta_v_ic: &'a Expr,
    /// `current_rho` (`rho`).
    pub rho: &'a Expr,
    /// `reference_rho_at_cells_on_model_levels` (`rho_ref_mc`).
    pub rho_ref_mc: &'a Expr,
    /// `current_theta_v` (`theta_v`).
    pub theta_v: &'a Expr,
    /// `reference_theta_at_cells_on_model_levels` (`theta_ref_mc`).
    pub theta_ref_mc: &'a Expr,
    /// `reference_theta_at_cells_on_half_levels` (`theta_ref_ic`; `(Cell, KHALF)`).
    pub theta_ref_ic: &'a Expr,
    /// `wgtfacq_c`: surface extrapolation weights in the lowest three levels.
    pub wgtfacq_c: &'a Expr,
    /// `wgtfac_c`: weight of the level below in the full-to-half interpolation (`(Cell, KHALF)`).
    pub wgtfac_c: &'a Expr,
    /// `exner_w_explicit_weight_parameter` (`vwind_expl_wgt`; `Cell`).
    pub vwind_expl_wgt: &'a Expr,
    /// `ddz_of_reference_exner_at_cells_on_half_levels` (`d_exner_dz_ref_ic`; `(Cell, KHALF)`).
    pub d_exner_dz_ref_ic: &'a Expr,
    /// `ddqz_z_half`: distance between the full levels around each interface (`(Cell, KHALF)`).
    pub ddqz_z_half: &'a Expr,
    /// Output `nonhydro_buoy_at_cells_on_half_levels` (`z_th_ddz_exner_c`).
    pub z_th_ddz_exner_c: &'a Expr,
    /// `time_extrapolation_parameter_for_exner` (`exner_exfac`).
    pub exner_exfac: &'a Expr,
    /// `current_exner` (`exner`).
    pub exner: &'a Expr,
    /// `reference_exner_at_cells_on_model_levels` (`exner_ref_mc`).
    pub exner_ref_mc: &'a Expr,
    /// `inv_ddqz_z_full`: inverse layer thickness.
    pub inv_ddqz_z_full: &'a Expr,
    /// `d2dexdz2_fac1_mc`.
    pub d2dexdz2_fac1_mc: &'a Expr,
    /// `d2dexdz2_fac2_mc`.
    pub d2dexdz2_fac2_mc: &'a Expr,
    /// Temporary `z_theta_v_pr_ic` (ICON's name; `(Cell, KHALF)`), private to the program: a
    /// name apart from the solver's slot `perturbed_theta_v_at_cells_on_half_levels`,
    /// which the CUDA component would otherwise bind it to.
    pub z_theta_v_pr_ic: &'a Expr,
    /// Temporary `exner_at_cells_on_half_levels` (`z_exner_ic`; `(Cell, KHALF)`).
    pub z_exner_ic: &'a Expr,
}

/// The open statics of a variant (`igradp_method` is always [`TAYLOR_HYDRO`]).
#[derive(Clone, Copy, Debug)]
pub struct Statics {
    /// `nflatlev`.
    pub nflatlev: i32,
    /// `nflat_gradp`.
    pub nflat_gradp: i32,
}

/// `(1 + exner_exfac)·(exner − exner_ref_mc) − exner_exfac·exner_pr` on full levels
/// (ICON4Py `_extrapolate_temporally_exner_pressure`, its first result; the second,
/// the new `exner_pr`, is `exner − exner_ref_mc`).
pub fn extrapolate_temporally_exner_pressure(
    exner_exfac: &Expr,
    exner: &Expr,
    exner_ref_mc: &Expr,
    exner_pr: &Expr,
) -> Expr {
    (1.0 + exner_exfac) * (exner - exner_ref_mc) - exner_exfac * exner_pr
}

/// Full-level `x` on the half levels `[1, nlev]`: the `wgtfac_c` interpolation above the
/// surface, `surface` (a half-level value) at `k = nlev` (ICON4Py
/// `_interpolate_cell_field_to_half_levels_with_surface_value_*`).
pub fn interpolate_with_surface_value(wgtfac_c: &Expr, x: &Expr, surface: &Expr) -> Expr {
    concat_where(
        index(KHALF).lt(nlev()),
        full_to_half_level(wgtfac_c, x),
        surface,
    )
}

/// `vwind_expl_wgt·theta_v_ic·(exner_pr(k−1) − exner_pr(k))/ddqz_z_half +
/// z_theta_v_pr_ic·d_exner_dz_ref_ic` on interface `k`, stored at full level `k`
/// (ICON4Py `_calculate_nonhydro_buoy_at_cells_on_half_levels`).
pub fn calculate_nonhydro_buoy_at_cells_on_half_levels(f: &Handles<'_>) -> Expr {
    let dexner = f.exner_pr.k_shift(-1).as_half() - f.exner_pr.as_half();
    let pressure = f.vwind_expl_wgt * f.theta_v_ic * dexner / f.ddqz_z_half;
    (pressure + f.z_theta_v_pr_ic * f.d_exner_dz_ref_ic).as_full()
}

/// `(x(k) − x(k+1))·inv_ddqz_z_full` on full level `k` of the half-level `x` (ICON4Py
/// `_compute_first_vertical_derivative_at_cells`).
pub fn compute_first_vertical_derivative_at_cells(x: &Expr, inv_ddqz_z_full: &Expr) -> Expr {
    (x - x.k_shift(1)).as_full() * inv_ddqz_z_full
}

/// `−½·((z_theta_v_pr_ic(k) − z_theta_v_pr_ic(k+1))·d2dexdz2_fac1_mc +
/// z_rth_pr_2·d2dexdz2_fac2_mc)` (ICON4Py's second vertical derivative of the Exner
/// perturbation, formerly solve_nonhydro stencil 12).
pub fn compute_approx_of_2nd_vertical_derivative_of_exner(f: &Handles<'_>) -> Expr {
    let djump = (f.z_theta_v_pr_ic - f.z_theta_v_pr_ic.k_shift(1)).as_full();
    -0.5 * (djump * f.d2dexdz2_fac1_mc + f.z_rth_pr_2 * f.d2dexdz2_fac2_mc)
}

/// Adds the program's stencils to `b` in ICON's order, each on its output's domain (the
/// module doc's table); every stencil reads only inputs and what an earlier one wrote.
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>, s: Statics) {
    let lb3 = start(Zone::LateralBoundary(3));
    let (local, halo, halo_2) = (end(Zone::Local), end(Zone::Halo(1)), end(Zone::Halo(2)));
    // The old exner_pr is read before the next stencil overwrites it.
    b.stencil(
        "extrapolate_temporally_exner_pressure",
        f.z_exner_ex_pr,
        extrapolate_temporally_exner_pressure(f.exner_exfac, f.exner, f.exner_ref_mc, f.exner_pr),
    )
    .horizontal(lb3, halo)
    .vertical(0, nlev());
    b.stencil(
        "compute_perturbed_exner",
        f.exner_pr,
        f.exner - f.exner_ref_mc,
    )
    .horizontal(lb3, halo)
    .vertical(0, nlev());
    b.stencil(
        "compute_perturbation_of_rho_and_theta",
        (f.z_rth_pr_1, f.z_rth_pr_2),
        tuple((f.rho - f.rho_ref_mc, f.theta_v - f.theta_ref_mc)),
    )
    .horizontal(lb3, halo_2)
    .vertical(0, nlev());
    b.stencil(
        "interpolate_rho_to_half_levels",
        f.rho_ic,
        full_to_half_level(f.wgtfac_c, f.rho),
    )
    .horizontal(lb3, local)
    .vertical(1, nlev());
    b.stencil(
        "interpolate_perturbed_theta_v_to_half_levels",
        f.z_theta_v_pr_ic,
        interpolate_with_surface_value(
            f.wgtfac_c,
            f.z_rth_pr_2,
            &extrapolate_at_top(f.wgtfacq_c, f.z_rth_pr_2),
        ),
    )
    .horizontal(lb3, halo)
    .vertical(1, nlev() + 1);
    b.stencil(
        "interpolate_theta_v_to_half_levels",
        f.theta_v_ic,
        interpolate_with_surface_value(
            f.wgtfac_c,
            f.theta_v,
            &(f.theta_ref_ic + f.z_theta_v_pr_ic),
        ),
    )
    .horizontal(lb3, halo)
    .vertical(1, nlev() + 1);
    b.stencil(
        "calculate_nonhydro_buoy_at_cells_on_half_levels",
        f.z_th_ddz_exner_c,
        calculate_nonhydro_buoy_at_cells_on_half_levels(f),
    )
    .horizontal(lb3, local)
    .vertical(1, nlev());
    // igradp_method = TAYLOR_HYDRO: the vertical derivatives of the extrapolated Exner
    // perturbation for the horizontal pressure gradient.
    let flat = s.nflatlev.max(1);
    b.stencil(
        "interpolate_exner_to_half_levels",
        f.z_exner_ic,
        interpolate_with_surface_value(
            f.wgtfac_c,
            f.z_exner_ex_pr,
            &extrapolate_at_top(f.wgtfacq_c, f.z_exner_ex_pr),
        ),
    )
    .horizontal(lb3, halo)
    .vertical(flat, nlev() + 1);
    b.stencil(
        "compute_first_vertical_derivative_at_cells",
        f.z_dexner_dz_c_1,
        compute_first_vertical_derivative_at_cells(f.z_exner_ic, f.inv_ddqz_z_full),
    )
    .horizontal(lb3, halo)
    .vertical(flat, nlev());
    b.stencil(
        "compute_approx_of_2nd_vertical_derivative_of_exner",
        f.z_dexner_dz_c_2,
        compute_approx_of_2nd_vertical_derivative_of_exner(f),
    )
    .horizontal(lb3, halo)
    .vertical(s.nflat_gradp.max(1), nlev());
}

/// The DSL program (statics `igradp_method` ∈ {3}, `nflatlev`, `nflat_gradp`), with
/// ICON4Py's arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let _ = b.static_i32("igradp_method");
        let s = Statics {
            nflatlev: b.static_i32("nflatlev"),
            nflat_gradp: b.static_i32("nflat_gradp"),
        };
        let (full, half) = ((CELL, K), (CELL, KHALF));
        let f = Handles {
            z_exner_ex_pr: &b.output("temporal_extrapolation_of_perturbed_exner", full, F64),
            z_dexner_dz_c_1: &b.output(
                "ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels",
                full,
                F64,
            ),
            z_dexner_dz_c_2: &b.output(
                "d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels",
                full,
                F64,
            ),
            exner_pr: &b.inout("perturbed_exner_at_cells_on_model_levels", full, F64),
            z_rth_pr_1: &b.output("perturbed_rho_at_cells_on_model_levels", full, F64),
            z_rth_pr_2: &b.output("perturbed_theta_v_at_cells_on_model_levels", full, F64),
            rho_ic: &b.output("rho_at_cells_on_half_levels", half, F64),
            theta_v_ic: &b.output("theta_v_at_cells_on_half_levels", half, F64),
            rho: &b.input("current_rho", full, F64),
            rho_ref_mc: &b.input("reference_rho_at_cells_on_model_levels", full, F64),
            theta_v: &b.input("current_theta_v", full, F64),
            theta_ref_mc: &b.input("reference_theta_at_cells_on_model_levels", full, F64),
            theta_ref_ic: &b.input("reference_theta_at_cells_on_half_levels", half, F64),
            wgtfacq_c: &b.input("wgtfacq_c", full, F64),
            wgtfac_c: &b.input("wgtfac_c", half, F64),
            vwind_expl_wgt: &b.input("exner_w_explicit_weight_parameter", CELL, F64),
            d_exner_dz_ref_ic: &b.input(
                "ddz_of_reference_exner_at_cells_on_half_levels",
                half,
                F64,
            ),
            ddqz_z_half: &b.input("ddqz_z_half", half, F64),
            z_th_ddz_exner_c: &b.output("nonhydro_buoy_at_cells_on_half_levels", full, F64),
            exner_exfac: &b.input("time_extrapolation_parameter_for_exner", full, F64),
            exner: &b.input("current_exner", full, F64),
            exner_ref_mc: &b.input("reference_exner_at_cells_on_model_levels", full, F64),
            inv_ddqz_z_full: &b.input("inv_ddqz_z_full", full, F64),
            d2dexdz2_fac1_mc: &b.input("d2dexdz2_fac1_mc", full, F64),
            d2dexdz2_fac2_mc: &b.input("d2dexdz2_fac2_mc", full, F64),
            z_theta_v_pr_ic: &b.temporary("z_theta_v_pr_ic", half, F64),
            z_exner_ic: &b.temporary("z_exner_ic", half, F64),
        };
        add_stencils(b, &f, s);
    })
    .static_i32("igradp_method", &[TAYLOR_HYDRO])
    .static_i32("nflatlev", &[])
    .static_i32("nflat_gradp", &[])
}
