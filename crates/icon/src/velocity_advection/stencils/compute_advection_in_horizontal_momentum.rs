//! `compute_advection_in_horizontal_momentum` (ICON `mo_velocity_advection` stencils
//! 19–20; ICON4Py program of the same name, formerly
//! `fused_velocity_advection_stencil_19_to_20`): the advective tendency of the normal
//! wind (kinetic-energy gradient, vertical advection, vorticity flux with Coriolis) and
//! the extra diffusion of `vn` where the vertical wind approaches the CFL limit.
//!
//! Edges `[NUDGING_LEVEL_2, LOCAL end)` × full levels `[0, nlev)` (ICON4Py's
//! `horizontal_start = start(NUDGING_2)`, `horizontal_end = end(LOCAL)`,
//! `vertical_end = nlev`); `ddt_vn_apc` keeps its values outside. With ICON's short names
//! (ICON4Py's in brackets), `vn_ie` on half levels (`vn_ie(k+1)` is the interface below
//! full level `k`):
//!
//! ```text
//! zeta(v)    = Σ_{V2E} vn·geofac_rot                                  (vertices, temporary)
//! z_ekinh(c) = Σ_{C2E} e_bln_c_s·z_kin_hor_e                          (cells, temporary)
//! w_con_e    = Σ_{E2C} c_lin_e·z_w_con_c_full
//! ddt_vn_apc = −[ z_kin_hor_e·(cg_0 − cg_1) + cg_1·z_ekinh(E2C[1]) − cg_0·z_ekinh(E2C[0])
//!               + w_con_e·(vn_ie(k) − vn_ie(k+1))/ddqz_z_full_e
//!               + vt·(f_e + ½ Σ_{E2V} zeta) ]                 (cg_i = coeff_gradekin(E2C[i]))
//! apply_extra_diffusion_on_vn, k in [max(2, nrdmax − 2), nlev − 4),
//! where |w_con_e| > cfl_w_limit·ddqz_z_full_e:
//!     difcoef     = scalfac_exdiff·min(0.85 − cfl_w_limit·dtime,
//!                                      |w_con_e|·dtime/ddqz_z_full_e − cfl_w_limit·dtime)
//!     ddt_vn_apc += difcoef·area_edge·(Σ_{E2C2EO} geofac_grdiv·vn
//!                      + tangent_orientation·inv_primal_edge_length·(zeta(E2V[1]) − zeta(E2V[0])))
//! ```
//!
//! The extra-diffusion levels end one level higher than the vertical-momentum programs'
//! CFL levels `[max(2, nrdmax − 2), nlev − 3)` (ICON: `nlev − 4` for `vn`, `nlev − 3`
//! for `w`).
//!
//! Output `ddt_vn_apc` [`normal_wind_advective_tendency`, the predictor or corrector
//! slot]. Inputs in ICON4Py's names: `vn`, `z_kin_hor_e`
//! \[`horizontal_kinetic_energy_at_edges_on_model_levels`\], `vt` \[`tangential_wind`\],
//! `f_e` \[`coriolis_frequency`\], `z_w_con_c_full`
//! \[`contravariant_corrected_w_at_cells_on_model_levels`\], `vn_ie`
//! [`vn_on_half_levels`, half levels], `e_bln_c_s`, `geofac_rot`, `coeff_gradekin`,
//! `c_lin_e`, `ddqz_z_full_e`, `area_edge`, `tangent_orientation`,
//! `inv_primal_edge_length`, `geofac_grdiv`; runtime scalars `cfl_w_limit`,
//! `scalfac_exdiff`, `dtime`.
//!
//! Statics: `apply_extra_diffusion_on_vn` (enumerated; ICON4Py always passes `true`;
//! with `false`, `area_edge`, `tangent_orientation`, `inv_primal_edge_length`,
//! `geofac_grdiv`, `cfl_w_limit`, `scalfac_exdiff` and `dtime` are declared but not read)
//! and `end_index_of_damping_layer` (ICON's `nrdmax`; open, the catalog fixes
//! [`END_INDEX_OF_DAMPING_LAYER`]).

use super::compute_advection_in_predictor_vertical_momentum::{
    interpolate_to_cell_center, CFL_CLIP,
};
use foehn::dsl::prelude::*;

pub use super::compute_advection_in_predictor_vertical_momentum::END_INDEX_OF_DAMPING_LAYER;

/// Program name.
pub const NAME: &str = "compute_advection_in_horizontal_momentum";

/// `zeta = Σ_{V2E} vec_e·geofac_rot`: the vorticity at vertices (ICON4Py
/// `_mo_math_divrot_rot_vertex_ri_dsl`; pentagons sum five edges).
pub fn mo_math_divrot_rot_vertex_ri_dsl(vec_e: &Expr, geofac_rot: &Expr) -> Expr {
    (vec_e.shift(V2E) * geofac_rot).sum_over(V2E)
}

/// `Σ_{E2C} c_lin_e·x`: a cell value interpolated to the edge (ICON's `w_con_e` and the
/// vertical advection's factor).
pub fn interpolate_cells_to_edge(x: &Expr, c_lin_e: &Expr) -> Expr {
    (c_lin_e * x.shift(E2C)).sum_over(E2C)
}

/// `ddt_vn_apc` without extra diffusion (ICON4Py `_compute_advective_normal_wind_tendency`,
/// ICON stencil 19): `−(kinetic-energy gradient + vertical advection + vorticity flux)`,
/// `zeta` the vertex vorticity.
#[allow(clippy::too_many_arguments)]
pub fn compute_advective_normal_wind_tendency(
    horizontal_kinetic_energy_at_edges_on_model_levels: &Expr,
    horizontal_kinetic_energy_at_cells_on_model_levels: &Expr,
    upward_vorticity_at_vertices_on_model_levels: &Expr,
    tangential_wind: &Expr,
    vn_on_half_levels: &Expr,
    contravariant_corrected_w_at_cells_on_model_levels: &Expr,
    coriolis_frequency: &Expr,
    c_lin_e: &Expr,
    coeff_gradekin: &Expr,
    ddqz_z_full_e: &Expr,
) -> Expr {
    let z_kin_hor_e = horizontal_kinetic_energy_at_edges_on_model_levels;
    let z_ekinh = horizontal_kinetic_energy_at_cells_on_model_levels;
    let (cg0, cg1) = (coeff_gradekin.pick(0), coeff_gradekin.pick(1));
    let horizontal_advection =
        z_kin_hor_e * (&cg0 - &cg1) + &cg1 * z_ekinh.at(E2C, 1) - &cg0 * z_ekinh.at(E2C, 0);
    let vertical_advection =
        interpolate_cells_to_edge(contravariant_corrected_w_at_cells_on_model_levels, c_lin_e)
            * (vn_on_half_levels.as_full() - vn_on_half_levels.k_shift(1).as_full())
            / ddqz_z_full_e;
    let coriolis_term = tangential_wind
        * (coriolis_frequency
            + 0.5
                * upward_vorticity_at_vertices_on_model_levels
                    .shift(E2V)
                    .sum_over(E2V));
    (horizontal_advection + vertical_advection + coriolis_term).neg()
}

/// `difcoef·area_edge·(Σ_{E2C2EO} geofac_grdiv·vn + tangent_orientation·
/// inv_primal_edge_length·(zeta(E2V[1]) − zeta(E2V[0])))`: the extra diffusion of `vn`
/// (ICON4Py `_compute_extra_diffusion`).
pub fn compute_extra_diffusion(
    vn: &Expr,
    upward_vorticity_at_vertices_on_model_levels: &Expr,
    difcoef: &Expr,
    area_edge: &Expr,
    geofac_grdiv: &Expr,
    tangent_orientation: &Expr,
    inv_primal_edge_length: &Expr,
) -> Expr {
    let zeta = upward_vorticity_at_vertices_on_model_levels;
    let gradient_of_divergence_of_vn = (geofac_grdiv * vn.shift(E2C2EO)).sum_over(E2C2EO);
    let gradient_of_vorticity =
        tangent_orientation * inv_primal_edge_length * (zeta.at(E2V, 1) - zeta.at(E2V, 0));
    difcoef * area_edge * (gradient_of_divergence_of_vn + gradient_of_vorticity)
}

/// `ddt_vn_apc` plus [`compute_extra_diffusion`] where `|w_con_e| >
/// cfl_w_limit·ddqz_z_full_e`, with `difcoef = scalfac_exdiff·min(0.85 − cfl_w_limit·dtime,
/// |w_con_e|·dtime/ddqz_z_full_e − cfl_w_limit·dtime)` (ICON4Py
/// `_add_extra_diffusion_for_normal_wind_tendency_approaching_cfl_without_levelmask`,
/// ICON stencil 20 without its level mask).
#[allow(clippy::too_many_arguments)]
pub fn add_extra_diffusion_for_normal_wind_tendency_approaching_cfl_without_levelmask(
    c_lin_e: &Expr,
    contravariant_corrected_w_at_cells_on_model_levels: &Expr,
    ddqz_z_full_e: &Expr,
    area_edge: &Expr,
    tangent_orientation: &Expr,
    inv_primal_edge_length: &Expr,
    upward_vorticity_at_vertices_on_model_levels: &Expr,
    geofac_grdiv: &Expr,
    vn: &Expr,
    normal_wind_advective_tendency: &Expr,
    cfl_w_limit: &Expr,
    scalfac_exdiff: &Expr,
    dtime: &Expr,
) -> Expr {
    let w_con_e =
        interpolate_cells_to_edge(contravariant_corrected_w_at_cells_on_model_levels, c_lin_e);
    let difcoef = scalfac_exdiff
        * minimum(
            CFL_CLIP - cfl_w_limit * dtime,
            abs(&w_con_e) * dtime / ddqz_z_full_e - cfl_w_limit * dtime,
        );
    where_(
        abs(&w_con_e).gt(cfl_w_limit * ddqz_z_full_e),
        normal_wind_advective_tendency
            + compute_extra_diffusion(
                vn,
                upward_vorticity_at_vertices_on_model_levels,
                &difcoef,
                area_edge,
                geofac_grdiv,
                tangent_orientation,
                inv_primal_edge_length,
            ),
        normal_wind_advective_tendency,
    )
}

/// The first and past-the-end full level of the extra diffusion:
/// `[max(2, end_index_of_damping_layer − 2), nlev − 4)`.
pub fn extra_diffusion_levels(end_index_of_damping_layer: i32) -> (Bound, Bound) {
    ((end_index_of_damping_layer - 2).max(2).into(), nlev() - 4)
}

/// The fields and scalars of [`add_stencils`] (ICON4Py's arguments; ICON names in the
/// docs).
pub struct Handles<'a> {
    /// Output `ddt_vn_apc` \[`normal_wind_advective_tendency`\] (Edge, K).
    pub ddt_vn_apc: &'a Expr,
    /// `vn` (Edge, K).
    pub vn: &'a Expr,
    /// `z_kin_hor_e` \[`horizontal_kinetic_energy_at_edges_on_model_levels`\] (Edge, K).
    pub z_kin_hor_e: &'a Expr,
    /// `vt` \[`tangential_wind`\] (Edge, K).
    pub vt: &'a Expr,
    /// `f_e` \[`coriolis_frequency`\] (Edge).
    pub f_e: &'a Expr,
    /// `z_w_con_c_full` \[`contravariant_corrected_w_at_cells_on_model_levels`\] (Cell, K).
    pub z_w_con_c_full: &'a Expr,
    /// `vn_ie` \[`vn_on_half_levels`\] (Edge, KHalf).
    pub vn_ie: &'a Expr,
    /// `e_bln_c_s` (Cell, C2E).
    pub e_bln_c_s: &'a Expr,
    /// `geofac_rot` (Vertex, V2E).
    pub geofac_rot: &'a Expr,
    /// `coeff_gradekin` (Edge, E2C).
    pub coeff_gradekin: &'a Expr,
    /// `c_lin_e` (Edge, E2C).
    pub c_lin_e: &'a Expr,
    /// `ddqz_z_full_e` (Edge, K).
    pub ddqz_z_full_e: &'a Expr,
    /// `area_edge` (Edge).
    pub area_edge: &'a Expr,
    /// `tangent_orientation` (Edge).
    pub tangent_orientation: &'a Expr,
    /// `inv_primal_edge_length` (Edge).
    pub inv_primal_edge_length: &'a Expr,
    /// `geofac_grdiv` (Edge, E2C2EO).
    pub geofac_grdiv: &'a Expr,
    /// Scalar `cfl_w_limit`.
    pub cfl_w_limit: &'a Expr,
    /// Scalar `scalfac_exdiff`.
    pub scalfac_exdiff: &'a Expr,
    /// Scalar `dtime`.
    pub dtime: &'a Expr,
    /// Temporary `zeta`: the vorticity at vertices, `Σ_{V2E} vn·geofac_rot` (ICON4Py
    /// `upward_vorticity_at_vertices_on_model_levels`).
    pub zeta: &'a Expr,
    /// Temporary `z_ekinh`: the kinetic energy at cell centres, `Σ_{C2E}
    /// e_bln_c_s·z_kin_hor_e` (ICON4Py `horizontal_kinetic_energy_at_cells_on_model_levels`).
    pub z_ekinh: &'a Expr,
}

/// Field operator of the whole program (ICON4Py `_compute_advection_in_horizontal_momentum`):
/// [`compute_advective_normal_wind_tendency`], plus on the levels
/// [`extra_diffusion_levels`] the extra diffusion when `apply_extra_diffusion_on_vn`.
pub fn compute_advection_in_horizontal_momentum_op(
    f: &Handles<'_>,
    apply_extra_diffusion_on_vn: bool,
    end_index_of_damping_layer: i32,
) -> Expr {
    let zeta = f.zeta;
    let ddt = compute_advective_normal_wind_tendency(
        f.z_kin_hor_e,
        f.z_ekinh,
        zeta,
        f.vt,
        f.vn_ie,
        f.z_w_con_c_full,
        f.f_e,
        f.c_lin_e,
        f.coeff_gradekin,
        f.ddqz_z_full_e,
    );
    if !apply_extra_diffusion_on_vn {
        return ddt;
    }
    let (lo, hi) = extra_diffusion_levels(end_index_of_damping_layer);
    concat_where(
        index(K).in_range(lo, hi),
        add_extra_diffusion_for_normal_wind_tendency_approaching_cfl_without_levelmask(
            f.c_lin_e,
            f.z_w_con_c_full,
            f.ddqz_z_full_e,
            f.area_edge,
            f.tangent_orientation,
            f.inv_primal_edge_length,
            zeta,
            f.geofac_grdiv,
            f.vn,
            &ddt,
            f.cfl_w_limit,
            f.scalfac_exdiff,
            f.dtime,
        ),
        &ddt,
    )
}

/// The edges of the program: `[NUDGING_LEVEL_2, LOCAL end)`.
pub fn edge_domain() -> (Bound, Bound) {
    (start(Zone::Nudging(2)), end(Zone::Local))
}

/// Adds the program's stencils to `b`: the temporaries `zeta` on vertices and `z_ekinh`
/// on cells `[LATERAL_BOUNDARY_LEVEL_2, HALO end)` (every vertex and cell the edges of
/// [`edge_domain`] reach), then `ddt_vn_apc` on edges [`edge_domain`] × `[0, nlev)`.
pub fn add_stencils(
    b: &mut ProgramBuilder,
    f: &Handles<'_>,
    apply_extra_diffusion_on_vn: bool,
    end_index_of_damping_layer: i32,
) {
    let (vlo, vhi) = (start(Zone::LateralBoundary(2)), end(Zone::Halo(1)));
    b.stencil(
        "mo_math_divrot_rot_vertex_ri_dsl",
        f.zeta,
        mo_math_divrot_rot_vertex_ri_dsl(f.vn, f.geofac_rot),
    )
    .horizontal(vlo, vhi)
    .vertical(0, nlev());
    b.stencil(
        "interpolate_to_cell_center",
        f.z_ekinh,
        interpolate_to_cell_center(f.z_kin_hor_e, f.e_bln_c_s),
    )
    .horizontal(vlo, vhi)
    .vertical(0, nlev());
    let (lo, hi) = edge_domain();
    b.stencil(
        "compute_advection_in_horizontal_momentum",
        f.ddt_vn_apc,
        compute_advection_in_horizontal_momentum_op(
            f,
            apply_extra_diffusion_on_vn,
            end_index_of_damping_layer,
        ),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
}

/// The DSL program (statics `apply_extra_diffusion_on_vn`, `end_index_of_damping_layer`),
/// with ICON4Py's arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let extra = b.static_bool("apply_extra_diffusion_on_vn");
        let nrdmax = b.static_i32("end_index_of_damping_layer");
        let f = Handles {
            ddt_vn_apc: &b.output("normal_wind_advective_tendency", (EDGE, K), F64),
            vn: &b.input("vn", (EDGE, K), F64),
            z_kin_hor_e: &b.input(
                "horizontal_kinetic_energy_at_edges_on_model_levels",
                (EDGE, K),
                F64,
            ),
            vt: &b.input("tangential_wind", (EDGE, K), F64),
            f_e: &b.input("coriolis_frequency", EDGE, F64),
            z_w_con_c_full: &b.input(
                "contravariant_corrected_w_at_cells_on_model_levels",
                (CELL, K),
                F64,
            ),
            vn_ie: &b.input("vn_on_half_levels", (EDGE, KHALF), F64),
            e_bln_c_s: &b.input("e_bln_c_s", (CELL, C2E), F64),
            geofac_rot: &b.input("geofac_rot", (VERTEX, V2E), F64),
            coeff_gradekin: &b.input("coeff_gradekin", (EDGE, E2C), F64),
            c_lin_e: &b.input("c_lin_e", (EDGE, E2C), F64),
            ddqz_z_full_e: &b.input("ddqz_z_full_e", (EDGE, K), F64),
            area_edge: &b.input("area_edge", EDGE, F64),
            tangent_orientation: &b.input("tangent_orientation", EDGE, F64),
            inv_primal_edge_length: &b.input("inv_primal_edge_length", EDGE, F64),
            geofac_grdiv: &b.input("geofac_grdiv", (EDGE, E2C2EO), F64),
            cfl_w_limit: &b.scalar("cfl_w_limit", F64),
            scalfac_exdiff: &b.scalar("scalfac_exdiff", F64),
            dtime: &b.scalar("dtime", F64),
            zeta: &b.temporary(
                "upward_vorticity_at_vertices_on_model_levels",
                (VERTEX, K),
                F64,
            ),
            z_ekinh: &b.temporary(
                "horizontal_kinetic_energy_at_cells_on_model_levels",
                (CELL, K),
                F64,
            ),
        };
        add_stencils(b, &f, extra, nrdmax);
    })
    .static_bool("apply_extra_diffusion_on_vn")
    .static_i32("end_index_of_damping_layer", &[])
}
