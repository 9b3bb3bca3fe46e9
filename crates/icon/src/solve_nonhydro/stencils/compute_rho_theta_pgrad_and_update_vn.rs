//! `compute_rho_theta_pgrad_and_update_vn` (ICON `mo_solve_nonhydro` stencils 14–28 of
//! the predictor of every substep; ICON4Py program of the same name in
//! `compute_edge_diagnostics_for_dycore_and_update_vn.py`, formerly
//! `compute_theta_rho_face_values_and_pressure_gradient_and_update_vn` and
//! `fused_solve_nonhydro_stencil_15_to_28_predictor`): ρ and θv at the edges by Miura's
//! second-order upwind scheme (`iadv_rhotheta = 2`), the horizontal gradient of the Exner
//! pressure by the Taylor expansion with the hydrostatic correction (`igradp_method = 3`,
//! TAYLOR_HYDRO) and the predicted normal wind.
//!
//! **Upwind ρ, θv** (stencil 16 with the Green–Gauss gradients of stencil 14), edges
//! `[LATERAL_BOUNDARY_LEVEL_7, HALO end)`; `c_u = E2C[u]` the upwind cell, `u = 0` where
//! `vn ≥ 0`, else 1; `dthalf = ½·dtime`:
//!
//! ```text
//! ∂x f(c)  = Σ_{C2E2CO} geofac_grg_x·f,  ∂y f(c) = Σ_{C2E2CO} geofac_grg_y·f
//! ntd1     = −(vn·dthalf + pos_on_tplane_e_x[u]),  ntd2 = −(vt·dthalf + pos_on_tplane_e_y[u])
//! distv1   = ntd1·primal_normal_cell_x[u] + ntd2·dual_normal_cell_x[u]
//! distv2   = ntd1·primal_normal_cell_y[u] + ntd2·dual_normal_cell_y[u]
//! z_rho_e     = rho_ref_me   + z_rth_pr_1(c_u) + distv1·∂x z_rth_pr_1(c_u) + distv2·∂y z_rth_pr_1(c_u)
//! z_theta_v_e = theta_ref_me + z_rth_pr_2(c_u) + distv1·∂x z_rth_pr_2(c_u) + distv2·∂y z_rth_pr_2(c_u)
//! ```
//!
//! Both are written on `[0, HALO_LEVEL_2 end)` and are exactly 0 outside
//! `[LATERAL_BOUNDARY_LEVEL_7, HALO end)` (ICON initialises those edges with zero; ICON4Py
//! writes the zeros, they are no output domain).
//!
//! **Pressure gradient** (stencils 18–20, 22), edges `[NUDGING_LEVEL_2, LOCAL end)`, with
//! `z_exner_ex_pr`, `z_dexner_dz_c_1/2` read at `(c_i, k_i)`, `c_i = E2C[i]`:
//!
//! ```text
//! k < nflatlev:                 z_gradh_exner = inv_dual_edge_length·(z_exner_ex_pr(c_1) − z_exner_ex_pr(c_0))
//! nflatlev ≤ k ≤ nflat_gradp:   the same − ddxn_z_full·Σ_{E2C} c_lin_e·z_dexner_dz_c_1
//! k > nflat_gradp:              p_i = z_exner_ex_pr + zdiff_gradp[i]·(z_dexner_dz_c_1 + zdiff_gradp[i]·z_dexner_dz_c_2)
//!                               at k_i = k + ikoffset[i];  z_gradh_exner = inv_dual_edge_length·(p_1 − p_0)
//! pg_exdist ≠ 0:                z_gradh_exner += z_hydro_corr·pg_exdist
//! ```
//!
//! **Normal wind** (stencils 24, 28, 29), `vn_new` on edges `[LATERAL_BOUNDARY, LOCAL
//! end)`, kept elsewhere:
//!
//! ```text
//! [NUDGING_LEVEL_2, LOCAL end):  vn_new = vn_now + dtime·(ddt_vn_apc_pc − cpd·z_theta_v_e·z_gradh_exner + ddt_vn_phy)
//!   is_iau_active:               vn_new += iau_wgt_dyn·vn_incr
//! limited_area, [LATERAL_BOUNDARY, NUDGING end):  vn_new = vn_now + dtime·grf_tend_vn
//! ```
//!
//! All on full levels `[0, nlev)`. ICON4Py's names: `z_rho_e` =
//! `rho_at_edges_on_model_levels`, `z_theta_v_e` = `theta_v_at_edges_on_model_levels`,
//! `z_gradh_exner` = `horizontal_pressure_gradient`, `vn_new` = `next_vn`, `vn_now` =
//! `current_vn`, `vt` = `tangential_wind`, `rho_ref_me`/`theta_ref_me` =
//! `reference_rho`/`theta_at_edges_on_model_levels`, `z_rth_pr_1/2` =
//! `perturbed_rho`/`theta_v_at_cells_on_model_levels`, `z_exner_ex_pr` =
//! `temporal_extrapolation_of_perturbed_exner`, `z_dexner_dz_c_1/2` =
//! `ddz`/`d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels`,
//! `z_hydro_corr` = level `nlev − 1` of `hydrostatic_correction_on_lowest_level`, `ddt_vn_apc_pc` = `predictor_normal_wind_advective_tendency`, `ddt_vn_phy`
//! = `normal_wind_tendency_due_to_slow_physics_process`, `vn_incr` =
//! `normal_wind_iau_increment`, `ikoffset` = ICON's `vertoffset_gradp`. Statics:
//! `is_iau_active`, `limited_area` (enumerated); `nflatlev`, `nflat_gradp` (open; the
//! catalog fixes [`NFLATLEV`] and [`NFLAT_GRADP`]). The levels `k + ikoffset[i]` must lie
//! in the column (ICON's metric fields make them so).

use crate::common::constants::CPD;
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "compute_rho_theta_pgrad_and_update_vn";

/// The catalog's `nflatlev`: that of the predictor's P8 (velocity advection's
/// [`NFLATLEV`](super::compute_horizontal_velocity_quantities_and_fluxes::NFLATLEV), 4):
/// flat levels `[0, 4)` of a 10-level test column.
pub const NFLATLEV: i32 = super::compute_horizontal_velocity_quantities_and_fluxes::NFLATLEV;
/// The catalog's `nflat_gradp`, 6, that of the predictor's P5 (which computes
/// `z_dexner_dz_c_2` from it on): levels `[4, 6]` take the terrain-following gradient,
/// `[7, 10)` the Taylor expansion over the data-dependent levels (offsets on the lower
/// half of the column).
pub const NFLAT_GRADP: i32 = 6;

/// The program's fields and scalars (ICON's short names; ICON4Py's in the module doc).
pub struct Handles<'a> {
    /// Output `z_rho_e` (`(Edge, K)`).
    pub z_rho_e: &'a Expr,
    /// Output `z_theta_v_e` (`(Edge, K)`).
    pub z_theta_v_e: &'a Expr,
    /// Output `z_gradh_exner` (`(Edge, K)`).
    pub z_gradh_exner: &'a Expr,
    /// Output `vn_new` (`(Edge, K)`, kept outside its edges).
    pub vn_new: &'a Expr,
    /// `vn_now` (`(Edge, K)`).
    pub vn_now: &'a Expr,
    /// `vt`: tangential wind (`(Edge, K)`).
    pub vt: &'a Expr,
    /// `rho_ref_me`: reference density at the edges (`(Edge, K)`).
    pub rho_ref_me: &'a Expr,
    /// `theta_ref_me`: reference θv at the edges (`(Edge, K)`).
    pub theta_ref_me: &'a Expr,
    /// `z_rth_pr_1`: density perturbation (`(Cell, K)`).
    pub z_rth_pr_1: &'a Expr,
    /// `z_rth_pr_2`: θv perturbation (`(Cell, K)`).
    pub z_rth_pr_2: &'a Expr,
    /// `z_exner_ex_pr`: extrapolated Exner perturbation (`(Cell, K)`).
    pub z_exner_ex_pr: &'a Expr,
    /// `z_dexner_dz_c_1`: its first vertical derivative (`(Cell, K)`).
    pub z_dexner_dz_c_1: &'a Expr,
    /// `z_dexner_dz_c_2`: half its second vertical derivative (`(Cell, K)`).
    pub z_dexner_dz_c_2: &'a Expr,
    /// `z_hydro_corr`: hydrostatic correction of the lowest level, read at level
    /// `nlev − 1` of `hydrostatic_correction_on_lowest_level` (`(Edge, K)`) from every
    /// level ([`levels_to_lowest_level`]).
    pub z_hydro_corr: &'a Expr,
    /// `ddt_vn_apc_pc`: the predictor's advective tendency (`(Edge, K)`).
    pub ddt_vn_apc_pc: &'a Expr,
    /// `ddt_vn_phy`: the slow physics' tendency (`(Edge, K)`).
    pub ddt_vn_phy: &'a Expr,
    /// `vn_incr`: the IAU increment (`(Edge, K)`).
    pub vn_incr: &'a Expr,
    /// `grf_tend_vn`: the lateral boundary tendency (`(Edge, K)`).
    pub grf_tend_vn: &'a Expr,
    /// `geofac_grg_x`, `geofac_grg_y`: Green–Gauss gradient weights (`(Cell, C2E2CO)`).
    pub geofac_grg: [&'a Expr; 2],
    /// `pos_on_tplane_e_x`, `_y`: the cell centres on the edge's tangent plane (`(Edge, E2C)`).
    pub pos_on_tplane_e: [&'a Expr; 2],
    /// `primal_normal_cell_x`, `_y` (`(Edge, E2C)`).
    pub primal_normal_cell: [&'a Expr; 2],
    /// `dual_normal_cell_x`, `_y` (`(Edge, E2C)`).
    pub dual_normal_cell: [&'a Expr; 2],
    /// `ddxn_z_full`: terrain slope normal to the edge (`(Edge, K)`).
    pub ddxn_z_full: &'a Expr,
    /// `c_lin_e`: cell-to-edge interpolation weights (`(Edge, E2C)`).
    pub c_lin_e: &'a Expr,
    /// `ikoffset`: ICON's `vertoffset_gradp` (`(Edge, E2C, K)`, i32).
    pub ikoffset: &'a Expr,
    /// `zdiff_gradp`: height of the edge above the neighbour's level (`(Edge, E2C, K)`).
    pub zdiff_gradp: &'a Expr,
    /// `pg_exdist`: extrapolation distance of the hydrostatic correction (`(Edge, K)`).
    pub pg_exdist: &'a Expr,
    /// `inv_dual_edge_length` (`Edge`).
    pub inv_dual_edge_length: &'a Expr,
    /// Scalar `dtime`.
    pub dtime: &'a Expr,
    /// Scalar `iau_wgt_dyn`.
    pub iau_wgt_dyn: &'a Expr,
}

/// The statics of a variant.
#[derive(Clone, Copy, Debug)]
pub struct Statics {
    /// `is_iau_active`.
    pub is_iau_active: bool,
    /// `limited_area`.
    pub limited_area: bool,
    /// `nflatlev`.
    pub nflatlev: i32,
    /// `nflat_gradp`.
    pub nflat_gradp: i32,
}

/// `Σ_{C2E2CO} geofac_grg·f`: one component of the Green–Gauss gradient of the cell field
/// `f` (ICON4Py `cell_horizontal_gradients_by_green_gauss_method`).
pub fn green_gauss_gradient(f: &Expr, geofac_grg: &Expr) -> Expr {
    (geofac_grg * f.shift(C2E2CO)).sum_over(C2E2CO)
}

/// `(z_rho_e, z_theta_v_e)` taken from the cell `E2C[u]` (ICON4Py
/// `_compute_backward_trajectory_from_edge_center` and
/// `_compute_upwind_values_of_rho_and_theta_v_at_edges` for the upwind side `u`).
fn upwind_values_from(f: &Handles<'_>, u: usize) -> [Expr; 2] {
    let dthalf = 0.5 * f.dtime;
    let [pos_x, pos_y] = f.pos_on_tplane_e.map(|p| p.pick(u));
    let ntd1 = -(f.vn_now * &dthalf + pos_x);
    let ntd2 = -(f.vt * &dthalf + pos_y);
    let [distv1, distv2] = [0, 1]
        .map(|d| &ntd1 * f.primal_normal_cell[d].pick(u) + &ntd2 * f.dual_normal_cell[d].pick(u));
    let at_upwind = |x: Expr| x.at(E2C, u);
    let [rho, theta] = [(f.rho_ref_me, f.z_rth_pr_1), (f.theta_ref_me, f.z_rth_pr_2)].map(
        |(reference, perturbation)| {
            let [ddx, ddy] = f.geofac_grg.map(|g| green_gauss_gradient(perturbation, g));
            reference
                + at_upwind(perturbation.clone())
                + &distv1 * at_upwind(ddx)
                + &distv2 * at_upwind(ddy)
        },
    );
    [rho, theta]
}

/// `(z_rho_e, z_theta_v_e)` by the second-order upwind scheme (ICON4Py
/// `_compute_horizontal_advection_of_rho_and_theta`): from `E2C[0]` where `vn ≥ 0`, else
/// from `E2C[1]`.
pub fn compute_horizontal_advection_of_rho_and_theta(f: &Handles<'_>) -> [Expr; 2] {
    let [rho_0, theta_0] = upwind_values_from(f, 0);
    let [rho_1, theta_1] = upwind_values_from(f, 1);
    let positive = f.vn_now.ge(0.0);
    [
        where_(&positive, rho_0, rho_1),
        where_(&positive, theta_0, theta_1),
    ]
}

/// `inv_dual_edge_length·(z_exner_ex_pr(E2C[1]) − z_exner_ex_pr(E2C[0]))` (ICON4Py
/// `_compute_horizontal_gradient_of_exner_pressure_for_flat_coordinates`).
pub fn gradient_for_flat_coordinates(f: &Handles<'_>) -> Expr {
    f.inv_dual_edge_length * (f.z_exner_ex_pr.at(E2C, 1) - f.z_exner_ex_pr.at(E2C, 0))
}

/// The flat gradient `− ddxn_z_full·Σ_{E2C} c_lin_e·z_dexner_dz_c_1` (ICON4Py
/// `_compute_horizontal_gradient_of_exner_pressure_for_nonflat_coordinates`).
pub fn gradient_for_nonflat_coordinates(f: &Handles<'_>) -> Expr {
    gradient_for_flat_coordinates(f)
        - f.ddxn_z_full * (f.c_lin_e * f.z_dexner_dz_c_1.shift(E2C)).sum_over(E2C)
}

/// `inv_dual_edge_length·(p_1 − p_0)`, `p_i` the Taylor expansion of the neighbour
/// `E2C[i]` about its level `k + ikoffset[i]` (ICON4Py
/// `_compute_horizontal_gradient_of_exner_pressure_for_multiple_levels`).
pub fn gradient_for_multiple_levels(f: &Handles<'_>) -> Expr {
    let p = |i: usize| {
        let off = f.ikoffset.pick(i);
        let read = |x: &Expr| x.at(E2C, i).k_offset(&off);
        let zdiff = f.zdiff_gradp.pick(i);
        read(f.z_exner_ex_pr)
            + &zdiff * (read(f.z_dexner_dz_c_1) + &zdiff * read(f.z_dexner_dz_c_2))
    };
    f.inv_dual_edge_length * (p(1) - p(0))
}

/// `z_gradh_exner` of the module doc: the three level ranges, then the hydrostatic
/// correction where `pg_exdist ≠ 0` (ICON4Py `_compute_horizontal_pressure_gradient`).
pub fn compute_horizontal_pressure_gradient(f: &Handles<'_>, s: Statics) -> Expr {
    let gradient = concat_where(
        index(K).lt(s.nflatlev),
        gradient_for_flat_coordinates(f),
        concat_where(
            index(K).gt(s.nflat_gradp),
            gradient_for_multiple_levels(f),
            gradient_for_nonflat_coordinates(f),
        ),
    );
    where_(
        f.pg_exdist.ne(0.0),
        &gradient + f.z_hydro_corr * f.pg_exdist,
        &gradient,
    )
}

/// `vn_now + dtime·(ddt_vn_apc_pc − cpd·z_theta_v_e·z_gradh_exner + ddt_vn_phy)`, plus
/// `iau_wgt_dyn·vn_incr` with IAU (ICON4Py `_add_temporal_tendencies_to_vn` and
/// `_add_analysis_increments_to_vn`).
pub fn add_temporal_tendencies_to_vn(f: &Handles<'_>, is_iau_active: bool) -> Expr {
    let vn = f.vn_now
        + f.dtime * (f.ddt_vn_apc_pc - CPD * f.z_theta_v_e * f.z_gradh_exner + f.ddt_vn_phy);
    if is_iau_active {
        vn + f.iau_wgt_dyn * f.vn_incr
    } else {
        vn
    }
}

/// `vn_now + dtime·grf_tend_vn` (ICON4Py `_compute_vn_on_lateral_boundary`).
pub fn compute_vn_on_lateral_boundary(f: &Handles<'_>) -> Expr {
    f.vn_now + f.dtime * f.grf_tend_vn
}

/// Adds the program's stencils to `b`, all on levels `[0, nlev)`: `z_rho_e`,
/// `z_theta_v_e` on edges `[0, HALO_LEVEL_2 end)` (zero outside
/// `[LATERAL_BOUNDARY_LEVEL_7, HALO end)`); `z_gradh_exner` on `[NUDGING_LEVEL_2, LOCAL
/// end)`; `vn_new` there and, in a limited area, on `[LATERAL_BOUNDARY, NUDGING end)`.
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>, s: Statics) {
    let upwinded = || index(EDGE).in_range(start(Zone::LateralBoundary(7)), end(Zone::Halo(1)));
    let [rho_e, theta_v_e] = compute_horizontal_advection_of_rho_and_theta(f);
    b.stencil(
        "compute_horizontal_advection_of_rho_and_theta",
        (f.z_rho_e, f.z_theta_v_e),
        tuple((
            concat_where(upwinded(), rho_e, 0.0),
            concat_where(upwinded(), theta_v_e, 0.0),
        )),
    )
    .horizontal(0, end(Zone::Halo(2)))
    .vertical(0, nlev());
    let (lo, hi) = (start(Zone::Nudging(2)), end(Zone::Local));
    b.stencil(
        "compute_horizontal_pressure_gradient",
        f.z_gradh_exner,
        compute_horizontal_pressure_gradient(f, s),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
    b.stencil(
        "add_temporal_tendencies_to_vn",
        f.vn_new,
        add_temporal_tendencies_to_vn(f, s.is_iau_active),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
    if s.limited_area {
        b.stencil(
            "compute_vn_on_lateral_boundary",
            f.vn_new,
            compute_vn_on_lateral_boundary(f),
        )
        .horizontal(start(Zone::LateralBoundary(1)), end(Zone::Nudging(1)))
        .vertical(0, nlev());
    }
}

/// `nlev − 1 − k` at level `k`: the vertical offset from any level to the lowest one
/// (a backward scan counting the levels from the surface), through which every level
/// reads `z_hydro_corr` at level `nlev − 1`.
pub fn levels_to_lowest_level() -> Expr {
    scan_backward(-1, |below| &below[0] + 1)
}

/// The DSL program (statics `is_iau_active`, `limited_area`, `nflatlev`, `nflat_gradp`),
/// with ICON4Py's arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let s = Statics {
            is_iau_active: b.static_bool("is_iau_active"),
            limited_area: b.static_bool("limited_area"),
            nflatlev: b.static_i32("nflatlev"),
            nflat_gradp: b.static_i32("nflat_gradp"),
        };
        let (ek, ck, e2c) = ((EDGE, K), (CELL, K), (EDGE, E2C));
        let z_rho_e = b.output("rho_at_edges_on_model_levels", ek, F64);
        let z_theta_v_e = b.output("theta_v_at_edges_on_model_levels", ek, F64);
        let z_gradh_exner = b.output("horizontal_pressure_gradient", ek, F64);
        let vn_new = b.output("next_vn", ek, F64);
        let vn_now = b.input("current_vn", ek, F64);
        let vt = b.input("tangential_wind", ek, F64);
        let rho_ref_me = b.input("reference_rho_at_edges_on_model_levels", ek, F64);
        let theta_ref_me = b.input("reference_theta_at_edges_on_model_levels", ek, F64);
        let z_rth_pr_1 = b.input("perturbed_rho_at_cells_on_model_levels", ck, F64);
        let z_rth_pr_2 = b.input("perturbed_theta_v_at_cells_on_model_levels", ck, F64);
        let z_exner_ex_pr = b.input("temporal_extrapolation_of_perturbed_exner", ck, F64);
        let z_dexner_dz_c_1 = b.input(
            "ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels",
            ck,
            F64,
        );
        let z_dexner_dz_c_2 = b.input(
            "d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels",
            ck,
            F64,
        );
        let z_hydro_corr_field = b.input("hydrostatic_correction_on_lowest_level", ek, F64);
        let to_lowest = b.temporary("levels_to_lowest_level", K, I32);
        b.stencil(
            "count_levels_to_lowest_level",
            &to_lowest,
            levels_to_lowest_level(),
        )
        .vertical(0, nlev());
        let z_hydro_corr = z_hydro_corr_field.k_offset(&to_lowest);
        let ddt_vn_apc_pc = b.input("predictor_normal_wind_advective_tendency", ek, F64);
        let ddt_vn_phy = b.input("normal_wind_tendency_due_to_slow_physics_process", ek, F64);
        let vn_incr = b.input("normal_wind_iau_increment", ek, F64);
        let grf_tend_vn = b.input("grf_tend_vn", ek, F64);
        let geofac_grg_x = b.input("geofac_grg_x", (CELL, C2E2CO), F64);
        let geofac_grg_y = b.input("geofac_grg_y", (CELL, C2E2CO), F64);
        let pos_on_tplane_e_x = b.input("pos_on_tplane_e_x", e2c, F64);
        let pos_on_tplane_e_y = b.input("pos_on_tplane_e_y", e2c, F64);
        let primal_normal_cell_x = b.input("primal_normal_cell_x", e2c, F64);
        let dual_normal_cell_x = b.input("dual_normal_cell_x", e2c, F64);
        let primal_normal_cell_y = b.input("primal_normal_cell_y", e2c, F64);
        let dual_normal_cell_y = b.input("dual_normal_cell_y", e2c, F64);
        let ddxn_z_full = b.input("ddxn_z_full", ek, F64);
        let c_lin_e = b.input("c_lin_e", e2c, F64);
        let ikoffset = b.input("ikoffset", (EDGE, E2C, K), I32);
        let zdiff_gradp = b.input("zdiff_gradp", (EDGE, E2C, K), F64);
        let pg_exdist = b.input("pg_exdist", ek, F64);
        let inv_dual_edge_length = b.input("inv_dual_edge_length", EDGE, F64);
        let dtime = b.scalar("dtime", F64);
        let iau_wgt_dyn = b.scalar("iau_wgt_dyn", F64);
        let f = Handles {
            z_rho_e: &z_rho_e,
            z_theta_v_e: &z_theta_v_e,
            z_gradh_exner: &z_gradh_exner,
            vn_new: &vn_new,
            vn_now: &vn_now,
            vt: &vt,
            rho_ref_me: &rho_ref_me,
            theta_ref_me: &theta_ref_me,
            z_rth_pr_1: &z_rth_pr_1,
            z_rth_pr_2: &z_rth_pr_2,
            z_exner_ex_pr: &z_exner_ex_pr,
            z_dexner_dz_c_1: &z_dexner_dz_c_1,
            z_dexner_dz_c_2: &z_dexner_dz_c_2,
            z_hydro_corr: &z_hydro_corr,
            ddt_vn_apc_pc: &ddt_vn_apc_pc,
            ddt_vn_phy: &ddt_vn_phy,
            vn_incr: &vn_incr,
            grf_tend_vn: &grf_tend_vn,
            geofac_grg: [&geofac_grg_x, &geofac_grg_y],
            pos_on_tplane_e: [&pos_on_tplane_e_x, &pos_on_tplane_e_y],
            primal_normal_cell: [&primal_normal_cell_x, &primal_normal_cell_y],
            dual_normal_cell: [&dual_normal_cell_x, &dual_normal_cell_y],
            ddxn_z_full: &ddxn_z_full,
            c_lin_e: &c_lin_e,
            ikoffset: &ikoffset,
            zdiff_gradp: &zdiff_gradp,
            pg_exdist: &pg_exdist,
            inv_dual_edge_length: &inv_dual_edge_length,
            dtime: &dtime,
            iau_wgt_dyn: &iau_wgt_dyn,
        };
        add_stencils(b, &f, s);
    })
    .static_bool("is_iau_active")
    .static_bool("limited_area")
    .static_i32("nflatlev", &[])
    .static_i32("nflat_gradp", &[])
}
