//! `compute_advection_in_predictor_vertical_momentum` (ICON `mo_velocity_advection`
//! stencils 8–14 and 16–17 of the predictor; ICON4Py program of the same name, formerly
//! `fused_velocity_advection_stencil_8_to_14` + `…_15_to_18`): the contravariant
//! correction of `w` at cells, the CFL clipping of the contravariant vertical velocity,
//! the vertical-wind advection tendency with extra diffusion near the CFL limit, and the
//! contravariant vertical velocity on full levels.
//!
//! Cells `[LATERAL_BOUNDARY_LEVEL_4, HALO end)` × levels `[0, nlev)` (ICON4Py's
//! `horizontal_start = start(LB4)`, `horizontal_end = end(HALO)`, `vertical_end = nlev`);
//! every output keeps its values outside, `ddt_w_adv` also at `k = 0`, and the surface
//! interface `k = nlev` of the half-level outputs is never written. With ICON's short
//! names (ICON4Py's in brackets), `k` a half level for `_c`/`w`/`ddqz_z_half`/`wgtfac_c`
//! and a full level for `_me`/`_full`/`coeff*_dwdz`:
//!
//! ```text
//! z_w_concorr_mc(k) = Σ_{C2E} e_bln_c_s·z_w_concorr_me(k)                  (temporary)
//! w_concorr_c(k)    = wgtfac_c·z_w_concorr_mc(k) + (1 − wgtfac_c)·z_w_concorr_mc(k−1)
//!                                                           for k ≥ nflatlev + 1, else 0
//! z_w_con_c(k)      = w(k) − w_concorr_c(k)
//! for k in [max(2, nrdmax − 2), nlev − 3) (ICON's CFL levels; elsewhere
//! cfl_clipping = false, vcfl = 0, z_w_con_c unclipped):
//!     cfl_clipping = |z_w_con_c| > cfl_w_limit·ddqz_z_half
//!     vcfl         = cfl_clipping ? z_w_con_c·dtime/ddqz_z_half : 0
//!     cfl_clipping ∧ vcfl < −0.85:  z_w_con_c = −0.85·ddqz_z_half/dtime
//!     cfl_clipping ∧ vcfl >  0.85:  z_w_con_c =  0.85·ddqz_z_half/dtime
//! vertical_cfl(k)   = vcfl(k)
//! not skip, 1 ≤ k < nlev:
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
//! Outputs: `w_concorr_c` [`contravariant_correction_at_cells_on_half_levels`, half
//! levels], `ddt_w_adv` [`vertical_wind_advective_tendency`, the predictor slot, half
//! levels], `z_w_con_c_full` \[`contravariant_corrected_w_at_cells_on_model_levels`\] and
//! ICON4Py's `vertical_cfl` (the clipped CFL numbers at half levels `[0, nlev)`, stored
//! like ICON4Py's `VelocityAdvection` allocates it: on `nlev` levels, `K`). Inputs in
//! ICON4Py's names: `w`, `horizontal_advection_of_w_at_edges_on_half_levels`
//! (`z_v_grad_w`, `nlev` levels as ICON4Py allocates it, read at half level `k`),
//! `contravariant_correction_at_edges_on_model_levels` (`z_w_concorr_me`),
//! `coeff1_dwdz`, `coeff2_dwdz` (full-level fields read at half level `k`), `e_bln_c_s`,
//! `wgtfac_c`, `ddqz_z_half`, `area`, `geofac_n2s`, `owner_mask`; runtime scalars
//! `scalfac_exdiff`, `cfl_w_limit`, `dtime`.
//!
//! Statics: `skip_compute_predictor_vertical_advection` (enumerated; with `true`,
//! `ddt_w_adv` is not written and keeps its values, and `z_v_grad_w`, `coeff*_dwdz`,
//! `area`, `geofac_n2s`, `owner_mask`, `scalfac_exdiff` are declared but not read),
//! `nflatlev` and `end_index_of_damping_layer` (ICON's `nrdmax`; both open, the catalog
//! fixes [`NFLATLEV`] and [`END_INDEX_OF_DAMPING_LAYER`]).
//!
//! The operators after `w_concorr_c` are shared with
//! `compute_advection_in_corrector_vertical_momentum` (which takes `w_concorr_c` as an
//! input and computes `z_v_grad_w` on the fly) through [`add_vertical_momentum_stencils`].

use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "compute_advection_in_predictor_vertical_momentum";

/// The catalog's `nflatlev`: `w_concorr_c` is zero on half levels `[0, 5)` and
/// interpolated on `[5, nlev)` of a 10-level test column.
pub const NFLATLEV: i32 = 4;

/// The catalog's `end_index_of_damping_layer` (ICON's `nrdmax`): the CFL levels
/// `[max(2, 6 − 2), nlev − 3) = [4, 7)` of a 10-level test column have levels on both
/// sides (and the horizontal momentum's extra-diffusion levels are `[4, 6)`).
pub const END_INDEX_OF_DAMPING_LAYER: i32 = 6;

/// The limit `0.85` of the vertical CFL number beyond which `z_w_con_c` is clipped.
pub const CFL_CLIP: f64 = 0.85;

/// `Σ_{C2E} e_bln_c_s·interpolant`: an edge field averaged to the cell centre (ICON4Py
/// `_interpolate_to_cell_center`, ICON's `z_w_concorr_mc` and `z_ekinh`).
pub fn interpolate_to_cell_center(interpolant: &Expr, e_bln_c_s: &Expr) -> Expr {
    (e_bln_c_s * interpolant.shift(C2E)).sum_over(C2E)
}

/// `wgtfac_c·x(k) + (1 − wgtfac_c)·x(k−1)` on half level `k` from the full-level cell
/// value `interpolant` (ICON4Py `_interpolate_cell_field_to_half_levels_vp`); valid for
/// `k ≥ 1`.
pub fn interpolate_cell_field_to_half_levels_vp(wgtfac_c: &Expr, interpolant: &Expr) -> Expr {
    wgtfac_c * interpolant.as_half() + (1.0 - wgtfac_c) * interpolant.k_shift(-1).as_half()
}

/// `w_concorr_c`: the edges' `z_w_concorr_me` averaged to the cells and interpolated to
/// half levels from `nflatlev + 1` down, zero above (ICON4Py
/// `_interpolate_contravariant_correction_to_cells_on_half_levels`).
pub fn interpolate_contravariant_correction_to_cells_on_half_levels(
    contravariant_correction_at_edges_on_model_levels: &Expr,
    e_bln_c_s: &Expr,
    wgtfac_c: &Expr,
    nflatlev: i32,
) -> Expr {
    let at_cells =
        interpolate_to_cell_center(contravariant_correction_at_edges_on_model_levels, e_bln_c_s);
    concat_where(
        index(KHALF).ge(nflatlev + 1),
        interpolate_cell_field_to_half_levels_vp(wgtfac_c, &at_cells),
        0.0,
    )
}

/// `z_w_con_c = w − w_concorr_c` on half levels (ICON4Py
/// `_compute_contravariant_corrected_w`).
pub fn compute_contravariant_corrected_w(
    w: &Expr,
    contravariant_correction_at_cells_on_half_levels: &Expr,
) -> Expr {
    w - contravariant_correction_at_cells_on_half_levels
}

/// The contravariant vertical velocity after the CFL check, with the check's mask and
/// CFL numbers (all on half levels): the three results of
/// [`compute_maximum_cfl_and_clip_contravariant_vertical_velocity`] and
/// [`compute_contravariant_corrected_w_and_cfl`].
#[derive(Clone)]
pub struct ClippedW {
    /// `z_w_con_c`, clipped to `±0.85·ddqz_z_half/dtime` where the CFL number exceeds 0.85.
    pub z_w_con_c: Expr,
    /// `cfl_clipping`: `|z_w_con_c| > cfl_w_limit·ddqz_z_half` (bool).
    pub cfl_clipping: Expr,
    /// `vcfl`: `z_w_con_c·dtime/ddqz_z_half` where clipping, else 0.
    pub vertical_cfl: Expr,
}

/// The CFL check and clipping of `z_w_con_c` at every level (ICON4Py
/// `_compute_maximum_cfl_and_clip_contravariant_vertical_velocity`, ICON stencil 14):
/// `cfl_clipping = |z| > cfl_w_limit·ddqz_z_half`, `vcfl = z·dtime/ddqz_z_half` there
/// (else 0), and `z = ∓0.85·ddqz_z_half/dtime` where clipping and `vcfl ≶ ∓0.85`.
pub fn compute_maximum_cfl_and_clip_contravariant_vertical_velocity(
    ddqz_z_half: &Expr,
    z_w_con_c: &Expr,
    cfl_w_limit: &Expr,
    dtime: &Expr,
) -> ClippedW {
    let cfl_clipping = abs(z_w_con_c).gt(cfl_w_limit * ddqz_z_half);
    let vertical_cfl = where_(&cfl_clipping, z_w_con_c * dtime / ddqz_z_half, 0.0);
    let clipped = where_(
        &cfl_clipping & vertical_cfl.lt(-CFL_CLIP),
        (-CFL_CLIP * ddqz_z_half) / dtime,
        z_w_con_c,
    );
    let clipped = where_(
        &cfl_clipping & vertical_cfl.gt(CFL_CLIP),
        (CFL_CLIP * ddqz_z_half) / dtime,
        clipped,
    );
    ClippedW {
        z_w_con_c: clipped,
        cfl_clipping,
        vertical_cfl,
    }
}

/// The first and past-the-end half level of the CFL check:
/// `[max(2, end_index_of_damping_layer − 2), nlev − 3)`.
pub fn cfl_levels(end_index_of_damping_layer: i32) -> (Bound, Bound) {
    ((end_index_of_damping_layer - 2).max(2).into(), nlev() - 3)
}

/// `z_w_con_c = w − w_concorr_c`, CFL-checked and clipped on the half levels
/// [`cfl_levels`] and unclipped (no clipping, `vcfl = 0`) elsewhere (ICON4Py
/// `_compute_contravariant_corrected_w_and_cfl`).
pub fn compute_contravariant_corrected_w_and_cfl(
    w: &Expr,
    contravariant_correction_at_cells_on_half_levels: &Expr,
    ddqz_z_half: &Expr,
    cfl_w_limit: &Expr,
    dtime: &Expr,
    end_index_of_damping_layer: i32,
) -> ClippedW {
    let z_w_con_c =
        compute_contravariant_corrected_w(w, contravariant_correction_at_cells_on_half_levels);
    let checked = compute_maximum_cfl_and_clip_contravariant_vertical_velocity(
        ddqz_z_half,
        &z_w_con_c,
        cfl_w_limit,
        dtime,
    );
    let (lo, hi) = cfl_levels(end_index_of_damping_layer);
    let inside = || index(KHALF).in_range(lo, hi);
    ClippedW {
        z_w_con_c: concat_where(inside(), checked.z_w_con_c, &z_w_con_c),
        cfl_clipping: concat_where(inside(), checked.cfl_clipping, false),
        vertical_cfl: concat_where(inside(), checked.vertical_cfl, 0.0),
    }
}

/// `−z_w_con_c·(w(k−1)·coeff1_dwdz − w(k+1)·coeff2_dwdz + w·(coeff2_dwdz − coeff1_dwdz))`
/// on half level `k ≥ 1`, the full-level `coeff*_dwdz` read at level `k` (ICON4Py
/// `_add_vertical_advection_of_w_to_advective_vertical_wind_tendency`, ICON stencil 16).
pub fn add_vertical_advection_of_w_to_advective_vertical_wind_tendency(
    z_w_con_c: &Expr,
    w: &Expr,
    coeff1_dwdz: &Expr,
    coeff2_dwdz: &Expr,
) -> Expr {
    let (c1, c2) = (coeff1_dwdz.as_half(), coeff2_dwdz.as_half());
    z_w_con_c.neg() * (w.k_shift(-1) * &c1 - w.k_shift(1) * &c2 + w * (&c2 - &c1))
}

/// `ddt_w_adv + Σ_{C2E} e_bln_c_s·z_v_grad_w`, `z_v_grad_w` a half-level edge value
/// (ICON4Py `_add_interpolated_horizontal_advection_of_w`, ICON stencil 17).
pub fn add_interpolated_horizontal_advection_of_w(
    e_bln_c_s: &Expr,
    z_v_grad_w: &Expr,
    ddt_w_adv: &Expr,
) -> Expr {
    ddt_w_adv + (z_v_grad_w.shift(C2E) * e_bln_c_s).sum_over(C2E)
}

/// Extra diffusion of `w` where the CFL check clipped and the cell is owned (ICON4Py
/// `_add_extra_diffusion_for_w_con_approaching_cfl`, ICON stencil 18):
/// `ddt_w_adv + difcoef·area·Σ_{C2E2CO} w·geofac_n2s` with
/// `difcoef = scalfac_exdiff·min(0.85 − cfl_w_limit·dtime,
/// |z_w_con_c|·dtime/ddqz_z_half − cfl_w_limit·dtime)`, `ddt_w_adv` elsewhere.
#[allow(clippy::too_many_arguments)]
pub fn add_extra_diffusion_for_w_con_approaching_cfl(
    cfl_clipping: &Expr,
    owner_mask: &Expr,
    z_w_con_c: &Expr,
    ddqz_z_half: &Expr,
    area: &Expr,
    geofac_n2s: &Expr,
    w: &Expr,
    ddt_w_adv: &Expr,
    scalfac_exdiff: &Expr,
    cfl_w_limit: &Expr,
    dtime: &Expr,
) -> Expr {
    let mask = || cfl_clipping & owner_mask;
    let difcoef = where_(
        mask(),
        scalfac_exdiff
            * minimum(
                CFL_CLIP - cfl_w_limit * dtime,
                abs(z_w_con_c) * dtime / ddqz_z_half - cfl_w_limit * dtime,
            ),
        0.0,
    );
    where_(
        mask(),
        ddt_w_adv + difcoef * area * (w.shift(C2E2CO) * geofac_n2s).sum_over(C2E2CO),
        ddt_w_adv,
    )
}

/// `ddt_w_adv` on half levels `k ≥ 1`: the vertical advection, the interpolated
/// horizontal advection `z_v_grad_w` (a half-level edge value) and the extra diffusion
/// (ICON4Py `_compute_advective_vertical_wind_tendency`, ICON stencils 16–18).
pub fn compute_advective_vertical_wind_tendency(
    f: &VerticalMomentum<'_>,
    checked: &ClippedW,
) -> Expr {
    let ddt = add_vertical_advection_of_w_to_advective_vertical_wind_tendency(
        &checked.z_w_con_c,
        f.w,
        f.coeff1_dwdz,
        f.coeff2_dwdz,
    );
    let ddt = add_interpolated_horizontal_advection_of_w(f.e_bln_c_s, f.z_v_grad_w, &ddt);
    add_extra_diffusion_for_w_con_approaching_cfl(
        &checked.cfl_clipping,
        f.owner_mask,
        &checked.z_w_con_c,
        f.ddqz_z_half,
        f.area,
        f.geofac_n2s,
        f.w,
        &ddt,
        f.scalfac_exdiff,
        f.cfl_w_limit,
        f.dtime,
    )
}

/// `z_w_con_c_full = ½(z_w_con_c(k) + z_w_con_c(k+1))` on full levels `k < nlev − 1`,
/// `½ z_w_con_c(nlev − 1)` at the lowest level (the surface `z_w_con_c` is zero in ICON)
/// (ICON4Py `_interpolate_contravariant_vertical_velocity_to_full_levels`).
pub fn interpolate_contravariant_vertical_velocity_to_full_levels(z_w_con_c: &Expr) -> Expr {
    concat_where(
        index(K).lt(nlev() - 1),
        0.5 * (z_w_con_c.as_full() + z_w_con_c.k_shift(1).as_full()),
        0.5 * z_w_con_c.as_full(),
    )
}

/// The fields and scalars of the vertical-momentum stencils shared by the predictor
/// and corrector programs ([`add_vertical_momentum_stencils`]).
pub struct VerticalMomentum<'a> {
    /// Output `ddt_w_adv` \[`vertical_wind_advective_tendency`\] (Cell, KHalf).
    pub ddt_w_adv: &'a Expr,
    /// Output `z_w_con_c_full` \[`contravariant_corrected_w_at_cells_on_model_levels`\] (Cell, K).
    pub z_w_con_c_full: &'a Expr,
    /// Output `vertical_cfl` (Cell, K: half level `k` stored at `k`).
    pub vertical_cfl: &'a Expr,
    /// `w` (Cell, KHalf).
    pub w: &'a Expr,
    /// `w_concorr_c` \[`contravariant_correction_at_cells_on_half_levels`\] (Cell, KHalf):
    /// written by the predictor's first stencil, an input of the corrector.
    pub w_concorr_c: &'a Expr,
    /// `z_v_grad_w` as a half-level edge value (a field read `.as_half()`, or the
    /// corrector's on-the-fly expression).
    pub z_v_grad_w: &'a Expr,
    /// `coeff1_dwdz` (Cell, K).
    pub coeff1_dwdz: &'a Expr,
    /// `coeff2_dwdz` (Cell, K).
    pub coeff2_dwdz: &'a Expr,
    /// `e_bln_c_s` (Cell, C2E).
    pub e_bln_c_s: &'a Expr,
    /// `ddqz_z_half` (Cell, KHalf).
    pub ddqz_z_half: &'a Expr,
    /// Cell `area`.
    pub area: &'a Expr,
    /// `geofac_n2s` (Cell, C2E2CO).
    pub geofac_n2s: &'a Expr,
    /// `owner_mask` (Cell, bool).
    pub owner_mask: &'a Expr,
    /// Scalar `scalfac_exdiff`.
    pub scalfac_exdiff: &'a Expr,
    /// Scalar `cfl_w_limit`.
    pub cfl_w_limit: &'a Expr,
    /// Scalar `dtime`.
    pub dtime: &'a Expr,
}

/// The cells of both vertical-momentum programs: `[LATERAL_BOUNDARY_LEVEL_4, HALO end)`.
pub fn cell_domain() -> (Bound, Bound) {
    (start(Zone::LateralBoundary(4)), end(Zone::Halo(1)))
}

/// Adds the stencils after `w_concorr_c` on cells [`cell_domain`]:
/// `compute_contravariant_corrected_w_and_cfl` (`vertical_cfl`, levels `[0, nlev)`),
/// `compute_advective_vertical_wind_tendency` (`ddt_w_adv`, half levels `[1, nlev)`;
/// not with `skip`) and `interpolate_contravariant_vertical_velocity_to_full_levels`
/// (`z_w_con_c_full`, levels `[0, nlev)`). Shared by this program and
/// `compute_advection_in_corrector_vertical_momentum` (`skip = false`).
pub fn add_vertical_momentum_stencils(
    b: &mut ProgramBuilder,
    f: &VerticalMomentum<'_>,
    skip: bool,
    end_index_of_damping_layer: i32,
) {
    let (lo, hi) = cell_domain();
    let checked = compute_contravariant_corrected_w_and_cfl(
        f.w,
        f.w_concorr_c,
        f.ddqz_z_half,
        f.cfl_w_limit,
        f.dtime,
        end_index_of_damping_layer,
    );
    b.stencil(
        "compute_contravariant_corrected_w_and_cfl",
        f.vertical_cfl,
        checked.vertical_cfl.as_full(),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
    if !skip {
        b.stencil(
            "compute_advective_vertical_wind_tendency",
            f.ddt_w_adv,
            compute_advective_vertical_wind_tendency(f, &checked),
        )
        .horizontal(lo, hi)
        .vertical(1, nlev());
    }
    b.stencil(
        "interpolate_contravariant_vertical_velocity_to_full_levels",
        f.z_w_con_c_full,
        interpolate_contravariant_vertical_velocity_to_full_levels(&checked.z_w_con_c),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
}

/// The fields and scalars of [`add_stencils`] (ICON4Py's arguments; ICON names in the
/// docs).
pub struct Handles<'a> {
    /// Output `w_concorr_c` (Cell, KHalf).
    pub w_concorr_c: &'a Expr,
    /// `z_v_grad_w` \[`horizontal_advection_of_w_at_edges_on_half_levels`\] (Edge, K).
    pub z_v_grad_w: &'a Expr,
    /// `z_w_concorr_me` \[`contravariant_correction_at_edges_on_model_levels`\] (Edge, K).
    pub z_w_concorr_me: &'a Expr,
    /// `wgtfac_c` (Cell, KHalf).
    pub wgtfac_c: &'a Expr,
    /// The rest, shared with the corrector (its `w_concorr_c` and `z_v_grad_w` are
    /// replaced by [`add_stencils`]).
    pub vertical: VerticalMomentum<'a>,
}

/// Adds the program's stencils to `b`: `interpolate_contravariant_correction_to_cells_on_half_levels`
/// (`w_concorr_c` on cells [`cell_domain`] × half levels `[0, nlev)`), then
/// [`add_vertical_momentum_stencils`] reading that `w_concorr_c` and `z_v_grad_w` on
/// half levels.
pub fn add_stencils(
    b: &mut ProgramBuilder,
    f: &Handles<'_>,
    skip: bool,
    nflatlev: i32,
    end_index_of_damping_layer: i32,
) {
    let (lo, hi) = cell_domain();
    b.stencil(
        "interpolate_contravariant_correction_to_cells_on_half_levels",
        f.w_concorr_c,
        interpolate_contravariant_correction_to_cells_on_half_levels(
            f.z_w_concorr_me,
            f.vertical.e_bln_c_s,
            f.wgtfac_c,
            nflatlev,
        ),
    )
    .horizontal(lo, hi)
    .vertical(0, nlev());
    let z_v_grad_w = f.z_v_grad_w.as_half();
    let vertical = VerticalMomentum {
        w_concorr_c: f.w_concorr_c,
        z_v_grad_w: &z_v_grad_w,
        ..f.vertical
    };
    add_vertical_momentum_stencils(b, &vertical, skip, end_index_of_damping_layer);
}

/// The DSL program (statics `skip_compute_predictor_vertical_advection`, `nflatlev`,
/// `end_index_of_damping_layer`), with ICON4Py's arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let skip = b.static_bool("skip_compute_predictor_vertical_advection");
        let nflatlev = b.static_i32("nflatlev");
        let nrdmax = b.static_i32("end_index_of_damping_layer");
        let w_concorr_c = b.output(
            "contravariant_correction_at_cells_on_half_levels",
            (CELL, KHALF),
            F64,
        );
        // Written on half levels [1, nlev) unless skipped; level 0 keeps its value.
        let ddt_w_adv = b.output("vertical_wind_advective_tendency", (CELL, KHALF), F64);
        let z_w_con_c_full = b.output(
            "contravariant_corrected_w_at_cells_on_model_levels",
            (CELL, K),
            F64,
        );
        let vertical_cfl = b.output("vertical_cfl", (CELL, K), F64);
        let w = b.input("w", (CELL, KHALF), F64);
        let z_v_grad_w = b.input(
            "horizontal_advection_of_w_at_edges_on_half_levels",
            (EDGE, K),
            F64,
        );
        let z_w_concorr_me = b.input(
            "contravariant_correction_at_edges_on_model_levels",
            (EDGE, K),
            F64,
        );
        let coeff1_dwdz = b.input("coeff1_dwdz", (CELL, K), F64);
        let coeff2_dwdz = b.input("coeff2_dwdz", (CELL, K), F64);
        let e_bln_c_s = b.input("e_bln_c_s", (CELL, C2E), F64);
        let wgtfac_c = b.input("wgtfac_c", (CELL, KHALF), F64);
        let ddqz_z_half = b.input("ddqz_z_half", (CELL, KHALF), F64);
        let area = b.input("area", CELL, F64);
        let geofac_n2s = b.input("geofac_n2s", (CELL, C2E2CO), F64);
        let owner_mask = b.input("owner_mask", CELL, BOOL);
        let scalfac_exdiff = b.scalar("scalfac_exdiff", F64);
        let cfl_w_limit = b.scalar("cfl_w_limit", F64);
        let dtime = b.scalar("dtime", F64);
        let f = Handles {
            w_concorr_c: &w_concorr_c,
            z_v_grad_w: &z_v_grad_w,
            z_w_concorr_me: &z_w_concorr_me,
            wgtfac_c: &wgtfac_c,
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
        add_stencils(b, &f, skip, nflatlev, nrdmax);
    })
    .static_bool("skip_compute_predictor_vertical_advection")
    .static_i32("nflatlev", &[])
    .static_i32("end_index_of_damping_layer", &[])
}
