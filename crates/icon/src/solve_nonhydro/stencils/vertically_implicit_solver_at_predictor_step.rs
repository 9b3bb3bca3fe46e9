//! `vertically_implicit_solver_at_predictor_step` (ICON `mo_solve_nonhydro` stencils
//! 39–48, 52–56 of the predictor of every substep; ICON4Py program of the same name in
//! `vertically_implicit_dycore_solver.py`): the contravariant correction of `w` at the
//! cells, then the vertically implicit solve for `w`, ρ, Exner pressure and θv of
//! [`implicit_solver`](super::implicit_solver), with the predictor's advective tendency.
//!
//! Three parts, as ICON4Py's three field-operator calls (`n = nlev`):
//!
//! ```text
//! (a) cells [LATERAL_BOUNDARY_LEVEL_3, HALO end) × half levels [nflatlev + 1, n]:
//!     w_concorr_c(k) = wgtfac_c·z_w_concorr_mc(k) + (1 − wgtfac_c)·z_w_concorr_mc(k−1)   (k < n; stencil 39)
//!     w_concorr_c(n) = Σ_{j=1..3} wgtfacq_c(n−j)·z_w_concorr_mc(n−j)                      (stencil 40)
//!     with z_w_concorr_mc = Σ_{C2E} e_bln_c_s·z_w_concorr_me
//! (b) cells [NUDGING, LOCAL end) × half level n:  w_new(n) = w_concorr_c(n)            (stencil 47)
//! (c) cells [NUDGING, LOCAL end) × levels [0, n): the implicit solver with
//!     z_w_expl = w_nnow + dtime·(ddt_w_adv_pc − cpd·z_th_ddz_exner_c)               (stencils 41–55)
//!     divdamp_type ≥ 3:  z_dwdz_dd = inv_ddqz_z_full·((w(k) − w(k+1))
//!                                      − (w_concorr_c(k) − w_concorr_c(k+1)))          (stencil 56)
//!     at_first_substep, k ≥ kstart_moist:  exner_dyn_incr = exner_nnow                (stencil 59)
//! ```
//!
//! (ICON computes `z_dwdz_dd` from `kstart_dd3d` only; ICON4Py, and so foehn, on every
//! level.) Every output keeps its values outside its domain; `z_dwdz_dd` is untouched
//! for `divdamp_type < 3`, `exner_dyn_incr` unless `at_first_substep`. `wgtfacq_c` is a
//! full-level field whose lowest three levels hold the weights (as `wgtfacq_e`).
//!
//! ICON4Py's names besides the solver's: `z_w_concorr_me` =
//! `contravariant_correction_at_edges_on_model_levels`, `ddt_w_adv_pc` =
//! `predictor_vertical_wind_advective_tendency`, `z_dwdz_dd` =
//! `dwdz_at_cells_on_model_levels`, `exner_dyn_incr` = `exner_dynamical_increment`.
//! Statics: `is_iau_active`, `rayleigh_type` (only 2, Klemp), `divdamp_type` (2, 3,
//! 32), `at_first_substep` enumerated; `end_index_of_damping_layer` (`nrdmax`),
//! `kstart_moist`, `flat_level_index_plus1` (`nflatlev + 1`) open (the catalog fixes
//! [`END_INDEX_OF_DAMPING_LAYER`], [`KSTART_MOIST`], [`FLAT_LEVEL_INDEX_PLUS1`]).

use super::compute_dwdz_for_divergence_damping::compute_dwdz_for_divergence_damping;
use super::implicit_solver::{
    add_solver_stencils, add_surface_boundary_condition, compute_w_explicit_term, declare_common,
    solver_cells, Solver, Statics, Temporaries, RAYLEIGH_KLEMP,
};
use crate::velocity_advection::stencils::compute_advection_in_predictor_vertical_momentum::{
    interpolate_cell_field_to_half_levels_vp, interpolate_to_cell_center,
};
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "vertically_implicit_solver_at_predictor_step";

/// The catalog's `end_index_of_damping_layer` (`nrdmax`): `w` damped on half levels
/// `[1, 3]` of a 10-level test column, undamped below.
pub const END_INDEX_OF_DAMPING_LAYER: i32 = 3;
/// The catalog's `kstart_moist`: `exner_dyn_incr` on full levels `[4, nlev)`.
pub const KSTART_MOIST: i32 = 4;
/// The catalog's `flat_level_index_plus1` (`nflatlev + 1`, velocity advection's
/// `nflatlev` 4): `w_concorr_c` recomputed on half levels `[5, nlev]`.
pub const FLAT_LEVEL_INDEX_PLUS1: i32 = 5;

/// The `divdamp_type`s (ICON4Py `DivergenceDampingType`: 2 two-dimensional, 3
/// three-dimensional, 32 combined); `z_dwdz_dd` is computed for those ≥ 3.
pub const DIVDAMP_TYPES: [i32; 3] = [2, 3, 32];

/// `w_concorr_c` on half levels `k ≤ nlev` from the edges' `z_w_concorr_me`: the
/// `wgtfac_c` interpolation above the surface, the `wgtfacq_c` extrapolation at it
/// (ICON4Py
/// `_interpolate_contravariant_correction_from_edges_on_model_levels_to_cells_on_half_levels`).
pub fn interpolate_contravariant_correction_from_edges_on_model_levels_to_cells_on_half_levels(
    z_w_concorr_me: &Expr,
    e_bln_c_s: &Expr,
    wgtfac_c: &Expr,
    wgtfacq_c: &Expr,
) -> Expr {
    let at_cells = interpolate_to_cell_center(z_w_concorr_me, e_bln_c_s);
    let (q, x) = (wgtfacq_c.as_half(), at_cells.as_half());
    let surface = q.k_shift(-1) * x.k_shift(-1)
        + q.k_shift(-2) * x.k_shift(-2)
        + q.k_shift(-3) * x.k_shift(-3);
    concat_where(
        index(KHALF).lt(nlev()),
        interpolate_cell_field_to_half_levels_vp(wgtfac_c, &at_cells),
        surface,
    )
}

/// The predictor's statics.
#[derive(Clone, Copy, Debug)]
pub struct PredictorStatics {
    /// The solver's.
    pub solver: Statics,
    /// `divdamp_type`.
    pub divdamp_type: i32,
    /// `at_first_substep`.
    pub at_first_substep: bool,
    /// `kstart_moist`.
    pub kstart_moist: i32,
    /// `flat_level_index_plus1`.
    pub flat_level_index_plus1: i32,
}

/// The predictor's fields besides the solver's.
pub struct PredictorFields {
    /// Output `dwdz_at_cells_on_model_levels` (`Cell, K`).
    pub z_dwdz_dd: Expr,
    /// Output `exner_dynamical_increment` (`Cell, K`).
    pub exner_dyn_incr: Expr,
    /// `predictor_vertical_wind_advective_tendency` (`Cell, KHALF`).
    pub ddt_w_adv_pc: Expr,
    /// `contravariant_correction_at_edges_on_model_levels` (`Edge, K`).
    pub z_w_concorr_me: Expr,
    /// `e_bln_c_s` (`Cell, C2E`).
    pub e_bln_c_s: Expr,
    /// `wgtfac_c` (`Cell, KHALF`).
    pub wgtfac_c: Expr,
    /// `wgtfacq_c` (`Cell, K`).
    pub wgtfacq_c: Expr,
}

/// Adds the program's stencils to `b` (parts (a), (b), (c) of the module doc).
pub fn add_stencils(
    b: &mut ProgramBuilder,
    s: &Solver,
    p: &PredictorFields,
    t: &Temporaries,
    st: PredictorStatics,
) {
    b.stencil(
        "interpolate_contravariant_correction_from_edges_on_model_levels_to_cells_on_half_levels",
        &s.w_concorr_c,
        interpolate_contravariant_correction_from_edges_on_model_levels_to_cells_on_half_levels(
            &p.z_w_concorr_me,
            &p.e_bln_c_s,
            &p.wgtfac_c,
            &p.wgtfacq_c,
        ),
    )
    .horizontal(start(Zone::LateralBoundary(3)), end(Zone::Halo(1)))
    .vertical(st.flat_level_index_plus1, nlev() + 1);
    add_surface_boundary_condition(b, s);
    let c = &s.common;
    let w_explicit =
        compute_w_explicit_term(&c.w_nnow, &p.ddt_w_adv_pc, &s.z_th_ddz_exner_c, &s.dtime);
    add_solver_stencils(b, s, t, w_explicit, st.solver);
    if st.divdamp_type >= 3 {
        let dwdz =
            compute_dwdz_for_divergence_damping(&c.inv_ddqz_z_full, &s.next_w, &s.w_concorr_c);
        solver_cells(b.stencil("compute_dwdz_for_divergence_damping", &p.z_dwdz_dd, dwdz))
            .vertical(0, nlev());
    }
    if st.at_first_substep {
        solver_cells(b.stencil(
            "set_exner_dynamical_increment",
            &p.exner_dyn_incr,
            &c.exner_nnow,
        ))
        .vertical(st.kstart_moist, nlev());
    }
}

/// The DSL program, with ICON4Py's arguments in its order (statics as the module doc
/// says; a `rayleigh_type` other than 2 is refused when specialising).
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let st = PredictorStatics {
            solver: Statics {
                is_iau_active: b.static_bool("is_iau_active"),
                nrdmax: b.static_i32("end_index_of_damping_layer"),
            },
            divdamp_type: b.static_i32("divdamp_type"),
            at_first_substep: b.static_bool("at_first_substep"),
            kstart_moist: b.static_i32("kstart_moist"),
            flat_level_index_plus1: b.static_i32("flat_level_index_plus1"),
        };
        let (full, half, ek) = ((CELL, K), (CELL, KHALF), (EDGE, K));
        let w_concorr_c = b.inout(
            "contravariant_correction_at_cells_on_half_levels",
            half,
            F64,
        );
        let next_w = b.inout("next_w", half, F64);
        let next_rho = b.output("next_rho", full, F64);
        let next_exner = b.output("next_exner", full, F64);
        let next_theta_v = b.output("next_theta_v", full, F64);
        let z_dwdz_dd = b.output("dwdz_at_cells_on_model_levels", full, F64);
        let exner_dyn_incr = b.output("exner_dynamical_increment", full, F64);
        let geofac_div = b.input("geofac_div", (CELL, C2E), F64);
        let mass_fl_e = b.input("mass_flux_at_edges_on_model_levels", ek, F64);
        let z_theta_v_fl_e = b.input("theta_v_flux_at_edges_on_model_levels", ek, F64);
        let ddt_w_adv_pc = b.input("predictor_vertical_wind_advective_tendency", half, F64);
        let z_th_ddz_exner_c = b.input("nonhydro_buoy_at_cells_on_half_levels", full, F64);
        let rho_ic = b.input("rho_at_cells_on_half_levels", half, F64);
        let z_w_concorr_me = b.input("contravariant_correction_at_edges_on_model_levels", ek, F64);
        let common = declare_common(b);
        let e_bln_c_s = b.input("e_bln_c_s", (CELL, C2E), F64);
        let wgtfac_c = b.input("wgtfac_c", half, F64);
        let wgtfacq_c = b.input("wgtfacq_c", full, F64);
        let iau_wgt_dyn = b.scalar("iau_wgt_dyn", F64);
        let dtime = b.scalar("dtime", F64);
        let s = Solver {
            geofac_div,
            mass_fl_e,
            z_theta_v_fl_e,
            z_th_ddz_exner_c,
            rho_ic,
            w_concorr_c,
            common,
            next_w,
            next_rho,
            next_exner,
            next_theta_v,
            dtime,
            iau_wgt_dyn,
        };
        let p = PredictorFields {
            z_dwdz_dd,
            exner_dyn_incr,
            ddt_w_adv_pc,
            z_w_concorr_me,
            e_bln_c_s,
            wgtfac_c,
            wgtfacq_c,
        };
        let t = Temporaries::declare(b);
        add_stencils(b, &s, &p, &t, st);
    })
    .static_bool("is_iau_active")
    .static_i32("rayleigh_type", &[RAYLEIGH_KLEMP])
    .static_i32("divdamp_type", &DIVDAMP_TYPES)
    .static_bool("at_first_substep")
    .static_i32("end_index_of_damping_layer", &[])
    .static_i32("kstart_moist", &[])
    .static_i32("flat_level_index_plus1", &[])
}
