//! `compute_advection_in_corrector_vertical_momentum` (ICON `mo_velocity_advection` in
//! the corrector: stencils 07 and 13–18 on the new `w`; ICON4Py program of the same
//! name): the advective tendency of the vertical wind with the CFL clipping and extra
//! diffusion near the CFL limit, the contravariant vertical velocity on full levels and
//! the vertical CFL numbers.
//!
//! Cells `[LATERAL_BOUNDARY_LEVEL_4, HALO end)` × levels `[0, nlev)` (ICON4Py's
//! `horizontal_start = start(LB4)`, `horizontal_end = end(HALO)`, `vertical_end = nlev`);
//! every output keeps its values outside, `ddt_w_adv` also at the model top `k = 0`,
//! and the surface interface `k = nlev` of `ddt_w_adv` is never written. With ICON's
//! short names (ICON4Py's argument names in the program), `k` a half level for `w`,
//! `w_concorr_c`, `ddqz_z_half`, `vn_ie`, `z_w_v` and `z_vt_ie`/`z_v_grad_w` (stored on
//! `nlev` levels), a full level for `coeff*_dwdz` and `z_w_con_c_full`:
//!
//! ```text
//! z_w_v      = Σ_{V2C} c_intp·w                                   (temporary, vertices)
//! z_v_grad_w = vn_ie·inv_dual_edge_length·(w(E2C[0]) − w(E2C[1]))
//!            + z_vt_ie·inv_primal_edge_length·tangent_orientation·(z_w_v(E2V[0]) − z_w_v(E2V[1]))
//!                                                                 (temporary, edges; as P1)
//! z_w_con_c  = w − w_concorr_c                           (w_concorr_c an input, not recomputed)
//! for k in [max(2, nrdmax − 2), nlev − 3) (elsewhere cfl_clipping = false, vcfl = 0):
//!     cfl_clipping = |z_w_con_c| > cfl_w_limit·ddqz_z_half
//!     vcfl         = cfl_clipping ? z_w_con_c·dtime/ddqz_z_half : 0
//!     cfl_clipping ∧ vcfl < −0.85:  z_w_con_c = −0.85·ddqz_z_half/dtime
//!     cfl_clipping ∧ vcfl >  0.85:  z_w_con_c =  0.85·ddqz_z_half/dtime
//! vertical_cfl(k) = vcfl(k)
//! 1 ≤ k < nlev:
//!     ddt_w_adv(k) = −z_w_con_c·(w(k−1)·coeff1_dwdz(k) − w(k+1)·coeff2_dwdz(k)
//!                                + w(k)·(coeff2_dwdz(k) − coeff1_dwdz(k)))
//!                    + Σ_{C2E} e_bln_c_s·z_v_grad_w(k)
//!     cfl_clipping ∧ owner_mask:
//!         difcoef    = scalfac_exdiff·min(0.85 − cfl_w_limit·dtime,
//!                                         |z_w_con_c|·dtime/ddqz_z_half − cfl_w_limit·dtime)
//!         ddt_w_adv += difcoef·area·Σ_{C2E2CO} geofac_n2s·w(k)
//! z_w_con_c_full(k) = ½(z_w_con_c(k) + z_w_con_c(k+1))  for k < nlev − 1,
//!                     ½ z_w_con_c(nlev − 1)             for k = nlev − 1
//! ```
//!
//! `nrdmax` is ICON4Py's `end_index_of_damping_layer`. The math after `z_v_grad_w` is
//! the predictor's (P2): its operators and stencils are
//! [`add_vertical_momentum_stencils`] of
//! [`compute_advection_in_predictor_vertical_momentum`](super::compute_advection_in_predictor_vertical_momentum),
//! and `z_v_grad_w` is P1's operator
//! [`compute_horizontal_advection_term_for_vertical_velocity`]. `z_v_grad_w` is read at
//! the three edges of each cell, so it is staged in a temporary on edges
//! `[LATERAL_BOUNDARY_LEVEL_7, HALO_LEVEL_2 end)` × half levels `[1, nlev)` (the edges
//! of the cells from `LATERAL_BOUNDARY_LEVEL_4` on; ICON's `rl_start = 7`), and `z_w_v`
//! in one on vertices `[LATERAL_BOUNDARY_LEVEL_4, HALO_LEVEL_2 end)` (both ends of those
//! edges).
//!
//! Outputs: `ddt_w_adv` [`vertical_wind_advective_tendency`, the corrector slot, half
//! levels], `z_w_con_c_full` \[`contravariant_corrected_w_at_cells_on_model_levels`\] and
//! `vertical_cfl` (`nlev` levels, as ICON4Py's `VelocityAdvection` allocates it). Inputs:
//! `w` (new), `tangential_wind_on_half_levels` (`z_vt_ie`, `nlev` levels),
//! `vn_on_half_levels` (`vn_ie`), `contravariant_correction_at_cells_on_half_levels`
//! (`w_concorr_c`), `coeff1_dwdz`, `coeff2_dwdz`, `c_intp`, `inv_dual_edge_length`,
//! `inv_primal_edge_length`, `tangent_orientation`, `e_bln_c_s`, `ddqz_z_half`, `area`,
//! `geofac_n2s`, `owner_mask`; runtime scalars `scalfac_exdiff`, `cfl_w_limit`, `dtime`.
//!
//! Static: `end_index_of_damping_layer` (open; the catalog fixes
//! [`END_INDEX_OF_DAMPING_LAYER`]). One variant.

use super::compute_advection_in_predictor_vertical_momentum::{
    add_vertical_momentum_stencils, VerticalMomentum,
};
use super::compute_diagnostics_from_normal_wind::{
    compute_horizontal_advection_term_for_vertical_velocity,
    mo_icon_interpolation_scalar_cells2verts_scalar_ri_dsl,
};
use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "compute_advection_in_corrector_vertical_momentum";

/// The catalog's `end_index_of_damping_layer` (ICON's `nrdmax`), the predictor's: the
/// CFL levels `[max(2, 6 − 2), nlev − 3) = [4, 7)` of a 10-level test column have
/// levels on both sides.
pub const END_INDEX_OF_DAMPING_LAYER: i32 =
    super::compute_advection_in_predictor_vertical_momentum::END_INDEX_OF_DAMPING_LAYER;

/// The fields [`add_stencils`] reads and writes besides the shared
/// [`VerticalMomentum`] ones (ICON4Py's names; ICON's in the docs).
pub struct Handles<'a> {
    /// `z_vt_ie`: tangential wind on half levels `[0, nlev)` (`Edge, K`).
    pub tangential_wind_on_half_levels: &'a Expr,
    /// `vn_ie`: normal wind on half levels (`Edge, KHALF`).
    pub vn_on_half_levels: &'a Expr,
    /// `c_intp`: cell-to-vertex weights (`Vertex, V2C`).
    pub c_intp: &'a Expr,
    /// `inv_dual_edge_length` (`Edge`).
    pub inv_dual_edge_length: &'a Expr,
    /// `inv_primal_edge_length` (`Edge`).
    pub inv_primal_edge_length: &'a Expr,
    /// `tangent_orientation` (`Edge`).
    pub tangent_orientation: &'a Expr,
    /// Temporary `z_w_v`: `w` at the vertices (`Vertex, KHALF`).
    pub w_at_vertices: &'a Expr,
    /// Temporary `z_v_grad_w`: horizontal advection of `w` at edges (`Edge, K`, half
    /// level `k` at `k`).
    pub horizontal_advection_of_w_at_edges_on_half_levels: &'a Expr,
    /// The outputs, `w`, `w_concorr_c` (an input here), the coefficients and scalars of
    /// the stencils shared with the predictor (its `z_v_grad_w` is replaced by
    /// [`add_stencils`]).
    pub vertical: VerticalMomentum<'a>,
}

/// Adds the program's stencils to `b`: `interpolate_w_to_vertices` and
/// `compute_horizontal_advection_of_w` (the two temporaries), then the predictor's
/// [`add_vertical_momentum_stencils`] (`vertical_cfl`, `ddt_w_adv`, `z_w_con_c_full` on
/// cells `[LB4, HALO end)`) reading that `z_v_grad_w`.
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>, end_index_of_damping_layer: i32) {
    b.stencil(
        "interpolate_w_to_vertices",
        f.w_at_vertices,
        mo_icon_interpolation_scalar_cells2verts_scalar_ri_dsl(f.vertical.w, f.c_intp),
    )
    .horizontal(start(Zone::LateralBoundary(4)), end(Zone::Halo(2)))
    .vertical(1, nlev());
    let z_v_grad_w = f.horizontal_advection_of_w_at_edges_on_half_levels;
    b.stencil(
        "compute_horizontal_advection_of_w",
        z_v_grad_w,
        compute_horizontal_advection_term_for_vertical_velocity(
            f.vn_on_half_levels,
            f.inv_dual_edge_length,
            f.vertical.w,
            f.tangential_wind_on_half_levels,
            f.inv_primal_edge_length,
            f.tangent_orientation,
            f.w_at_vertices,
        ),
    )
    .horizontal(start(Zone::LateralBoundary(7)), end(Zone::Halo(2)))
    .vertical(1, nlev());
    let z_v_grad_w = z_v_grad_w.as_half();
    let vertical = VerticalMomentum {
        z_v_grad_w: &z_v_grad_w,
        ..f.vertical
    };
    add_vertical_momentum_stencils(b, &vertical, false, end_index_of_damping_layer);
}

/// The DSL program (static `end_index_of_damping_layer`), with ICON4Py's arguments in
/// its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let nrdmax = b.static_i32("end_index_of_damping_layer");
        // Written on half levels [1, nlev); level 0 and the surface keep their values.
        let ddt_w_adv = b.output("vertical_wind_advective_tendency", (CELL, KHALF), F64);
        let z_w_con_c_full = b.output(
            "contravariant_corrected_w_at_cells_on_model_levels",
            (CELL, K),
            F64,
        );
        let vertical_cfl = b.output("vertical_cfl", (CELL, K), F64);
        let w = b.input("w", (CELL, KHALF), F64);
        let tangential_wind_on_half_levels =
            b.input("tangential_wind_on_half_levels", (EDGE, K), F64);
        let vn_on_half_levels = b.input("vn_on_half_levels", (EDGE, KHALF), F64);
        let w_concorr_c = b.input(
            "contravariant_correction_at_cells_on_half_levels",
            (CELL, KHALF),
            F64,
        );
        let coeff1_dwdz = b.input("coeff1_dwdz", (CELL, K), F64);
        let coeff2_dwdz = b.input("coeff2_dwdz", (CELL, K), F64);
        let c_intp = b.input("c_intp", (VERTEX, V2C), F64);
        let inv_dual_edge_length = b.input("inv_dual_edge_length", EDGE, F64);
        let inv_primal_edge_length = b.input("inv_primal_edge_length", EDGE, F64);
        let tangent_orientation = b.input("tangent_orientation", EDGE, F64);
        let e_bln_c_s = b.input("e_bln_c_s", (CELL, C2E), F64);
        let ddqz_z_half = b.input("ddqz_z_half", (CELL, KHALF), F64);
        let area = b.input("area", CELL, F64);
        let geofac_n2s = b.input("geofac_n2s", (CELL, C2E2CO), F64);
        let owner_mask = b.input("owner_mask", CELL, BOOL);
        let scalfac_exdiff = b.scalar("scalfac_exdiff", F64);
        let cfl_w_limit = b.scalar("cfl_w_limit", F64);
        let dtime = b.scalar("dtime", F64);
        let w_at_vertices = b.temporary("w_at_vertices", (VERTEX, KHALF), F64);
        let z_v_grad_w = b.temporary(
            "horizontal_advection_of_w_at_edges_on_half_levels",
            (EDGE, K),
            F64,
        );
        let f = Handles {
            tangential_wind_on_half_levels: &tangential_wind_on_half_levels,
            vn_on_half_levels: &vn_on_half_levels,
            c_intp: &c_intp,
            inv_dual_edge_length: &inv_dual_edge_length,
            inv_primal_edge_length: &inv_primal_edge_length,
            tangent_orientation: &tangent_orientation,
            w_at_vertices: &w_at_vertices,
            horizontal_advection_of_w_at_edges_on_half_levels: &z_v_grad_w,
            vertical: VerticalMomentum {
                ddt_w_adv: &ddt_w_adv,
                z_w_con_c_full: &z_w_con_c_full,
                vertical_cfl: &vertical_cfl,
                w: &w,
                w_concorr_c: &w_concorr_c,
                z_v_grad_w: &z_v_grad_w,
                coeff1_dwdz: &coeff1_dwdz,
                coeff2_dwdz: &coeff2_dwdz,
                e_bln_c_s: &e_bln_c_s,
                ddqz_z_half: &ddqz_z_half,
                area: &area,
                geofac_n2s: &geofac_n2s,
                owner_mask: &owner_mask,
                scalfac_exdiff: &scalfac_exdiff,
                cfl_w_limit: &cfl_w_limit,
                dtime: &dtime,
            },
        };
        add_stencils(b, &f, nrdmax);
    })
    .static_i32("end_index_of_damping_layer", &[])
}
