//! `calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools` (diffusion step
//! 10, ICON `mo_nh_diffusion` "enhanced diffusion in grid-point cold pools"; ICON4Py fuses
//! `temporary_field_for_grid_point_cold_pools_enhancement` and
//! `enhance_diffusion_coefficient_for_grid_point_cold_pools`).
//!
//! On the two lowest levels `k ∈ [nlev−2, nlev)`, per cell
//!
//! ```text
//! tdiff    = θv(c)    − ⅓ Σ_{C2E2C} θv
//! trefdiff = θref(c)  − ⅓ Σ_{C2E2C} θref
//! enh_diffu_3d(c) = (tdiff−trefdiff < thresh ∧ trefdiff < 0) ∨ (tdiff−trefdiff < 1.5·thresh)
//!                   ? (thresh − tdiff + trefdiff)·5e-4 : smallest_vpfloat
//! ```
//!
//! and per edge of `[NUDGING, HALO end)`: `kh_smag_e = max(kh_smag_e, max_{E2C} enh_diffu_3d)`.
//! ICON4Py evaluates the cell quantity inside the edge operator; here it is a cell
//! temporary over `[LATERAL_BOUNDARY_LEVEL_4, HALO_LEVEL_2 end)`: ICON's Fortran loop
//! starts at `grf_bdywidth_c` (row 4, the cells beside the first nudging edges) and ends
//! with the first halo line; the end is widened to the second halo line so that every
//! `E2C` cell of ICON4Py's edge domain (up to the first edge halo line) is covered on a
//! decomposed grid. As ICON4Py (not Fortran's `−HUGE`), cells without a cold pool get
//! `smallest_vpfloat`.

use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools";

/// First cell of the `enh_diffu_3d` temporary.
pub const CELL_START: Zone = Zone::LateralBoundary(4);
/// End (exclusive) of the `enh_diffu_3d` temporary.
pub const CELL_END: Zone = Zone::Halo(2);
/// First edge updated.
pub const EDGE_START: Zone = Zone::Nudging(1);
/// End (exclusive) of the updated edges.
pub const EDGE_END: Zone = Zone::Halo(1);

/// `x − ⅓ Σ_{C2E2C} x`: deviation of a cell value from the mean of its three neighbours.
pub fn deviation_from_neighbour_mean(x: &Expr) -> Expr {
    x - x.shift(C2E2C).sum_over(C2E2C) / 3.0
}

/// ICON4Py `_temporary_field_for_grid_point_cold_pools_enhancement` (cells).
pub fn temporary_field_for_grid_point_cold_pools_enhancement(
    theta_v: &Expr,
    theta_ref_mc: &Expr,
    thresh_tdiff: &Expr,
    smallest_vpfloat: &Expr,
) -> Expr {
    let tdiff = deviation_from_neighbour_mean(theta_v);
    let trefdiff = deviation_from_neighbour_mean(theta_ref_mc);
    let anomaly = &tdiff - &trefdiff;
    where_(
        (anomaly.lt(thresh_tdiff) & trefdiff.lt(0.0)) | anomaly.lt(1.5 * thresh_tdiff),
        (thresh_tdiff - &tdiff + &trefdiff) * 5.0e-4,
        smallest_vpfloat,
    )
}

/// ICON4Py `_enhance_diffusion_coefficient_for_grid_point_cold_pools` (edges).
pub fn enhance_diffusion_coefficient_for_grid_point_cold_pools(
    kh_smag_e: &Expr,
    enh_diffu_3d: &Expr,
) -> Expr {
    kh_smag_e.max(enh_diffu_3d.shift(E2C).max_over(E2C))
}

/// The fields and scalars [`add_stencils`] reads and writes.
pub struct Handles<'a> {
    /// Virtual potential temperature.
    pub theta_v: &'a Expr,
    /// Reference θv.
    pub theta_ref_mc: &'a Expr,
    /// Threshold of the temperature anomaly (scalar).
    pub thresh_tdiff: &'a Expr,
    /// Value of `enh_diffu_3d` outside cold pools (scalar).
    pub smallest_vpfloat: &'a Expr,
    /// Smagorinsky coefficient, updated in place.
    pub kh_smag_e: &'a Expr,
    /// Temporary: the cell enhancement.
    pub enh_diffu_3d: &'a Expr,
}

/// Adds the program's two stencils to `b` on the two lowest levels: the cell temporary
/// `enh_diffu_3d` on `[CELL_START, CELL_END)`, then the edge update of `kh_smag_e` on
/// `[EDGE_START, EDGE_END)` (shared by [`program`] and the fused diffusion step).
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>) {
    b.stencil(
        "temporary_field_for_grid_point_cold_pools_enhancement",
        f.enh_diffu_3d,
        temporary_field_for_grid_point_cold_pools_enhancement(
            f.theta_v,
            f.theta_ref_mc,
            f.thresh_tdiff,
            f.smallest_vpfloat,
        ),
    )
    .horizontal(start(CELL_START), end(CELL_END))
    .vertical(nlev() - 2, nlev());
    b.stencil(
        "enhance_diffusion_coefficient_for_grid_point_cold_pools",
        f.kh_smag_e,
        enhance_diffusion_coefficient_for_grid_point_cold_pools(f.kh_smag_e, f.enh_diffu_3d),
    )
    .horizontal(start(EDGE_START), end(EDGE_END))
    .vertical(nlev() - 2, nlev());
}

/// The DSL program: a cell temporary, then the edge update of `kh_smag_e` (in place).
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let f = Handles {
            theta_v: &b.input("theta_v", (CELL, K), F64),
            theta_ref_mc: &b.input("theta_ref_mc", (CELL, K), F64),
            thresh_tdiff: &b.scalar("thresh_tdiff", F64),
            smallest_vpfloat: &b.scalar("smallest_vpfloat", F64),
            kh_smag_e: &b.inout("kh_smag_e", (EDGE, K), F64),
            enh_diffu_3d: &b.temporary("enh_diffu_3d", (CELL, K), F64),
        };
        add_stencils(b, &f);
    })
}
