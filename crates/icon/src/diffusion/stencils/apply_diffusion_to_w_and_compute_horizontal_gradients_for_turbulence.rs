//! `apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence` (ICON
//! `mo_nh_diffusion` stencils 07–10, ICON4Py program of the same name): second-order
//! diffusion of the vertical wind and, for `type_shear == 2`, its horizontal gradient.
//!
//! Cells `[start, HALO end)` × half levels `[0, nlev)` (the surface interface `nlev` is
//! left untouched), where `start` is `NUDGING` on a limited-area grid and
//! `LATERAL_BOUNDARY_LEVEL_4` on a global grid (ICON4Py's choice); both are the start of
//! the `NUDGING` zone, since every boundary zone of a global grid is empty at 0.
//! `w_old` is a copy of `w` taken before the call; `w`, `w_old`, `dwdx`, `dwdy` live on
//! the `nlev + 1` interfaces (`KHALF`), `diff_multfac_n2w` on full levels.
//!
//! ```text
//! z_nabla2_c = Σ_{C2E2CO} w_old·geofac_n2s                         (temporary)
//! interior ≤ c < halo_idx:
//!     w = w_old − diff_multfac_w·area²·Σ_{C2E2CO} z_nabla2_c·geofac_n2s
//!     0 < k < nrdmax:  w += diff_multfac_n2w·area·z_nabla2_c       (upper damping layer)
//! elsewhere:  w = w_old
//! type_shear == 2, k ≥ 1:  dwdx = Σ_{C2E2CO} geofac_grg_x·w_old,  dwdy likewise
//! ```
//!
//! with `interior = INTERIOR start`, `halo_idx = LOCAL end` and `nrdmax` =
//! `end_index_of_damping_layer + 1` (ICON4Py's value). Because the nabla2 is read at the
//! neighbours, it is written to a temporary by a first stencil and read by a second (a
//! stencil may not read a field it writes through a shift).
//!
//! Static arguments: `type_shear` ∈ {0, 1, 2} (ICON's `itype_sher`; only 2 computes the
//! gradients) and `nrdmax` (listed with the single value [`NRDMAX`], which the catalog
//! builds; the
//! [`reference`](crate::diffusion::references::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence::reference)
//! reads both from the program's variant). Every variant takes
//! ICON4Py's full argument list: with `type_shear` ≠ 2, `geofac_grg_x/y` are declared but
//! not read and the outputs `dwdx/dwdy` are declared but not written, so they keep their
//! values (ICON4Py passes them through unchanged).

use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence";

/// The listed value of the static `nrdmax` (`end_index_of_damping_layer + 1`): 8 damped
/// interfaces below the model top (some 10% of a 80-level column, and leaving undamped
/// levels in a 10-level test column).
pub const NRDMAX: i32 = 8;

/// The values of the static `type_shear` (ICON4Py's `TurbulenceShearForcingType`).
pub const TYPE_SHEAR_VALUES: [i32; 3] = [0, 1, 2];

/// `Σ_{C2E2CO} w·geofac_n2s` (ICON4Py `_calculate_nabla2_for_w`).
pub fn calculate_nabla2_for_w(w: &Expr, geofac_n2s: &Expr) -> Expr {
    (w.shift(C2E2CO) * geofac_n2s).sum_over(C2E2CO)
}

/// `w − diff_multfac_w·area²·Σ_{C2E2CO} z_nabla2_c·geofac_n2s` (ICON4Py `_apply_nabla2_to_w`).
pub fn apply_nabla2_to_w(
    area: &Expr,
    z_nabla2_c: &Expr,
    geofac_n2s: &Expr,
    w: &Expr,
    diff_multfac_w: &Expr,
) -> Expr {
    w - diff_multfac_w * (area * area) * (z_nabla2_c.shift(C2E2CO) * geofac_n2s).sum_over(C2E2CO)
}

/// `w + diff_multfac_n2w·area·z_nabla2_c` (ICON4Py `_apply_nabla2_to_w_in_upper_damping_layer`).
pub fn apply_nabla2_to_w_in_upper_damping_layer(
    w: &Expr,
    diff_multfac_n2w: &Expr,
    area: &Expr,
    z_nabla2_c: &Expr,
) -> Expr {
    w + diff_multfac_n2w * area * z_nabla2_c
}

/// `(Σ_{C2E2CO} geofac_grg_x·w, Σ_{C2E2CO} geofac_grg_y·w)` (ICON4Py
/// `_calculate_horizontal_gradients_for_turbulence`).
pub fn calculate_horizontal_gradients_for_turbulence(
    w: &Expr,
    geofac_grg_x: &Expr,
    geofac_grg_y: &Expr,
) -> Expr {
    tuple((
        (geofac_grg_x * w.shift(C2E2CO)).sum_over(C2E2CO),
        (geofac_grg_y * w.shift(C2E2CO)).sum_over(C2E2CO),
    ))
}

/// Field operator of the w update (stencils 08–10): `w_old` diffused on the prognostic
/// cells `[INTERIOR, LOCAL end)` (plus the nabla2 damping on half levels `[1, nrdmax)`),
/// `w_old` elsewhere; `z_nabla2_c` is [`calculate_nabla2_for_w`] of `w_old`.
pub fn apply_diffusion_to_w_op(
    area: &Expr,
    z_nabla2_c: &Expr,
    geofac_n2s: &Expr,
    w_old: &Expr,
    diff_multfac_w: &Expr,
    diff_multfac_n2w: &Expr,
    nrdmax: i32,
) -> Expr {
    // interior_idx <= CellDim < halo_idx
    let prognostic = || index(CELL).in_range(start(Zone::Interior), end(Zone::Local));
    let w_new = concat_where(
        prognostic(),
        apply_nabla2_to_w(area, z_nabla2_c, geofac_n2s, w_old, diff_multfac_w),
        w_old,
    );
    concat_where(
        index(KHALF).in_range(1, nrdmax) & prognostic(),
        apply_nabla2_to_w_in_upper_damping_layer(
            &w_new,
            &diff_multfac_n2w.as_half(),
            area,
            z_nabla2_c,
        ),
        &w_new,
    )
}

/// The fields and scalars [`add_stencils`] reads and writes.
pub struct Handles<'a> {
    /// Cell area.
    pub area: &'a Expr,
    /// Laplacian weights.
    pub geofac_n2s: &'a Expr,
    /// Gradient weights, x component (read only with `type_shear == 2`).
    pub geofac_grg_x: &'a Expr,
    /// Gradient weights, y component (read only with `type_shear == 2`).
    pub geofac_grg_y: &'a Expr,
    /// `w` before the step.
    pub w_old: &'a Expr,
    /// Output: the diffused `w`.
    pub w: &'a Expr,
    /// Output: `∂w/∂x` (written only with `type_shear == 2`).
    pub dwdx: &'a Expr,
    /// Output: `∂w/∂y` (written only with `type_shear == 2`).
    pub dwdy: &'a Expr,
    /// Diffusion factor of `w` (scalar).
    pub diff_multfac_w: &'a Expr,
    /// Damping factor per level.
    pub diff_multfac_n2w: &'a Expr,
    /// Temporary: the Laplacian of `w_old`.
    pub z_nabla2_c: &'a Expr,
}

/// Adds the program's stencils to `b` for the statics `type_shear` and `nrdmax`:
/// `calculate_horizontal_gradients_for_turbulence` (only with `type_shear == 2`),
/// `calculate_nabla2_for_w` and `apply_nabla2_to_w`, all on cells `[NUDGING, HALO end)`
/// (shared by [`program`] and the fused diffusion step).
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>, type_shear: i32, nrdmax: i32) {
    // horizontal_start: NUDGING (limited area) or LATERAL_BOUNDARY_LEVEL_4 (global, = 0).
    let (h_start, h_end) = (start(Zone::Nudging(1)), end(Zone::Halo(1)));

    if type_shear == 2 {
        // ICON4Py: concat_where(0 < KDim, gradients, (dwdx, dwdy)): level 0 is kept.
        b.stencil(
            "calculate_horizontal_gradients_for_turbulence",
            (f.dwdx, f.dwdy),
            calculate_horizontal_gradients_for_turbulence(f.w_old, f.geofac_grg_x, f.geofac_grg_y),
        )
        .horizontal(h_start, h_end)
        .vertical(1, nlev());
    }

    // Needed at the C2E2CO neighbours of [INTERIOR, LOCAL end): NUDGING .. HALO end.
    b.stencil(
        "calculate_nabla2_for_w",
        f.z_nabla2_c,
        calculate_nabla2_for_w(f.w_old, f.geofac_n2s),
    )
    .horizontal(h_start, h_end)
    .vertical(0, nlev());

    let w_new = apply_diffusion_to_w_op(
        f.area,
        f.z_nabla2_c,
        f.geofac_n2s,
        f.w_old,
        f.diff_multfac_w,
        f.diff_multfac_n2w,
        nrdmax,
    );
    b.stencil("apply_nabla2_to_w", f.w, w_new)
        .horizontal(h_start, h_end)
        .vertical(0, nlev());
}

/// The DSL program (statics `type_shear`, `nrdmax`).
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let type_shear = b.static_i32("type_shear");
        let nrdmax = b.static_i32("nrdmax");
        let f = Handles {
            area: &b.input("area", CELL, F64),
            geofac_n2s: &b.input("geofac_n2s", (CELL, C2E2CO), F64),
            geofac_grg_x: &b.input("geofac_grg_x", (CELL, C2E2CO), F64),
            geofac_grg_y: &b.input("geofac_grg_y", (CELL, C2E2CO), F64),
            w_old: &b.input("w_old", (CELL, KHALF), F64),
            w: &b.output("w", (CELL, KHALF), F64),
            // Written only with type_shear == 2; otherwise they keep their values.
            dwdx: &b.output("dwdx", (CELL, KHALF), F64),
            dwdy: &b.output("dwdy", (CELL, KHALF), F64),
            diff_multfac_w: &b.scalar("diff_multfac_w", F64),
            diff_multfac_n2w: &b.input("diff_multfac_n2w", K, F64),
            z_nabla2_c: &b.temporary("z_nabla2_c", (CELL, KHALF), F64),
        };
        add_stencils(b, &f, type_shear, nrdmax);
    })
    .static_i32("type_shear", &TYPE_SHEAR_VALUES)
    .static_i32("nrdmax", &[])
}
