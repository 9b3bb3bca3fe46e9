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
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_output};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::catalog::Entry;
use foehn_testkit::{random_args, SplitMix64};

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

/// Plain-Rust reference: for every edge of `[NUDGING, HALO end)` and level of
/// `[nlev−2, nlev)`, the enhancement of each adjacent cell straight from the formula.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let edges = grid.zones.of(Location::Edge);
    let (e_lo, e_hi) = (edges.start(EDGE_START)?, edges.end(EDGE_END)?);
    with_output(args, "kh_smag_e", |args, kh| {
        let theta = f64s(args, "theta_v")?;
        let theta_ref = f64s(args, "theta_ref_mc")?;
        let thresh = scalar_f64(args, "thresh_tdiff")?;
        let smallest = scalar_f64(args, "smallest_vpfloat")?;
        let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
        let nlev = theta.len() / nc;
        let (e2c, c2e2c) = (grid.topology.table(E2C), grid.topology.table(C2E2C));
        // x(c) − (x(n0) + x(n1) + x(n2))/3 over the existing neighbours.
        let deviation = |x: &[f64], c: usize, k: usize| {
            let mut sum = 0.0;
            for j in 0..3 {
                if let Some(n) = c2e2c.neighbor(c, j) {
                    sum += x[n + nc * k];
                }
            }
            x[c + nc * k] - sum / 3.0
        };
        let enhancement = |c: usize, k: usize| {
            let tdiff = deviation(theta, c, k);
            let trefdiff = deviation(theta_ref, c, k);
            let cold =
                (tdiff - trefdiff < thresh && trefdiff < 0.0) || tdiff - trefdiff < 1.5 * thresh;
            if cold {
                (thresh - tdiff + trefdiff) * 5.0e-4
            } else {
                smallest
            }
        };
        for k in nlev.saturating_sub(2)..nlev {
            for e in e_lo..e_hi {
                let mut m = f64::NEG_INFINITY;
                for j in 0..2 {
                    if let Some(c) = e2c.neighbor(e, j) {
                        m = m.max(enhancement(c, k));
                    }
                }
                let i = e + ne * k;
                kh[i] = kh[i].max(m);
            }
        }
        Ok(())
    })
}

/// Realistic random inputs for the lowest levels: θref 285–295 K (so valley points,
/// `trefdiff < 0`, and others occur), θv = θref ± 8 K (so cold pools are rare but
/// present), `kh_smag_e` of the size of the enhancement (0–4e-3), and
/// ICON's constants `thresh_tdiff = −5 K`, `smallest_vpfloat = DBL_EPS`.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0xc01d_9001);
    let theta_ref = Field::from_fn_f64(grid, nlev, (CELL, K), |_| rng.range_f64(285.0, 295.0));
    let reference = theta_ref.as_f64().unwrap_or_default().to_vec();
    let theta_v = Field::from_fn_f64(grid, nlev, (CELL, K), |i| {
        reference[i] + rng.range_f64(-8.0, 8.0)
    });
    let kh = Field::from_fn_f64(grid, nlev, (EDGE, K), |_| rng.range_f64(1.0e-6, 4.0e-3));
    args.set_field("theta_ref_mc", theta_ref);
    args.set_field("theta_v", theta_v);
    args.set_field("kh_smag_e", kh);
    args.set_scalar("thresh_tdiff", -5.0);
    args.set_scalar("smallest_vpfloat", f64::EPSILON);
    args
}

/// Catalog entry.
pub fn entry() -> Entry {
    Entry::new(NAME, program, inputs, reference)
}
