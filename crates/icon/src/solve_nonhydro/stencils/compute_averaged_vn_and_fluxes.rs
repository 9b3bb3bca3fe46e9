//! `compute_averaged_vn_and_fluxes` (ICON `mo_solve_nonhydro` stencils 32–34 of the
//! corrector of every substep; ICON4Py program of the same name, formerly
//! `compute_averaged_vn_and_fluxes_and_prepare_tracer_advection`): the spatially averaged
//! normal wind, the mass and θv fluxes through the edges from it, and, for the tracer
//! advection, their averages over the substeps.
//!
//! Edges `[LATERAL_BOUNDARY_LEVEL_5, HALO_LEVEL_2 end)` × full levels `[0, nlev)`
//! (ICON4Py's `horizontal_start = start_edge_lateral_boundary_level_5`, `horizontal_end
//! = end_edge_halo_level_2`, `vertical_end = nlev`); every output keeps its values
//! outside. In ICON's short names (`vn` the new normal wind, `E2C2EO` the edge itself in
//! slot 0 and its four diamond edges):
//!
//! ```text
//! z_vn_avg       = Σ_{E2C2EO} e_flx_avg·vn
//! mass_fl_e      = z_rho_e·z_vn_avg·ddqz_z_full_e
//! z_theta_v_fl_e = mass_fl_e·z_theta_v_e
//! prepare_advection ∧ at_first_substep:  vn_traj  = r_nsubsteps·z_vn_avg
//!                                         mass_flx_me = r_nsubsteps·mass_fl_e
//! prepare_advection ∧ ¬at_first_substep: vn_traj += r_nsubsteps·z_vn_avg
//!                                         mass_flx_me += r_nsubsteps·mass_fl_e
//! ¬prepare_advection:                     vn_traj, mass_flx_me unchanged
//! ```
//!
//! ICON4Py's names: `z_vn_avg` = `spatially_averaged_vn`, `mass_fl_e` =
//! `mass_flux_at_edges_on_model_levels`, `z_theta_v_fl_e` =
//! `theta_v_flux_at_edges_on_model_levels`, `vn_traj` =
//! `substep_and_spatially_averaged_vn`, `mass_flx_me` = `substep_averaged_mass_flux`,
//! `z_rho_e` = `rho_at_edges_on_model_levels`, `z_theta_v_e` =
//! `theta_v_at_edges_on_model_levels`. Statics (enumerated): `prepare_advection` (ICON's
//! `lprep_adv`), `at_first_substep`; runtime scalar `r_nsubsteps = 1/ndyn_substeps`.

use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "compute_averaged_vn_and_fluxes";

/// The program's fields and scalar (ICON4Py's names, ICON's in the docs; `(Edge, K)`
/// unless stated).
pub struct Handles<'a> {
    /// Output `spatially_averaged_vn` (`z_vn_avg`).
    pub z_vn_avg: &'a Expr,
    /// Output `mass_flux_at_edges_on_model_levels` (`mass_fl_e`).
    pub mass_fl_e: &'a Expr,
    /// Output `theta_v_flux_at_edges_on_model_levels` (`z_theta_v_fl_e`).
    pub z_theta_v_fl_e: &'a Expr,
    /// In/out `substep_and_spatially_averaged_vn` (`vn_traj`).
    pub vn_traj: &'a Expr,
    /// In/out `substep_averaged_mass_flux` (`mass_flx_me`).
    pub mass_flx_me: &'a Expr,
    /// `e_flx_avg`: flux-averaging weights (`(Edge, E2C2EO)`).
    pub e_flx_avg: &'a Expr,
    /// `vn`: normal wind at time level new.
    pub vn: &'a Expr,
    /// `rho_at_edges_on_model_levels` (`z_rho_e`).
    pub z_rho_e: &'a Expr,
    /// `ddqz_z_full_e`: layer thickness at the edges.
    pub ddqz_z_full_e: &'a Expr,
    /// `theta_v_at_edges_on_model_levels` (`z_theta_v_e`).
    pub z_theta_v_e: &'a Expr,
    /// Runtime scalar `r_nsubsteps`: `1/ndyn_substeps`.
    pub r_nsubsteps: &'a Expr,
}

/// `Σ_{E2C2EO} e_flx_avg·vn` (ICON4Py `_spatially_average_flux_or_velocity`).
pub fn spatially_average_flux_or_velocity(e_flx_avg: &Expr, vn: &Expr) -> Expr {
    (vn.shift(E2C2EO) * e_flx_avg).sum_over(E2C2EO)
}

/// `(mass_fl_e, z_theta_v_fl_e) = (z_rho_e·z_vn_avg·ddqz_z_full_e, mass_fl_e·z_theta_v_e)`
/// (ICON4Py `_compute_mass_and_temperature_flux`).
pub fn compute_mass_and_temperature_flux(
    z_rho_e: &Expr,
    z_vn_avg: &Expr,
    ddqz_z_full_e: &Expr,
    z_theta_v_e: &Expr,
) -> (Expr, Expr) {
    let mass_fl_e = z_rho_e * z_vn_avg * ddqz_z_full_e;
    let z_theta_v_fl_e = &mass_fl_e * z_theta_v_e;
    (mass_fl_e, z_theta_v_fl_e)
}

/// `(vn_traj + r_nsubsteps·z_vn_avg, mass_flx_me + r_nsubsteps·mass_fl_e)` (ICON4Py
/// `_accumulate_prep_adv_fields`).
pub fn accumulate_prep_adv_fields(
    z_vn_avg: &Expr,
    mass_fl_e: &Expr,
    vn_traj: &Expr,
    mass_flx_me: &Expr,
    r_nsubsteps: &Expr,
) -> Expr {
    tuple((
        vn_traj + r_nsubsteps * z_vn_avg,
        mass_flx_me + r_nsubsteps * mass_fl_e,
    ))
}

/// `(vn_traj, mass_flx_me)` for the tracer advection: the substep averages started
/// (`at_first_substep`) or accumulated, from the written `z_vn_avg` and `mass_fl_e`.
pub fn prepare_advection_op(f: &Handles<'_>, at_first_substep: bool) -> Expr {
    if at_first_substep {
        tuple((f.r_nsubsteps * f.z_vn_avg, f.r_nsubsteps * f.mass_fl_e))
    } else {
        let (vn_traj, mass_flx_me) = (f.vn_traj, f.mass_flx_me);
        accumulate_prep_adv_fields(f.z_vn_avg, f.mass_fl_e, vn_traj, mass_flx_me, f.r_nsubsteps)
    }
}

/// Adds the program's stencils to `b` on edges `[LATERAL_BOUNDARY_LEVEL_5, HALO_LEVEL_2
/// end)` × levels `[0, nlev)`: the averaged wind and the fluxes, then, with
/// `prepare_advection`, the substep averages.
pub fn add_stencils(
    b: &mut ProgramBuilder,
    f: &Handles<'_>,
    prepare_advection: bool,
    at_first_substep: bool,
) {
    let edges = (start(Zone::LateralBoundary(5)), end(Zone::Halo(2)));
    let z_vn_avg = spatially_average_flux_or_velocity(f.e_flx_avg, f.vn);
    let (mass_fl_e, z_theta_v_fl_e) =
        compute_mass_and_temperature_flux(f.z_rho_e, &z_vn_avg, f.ddqz_z_full_e, f.z_theta_v_e);
    b.stencil(
        "compute_averaged_vn_and_fluxes",
        (f.z_vn_avg, f.mass_fl_e, f.z_theta_v_fl_e),
        tuple((z_vn_avg, mass_fl_e, z_theta_v_fl_e)),
    )
    .horizontal(edges.0, edges.1)
    .vertical(0, nlev());
    if prepare_advection {
        b.stencil(
            "prepare_tracer_advection",
            (f.vn_traj, f.mass_flx_me),
            prepare_advection_op(f, at_first_substep),
        )
        .horizontal(edges.0, edges.1)
        .vertical(0, nlev());
    }
}

/// The DSL program (statics `prepare_advection`, `at_first_substep`), with ICON4Py's
/// arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let prepare_advection = b.static_bool("prepare_advection");
        let at_first_substep = b.static_bool("at_first_substep");
        let edge_k = (EDGE, K);
        let f = Handles {
            z_vn_avg: &b.output("spatially_averaged_vn", edge_k, F64),
            mass_fl_e: &b.output("mass_flux_at_edges_on_model_levels", edge_k, F64),
            z_theta_v_fl_e: &b.output("theta_v_flux_at_edges_on_model_levels", edge_k, F64),
            vn_traj: &b.inout("substep_and_spatially_averaged_vn", edge_k, F64),
            mass_flx_me: &b.inout("substep_averaged_mass_flux", edge_k, F64),
            e_flx_avg: &b.input("e_flx_avg", (EDGE, E2C2EO), F64),
            vn: &b.input("vn", edge_k, F64),
            z_rho_e: &b.input("rho_at_edges_on_model_levels", edge_k, F64),
            ddqz_z_full_e: &b.input("ddqz_z_full_e", edge_k, F64),
            z_theta_v_e: &b.input("theta_v_at_edges_on_model_levels", edge_k, F64),
            r_nsubsteps: &b.scalar("r_nsubsteps", F64),
        };
        add_stencils(b, &f, prepare_advection, at_first_substep);
    })
    .static_bool("prepare_advection")
    .static_bool("at_first_substep")
}
