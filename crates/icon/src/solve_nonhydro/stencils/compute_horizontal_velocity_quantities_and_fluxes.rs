//! `compute_horizontal_velocity_quantities_and_fluxes` (ICON `mo_solve_nonhydro` stencils
//! 29–38 of the predictor of every substep; ICON4Py program of the same name in
//! `compute_horizontal_velocity_quantities.py`): from the new normal wind, its spatial
//! average and the mass and θv fluxes through the edges, the horizontal gradient of its
//! divergence, the tangential wind, both winds on half levels, the horizontal kinetic
//! energy and the contravariant correction at the edges.
//!
//! Edges `[LATERAL_BOUNDARY_LEVEL_5, HALO_LEVEL_2 end)` × full levels `[0, nlev)`, and for
//! `vn_ie` also the surface interface `k = nlev` (ICON4Py's `horizontal_start =
//! start_edge_lateral_boundary_level_5`, `horizontal_end = end_edge_halo_level_2`,
//! `vertical_end = nlev + 1`: the main operator on `[0, vertical_end − 1)`, the
//! extrapolation on the last interface); every output keeps its values outside. In ICON's
//! short names (`vn` the new normal wind; `E2C2EO` the edge itself in slot 0 and its four
//! diamond edges):
//!
//! ```text
//! z_vn_avg       = Σ_{E2C2EO} e_flx_avg·vn                               (stencil 30)
//! z_graddiv_vn   = Σ_{E2C2EO} geofac_grdiv·vn                            (stencil 30)
//! vt             = Σ_{E2C2E} rbf_vec_coeff_e·vn                          (stencil 30)
//! mass_fl_e      = z_rho_e·z_vn_avg·ddqz_z_full_e                        (stencil 32)
//! z_theta_v_fl_e = mass_fl_e·z_theta_v_e                                 (stencil 32)
//! vn_ie(k)       = wgtfac_e(k)·vn(k) + (1 − wgtfac_e(k))·vn(k−1)  (0 < k < nlev),
//! vn_ie(0)       = vn(0)                                                 (stencils 36, 37)
//! z_vt_ie        likewise from vt                                        (stencils 36, 37)
//! z_kin_hor_e    = ½·(vn² + vt²)                                         (stencils 36, 37)
//! vn_ie(nlev)    = Σ_{j=1..3} wgtfacq_e(nlev−j)·vn(nlev−j)               (stencil 38)
//! k ≥ nflatlev:  z_w_concorr_me = vn·ddxn_z_full + vt·ddxt_z_full        (stencil 35;
//!                                 levels above nflatlev keep their values)
//! ```
//!
//! The winds on half levels, the kinetic energy and the contravariant correction are the
//! operators of velocity advection's
//! [`compute_diagnostics_from_normal_wind`](crate::velocity_advection::stencils::compute_diagnostics_from_normal_wind)
//! (with the same storage: `vn_ie` on the `nlev + 1` interfaces, `z_vt_ie` on `nlev`
//! levels); the average and the fluxes those of
//! [`compute_averaged_vn_and_fluxes`](super::compute_averaged_vn_and_fluxes).
//!
//! ICON4Py's names: `z_vn_avg` = `spatially_averaged_vn`, `z_graddiv_vn` =
//! `horizontal_gradient_of_normal_wind_divergence`, `vt` = `tangential_wind`, `mass_fl_e`
//! = `mass_flux_at_edges_on_model_levels`, `z_theta_v_fl_e` =
//! `theta_v_flux_at_edges_on_model_levels`, `z_vt_ie` = `tangential_wind_on_half_levels`,
//! `vn_ie` = `vn_on_half_levels`, `z_kin_hor_e` =
//! `horizontal_kinetic_energy_at_edges_on_model_levels`, `z_w_concorr_me` =
//! `contravariant_correction_at_edges_on_model_levels`, `z_rho_e` =
//! `rho_at_edges_on_model_levels`, `z_theta_v_e` = `theta_v_at_edges_on_model_levels`.
//! Static: `nflatlev` (open; the catalog fixes [`NFLATLEV`]).

use super::compute_averaged_vn_and_fluxes::{
    compute_mass_and_temperature_flux, spatially_average_flux_or_velocity,
};
use crate::velocity_advection::stencils::compute_diagnostics_from_normal_wind as diagnostics;
use diagnostics::{
    compute_contravariant_correction, compute_horizontal_kinetic_energy, compute_tangential_wind,
    extrapolate_at_top, interpolate_to_half_levels,
};
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "compute_horizontal_velocity_quantities_and_fluxes";

/// The catalog's `nflatlev`: that of velocity advection's
/// [`NFLATLEV`](diagnostics::NFLATLEV), full levels on both sides of it in a 10-level test
/// column.
pub const NFLATLEV: i32 = diagnostics::NFLATLEV;

/// `Σ_{E2C2EO} geofac_grdiv·x`: the horizontal gradient of the divergence of the normal
/// wind `x` at the edges (ICON4Py's `neighbor_sum(geofac_grdiv·vn(E2C2EO))` of
/// `_compute_horizontal_velocity_quantities_and_fluxes`, and `_compute_graddiv2_of_vn`
/// for the gradient of a gradient): the same weighted sum over the edge and its diamond
/// as [`spatially_average_flux_or_velocity`].
pub fn compute_graddiv_of_vn(geofac_grdiv: &Expr, x: &Expr) -> Expr {
    spatially_average_flux_or_velocity(geofac_grdiv, x)
}

/// The program's fields (ICON4Py's names, ICON's in the docs; `(Edge, K)` unless stated).
pub struct Handles<'a> {
    /// Output `spatially_averaged_vn` (`z_vn_avg`).
    pub z_vn_avg: &'a Expr,
    /// Output `horizontal_gradient_of_normal_wind_divergence` (`z_graddiv_vn`).
    pub z_graddiv_vn: &'a Expr,
    /// Output `tangential_wind` (`vt`).
    pub vt: &'a Expr,
    /// Output `mass_flux_at_edges_on_model_levels` (`mass_fl_e`).
    pub mass_fl_e: &'a Expr,
    /// Output `theta_v_flux_at_edges_on_model_levels` (`z_theta_v_fl_e`).
    pub z_theta_v_fl_e: &'a Expr,
    /// Output `tangential_wind_on_half_levels` (`z_vt_ie`, `nlev` levels).
    pub z_vt_ie: &'a Expr,
    /// Output `vn_on_half_levels` (`vn_ie`, `(Edge, KHALF)`).
    pub vn_ie: &'a Expr,
    /// Output `horizontal_kinetic_energy_at_edges_on_model_levels` (`z_kin_hor_e`).
    pub z_kin_hor_e: &'a Expr,
    /// Output `contravariant_correction_at_edges_on_model_levels` (`z_w_concorr_me`,
    /// written from `nflatlev` down).
    pub z_w_concorr_me: &'a Expr,
    /// `vn`: normal wind at time level new.
    pub vn: &'a Expr,
    /// `e_flx_avg`: flux-averaging weights (`(Edge, E2C2EO)`).
    pub e_flx_avg: &'a Expr,
    /// `geofac_grdiv`: weights of the gradient of the divergence (`(Edge, E2C2EO)`).
    pub geofac_grdiv: &'a Expr,
    /// `rbf_vec_coeff_e`: RBF weights of the tangential wind (`(Edge, E2C2E)`).
    pub rbf_vec_coeff_e: &'a Expr,
    /// `rho_at_edges_on_model_levels` (`z_rho_e`).
    pub z_rho_e: &'a Expr,
    /// `theta_v_at_edges_on_model_levels` (`z_theta_v_e`).
    pub z_theta_v_e: &'a Expr,
    /// `ddqz_z_full_e`: layer thickness at the edges.
    pub ddqz_z_full_e: &'a Expr,
    /// `ddxn_z_full`: terrain slope normal to the edge.
    pub ddxn_z_full: &'a Expr,
    /// `ddxt_z_full`: terrain slope along the edge.
    pub ddxt_z_full: &'a Expr,
    /// `wgtfac_e`: interpolation weights to the half levels (`(Edge, KHALF)`).
    pub wgtfac_e: &'a Expr,
    /// `wgtfacq_e`: surface extrapolation weights in the lowest three levels.
    pub wgtfacq_e: &'a Expr,
}

/// Adds the program's stencils to `b` on edges `[LATERAL_BOUNDARY_LEVEL_5, HALO_LEVEL_2
/// end)`: the averages and tangential wind, the fluxes, the half-level winds and kinetic
/// energy on `[0, nlev)`, `vn_ie` at `k = nlev`, `z_w_concorr_me` on `[nflatlev, nlev)`.
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>, nflatlev: i32) {
    let (lo, hi) = (start(Zone::LateralBoundary(5)), end(Zone::Halo(2)));
    b.stencil(
        "compute_averaged_vn_graddiv_and_tangential_wind",
        (f.z_vn_avg, f.z_graddiv_vn, f.vt),
        tuple((
            spatially_average_flux_or_velocity(f.e_flx_avg, f.vn),
            compute_graddiv_of_vn(f.geofac_grdiv, f.vn),
            compute_tangential_wind(f.vn, f.rbf_vec_coeff_e),
        )),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
    let (mass_fl_e, z_theta_v_fl_e) =
        compute_mass_and_temperature_flux(f.z_rho_e, f.z_vn_avg, f.ddqz_z_full_e, f.z_theta_v_e);
    b.stencil(
        "compute_mass_and_temperature_flux",
        (f.mass_fl_e, f.z_theta_v_fl_e),
        tuple((mass_fl_e, z_theta_v_fl_e)),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
    b.stencil(
        "interpolate_vn_to_half_levels",
        f.vn_ie,
        interpolate_to_half_levels(f.wgtfac_e, f.vn, KHALF),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
    b.stencil(
        "interpolate_vt_to_half_levels_and_compute_kinetic_energy",
        (f.z_vt_ie, f.z_kin_hor_e),
        tuple((
            interpolate_to_half_levels(f.wgtfac_e, f.vt, K),
            compute_horizontal_kinetic_energy(f.vn, f.vt),
        )),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
    b.stencil(
        "extrapolate_at_top",
        f.vn_ie,
        extrapolate_at_top(f.wgtfacq_e, f.vn),
    )
    .horizontal(lo, hi)
    .vertical(nlev(), nlev() + 1);
    b.stencil(
        "compute_contravariant_correction",
        f.z_w_concorr_me,
        compute_contravariant_correction(f.vn, f.ddxn_z_full, f.ddxt_z_full, f.vt),
    )
    .horizontal(lo, hi)
    .vertical(nflatlev, nlev());
}

/// The DSL program (static `nflatlev`), with ICON4Py's arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let nflatlev = b.static_i32("nflatlev");
        let ek = (EDGE, K);
        let f = Handles {
            z_vn_avg: &b.output("spatially_averaged_vn", ek, F64),
            z_graddiv_vn: &b.output("horizontal_gradient_of_normal_wind_divergence", ek, F64),
            vt: &b.output("tangential_wind", ek, F64),
            mass_fl_e: &b.output("mass_flux_at_edges_on_model_levels", ek, F64),
            z_theta_v_fl_e: &b.output("theta_v_flux_at_edges_on_model_levels", ek, F64),
            z_vt_ie: &b.output("tangential_wind_on_half_levels", ek, F64),
            vn_ie: &b.output("vn_on_half_levels", (EDGE, KHALF), F64),
            z_kin_hor_e: &b.output(
                "horizontal_kinetic_energy_at_edges_on_model_levels",
                ek,
                F64,
            ),
            z_w_concorr_me: &b.output("contravariant_correction_at_edges_on_model_levels", ek, F64),
            vn: &b.input("vn", ek, F64),
            e_flx_avg: &b.input("e_flx_avg", (EDGE, E2C2EO), F64),
            geofac_grdiv: &b.input("geofac_grdiv", (EDGE, E2C2EO), F64),
            rbf_vec_coeff_e: &b.input("rbf_vec_coeff_e", (EDGE, E2C2E), F64),
            z_rho_e: &b.input("rho_at_edges_on_model_levels", ek, F64),
            z_theta_v_e: &b.input("theta_v_at_edges_on_model_levels", ek, F64),
            ddqz_z_full_e: &b.input("ddqz_z_full_e", ek, F64),
            ddxn_z_full: &b.input("ddxn_z_full", ek, F64),
            ddxt_z_full: &b.input("ddxt_z_full", ek, F64),
            wgtfac_e: &b.input("wgtfac_e", (EDGE, KHALF), F64),
            wgtfacq_e: &b.input("wgtfacq_e", ek, F64),
        };
        add_stencils(b, &f, nflatlev);
    })
    .static_i32("nflatlev", &[])
}
