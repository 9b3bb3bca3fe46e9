//! `apply_divergence_damping_and_update_vn` (ICON `mo_solve_nonhydro` stencils 17, 23,
//! 25–28 of the corrector of every substep; ICON4Py program of the same name in
//! `compute_edge_diagnostics_for_dycore_and_update_vn.py`, formerly
//! `fused_solve_nonhydro_stencil_15_to_28_corrector`): the new normal wind from the
//! tendencies averaged between predictor and corrector, with the 2nd- and/or 4th-order
//! divergence damping and the IAU increment.
//!
//! Edges `[NUDGING_LEVEL_2, LOCAL end)` × full levels `[0, nlev)` (ICON4Py's
//! `horizontal_start = start_edge_nudging_level_2`, `horizontal_end = end_edge_local`);
//! `vn_new` keeps its values outside. In ICON's short names (`E2C2EO` the edge itself in
//! slot 0 and its four diamond edges):
//!
//! ```text
//! z_graddiv_vn' = z_graddiv_vn + hmask_dd3d·scalfac_dd3d·inv_dual_edge_length
//!                                 ·(z_dwdz_dd(E2C[1]) − z_dwdz_dd(E2C[0]))    (stencil 17)
//! vn_new = vn_now + dtime·(wgt_nnow_vel·ddt_vn_apc_pc + wgt_nnew_vel·ddt_vn_apc_cor
//!                          + ddt_vn_phy − cpd·z_theta_v_e·z_gradh_exner)       (stencil 23)
//! apply_2nd_order_divergence_damping:  vn_new += scal_divdamp_o2·z_graddiv_vn' (stencil 26)
//! apply_4th_order_divergence_damping:
//!   z_graddiv2_vn = Σ_{E2C2EO} geofac_grdiv·z_graddiv_vn'                      (stencil 25)
//!   f(k)          = max(0, enh_divdamp_fac(k) − ¼·divdamp_fac_o2)  (divdamp_order = 24)
//!                   enh_divdamp_fac(k)                              (otherwise)
//!   scal_divdamp  = −f·mean_cell_area²
//!   global:       vn_new += scal_divdamp·z_graddiv2_vn
//!   limited area: vn_new += (scal_divdamp + bdy_divdamp·nudgecoeff_e)·z_graddiv2_vn,
//!                 bdy_divdamp = 0.75/(max_nudging_coefficient + dbl_eps)·|scal_divdamp|
//!                                                                               (stencil 27)
//! is_iau_active:  vn_new += iau_wgt_dyn·vn_incr                                (stencil 28)
//! ```
//!
//! `z_graddiv_vn'` is a temporary (`horizontal_gradient_of_total_divergence`), computed
//! on edges `[LATERAL_BOUNDARY_LEVEL_5, HALO_LEVEL_2 end)`, which hold the diamond edges
//! of every edge of the domain.
//!
//! ICON4Py's names: `z_graddiv_vn` = `horizontal_gradient_of_normal_wind_divergence`,
//! `vn_new` = `next_vn`, `vn_now` = `current_vn`, `z_dwdz_dd` =
//! `dwdz_at_cells_on_model_levels`, `ddt_vn_apc_pc`/`_cor` =
//! `predictor_`/`corrector_normal_wind_advective_tendency`, `ddt_vn_phy` =
//! `normal_wind_tendency_due_to_slow_physics_process`, `vn_incr` =
//! `normal_wind_iau_increment`, `scal_divdamp_o2` = `second_order_divdamp_scaling_coeff`,
//! `z_theta_v_e` = `theta_v_at_edges_on_model_levels`, `z_gradh_exner` =
//! `horizontal_pressure_gradient`, `hmask_dd3d` = `horizontal_mask_for_3d_divdamp`,
//! `scalfac_dd3d` = `scaling_factor_for_3d_divdamp`, `enh_divdamp_fac` =
//! `interpolated_fourth_order_divdamp_factor`, `wgt_nnow_vel`/`wgt_nnew_vel` =
//! `advection_explicit`/`implicit_weight_parameter`, `divdamp_fac_o2` =
//! `second_order_divdamp_factor`. Statics (enumerated): `is_iau_active`, `limited_area`,
//! `apply_2nd_order_divergence_damping`, `apply_4th_order_divergence_damping`;
//! `divdamp_order` (2, 4 or 24; the catalog fixes ICON's default [`DIVDAMP_ORDER`]).

use super::compute_horizontal_velocity_quantities_and_fluxes::compute_graddiv_of_vn;
use crate::common::constants::CPD;
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "apply_divergence_damping_and_update_vn";

/// The catalog's `divdamp_order`: ICON's default, 24 (combined 2nd and 4th order).
pub const DIVDAMP_ORDER: i32 = 24;

/// `z_graddiv_vn + hmask_dd3d·scalfac_dd3d·inv_dual_edge_length·(z_dwdz_dd(E2C[1]) −
/// z_dwdz_dd(E2C[0]))` (ICON4Py `_add_vertical_wind_derivative_to_divergence_damping`).
pub fn add_vertical_wind_derivative_to_divergence_damping(
    hmask_dd3d: &Expr,
    scalfac_dd3d: &Expr,
    inv_dual_edge_length: &Expr,
    z_dwdz_dd: &Expr,
    z_graddiv_vn: &Expr,
) -> Expr {
    z_graddiv_vn
        + hmask_dd3d
            * scalfac_dd3d
            * inv_dual_edge_length
            * (z_dwdz_dd.at(E2C, 1) - z_dwdz_dd.at(E2C, 0))
}

/// The time levels' tendencies of `vn` (ICON4Py
/// `_add_temporal_tendencies_to_vn_by_interpolating_between_time_levels`).
pub struct Tendencies<'a> {
    /// `vn_now`.
    pub vn_nnow: &'a Expr,
    /// `ddt_vn_apc_pc`: the predictor's advective tendency.
    pub ddt_vn_apc_ntl1: &'a Expr,
    /// `ddt_vn_apc_cor`: the corrector's advective tendency.
    pub ddt_vn_apc_ntl2: &'a Expr,
    /// `ddt_vn_phy`: the slow physics' tendency.
    pub ddt_vn_phy: &'a Expr,
    /// `z_theta_v_e`: θv at the edges.
    pub z_theta_v_e: &'a Expr,
    /// `z_gradh_exner`: horizontal gradient of the Exner pressure.
    pub z_gradh_exner: &'a Expr,
}

/// `vn_nnow + dtime·(wgt_nnow_vel·ddt_vn_apc_ntl1 + wgt_nnew_vel·ddt_vn_apc_ntl2 +
/// ddt_vn_phy − cpd·z_theta_v_e·z_gradh_exner)` (ICON4Py
/// `_add_temporal_tendencies_to_vn_by_interpolating_between_time_levels`).
pub fn add_temporal_tendencies_to_vn_by_interpolating_between_time_levels(
    t: &Tendencies<'_>,
    dtime: &Expr,
    wgt_nnow_vel: &Expr,
    wgt_nnew_vel: &Expr,
) -> Expr {
    t.vn_nnow
        + dtime
            * (wgt_nnow_vel * t.ddt_vn_apc_ntl1 + wgt_nnew_vel * t.ddt_vn_apc_ntl2 + t.ddt_vn_phy
                - CPD * t.z_theta_v_e * t.z_gradh_exner)
}

/// `−f·mean_cell_area²` with `f = max(0, enh_divdamp_fac − ¼·second_order_divdamp_factor)`
/// for `divdamp_order = 24`, else `enh_divdamp_fac` (ICON4Py
/// `_calculate_fourth_order_divdamp_scaling_coeff`).
pub fn calculate_fourth_order_divdamp_scaling_coeff(
    interpolated_fourth_order_divdamp_factor: &Expr,
    divdamp_order: i32,
    mean_cell_area: &Expr,
    second_order_divdamp_factor: &Expr,
) -> Expr {
    let f = if divdamp_order == 24 {
        maximum(
            0.0,
            interpolated_fourth_order_divdamp_factor - 0.25 * second_order_divdamp_factor,
        )
    } else {
        interpolated_fourth_order_divdamp_factor.clone()
    };
    -f * mean_cell_area * mean_cell_area
}

/// `0.75/(max_nudging_coefficient + dbl_eps)·|scal_divdamp|` (ICON4Py
/// `_calculate_reduced_fourth_order_divdamp_coeff_at_nest_boundary`).
pub fn calculate_reduced_fourth_order_divdamp_coeff_at_nest_boundary(
    scal_divdamp: &Expr,
    max_nudging_coefficient: &Expr,
    dbl_eps: &Expr,
) -> Expr {
    0.75 / (max_nudging_coefficient + dbl_eps) * scal_divdamp.abs()
}

/// The program's fields and scalars (ICON4Py's names, ICON's in the docs; `(Edge, K)`
/// unless stated).
pub struct Handles<'a> {
    /// `z_graddiv_vn` (from the predictor's P8).
    pub z_graddiv_vn: &'a Expr,
    /// Output `next_vn` (`vn_new`).
    pub next_vn: &'a Expr,
    /// The tendencies and `vn_now`.
    pub tendencies: Tendencies<'a>,
    /// `z_dwdz_dd` (`Cell, K`).
    pub z_dwdz_dd: &'a Expr,
    /// `vn_incr`: the IAU increment.
    pub vn_incr: &'a Expr,
    /// `hmask_dd3d` (`Edge`).
    pub hmask_dd3d: &'a Expr,
    /// `scalfac_dd3d` (`K`).
    pub scalfac_dd3d: &'a Expr,
    /// `inv_dual_edge_length` (`Edge`).
    pub inv_dual_edge_length: &'a Expr,
    /// `nudgecoeff_e` (`Edge`).
    pub nudgecoeff_e: &'a Expr,
    /// `geofac_grdiv` (`Edge, E2C2EO`).
    pub geofac_grdiv: &'a Expr,
    /// `enh_divdamp_fac` (`K`).
    pub enh_divdamp_fac: &'a Expr,
    /// Temporary `z_graddiv_vn'` (`horizontal_gradient_of_total_divergence`).
    pub z_graddiv_total: &'a Expr,
    /// Scalar `scal_divdamp_o2`.
    pub scal_divdamp_o2: &'a Expr,
    /// Scalar `wgt_nnow_vel`.
    pub wgt_nnow_vel: &'a Expr,
    /// Scalar `wgt_nnew_vel`.
    pub wgt_nnew_vel: &'a Expr,
    /// Scalar `dtime`.
    pub dtime: &'a Expr,
    /// Scalar `iau_wgt_dyn`.
    pub iau_wgt_dyn: &'a Expr,
    /// Scalar `mean_cell_area`.
    pub mean_cell_area: &'a Expr,
    /// Scalar `divdamp_fac_o2`.
    pub divdamp_fac_o2: &'a Expr,
    /// Scalar `max_nudging_coefficient`.
    pub max_nudging_coefficient: &'a Expr,
    /// Scalar `dbl_eps`.
    pub dbl_eps: &'a Expr,
}

/// The statics of a variant.
#[derive(Clone, Copy, Debug)]
pub struct Statics {
    /// `is_iau_active`.
    pub is_iau_active: bool,
    /// `limited_area`.
    pub limited_area: bool,
    /// `apply_2nd_order_divergence_damping`.
    pub second_order: bool,
    /// `apply_4th_order_divergence_damping`.
    pub fourth_order: bool,
    /// `divdamp_order`.
    pub divdamp_order: i32,
}

/// `vn_new` on the edges (the stencil's value; see the module doc).
pub fn apply_divergence_damping_and_update_vn_op(f: &Handles<'_>, s: Statics) -> Expr {
    let mut vn = add_temporal_tendencies_to_vn_by_interpolating_between_time_levels(
        &f.tendencies,
        f.dtime,
        f.wgt_nnow_vel,
        f.wgt_nnew_vel,
    );
    if s.second_order {
        vn = vn + f.scal_divdamp_o2 * f.z_graddiv_total;
    }
    if s.fourth_order {
        let z_graddiv2_vn = compute_graddiv_of_vn(f.geofac_grdiv, f.z_graddiv_total);
        let scal_divdamp = calculate_fourth_order_divdamp_scaling_coeff(
            f.enh_divdamp_fac,
            s.divdamp_order,
            f.mean_cell_area,
            f.divdamp_fac_o2,
        );
        let factor = if s.limited_area {
            let bdy_divdamp = calculate_reduced_fourth_order_divdamp_coeff_at_nest_boundary(
                &scal_divdamp,
                f.max_nudging_coefficient,
                f.dbl_eps,
            );
            scal_divdamp + bdy_divdamp * f.nudgecoeff_e
        } else {
            scal_divdamp
        };
        vn = vn + factor * z_graddiv2_vn;
    }
    if s.is_iau_active {
        vn = vn + f.iau_wgt_dyn * f.vn_incr;
    }
    vn
}

/// Adds the program's stencils to `b`: with any damping, the temporary on edges
/// `[LATERAL_BOUNDARY_LEVEL_5, HALO_LEVEL_2 end)`; then `vn_new` on `[NUDGING_LEVEL_2,
/// LOCAL end)`, both on levels `[0, nlev)`.
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>, s: Statics) {
    if s.second_order || s.fourth_order {
        b.stencil(
            "add_vertical_wind_derivative_to_divergence_damping",
            f.z_graddiv_total,
            add_vertical_wind_derivative_to_divergence_damping(
                f.hmask_dd3d,
                f.scalfac_dd3d,
                f.inv_dual_edge_length,
                f.z_dwdz_dd,
                f.z_graddiv_vn,
            ),
        )
        .horizontal(start(Zone::LateralBoundary(5)), end(Zone::Halo(2)))
        .vertical(0, nlev());
    }
    b.stencil(
        NAME,
        f.next_vn,
        apply_divergence_damping_and_update_vn_op(f, s),
    )
    .horizontal(start(Zone::Nudging(2)), end(Zone::Local))
    .vertical(0, nlev());
}

/// The DSL program (statics `is_iau_active`, `limited_area`,
/// `apply_2nd_order_divergence_damping`, `apply_4th_order_divergence_damping`,
/// `divdamp_order`), with ICON4Py's arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let s = Statics {
            is_iau_active: b.static_bool("is_iau_active"),
            limited_area: b.static_bool("limited_area"),
            second_order: b.static_bool("apply_2nd_order_divergence_damping"),
            fourth_order: b.static_bool("apply_4th_order_divergence_damping"),
            divdamp_order: b.static_i32("divdamp_order"),
        };
        let ek = (EDGE, K);
        let z_graddiv_vn = b.input("horizontal_gradient_of_normal_wind_divergence", ek, F64);
        let next_vn = b.output("next_vn", ek, F64);
        let vn_nnow = b.input("current_vn", ek, F64);
        let z_dwdz_dd = b.input("dwdz_at_cells_on_model_levels", (CELL, K), F64);
        let ddt_pc = b.input("predictor_normal_wind_advective_tendency", ek, F64);
        let ddt_cor = b.input("corrector_normal_wind_advective_tendency", ek, F64);
        let ddt_vn_phy = b.input("normal_wind_tendency_due_to_slow_physics_process", ek, F64);
        let vn_incr = b.input("normal_wind_iau_increment", ek, F64);
        let scal_divdamp_o2 = b.scalar("second_order_divdamp_scaling_coeff", F64);
        let z_theta_v_e = b.input("theta_v_at_edges_on_model_levels", ek, F64);
        let z_gradh_exner = b.input("horizontal_pressure_gradient", ek, F64);
        let hmask_dd3d = b.input("horizontal_mask_for_3d_divdamp", EDGE, F64);
        let scalfac_dd3d = b.input("scaling_factor_for_3d_divdamp", K, F64);
        let inv_dual_edge_length = b.input("inv_dual_edge_length", EDGE, F64);
        let nudgecoeff_e = b.input("nudgecoeff_e", EDGE, F64);
        let geofac_grdiv = b.input("geofac_grdiv", (EDGE, E2C2EO), F64);
        let enh_divdamp_fac = b.input("interpolated_fourth_order_divdamp_factor", K, F64);
        let wgt_nnow_vel = b.scalar("advection_explicit_weight_parameter", F64);
        let wgt_nnew_vel = b.scalar("advection_implicit_weight_parameter", F64);
        let dtime = b.scalar("dtime", F64);
        let iau_wgt_dyn = b.scalar("iau_wgt_dyn", F64);
        let mean_cell_area = b.scalar("mean_cell_area", F64);
        let divdamp_fac_o2 = b.scalar("second_order_divdamp_factor", F64);
        let max_nudging_coefficient = b.scalar("max_nudging_coefficient", F64);
        let dbl_eps = b.scalar("dbl_eps", F64);
        let z_graddiv_total = b.temporary("horizontal_gradient_of_total_divergence", ek, F64);
        let f = Handles {
            z_graddiv_vn: &z_graddiv_vn,
            next_vn: &next_vn,
            tendencies: Tendencies {
                vn_nnow: &vn_nnow,
                ddt_vn_apc_ntl1: &ddt_pc,
                ddt_vn_apc_ntl2: &ddt_cor,
                ddt_vn_phy: &ddt_vn_phy,
                z_theta_v_e: &z_theta_v_e,
                z_gradh_exner: &z_gradh_exner,
            },
            z_dwdz_dd: &z_dwdz_dd,
            vn_incr: &vn_incr,
            hmask_dd3d: &hmask_dd3d,
            scalfac_dd3d: &scalfac_dd3d,
            inv_dual_edge_length: &inv_dual_edge_length,
            nudgecoeff_e: &nudgecoeff_e,
            geofac_grdiv: &geofac_grdiv,
            enh_divdamp_fac: &enh_divdamp_fac,
            z_graddiv_total: &z_graddiv_total,
            scal_divdamp_o2: &scal_divdamp_o2,
            wgt_nnow_vel: &wgt_nnow_vel,
            wgt_nnew_vel: &wgt_nnew_vel,
            dtime: &dtime,
            iau_wgt_dyn: &iau_wgt_dyn,
            mean_cell_area: &mean_cell_area,
            divdamp_fac_o2: &divdamp_fac_o2,
            max_nudging_coefficient: &max_nudging_coefficient,
            dbl_eps: &dbl_eps,
        };
        add_stencils(b, &f, s);
    })
    .static_bool("is_iau_active")
    .static_bool("limited_area")
    .static_bool("apply_2nd_order_divergence_damping")
    .static_bool("apply_4th_order_divergence_damping")
    .static_i32("divdamp_order", &[2, 4, 24])
}
