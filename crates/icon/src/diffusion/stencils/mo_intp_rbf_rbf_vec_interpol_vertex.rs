//! `mo_intp_rbf_rbf_vec_interpol_vertex`: RBF reconstruction of the horizontal wind
//! vector at vertices from the normal components at the surrounding edges (ICON
//! `rbf_vec_interpol_vertex`).
//!
//! For every vertex `v` in `[start(LATERAL_BOUNDARY_LEVEL_2), end(LOCAL))` and every level:
//!
//! ```text
//! p_u_out(v, k) = Σ_{j ∈ V2E(v)} ptr_coeff_1(v, j) · p_e_in(V2E[v, j], k)
//! p_v_out(v, k) = Σ_{j ∈ V2E(v)} ptr_coeff_2(v, j) · p_e_in(V2E[v, j], k)
//! ```
//!
//! Pentagon vertices have 5 edges: the sixth slot is a skip value and adds nothing.
//! Diffusion calls the program twice per step: on `vn`, then on `z_nabla2_e`.

use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "mo_intp_rbf_rbf_vec_interpol_vertex";

/// Field operator: one component of the RBF vector reconstruction,
/// `Σ_{V2E} coeff · p_e_in(V2E)`.
pub fn rbf_vec_interpol_vertex_component(p_e_in: &Expr, coeff: &Expr) -> Expr {
    (coeff * p_e_in.shift(V2E)).sum_over(V2E)
}

/// Adds a stencil `name` to `b` writing both components, `(p_u_out, p_v_out)`, of the
/// RBF reconstruction of `p_e_in` on vertices `[LATERAL_BOUNDARY_LEVEL_2, LOCAL end)` ×
/// `[0, nlev)` (as ICON4Py's `Diffusion` calls it; shared by [`program`] and the fused
/// diffusion step, which calls it twice).
pub fn add_stencils(
    b: &mut ProgramBuilder,
    name: &str,
    p_e_in: &Expr,
    ptr_coeff: (&Expr, &Expr),
    outputs: (&Expr, &Expr),
) {
    b.stencil(
        name,
        outputs,
        tuple((
            rbf_vec_interpol_vertex_component(p_e_in, ptr_coeff.0),
            rbf_vec_interpol_vertex_component(p_e_in, ptr_coeff.1),
        )),
    )
    .horizontal(start(Zone::LateralBoundary(2)), end(Zone::Local))
    .vertical(0, nlev());
}

/// The DSL program: both components in one stencil, `rbf_vec_interpol_vertex`
/// ([`add_stencils`]).
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let p_e_in = b.input("p_e_in", (EDGE, K), F64);
        let ptr_coeff_1 = b.input("ptr_coeff_1", (VERTEX, V2E), F64);
        let ptr_coeff_2 = b.input("ptr_coeff_2", (VERTEX, V2E), F64);
        let p_u_out = b.output("p_u_out", (VERTEX, K), F64);
        let p_v_out = b.output("p_v_out", (VERTEX, K), F64);
        add_stencils(
            b,
            "rbf_vec_interpol_vertex",
            &p_e_in,
            (&ptr_coeff_1, &ptr_coeff_2),
            (&p_u_out, &p_v_out),
        );
    })
}
