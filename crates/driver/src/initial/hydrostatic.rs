//! ICON's discrete hydrostatic adjustment (ICON `hydro_adjust` in `mo_nh_init_utils`,
//! ICON4Py `apply_hydrostatic_adjustment_ndarray`): recomputes the Exner pressure of
//! every column from the lowest level upwards so that the discrete vertical momentum
//! equation of the dycore is in balance, keeping the virtual temperature
//! `Tv = θv·π` of each level.
//!
//! At the interface `k+1` between full levels `k` (above) and `k+1` (below), with
//! `w = wgtfac_c[k+1]`, `Δz = ddqz_z_half[k+1]`, the perturbations from the reference
//! atmosphere `π' = π − exner_ref_mc`, `θv' = θv − theta_ref_mc`, and
//!
//! ```text
//! θv'_ic = w·θv'[k+1] + (1 − w)·θv'[k]      θv_ic = theta_ref_ic[k+1] + θv'_ic
//! ```
//!
//! the balance is `θv_ic·(π'[k] − π'[k+1])/Δz + θv'_ic·d_exner_dz_ref_ic[k+1] = 0`.
//! With `θv[k] = Tv[k]/π[k]` this is a quadratic in `x = π[k]` (multiplied by `x·π[k+1]`):
//!
//! ```text
//! f1 = w·(Tv[k+1] − theta_ref_mc[k+1]·π[k+1]) − (1 − w)·theta_ref_mc[k]·π[k+1]
//! f2 = (1 − w)·Tv[k]·π[k+1]
//! f3 = exner_ref_mc[k+1] − exner_ref_mc[k] − π[k+1]
//! a  = (theta_ref_ic[k+1]·π[k+1] + f1)/Δz
//! b  = −(a·f3 + f2/Δz + f1·d_exner_dz_ref_ic[k+1])
//! c  = −(f2·f3/Δz + f2·d_exner_dz_ref_ic[k+1])
//! π[k] = (b + √(b² + 4ac)) / 2a,   θv[k] = Tv[k]/π[k],   ρ[k] = p0ref·π[k]^{cvd/rd}/(rd·θv[k])
//! ```
//!
//! for `k = nlev − 2` down to 0; the lowest level keeps its values.

use foehn_icon::common::constants::{CVD, P0REF, RD};
use foehn_icon::fields::metrics::MetricFields;

/// Density from the Exner pressure and the virtual potential temperature (the equation
/// of state, ICON's `rho = p0ref·π^{cvd/rd}/(rd·θv)`).
pub fn density(exner: f64, theta_v: f64) -> f64 {
    exner.powf(CVD / RD) * P0REF / (RD * theta_v)
}

/// Adjusts one cell column `cell` (`exner`, `theta_v`, `rho`: its `nlev` full levels,
/// level 0 at the top) in place, with the reference atmosphere and weights of `metrics`
/// (see the [module documentation](self)).
pub fn adjust_column(
    metrics: &MetricFields,
    cell: usize,
    exner: &mut [f64],
    theta_v: &mut [f64],
    rho: &mut [f64],
) {
    let r = &metrics.reference;
    let (theta_mc, exner_mc) = (r.theta_ref_mc.column(cell), r.exner_ref_mc.column(cell));
    let (theta_ic, dexdz) = (
        r.theta_ref_ic.column(cell),
        r.d_exner_dz_ref_ic.column(cell),
    );
    let (wgt, dz) = (
        metrics.wgtfac_c.column(cell),
        metrics.ddqz_z_half.column(cell),
    );
    let temp_v: Vec<f64> = theta_v
        .iter()
        .zip(exner.iter())
        .map(|(t, p)| t * p)
        .collect();
    for k in (0..exner.len().saturating_sub(1)).rev() {
        let (w, e) = (wgt[k + 1], exner[k + 1]);
        let fac1 = w * (temp_v[k + 1] - theta_mc[k + 1] * e) - (1.0 - w) * theta_mc[k] * e;
        let fac2 = (1.0 - w) * temp_v[k] * e;
        let fac3 = exner_mc[k + 1] - exner_mc[k] - e;
        let a = (theta_ic[k + 1] * e + fac1) / dz[k + 1];
        let b = -(a * fac3 + fac2 / dz[k + 1] + fac1 * dexdz[k + 1]);
        let c = -(fac2 * fac3 / dz[k + 1] + fac2 * dexdz[k + 1]);
        exner[k] = (b + (b * b + 4.0 * a * c).sqrt()) / (2.0 * a);
        theta_v[k] = temp_v[k] / exner[k];
        rho[k] = density(exner[k], theta_v[k]);
    }
}
