//! `apply_diffusion_to_vn` (ICON `mo_nh_diffusion` stencils 04–06, ICON4Py
//! `apply_diffusion_to_vn`): fourth-order background diffusion plus Smagorinsky
//! second-order diffusion of the normal wind.
//!
//! Edges `[LATERAL_BOUNDARY_LEVEL_5, LOCAL end)` × all levels; `vn` is updated in place.
//! With `v_i = u_vert(E2C2V[i])·pn1[i] + v_vert(E2C2V[i])·pn2[i]` (the RBF-interpolated
//! `z_nabla2_e` at the diamond vertices, projected on the edge normal):
//!
//! ```text
//! nabv_tang   = v_0 + v_1                  (the edge's own vertices)
//! nabv_norm   = v_2 + v_3                  (the far vertices of the two cells)
//! z_nabla4_e2 = 4·[(nabv_norm − 2·z_nabla2_e)·inv_vert_vert_length²
//!                + (nabv_tang − 2·z_nabla2_e)·inv_primal_edge_length²]
//! ```
//!
//! then, for edges at or beyond `NUDGING_LEVEL_2` (`start_2nd_nudge_line_idx_e`):
//!
//! ```text
//! limited area: vn += area_edge·(max(nudgezone_diff·nudgecoeff_e, kh_smag_e)·z_nabla2_e
//!                               − area_edge·diff_multfac_vn·z_nabla4_e2)
//! global:       vn += area_edge·(kh_smag_e·z_nabla2_e − diff_multfac_vn·z_nabla4_e2·area_edge)
//! ```
//!
//! and on limited-area grids, for edges before `NUDGING_LEVEL_2` (the boundary rows 5–8
//! and the first nudging row): `vn += area_edge·fac_bdydiff_v·z_nabla2_e`. On a global
//! grid every boundary/nudging zone is empty, so `NUDGING_LEVEL_2` starts at 0.
//!
//! Static argument: `limited_area` (ICON4Py compiles it from the grid). Both variants
//! take ICON4Py's full argument list; the global variant declares `nudgecoeff_e`,
//! `nudgezone_diff` and `fac_bdydiff_v` but does not read them. The
//! [`reference`](crate::diffusion::references::apply_diffusion_to_vn::reference) tells the
//! variants apart by the program's `limited_area`.

use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "apply_diffusion_to_vn";

/// `z_nabla4_e2` (ICON4Py `_calculate_nabla4`): the fourth-order diamond Laplacian from
/// the nabla2 vector at the diamond vertices (sums in ICON4Py's order).
pub fn calculate_nabla4(
    u_vert: &Expr,
    v_vert: &Expr,
    primal_normal_vert_v1: &Expr,
    primal_normal_vert_v2: &Expr,
    z_nabla2_e: &Expr,
    inv_vert_vert_length: &Expr,
    inv_primal_edge_length: &Expr,
) -> Expr {
    let u = |i: usize| u_vert.at(E2C2V, i) * primal_normal_vert_v1.pick(i);
    let v = |i: usize| v_vert.at(E2C2V, i) * primal_normal_vert_v2.pick(i);
    let nabv_tang = u(0) + v(0) + u(1) + v(1);
    let nabv_norm = u(2) + v(2) + u(3) + v(3);
    4.0 * ((nabv_norm - 2.0 * z_nabla2_e) * (inv_vert_vert_length * inv_vert_vert_length)
        + (nabv_tang - 2.0 * z_nabla2_e) * (inv_primal_edge_length * inv_primal_edge_length))
}

/// Limited-area update beyond the boundary rows (ICON4Py `_apply_nabla2_and_nabla4_to_vn`).
#[allow(clippy::too_many_arguments)]
pub fn apply_nabla2_and_nabla4_to_vn(
    area_edge: &Expr,
    kh_smag_e: &Expr,
    z_nabla2_e: &Expr,
    z_nabla4_e2: &Expr,
    diff_multfac_vn: &Expr,
    nudgecoeff_e: &Expr,
    vn: &Expr,
    nudgezone_diff: &Expr,
) -> Expr {
    vn + area_edge
        * (maximum(nudgezone_diff * nudgecoeff_e, kh_smag_e) * z_nabla2_e
            - area_edge * diff_multfac_vn * z_nabla4_e2)
}

/// Global update (ICON4Py `_apply_nabla2_and_nabla4_global_to_vn`).
pub fn apply_nabla2_and_nabla4_global_to_vn(
    area_edge: &Expr,
    kh_smag_e: &Expr,
    z_nabla2_e: &Expr,
    z_nabla4_e2: &Expr,
    diff_multfac_vn: &Expr,
    vn: &Expr,
) -> Expr {
    vn + area_edge * (kh_smag_e * z_nabla2_e - diff_multfac_vn * z_nabla4_e2 * area_edge)
}

/// Boundary-row update (ICON4Py `_apply_nabla2_to_vn_in_lateral_boundary`).
pub fn apply_nabla2_to_vn_in_lateral_boundary(
    z_nabla2_e: &Expr,
    area_edge: &Expr,
    vn: &Expr,
    fac_bdydiff_v: &Expr,
) -> Expr {
    vn + area_edge * fac_bdydiff_v * z_nabla2_e
}

/// The limited-area arguments of [`apply_diffusion_to_vn_op`]: `nudgecoeff_e`,
/// `nudgezone_diff`, `fac_bdydiff_v`.
pub struct LimitedAreaArgs<'a> {
    /// Nudging coefficient per edge.
    pub nudgecoeff_e: &'a Expr,
    /// `0.04/(max_nudging_coefficient + ε)`.
    pub nudgezone_diff: &'a Expr,
    /// `√ndyn/denom_diffu_v`.
    pub fac_bdydiff_v: &'a Expr,
}

/// Field operator of the whole program: the updated `vn` on edges from `LB5`, the
/// limited-area variant when `f.limited_area` is given (else the global one).
pub fn apply_diffusion_to_vn_op(f: Handles<'_>) -> Expr {
    let Handles {
        z_nabla2_e,
        area_edge,
        kh_smag_e,
        diff_multfac_vn,
        vn,
        limited_area,
        ..
    } = f;
    let z_nabla4_e2 = calculate_nabla4(
        f.u_vert,
        f.v_vert,
        f.primal_normal_vert_v1,
        f.primal_normal_vert_v2,
        z_nabla2_e,
        f.inv_vert_vert_length,
        f.inv_primal_edge_length,
    );
    // `EdgeDim >= start_2nd_nudge_line_idx_e`.
    let beyond_boundary = || index(EDGE).ge(start(Zone::Nudging(2)));
    match limited_area {
        Some(lam) => concat_where(
            beyond_boundary(),
            apply_nabla2_and_nabla4_to_vn(
                area_edge,
                kh_smag_e,
                z_nabla2_e,
                &z_nabla4_e2,
                diff_multfac_vn,
                lam.nudgecoeff_e,
                vn,
                lam.nudgezone_diff,
            ),
            apply_nabla2_to_vn_in_lateral_boundary(z_nabla2_e, area_edge, vn, lam.fac_bdydiff_v),
        ),
        None => concat_where(
            beyond_boundary(),
            apply_nabla2_and_nabla4_global_to_vn(
                area_edge,
                kh_smag_e,
                z_nabla2_e,
                &z_nabla4_e2,
                diff_multfac_vn,
                vn,
            ),
            vn,
        ),
    }
}

/// The fields and scalars [`add_stencils`] reads and writes.
pub struct Handles<'a> {
    /// Zonal component of the `z_nabla2_e` vector at vertices.
    pub u_vert: &'a Expr,
    /// Meridional component of the `z_nabla2_e` vector at vertices.
    pub v_vert: &'a Expr,
    /// Primal normal at the diamond vertices, x component.
    pub primal_normal_vert_v1: &'a Expr,
    /// Primal normal at the diamond vertices, y component.
    pub primal_normal_vert_v2: &'a Expr,
    /// Laplacian of `vn`.
    pub z_nabla2_e: &'a Expr,
    /// Inverse distance between the far diamond vertices.
    pub inv_vert_vert_length: &'a Expr,
    /// Inverse primal edge length.
    pub inv_primal_edge_length: &'a Expr,
    /// Edge area.
    pub area_edge: &'a Expr,
    /// Limited Smagorinsky coefficient.
    pub kh_smag_e: &'a Expr,
    /// Fourth-order diffusion factor per level.
    pub diff_multfac_vn: &'a Expr,
    /// Normal wind, updated in place.
    pub vn: &'a Expr,
    /// The limited-area arguments, in the limited-area variant only.
    pub limited_area: Option<LimitedAreaArgs<'a>>,
}

/// Adds the program's stencil `apply_diffusion_to_vn` to `b`: `vn` updated in place on
/// edges `[LATERAL_BOUNDARY_LEVEL_5, LOCAL end)` × `[0, nlev)` (shared by [`program`] and
/// the fused diffusion step).
pub fn add_stencils(b: &mut ProgramBuilder, f: Handles<'_>) {
    let vn = f.vn;
    let updated = apply_diffusion_to_vn_op(f);
    b.stencil("apply_diffusion_to_vn", vn, updated)
        .horizontal(start(Zone::LateralBoundary(5)), end(Zone::Local))
        .vertical(0, nlev());
}

/// The DSL program (static `limited_area`).
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let limited_area = b.static_bool("limited_area");
        let u_vert = b.input("u_vert", (VERTEX, K), F64);
        let v_vert = b.input("v_vert", (VERTEX, K), F64);
        let primal_normal_vert_v1 = b.input("primal_normal_vert_v1", (EDGE, E2C2V), F64);
        let primal_normal_vert_v2 = b.input("primal_normal_vert_v2", (EDGE, E2C2V), F64);
        let z_nabla2_e = b.input("z_nabla2_e", (EDGE, K), F64);
        let inv_vert_vert_length = b.input("inv_vert_vert_length", EDGE, F64);
        let inv_primal_edge_length = b.input("inv_primal_edge_length", EDGE, F64);
        let area_edge = b.input("area_edge", EDGE, F64);
        let kh_smag_e = b.input("kh_smag_e", (EDGE, K), F64);
        let diff_multfac_vn = b.input("diff_multfac_vn", K, F64);
        let nudgecoeff_e = b.input("nudgecoeff_e", EDGE, F64);
        let vn = b.inout("vn", (EDGE, K), F64);
        let nudgezone_diff = b.scalar("nudgezone_diff", F64);
        let fac_bdydiff_v = b.scalar("fac_bdydiff_v", F64);
        // The global variant declares the limited-area arguments but does not read them.
        add_stencils(
            b,
            Handles {
                u_vert: &u_vert,
                v_vert: &v_vert,
                primal_normal_vert_v1: &primal_normal_vert_v1,
                primal_normal_vert_v2: &primal_normal_vert_v2,
                z_nabla2_e: &z_nabla2_e,
                inv_vert_vert_length: &inv_vert_vert_length,
                inv_primal_edge_length: &inv_primal_edge_length,
                area_edge: &area_edge,
                kh_smag_e: &kh_smag_e,
                diff_multfac_vn: &diff_multfac_vn,
                vn: &vn,
                limited_area: limited_area.then_some(LimitedAreaArgs {
                    nudgecoeff_e: &nudgecoeff_e,
                    nudgezone_diff: &nudgezone_diff,
                    fac_bdydiff_v: &fac_bdydiff_v,
                }),
            },
        );
    })
    .static_bool("limited_area")
}
