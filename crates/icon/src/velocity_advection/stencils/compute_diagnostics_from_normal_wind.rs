//! `compute_diagnostics_from_normal_wind` (ICON `mo_velocity_advection` stencils 01–07 of
//! the predictor; ICON4Py program of the same name, formerly
//! `fused_velocity_advection_stencil_1_to_7_predictor`): the tangential wind, the normal
//! and tangential winds on half levels, the horizontal kinetic energy, the contravariant
//! correction at edges and the horizontal advection of `w`.
//!
//! Edges `[LATERAL_BOUNDARY_LEVEL_5, HALO_LEVEL_2 end)` × full levels `[0, nlev)`, and
//! for `vn_ie` also the surface interface `k = nlev`; every output keeps its values
//! outside (ICON4Py's `vertical_end = nlev + 1`, the main operator on
//! `[vertical_start, vertical_end − 1)`, the extrapolation on the last interface).
//! With ICON's short names (ICON4Py's argument names in [`Handles`]):
//!
//! ```text
//! vt          = Σ_{E2C2E} rbf_vec_coeff_e·vn                          (stencil 01)
//! z_kin_hor_e = ½·(vn² + vt²)                                         (stencil 05)
//! vn_ie(k)    = wgtfac_e(k)·vn(k) + (1 − wgtfac_e(k))·vn(k−1)  (0 < k < nlev),
//! vn_ie(0)    = vn(0)                                                 (stencils 02, 05)
//! vn_ie(nlev) = Σ_{j=1..3} wgtfacq_e(nlev−j)·vn(nlev−j)               (stencil 06)
//! k ≥ nflatlev:  z_w_concorr_me = vn·ddxn_z_full + vt·ddxt_z_full      (stencil 04;
//!                                 levels above nflatlev keep their values)
//! not skip:
//!   z_vt_ie(k)  = wgtfac_e(k)·vt(k) + (1 − wgtfac_e(k))·vt(k−1) (k > 0),  z_vt_ie(0) = vt(0)
//!   z_w_v       = Σ_{V2C} c_intp·w                 (cells to vertices, a temporary)
//!   z_v_grad_w  = vn_ie·inv_dual_edge_length·(w(E2C[0]) − w(E2C[1]))
//!               + z_vt_ie·inv_primal_edge_length·tangent_orientation·(z_w_v(E2V[0]) − z_w_v(E2V[1]))
//! ```
//!
//! Level `k` of a half-level quantity is the interface above full level `k`. `vn_ie`,
//! `w` and `wgtfac_e` live on the `nlev + 1` interfaces (`KHALF`); `z_vt_ie` and
//! `z_v_grad_w` are half-level quantities that ICON4Py stores on `nlev` levels (the
//! surface interface is never needed), so they are `K` fields here, as ICON4Py's arrays
//! are. `wgtfacq_e` is a full-level field whose lowest three levels hold ICON's
//! `wgtfacq_e(1..3)` (`nlev − 1` holds `wgtfacq_e(1)`).
//!
//! `z_w_concorr_me` is computed on `[nflatlev, nlev)` only (ICON4Py's
//! `concat_where(nflatlev <= K, …, old)` keeps the old values above): the stencil's
//! vertical domain does it, so the old values are not read. `z_w_v` is computed on
//! vertices `[LATERAL_BOUNDARY_LEVEL_3, HALO_LEVEL_2 end)`, which holds both vertices of
//! every edge of the domain.
//!
//! Statics: `nflatlev` (open; the catalog fixes [`NFLATLEV`]) and
//! `skip_compute_predictor_vertical_advection`: with `true`, `z_vt_ie` and `z_v_grad_w`
//! are not written (they keep their values) and `w`, `c_intp`, `inv_dual_edge_length`,
//! `inv_primal_edge_length`, `tangent_orientation` are declared but not read. Every
//! variant declares ICON4Py's full argument list in its order (the `horizontal_*` and
//! `vertical_*` bounds are the stencils' domains).

use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "compute_diagnostics_from_normal_wind";

/// The catalog's `nflatlev`: full levels on both sides of it in a 10-level test column
/// (ICON4Py's stencil test uses 5, ICON4Py's default 80-level grid 16).
pub const NFLATLEV: i32 = 4;

/// `vt = Σ_{E2C2E} rbf_vec_coeff_e·vn` (ICON4Py `_compute_tangential_wind`).
pub fn compute_tangential_wind(vn: &Expr, rbf_vec_coeff_e: &Expr) -> Expr {
    (rbf_vec_coeff_e * vn.shift(E2C2E)).sum_over(E2C2E)
}

/// `½·(vn² + vt²)` (ICON4Py `_compute_horizontal_kinetic_energy`).
pub fn compute_horizontal_kinetic_energy(vn: &Expr, vt: &Expr) -> Expr {
    0.5 * (vn * vn + vt * vt)
}

/// Full-level `x` on the half levels: `wgtfac_e·x(k) + (1 − wgtfac_e)·x(k−1)` for
/// `k > 0`, `x(0)` at the model top (ICON4Py `_interpolate_to_half_levels` of
/// `compute_diagnostics_from_normal_wind`). `kind` is the vertical kind of the result:
/// `KHALF` for `vn_ie` (the `nlev + 1` interfaces), `K` for `z_vt_ie` (stored on `nlev`
/// levels, half level `k` at index `k`); the branch is on the result's own level index,
/// so the optimiser can split it off.
pub fn interpolate_to_half_levels(wgtfac_e: &Expr, x: &Expr, kind: VKind) -> Expr {
    // Half level k reads full level k (the layer below) and wgtfac_e at interface k.
    let (wgtfac_e, x) = match kind {
        VKind::Half => (wgtfac_e.clone(), x.as_half()),
        VKind::Full => (wgtfac_e.as_full(), x.clone()),
    };
    concat_where(
        index(kind).gt(0),
        &wgtfac_e * &x + (1.0 - &wgtfac_e) * x.k_shift(-1),
        &x,
    )
}

/// The surface value `Σ_{j=1..3} wgtfacq_e(k−j)·vn(k−j)` at half level `k = nlev`
/// (ICON4Py `_extrapolate_at_top`, formerly velocity advection stencil 06).
pub fn extrapolate_at_top(wgtfacq_e: &Expr, vn: &Expr) -> Expr {
    let (q, v) = (wgtfacq_e.as_half(), vn.as_half());
    q.k_shift(-1) * v.k_shift(-1) + q.k_shift(-2) * v.k_shift(-2) + q.k_shift(-3) * v.k_shift(-3)
}

/// `z_w_concorr_me = vn·ddxn_z_full + vt·ddxt_z_full` (ICON4Py
/// `_compute_contravariant_correction`).
pub fn compute_contravariant_correction(
    vn: &Expr,
    ddxn_z_full: &Expr,
    ddxt_z_full: &Expr,
    vt: &Expr,
) -> Expr {
    vn * ddxn_z_full + vt * ddxt_z_full
}

/// `Σ_{V2C} c_intp·w`: a cell field at the vertices (ICON4Py
/// `_mo_icon_interpolation_scalar_cells2verts_scalar_ri_dsl`).
pub fn mo_icon_interpolation_scalar_cells2verts_scalar_ri_dsl(
    p_cell_in: &Expr,
    c_intp: &Expr,
) -> Expr {
    (p_cell_in.shift(V2C) * c_intp).sum_over(V2C)
}

/// `z_v_grad_w = vn_ie·inv_dual_edge_length·(w(E2C[0]) − w(E2C[1])) +
/// z_vt_ie·inv_primal_edge_length·tangent_orientation·(z_w_v(E2V[0]) − z_w_v(E2V[1]))`
/// on full-level indices (ICON4Py `_compute_horizontal_advection_term_for_vertical_velocity`,
/// formerly velocity advection stencil 07): `vn_ie`, `w` and `z_w_v` are half-level
/// (`KHALF`) values, `z_vt_ie` and the result full-level (`K`) ones.
pub fn compute_horizontal_advection_term_for_vertical_velocity(
    vn_ie: &Expr,
    inv_dual_edge_length: &Expr,
    w: &Expr,
    z_vt_ie: &Expr,
    inv_primal_edge_length: &Expr,
    tangent_orientation: &Expr,
    z_w_v: &Expr,
) -> Expr {
    let dw_normal = (w.at(E2C, 0) - w.at(E2C, 1)).as_full();
    let dw_tangential = (z_w_v.at(E2V, 0) - z_w_v.at(E2V, 1)).as_full();
    vn_ie.as_full() * inv_dual_edge_length * dw_normal
        + z_vt_ie * inv_primal_edge_length * tangent_orientation * dw_tangential
}

/// The fields [`add_stencils`] reads and writes (ICON4Py's names; ICON's in the docs).
pub struct Handles<'a> {
    /// Output `vt`: tangential wind (`Edge, K`).
    pub tangential_wind: &'a Expr,
    /// Output `z_vt_ie`: tangential wind on half levels `[0, nlev)` (`Edge, K`; written
    /// unless skipped).
    pub tangential_wind_on_half_levels: &'a Expr,
    /// Output `vn_ie`: normal wind on the `nlev + 1` half levels (`Edge, KHALF`).
    pub vn_on_half_levels: &'a Expr,
    /// Output `z_kin_hor_e`: horizontal kinetic energy (`Edge, K`).
    pub horizontal_kinetic_energy_at_edges_on_model_levels: &'a Expr,
    /// Output `z_w_concorr_me`: contravariant correction (`Edge, K`; written from `nflatlev` down).
    pub contravariant_correction_at_edges_on_model_levels: &'a Expr,
    /// Output `z_v_grad_w`: horizontal advection of `w` on half levels `[0, nlev)`
    /// (`Edge, K`; written unless skipped).
    pub horizontal_advection_of_w_at_edges_on_half_levels: &'a Expr,
    /// `vn`: normal wind (`Edge, K`).
    pub vn: &'a Expr,
    /// `w`: vertical wind (`Cell, KHALF`).
    pub w: &'a Expr,
    /// `rbf_vec_coeff_e` (`Edge, E2C2E`).
    pub rbf_vec_coeff_e: &'a Expr,
    /// `wgtfac_e` (`Edge, KHALF`).
    pub wgtfac_e: &'a Expr,
    /// `ddxn_z_full`: terrain slope normal to the edge (`Edge, K`).
    pub ddxn_z_full: &'a Expr,
    /// `ddxt_z_full`: terrain slope along the edge (`Edge, K`).
    pub ddxt_z_full: &'a Expr,
    /// `wgtfacq_e`: surface extrapolation weights in the lowest three levels (`Edge, K`).
    pub wgtfacq_e: &'a Expr,
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
}

/// Adds the program's stencils to `b` for the statics: `compute_tangential_wind`,
/// `compute_horizontal_kinetic_energy`, `interpolate_vn_to_half_levels`,
/// `extrapolate_at_top`, `compute_contravariant_correction` and, unless `skip`,
/// `interpolate_vt_to_half_levels`, `interpolate_w_to_vertices` (the temporary) and
/// `compute_horizontal_advection_term_for_vertical_velocity`, all on edges
/// `[LATERAL_BOUNDARY_LEVEL_5, HALO_LEVEL_2 end)`.
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>, skip: bool, nflatlev: i32) {
    let (lo, hi) = (start(Zone::LateralBoundary(5)), end(Zone::Halo(2)));
    let vt = f.tangential_wind;
    b.stencil(
        "compute_tangential_wind",
        vt,
        compute_tangential_wind(f.vn, f.rbf_vec_coeff_e),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
    b.stencil(
        "compute_horizontal_kinetic_energy",
        f.horizontal_kinetic_energy_at_edges_on_model_levels,
        compute_horizontal_kinetic_energy(f.vn, vt),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
    b.stencil(
        "interpolate_vn_to_half_levels",
        f.vn_on_half_levels,
        interpolate_to_half_levels(f.wgtfac_e, f.vn, KHALF),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
    b.stencil(
        "extrapolate_at_top",
        f.vn_on_half_levels,
        extrapolate_at_top(f.wgtfacq_e, f.vn),
    )
    .horizontal(lo, hi)
    .vertical(nlev(), nlev() + 1);
    b.stencil(
        "compute_contravariant_correction",
        f.contravariant_correction_at_edges_on_model_levels,
        compute_contravariant_correction(f.vn, f.ddxn_z_full, f.ddxt_z_full, vt),
    )
    .horizontal(lo, hi)
    .vertical(nflatlev, nlev());
    if skip {
        return;
    }
    b.stencil(
        "interpolate_vt_to_half_levels",
        f.tangential_wind_on_half_levels,
        interpolate_to_half_levels(f.wgtfac_e, vt, K),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
    // Both vertices of every edge in [LB5, HALO_2 end).
    b.stencil(
        "interpolate_w_to_vertices",
        f.w_at_vertices,
        mo_icon_interpolation_scalar_cells2verts_scalar_ri_dsl(f.w, f.c_intp),
    )
    .horizontal(start(Zone::LateralBoundary(3)), end(Zone::Halo(2)))
    .vertical(0, nlev());
    b.stencil(
        "compute_horizontal_advection_term_for_vertical_velocity",
        f.horizontal_advection_of_w_at_edges_on_half_levels,
        compute_horizontal_advection_term_for_vertical_velocity(
            f.vn_on_half_levels,
            f.inv_dual_edge_length,
            f.w,
            f.tangential_wind_on_half_levels,
            f.inv_primal_edge_length,
            f.tangent_orientation,
            f.w_at_vertices,
        ),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
}

/// The DSL program (statics `skip_compute_predictor_vertical_advection`, `nflatlev`).
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let skip = b.static_bool("skip_compute_predictor_vertical_advection");
        let nflatlev = b.static_i32("nflatlev");
        let f = Handles {
            tangential_wind: &b.output("tangential_wind", (EDGE, K), F64),
            tangential_wind_on_half_levels: &b.output(
                "tangential_wind_on_half_levels",
                (EDGE, K),
                F64,
            ),
            vn_on_half_levels: &b.output("vn_on_half_levels", (EDGE, KHALF), F64),
            horizontal_kinetic_energy_at_edges_on_model_levels: &b.output(
                "horizontal_kinetic_energy_at_edges_on_model_levels",
                (EDGE, K),
                F64,
            ),
            contravariant_correction_at_edges_on_model_levels: &b.output(
                "contravariant_correction_at_edges_on_model_levels",
                (EDGE, K),
                F64,
            ),
            horizontal_advection_of_w_at_edges_on_half_levels: &b.output(
                "horizontal_advection_of_w_at_edges_on_half_levels",
                (EDGE, K),
                F64,
            ),
            vn: &b.input("vn", (EDGE, K), F64),
            w: &b.input("w", (CELL, KHALF), F64),
            rbf_vec_coeff_e: &b.input("rbf_vec_coeff_e", (EDGE, E2C2E), F64),
            wgtfac_e: &b.input("wgtfac_e", (EDGE, KHALF), F64),
            ddxn_z_full: &b.input("ddxn_z_full", (EDGE, K), F64),
            ddxt_z_full: &b.input("ddxt_z_full", (EDGE, K), F64),
            wgtfacq_e: &b.input("wgtfacq_e", (EDGE, K), F64),
            c_intp: &b.input("c_intp", (VERTEX, V2C), F64),
            inv_dual_edge_length: &b.input("inv_dual_edge_length", EDGE, F64),
            inv_primal_edge_length: &b.input("inv_primal_edge_length", EDGE, F64),
            tangent_orientation: &b.input("tangent_orientation", EDGE, F64),
            w_at_vertices: &b.temporary("w_at_vertices", (VERTEX, KHALF), F64),
        };
        add_stencils(b, &f, skip, nflatlev);
    })
    .static_bool("skip_compute_predictor_vertical_advection")
    .static_i32("nflatlev", &[])
}
