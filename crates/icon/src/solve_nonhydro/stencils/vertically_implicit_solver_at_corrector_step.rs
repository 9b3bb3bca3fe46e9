//! `vertically_implicit_solver_at_corrector_step` (ICON `mo_solve_nonhydro` stencils
//! 41–55, 58–60 of the corrector of every substep; ICON4Py program of the same name in
//! `vertically_implicit_dycore_solver.py`): the vertically implicit solve for `w`, ρ,
//! Exner pressure and θv of [`implicit_solver`](super::implicit_solver) with the
//! advective tendencies of predictor and corrector averaged, then the tracers' vertical
//! fluxes and the dynamical Exner increment.
//!
//! Two parts, as ICON4Py's two field-operator calls (`n = nlev`; `w_concorr_c` is not
//! recomputed, the predictor did):
//!
//! ```text
//! (b) cells [NUDGING, LOCAL end) × half level n:  w_new(n) = w_concorr_c(n)            (stencil 47)
//! (c) cells [NUDGING, LOCAL end) × levels [0, n): the implicit solver with
//!     z_w_expl = w_nnow + dtime·(wgt_nnow_vel·ddt_w_adv_pc + wgt_nnew_vel·ddt_w_adv_cor
//!                                − cpd·z_th_ddz_exner_c)                                (stencil 43)
//!     lprep_adv, half levels k ≥ 1 (first substep: both fields from 0, and 0 at k = 0):
//!       z_a = r_nsubsteps·(z_contr_w_fl_l + rho_ic·vwind_impl_wgt·w_new)
//!       mass_flx_ic += z_a,  vol_flx_ic += z_a/rho_ic                                   (stencils 57, 58)
//!     at_last_substep, k ≥ kstart_moist:
//!       exner_dyn_incr = exner_new − (exner_dyn_incr + ndyn_substeps_var·dtime·ddt_exner_phy)
//!                                                                                        (stencil 60)
//! ```
//!
//! Every output keeps its values outside its domain; the fluxes are untouched unless
//! `lprep_adv` (and level 0 unless also `at_first_substep`), `exner_dyn_incr` unless
//! `at_last_substep`.
//!
//! ICON4Py's names besides the solver's: `ddt_w_adv_pc`/`_cor` =
//! `predictor`/`corrector_vertical_wind_advective_tendency`, `mass_flx_ic` =
//! `dynamical_vertical_mass_flux_at_cells_on_half_levels`, `vol_flx_ic` =
//! `dynamical_vertical_volumetric_flux_at_cells_on_half_levels`, `exner_dyn_incr` =
//! `exner_dynamical_increment`, `wgt_nnow_vel`/`wgt_nnew_vel` =
//! `advection_explicit`/`implicit_weight_parameter` (runtime scalars, as in ICON4Py).
//! Statics: `lprep_adv`, `is_iau_active`, `rayleigh_type` (only 2, Klemp),
//! `at_first_substep`, `at_last_substep` enumerated; `end_index_of_damping_layer`
//! (`nrdmax`) and `kstart_moist` open (the catalog fixes the predictor's
//! [`END_INDEX_OF_DAMPING_LAYER`](super::vertically_implicit_solver_at_predictor_step::END_INDEX_OF_DAMPING_LAYER)
//! and [`KSTART_MOIST`](super::vertically_implicit_solver_at_predictor_step::KSTART_MOIST)).

use super::implicit_solver::{
    add_solver_stencils, add_surface_boundary_condition, compute_w_explicit_term, declare_common,
    solver_cells, Solver, Statics, Temporaries, RAYLEIGH_KLEMP,
};
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "vertically_implicit_solver_at_corrector_step";

/// The corrector's statics.
#[derive(Clone, Copy, Debug)]
pub struct CorrectorStatics {
    /// The solver's.
    pub solver: Statics,
    /// `lprep_adv`.
    pub lprep_adv: bool,
    /// `at_first_substep`.
    pub at_first_substep: bool,
    /// `at_last_substep`.
    pub at_last_substep: bool,
    /// `kstart_moist`.
    pub kstart_moist: i32,
}

/// The corrector's fields and scalars besides the solver's.
pub struct CorrectorFields {
    /// In/out `dynamical_vertical_mass_flux_at_cells_on_half_levels` (`Cell, KHALF`).
    pub mass_flx_ic: Expr,
    /// In/out `dynamical_vertical_volumetric_flux_at_cells_on_half_levels` (`Cell,
    /// KHALF`).
    pub vol_flx_ic: Expr,
    /// In/out `exner_dynamical_increment` (`Cell, K`).
    pub exner_dyn_incr: Expr,
    /// `predictor_vertical_wind_advective_tendency` (`Cell, KHALF`).
    pub ddt_w_adv_pc: Expr,
    /// `corrector_vertical_wind_advective_tendency` (`Cell, KHALF`).
    pub ddt_w_adv_cor: Expr,
    /// Scalar `advection_explicit_weight_parameter`.
    pub wgt_nnow_vel: Expr,
    /// Scalar `advection_implicit_weight_parameter`.
    pub wgt_nnew_vel: Expr,
    /// Scalar `r_nsubsteps`.
    pub r_nsubsteps: Expr,
    /// Scalar `ndyn_substeps_var`.
    pub ndyn_substeps_var: Expr,
}

/// `(mass_flx_ic + z_a, vol_flx_ic + z_a/rho_ic)`, `z_a = r_nsubsteps·(z_contr_w_fl_l +
/// rho_ic·vwind_impl_wgt·w)` (ICON4Py `_update_mass_volume_flux`), from zero fluxes at the
/// first substep.
pub fn update_mass_volume_flux(
    s: &Solver,
    p: &CorrectorFields,
    z_contr_w_fl_l: &Expr,
    at_first_substep: bool,
) -> (Expr, Expr) {
    let z_a = &p.r_nsubsteps * (z_contr_w_fl_l + &s.rho_ic * &s.common.vwind_impl_wgt * &s.next_w);
    let (mass, vol) = if at_first_substep {
        (f64c(0.0), f64c(0.0))
    } else {
        (p.mass_flx_ic.clone(), p.vol_flx_ic.clone())
    };
    (mass + &z_a, vol + &z_a / &s.rho_ic)
}

/// Adds the program's stencils to `b` (parts (b), (c) of the module doc).
pub fn add_stencils(
    b: &mut ProgramBuilder,
    s: &Solver,
    p: &CorrectorFields,
    t: &Temporaries,
    st: CorrectorStatics,
) {
    add_surface_boundary_condition(b, s);
    let c = &s.common;
    let ddt_w_adv = &p.wgt_nnow_vel * &p.ddt_w_adv_pc + &p.wgt_nnew_vel * &p.ddt_w_adv_cor;
    let w_explicit = compute_w_explicit_term(&c.w_nnow, &ddt_w_adv, &s.z_th_ddz_exner_c, &s.dtime);
    add_solver_stencils(b, s, t, w_explicit, st.solver);
    if st.lprep_adv {
        let (mass, vol) = update_mass_volume_flux(s, p, &t.z_contr_w_fl_l, st.at_first_substep);
        let (mass, vol, k0) = if st.at_first_substep {
            let below_top = || index(KHALF).ge(1);
            (
                concat_where(below_top(), mass, 0.0),
                concat_where(below_top(), vol, 0.0),
                0,
            )
        } else {
            (mass, vol, 1)
        };
        solver_cells(b.stencil(
            "update_mass_volume_flux",
            (&p.mass_flx_ic, &p.vol_flx_ic),
            tuple((mass, vol)),
        ))
        .vertical(k0, nlev());
    }
    if st.at_last_substep {
        let incr = &s.next_exner
            - (&p.exner_dyn_incr + &p.ndyn_substeps_var * &s.dtime * &c.ddt_exner_phy);
        solver_cells(b.stencil(
            "update_dynamical_exner_time_increment",
            &p.exner_dyn_incr,
            incr,
        ))
        .vertical(st.kstart_moist, nlev());
    }
}

/// The DSL program, with ICON4Py's arguments in its order (statics as the module doc
/// says; a `rayleigh_type` other than 2 is refused when specialising).
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let st = CorrectorStatics {
            solver: Statics {
                is_iau_active: b.static_bool("is_iau_active"),
                nrdmax: b.static_i32("end_index_of_damping_layer"),
            },
            lprep_adv: b.static_bool("lprep_adv"),
            at_first_substep: b.static_bool("at_first_substep"),
            at_last_substep: b.static_bool("at_last_substep"),
            kstart_moist: b.static_i32("kstart_moist"),
        };
        let (full, half, ek) = ((CELL, K), (CELL, KHALF), (EDGE, K));
        let next_w = b.inout("next_w", half, F64);
        let next_rho = b.output("next_rho", full, F64);
        let next_exner = b.inout("next_exner", full, F64);
        let next_theta_v = b.output("next_theta_v", full, F64);
        let mass_flx_ic = b.inout(
            "dynamical_vertical_mass_flux_at_cells_on_half_levels",
            half,
            F64,
        );
        let vol_flx_ic = b.inout(
            "dynamical_vertical_volumetric_flux_at_cells_on_half_levels",
            half,
            F64,
        );
        let exner_dyn_incr = b.inout("exner_dynamical_increment", full, F64);
        let geofac_div = b.input("geofac_div", (CELL, C2E), F64);
        let mass_fl_e = b.input("mass_flux_at_edges_on_model_levels", ek, F64);
        let z_theta_v_fl_e = b.input("theta_v_flux_at_edges_on_model_levels", ek, F64);
        let ddt_w_adv_pc = b.input("predictor_vertical_wind_advective_tendency", half, F64);
        let ddt_w_adv_cor = b.input("corrector_vertical_wind_advective_tendency", half, F64);
        let z_th_ddz_exner_c = b.input("nonhydro_buoy_at_cells_on_half_levels", full, F64);
        let rho_ic = b.input("rho_at_cells_on_half_levels", half, F64);
        let w_concorr_c = b.input(
            "contravariant_correction_at_cells_on_half_levels",
            half,
            F64,
        );
        let common = declare_common(b);
        let wgt_nnow_vel = b.scalar("advection_explicit_weight_parameter", F64);
        let wgt_nnew_vel = b.scalar("advection_implicit_weight_parameter", F64);
        let r_nsubsteps = b.scalar("r_nsubsteps", F64);
        let ndyn_substeps_var = b.scalar("ndyn_substeps_var", F64);
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
        let p = CorrectorFields {
            mass_flx_ic,
            vol_flx_ic,
            exner_dyn_incr,
            ddt_w_adv_pc,
            ddt_w_adv_cor,
            wgt_nnow_vel,
            wgt_nnew_vel,
            r_nsubsteps,
            ndyn_substeps_var,
        };
        let t = Temporaries::declare(b);
        add_stencils(b, &s, &p, &t, st);
    })
    .static_bool("lprep_adv")
    .static_bool("is_iau_active")
    .static_i32("rayleigh_type", &[RAYLEIGH_KLEMP])
    .static_bool("at_first_substep")
    .static_bool("at_last_substep")
    .static_i32("end_index_of_damping_layer", &[])
    .static_i32("kstart_moist", &[])
}
