//! `calculate_nabla2_and_smag_coefficients_for_vn`: the Laplacian of `vn` on the edge
//! diamond and the Smagorinsky diffusion coefficient from the deformation
//! (mo_nh_diffusion, diffusion stencil 01).
//!
//! On edges `[start(LATERAL_BOUNDARY_LEVEL_5), end(HALO_LEVEL_2))` × `[0, nlev)`, with the
//! diamond vertices `d = E2C2V[e, 0..4]` (the edge's two end vertices, then the far
//! vertices of its two cells):
//!
//! ```text
//! v_n[i] = u_vert(d_i)·primal_normal_vert_x[i] + v_vert(d_i)·primal_normal_vert_y[i]
//! v_t[i] = u_vert(d_i)·dual_normal_vert_x[i]   + v_vert(d_i)·dual_normal_vert_y[i]
//! z_nabla2_e = 4·[(v_n[0] + v_n[1] − 2·vn)·inv_primal² + (v_n[2] + v_n[3] − 2·vn)·inv_vv²]
//! l_p = tangent_orientation·inv_primal_edge_length,  l_vv = inv_vert_vert_length
//! part1 = (v_n[3] − v_n[2])·l_vv − (v_t[1] − v_t[0])·l_p
//! part2 = (v_n[1] − v_n[0])·l_p  + (v_t[3] − v_t[2])·l_vv
//! kh_smag_ec = diff_multfac_smag(k)·√(part1² + part2²)
//! kh_smag_e  = min(max(0, kh_smag_ec − smag_offset), smag_limit(k))
//! ```

use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "calculate_nabla2_and_smag_coefficients_for_vn";

/// Field operator: the wind at the four diamond vertices projected on a direction given
/// per (Edge, E2C2V) slot: `u(E2C2V)·x + v(E2C2V)·y` (a value with local dim E2C2V).
pub fn diamond_projection(u_vert: &Expr, v_vert: &Expr, x: &Expr, y: &Expr) -> Expr {
    u_vert.shift(E2C2V) * x + v_vert.shift(E2C2V) * y
}

/// Field operator: the diamond Laplacian of `vn` from the normal winds `v_n` at the
/// diamond vertices (the factor 4: the diamond lengths are twice the stencil's spacing).
pub fn nabla2_of_vn(
    v_n: &Expr,
    vn: &Expr,
    inv_primal_edge_length: &Expr,
    inv_vert_vert_length: &Expr,
) -> Expr {
    let nabla2 = (v_n.pick(0) + v_n.pick(1) - 2.0 * vn)
        * (inv_primal_edge_length * inv_primal_edge_length)
        + (v_n.pick(2) + v_n.pick(3) - 2.0 * vn) * (inv_vert_vert_length * inv_vert_vert_length);
    4.0 * nabla2
}

/// Field operator: `diff_multfac_smag · |deformation|` from the normal (`v_n`) and
/// tangential (`v_t`) winds at the diamond vertices.
pub fn smagorinsky_coefficient(
    v_n: &Expr,
    v_t: &Expr,
    tangent_orientation: &Expr,
    inv_primal_edge_length: &Expr,
    inv_vert_vert_length: &Expr,
    diff_multfac_smag: &Expr,
) -> Expr {
    let l_p = tangent_orientation * inv_primal_edge_length;
    let l_vv = inv_vert_vert_length;
    let part1 = (v_n.pick(3) - v_n.pick(2)) * l_vv - (v_t.pick(1) - v_t.pick(0)) * &l_p;
    let part2 = (v_n.pick(1) - v_n.pick(0)) * &l_p + (v_t.pick(3) - v_t.pick(2)) * l_vv;
    diff_multfac_smag * (&part1 * &part1 + &part2 * &part2).sqrt()
}

/// Field operator of the whole program (ICON4Py `_calculate_nabla2_and_smag_coefficients_for_vn`):
/// the tuple `(kh_smag_e, kh_smag_ec, z_nabla2_e)` with
/// `kh_smag_e = min(max(0, kh_smag_ec − smag_offset), smag_limit)`.
#[allow(clippy::too_many_arguments)]
pub fn calculate_nabla2_and_smag_coefficients_for_vn_op(
    diff_multfac_smag: &Expr,
    tangent_orientation: &Expr,
    inv_primal_edge_length: &Expr,
    inv_vert_vert_length: &Expr,
    u_vert: &Expr,
    v_vert: &Expr,
    primal_normal_vert_x: &Expr,
    primal_normal_vert_y: &Expr,
    dual_normal_vert_x: &Expr,
    dual_normal_vert_y: &Expr,
    vn: &Expr,
    smag_limit: &Expr,
    smag_offset: &Expr,
) -> Expr {
    let v_n = diamond_projection(u_vert, v_vert, primal_normal_vert_x, primal_normal_vert_y);
    let v_t = diamond_projection(u_vert, v_vert, dual_normal_vert_x, dual_normal_vert_y);
    let nabla2 = nabla2_of_vn(&v_n, vn, inv_primal_edge_length, inv_vert_vert_length);
    let kh_smag = smagorinsky_coefficient(
        &v_n,
        &v_t,
        tangent_orientation,
        inv_primal_edge_length,
        inv_vert_vert_length,
        diff_multfac_smag,
    );
    let kh_smag_for_diffusion = maximum(0.0, &kh_smag - smag_offset).min(smag_limit);
    tuple((kh_smag_for_diffusion, kh_smag, nabla2))
}

/// The fields and scalars [`add_stencils`] reads and writes.
pub struct Handles<'a> {
    /// `enh_smag_fac·dtime` per level.
    pub diff_multfac_smag: &'a Expr,
    /// Edge tangent orientation.
    pub tangent_orientation: &'a Expr,
    /// Inverse primal edge length.
    pub inv_primal_edge_length: &'a Expr,
    /// Inverse distance between the far diamond vertices.
    pub inv_vert_vert_length: &'a Expr,
    /// Zonal wind at vertices.
    pub u_vert: &'a Expr,
    /// Meridional wind at vertices.
    pub v_vert: &'a Expr,
    /// Primal normal at the diamond vertices, x component.
    pub primal_normal_vert_x: &'a Expr,
    /// Primal normal at the diamond vertices, y component.
    pub primal_normal_vert_y: &'a Expr,
    /// Dual normal at the diamond vertices, x component.
    pub dual_normal_vert_x: &'a Expr,
    /// Dual normal at the diamond vertices, y component.
    pub dual_normal_vert_y: &'a Expr,
    /// Normal wind.
    pub vn: &'a Expr,
    /// Upper limit of `kh_smag_e` per level.
    pub smag_limit: &'a Expr,
    /// Offset subtracted from `kh_smag_ec` (scalar).
    pub smag_offset: &'a Expr,
    /// Output: the limited Smagorinsky coefficient.
    pub kh_smag_e: &'a Expr,
    /// Output: the Smagorinsky coefficient.
    pub kh_smag_ec: &'a Expr,
    /// Output: the Laplacian of `vn`.
    pub z_nabla2_e: &'a Expr,
}

/// Adds the program's stencil `nabla2_and_smag_coefficients` to `b` on edges
/// `[LATERAL_BOUNDARY_LEVEL_5, HALO_LEVEL_2 end)` × `[0, nlev)` (shared by [`program`] and
/// the fused diffusion step).
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>) {
    b.stencil(
        "nabla2_and_smag_coefficients",
        (f.kh_smag_e, f.kh_smag_ec, f.z_nabla2_e),
        calculate_nabla2_and_smag_coefficients_for_vn_op(
            f.diff_multfac_smag,
            f.tangent_orientation,
            f.inv_primal_edge_length,
            f.inv_vert_vert_length,
            f.u_vert,
            f.v_vert,
            f.primal_normal_vert_x,
            f.primal_normal_vert_y,
            f.dual_normal_vert_x,
            f.dual_normal_vert_y,
            f.vn,
            f.smag_limit,
            f.smag_offset,
        ),
    )
    .horizontal(start(Zone::LateralBoundary(5)), end(Zone::Halo(2)))
    .vertical(0, nlev());
}

/// The DSL program: one stencil with the outputs `(kh_smag_e, kh_smag_ec, z_nabla2_e)`.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let f = Handles {
            diff_multfac_smag: &b.input("diff_multfac_smag", K, F64),
            tangent_orientation: &b.input("tangent_orientation", EDGE, F64),
            inv_primal_edge_length: &b.input("inv_primal_edge_length", EDGE, F64),
            inv_vert_vert_length: &b.input("inv_vert_vert_length", EDGE, F64),
            u_vert: &b.input("u_vert", (VERTEX, K), F64),
            v_vert: &b.input("v_vert", (VERTEX, K), F64),
            primal_normal_vert_x: &b.input("primal_normal_vert_x", (EDGE, E2C2V), F64),
            primal_normal_vert_y: &b.input("primal_normal_vert_y", (EDGE, E2C2V), F64),
            dual_normal_vert_x: &b.input("dual_normal_vert_x", (EDGE, E2C2V), F64),
            dual_normal_vert_y: &b.input("dual_normal_vert_y", (EDGE, E2C2V), F64),
            vn: &b.input("vn", (EDGE, K), F64),
            smag_limit: &b.input("smag_limit", K, F64),
            kh_smag_e: &b.output("kh_smag_e", (EDGE, K), F64),
            kh_smag_ec: &b.output("kh_smag_ec", (EDGE, K), F64),
            z_nabla2_e: &b.output("z_nabla2_e", (EDGE, K), F64),
            smag_offset: &b.scalar("smag_offset", F64),
        };
        add_stencils(b, &f);
    })
}
