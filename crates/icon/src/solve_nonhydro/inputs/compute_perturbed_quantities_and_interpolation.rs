//! Realistic random inputs of
//! [`compute_perturbed_quantities_and_interpolation`](crate::solve_nonhydro::stencils::compute_perturbed_quantities_and_interpolation).

use crate::diffusion::inputs::signed_field;
use crate::fields::metrics::columns::cell_columns;
use crate::fields::reference_atmosphere::ReferenceAtmosphere;
use crate::fields::sleve::Heights;
use crate::fields::Columns;
use crate::velocity_advection::inputs::compute_advection_in_predictor_vertical_momentum::layer_thicknesses;
use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// Test-column heights: per cell a surface at 0–1500 m and the layers of
/// [`layer_thicknesses`] (about 20 m at the surface to 1000 m at the top) stacked on it.
pub fn column_heights(rng: &mut SplitMix64, nc: usize, nlev: usize) -> Heights {
    let dz = layer_thicknesses(rng, nc, nlev);
    let surface: Vec<f64> = (0..nc).map(|_| rng.range_f64(0.0, 1500.0)).collect();
    let z_ifc = Columns::from_fn(nc, nlev + 1, |c, k| {
        surface[c] + (k..nlev).map(|j| dz[c + nc * j]).sum::<f64>()
    });
    let z_mc = Columns::from_fn(nc, nlev, |c, k| {
        0.5 * (z_ifc.get(c, k) + z_ifc.get(c, k + 1))
    });
    Heights { z_ifc, z_mc }
}

/// The `(Cell, levels)` field of `columns` (`[n_cells, levels]`, ICON4Py's order).
fn cell_field(grid: &Grid, nlev: usize, levels: VKind, columns: &Columns) -> Field {
    let nc = grid.size(Location::Cell);
    Field::from_fn_f64(grid, nlev, (CELL, levels), |i| columns.get(i % nc, i / nc))
}

/// `field` with `1 ± [lo, hi)` (random sign) times each value.
fn scaled(rng: &mut SplitMix64, field: &Field, (lo, hi): (f64, f64)) -> Field {
    let mut out = field.clone();
    for x in out.as_f64_mut().expect("an f64 field") {
        let r = rng.range_f64(lo, hi);
        *x *= 1.0 + if rng.chance(0.5) { r } else { -r };
    }
    out
}

/// `op(a, b)` point by point (f64 fields of the same shape).
fn combine(a: &Field, b: &Field, op: impl Fn(f64, f64) -> f64) -> Field {
    let mut out = a.clone();
    let b = b.as_f64().expect("an f64 field");
    for (x, &y) in out.as_f64_mut().expect("an f64 field").iter_mut().zip(b) {
        *x = op(*x, y);
    }
    out
}

/// Realistic random inputs on the test columns of [`column_heights`]: the metric fields
/// `wgtfac_c`, `wgtfacq_c` (the quadratic surface weights in its lowest three levels,
/// values in [0.5, 1.5) above, where ICON's are zero and never read), `ddqz_z_half`,
/// `inv_ddqz_z_full` from foehn's metrics code, and the reference atmosphere
/// (`rho/theta/exner_ref_mc`, `theta_ref_ic`, `d_exner_dz_ref_ic`, `d2dexdz2_fac1/2_mc`)
/// from foehn's ICON reference atmosphere over those heights. The state deviates from
/// it: ρ by ±(0.1..3) %, θv by ±(0.1..5) K, the Exner pressure by ±(1e-5..2e-3)
/// relative; the previous `exner_pr` is the new perturbation ±(1e-6..1e-4).
/// `exner_exfac` in [0.05, ⅓) (ICON4Py's `exner_expol` ⅓ reduced over steep terrain),
/// `vwind_expl_wgt` in [0.15, 0.4) (`1 − vwind_impl_wgt`).
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5011_0001);
    let nc = grid.size(Location::Cell);
    let heights = column_heights(&mut rng, nc, nlev);
    let metrics = cell_columns(&heights.z_ifc, &heights.z_mc);
    let reference = ReferenceAtmosphere::new(&heights);
    let fields = [
        ("wgtfac_c", KHALF, &metrics.wgtfac_c),
        ("ddqz_z_half", KHALF, &metrics.ddqz_z_half),
        ("inv_ddqz_z_full", K, &metrics.inv_ddqz_z_full),
        (
            "reference_rho_at_cells_on_model_levels",
            K,
            &reference.rho_ref_mc,
        ),
        (
            "reference_theta_at_cells_on_model_levels",
            K,
            &reference.theta_ref_mc,
        ),
        (
            "reference_exner_at_cells_on_model_levels",
            K,
            &reference.exner_ref_mc,
        ),
        (
            "reference_theta_at_cells_on_half_levels",
            KHALF,
            &reference.theta_ref_ic,
        ),
        (
            "ddz_of_reference_exner_at_cells_on_half_levels",
            KHALF,
            &reference.d_exner_dz_ref_ic,
        ),
        ("d2dexdz2_fac1_mc", K, &reference.d2dexdz2_fac1_mc),
        ("d2dexdz2_fac2_mc", K, &reference.d2dexdz2_fac2_mc),
    ];
    for (name, levels, columns) in fields {
        args.set_field(name, cell_field(grid, nlev, levels, columns));
    }
    // ICON4Py's layout of the metric: column j weighs level nlev − 3 + j.
    let lowest = nlev - 3;
    args.set_field(
        "wgtfacq_c",
        Field::from_fn_f64(grid, nlev, (CELL, K), |i| {
            let (c, k) = (i % nc, i / nc);
            if k >= lowest {
                metrics.wgtfacq_c.get(c, k - lowest)
            } else {
                rng.range_f64(0.5, 1.5)
            }
        }),
    );
    let field = |args: &Args, name: &str| args.field(name).expect(name).clone();
    let rho_ref = field(&args, "reference_rho_at_cells_on_model_levels");
    args.set_field("current_rho", scaled(&mut rng, &rho_ref, (0.001, 0.03)));
    let theta_ref = field(&args, "reference_theta_at_cells_on_model_levels");
    let theta_pr = signed_field(&mut rng, grid, nlev, (CELL, K), 0.1, 5.0);
    args.set_field(
        "current_theta_v",
        combine(&theta_ref, &theta_pr, |r, p| r + p),
    );
    let exner_ref = field(&args, "reference_exner_at_cells_on_model_levels");
    let exner = scaled(&mut rng, &exner_ref, (1e-5, 2e-3));
    let exner_pr_new = combine(&exner, &exner_ref, |x, r| x - r);
    let change = signed_field(&mut rng, grid, nlev, (CELL, K), 1e-6, 1e-4);
    args.set_field(
        "perturbed_exner_at_cells_on_model_levels",
        combine(&exner_pr_new, &change, |p, d| p + d),
    );
    args.set_field("current_exner", exner);
    args.set_field(
        "time_extrapolation_parameter_for_exner",
        Field::from_fn_f64(grid, nlev, (CELL, K), |_| rng.range_f64(0.05, 1.0 / 3.0)),
    );
    args.set_field(
        "exner_w_explicit_weight_parameter",
        Field::from_fn_f64(grid, nlev, CELL, |_| rng.range_f64(0.15, 0.4)),
    );
    args
}
