//! Quantities diagnosed from a prognostic state.
//!
//! Surface pressure as ICON diagnoses it (ICON4Py `diagnose_surface_pressure`, ICON
//! `diagnose_pres_temp`): hydrostatic integration downwards from the third-lowest full
//! level, with the virtual temperature `Tv = θv·π` of the three lowest levels,
//!
//! ```text
//! p_sfc = p0ref · exp( cpd/rd · ln π[nlev−3]
//!                      + g/rd · ( Δz[nlev−1]/Tv[nlev−1] + Δz[nlev−2]/Tv[nlev−2]
//!                                 + ½ Δz[nlev−3]/Tv[nlev−3] ) )
//! ```
//!
//! with `Δz = ddqz_z_full` (layer thickness).

use foehn_icon::common::constants::{CPD, GRAV, P0REF, RD};
use foehn_icon::fields::Columns;

/// Surface pressure (Pa) of every cell from the Exner pressure `exner` and the virtual
/// potential temperature `theta_v` (both `[n_cells, nlev]`, row-major as [`Columns`]) and
/// the layer thickness `ddqz_z_full`. `None` when the shapes differ or there are fewer
/// than three levels.
pub fn surface_pressure(
    exner: &Columns,
    theta_v: &Columns,
    ddqz_z_full: &Columns,
) -> Option<Vec<f64>> {
    let (n, nlev) = (exner.len(), exner.levels());
    let same = |c: &Columns| c.len() == n && c.levels() == nlev;
    if nlev < 3 || !same(theta_v) || !same(ddqz_z_full) {
        return None;
    }
    Some(
        (0..n)
            .map(|c| {
                let (pi, th, dz) = (exner.column(c), theta_v.column(c), ddqz_z_full.column(c));
                let over_tv = |k: usize| dz[k] / (th[k] * pi[k]);
                let l = nlev - 1;
                P0REF
                    * (CPD / RD * pi[l - 2].ln()
                        + GRAV / RD * (over_tv(l) + over_tv(l - 1) + 0.5 * over_tv(l - 2)))
                    .exp()
            })
            .collect(),
    )
}
