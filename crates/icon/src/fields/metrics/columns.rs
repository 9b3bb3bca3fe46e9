//! Metric fields of one cell column (ICON4Py `compute_ddqz_z_half`,
//! `compute_ddqz_z_full_and_inverse`, `compute_coeff_dwdz`, `compute_wgtfac_c`,
//! `compute_wgtfacq_c_dsl`) and the level profiles `rayleigh_w`, `scalfac_dd3d`.
//!
//! With interface heights `z[k]` (`z_ifc`, `k = 0..=nlev`, top first) and full levels
//! `m[k]` (`z_mc`):
//!
//! ```text
//! ddqz_z_full[k] = z[k] − z[k+1]
//! ddqz_z_half[k] = m[k−1] − m[k]   (k = 0: 2(z[0] − m[0]);  k = nlev: 2(m[nlev−1] − z[nlev]))
//! coeff1_dwdz[k] = Δ[k]/Δ[k−1]/(z[k−1] − z[k+1]),  coeff2_dwdz[k] = Δ[k−1]/Δ[k]/(z[k−1] − z[k+1])
//! wgtfac_c[k]    = (z[k−1] − z[k])/(z[k−1] − z[k+1])   (k = 0: (z[1] − z[0])/(z[2] − z[0]);
//!                                                       k = nlev: (z[nlev−1] − z[nlev])/(z[nlev−2] − z[nlev]))
//! ```
//!
//! (`Δ = ddqz_z_full`): `coeff1·(w[k−1] − w[k]) + coeff2·(w[k] − w[k+1])` is the
//! second-order `∂w/∂z` at interface `k`, and `wgtfac_c` interpolates linearly in
//! height from full levels to interfaces. `wgtfacq_c` holds the Lagrange weights that
//! extrapolate the three lowest full levels quadratically to the surface.

use super::fill::fill_columns;
use super::{MetricsConfig, RayleighType};
use crate::fields::vertical::VerticalGrid;
use crate::fields::Columns;
use std::f64::consts::PI;

/// The metric fields of the cell columns.
pub(crate) struct CellColumns {
    pub ddqz_z_full: Columns,
    pub inv_ddqz_z_full: Columns,
    pub ddqz_z_half: Columns,
    pub coeff1_dwdz: Columns,
    pub coeff2_dwdz: Columns,
    pub wgtfac_c: Columns,
    pub wgtfacq_c: Columns,
}

/// The column fields from the heights (`nlev ≥ 3`), one pass over the columns.
pub(crate) fn cell_columns(z_ifc: &Columns, z_mc: &Columns) -> CellColumns {
    let (n, nlev) = (z_mc.len(), z_mc.levels());
    let [ddqz_z_full, inv_ddqz_z_full, ddqz_z_half, coeff1_dwdz, coeff2_dwdz, wgtfac_c, wgtfacq_c] =
        fill_columns(
            n,
            [nlev, nlev, nlev + 1, nlev, nlev, nlev + 1, 3],
            |c, [full, inv, half, coeff1, coeff2, wgtfac, wgtfacq]| {
                let (z, m) = (z_ifc.column(c), z_mc.column(c));
                for k in 0..nlev {
                    full[k] = z[k] - z[k + 1];
                    inv[k] = 1.0 / full[k];
                }
                half[0] = 2.0 * (z[0] - m[0]);
                for k in 1..nlev {
                    half[k] = m[k - 1] - m[k];
                }
                half[nlev] = 2.0 * (m[nlev - 1] - z[nlev]);
                for k in 1..nlev {
                    let (above, here) = (full[k - 1], full[k]);
                    let span = z[k - 1] - z[k + 1];
                    coeff1[k] = here / above / span;
                    coeff2[k] = above / here / span;
                }
                wgtfac[0] = (z[1] - z[0]) / (z[2] - z[0]);
                for k in 1..nlev {
                    wgtfac[k] = (z[k - 1] - z[k]) / (z[k - 1] - z[k + 1]);
                }
                wgtfac[nlev] = (z[nlev - 1] - z[nlev]) / (z[nlev - 2] - z[nlev]);
                wgtfacq.copy_from_slice(&surface_weights(z));
            },
        );
    CellColumns {
        ddqz_z_full,
        inv_ddqz_z_full,
        ddqz_z_half,
        coeff1_dwdz,
        coeff2_dwdz,
        wgtfac_c,
        wgtfacq_c,
    }
}

/// The weights of full levels `nlev − 3`, `nlev − 2`, `nlev − 1` that extrapolate them
/// quadratically to the surface `z[nlev]` (ICON's `wgtfacq_c(3), (2), (1)`), from the
/// heights above the surface of the three lowest full levels.
pub(crate) fn surface_weights(z: &[f64]) -> [f64; 3] {
    let nlev = z.len() - 1;
    let surface = z[nlev];
    let z1 = 0.5 * (z[nlev - 1] - surface);
    let z2 = 0.5 * (z[nlev - 1] + z[nlev - 2]) - surface;
    let z3 = 0.5 * (z[nlev - 2] + z[nlev - 3]) - surface;
    let w3 = z1 * z2 / (z2 - z3) / (z1 - z3);
    let w2 = (z1 - w3 * (z1 - z3)) / (z1 - z2);
    let w1 = 1.0 - (w2 + w3);
    [w3, w2, w1]
}

/// The K profiles of the metric fields.
pub(crate) struct LevelProfiles {
    pub rayleigh_w: Vec<f64>,
    pub scalfac_dd3d: Vec<f64>,
}

/// `rayleigh_w` (interfaces `0..=end_index_of_damping_layer`, 0 below) and
/// `scalfac_dd3d` (1, or for `divdamp_type` 32 a linear taper to 0 between the
/// transition heights at the nominal layer mid-heights).
pub(crate) fn level_profiles(vertical: &VerticalGrid, config: &MetricsConfig) -> LevelProfiles {
    let vct_a = &vertical.vct_a;
    let nlev = vertical.num_levels();
    let top = vct_a[0];
    let damping_height = vertical.config.rayleigh_damping_height;
    let rayleigh_w = (0..=nlev)
        .map(|k| {
            if k > vertical.end_index_of_damping_layer {
                return 0.0;
            }
            let z = vct_a[k];
            match config.rayleigh_type {
                RayleighType::Klemp => {
                    let scale = (top - damping_height).max(1e-6);
                    config.rayleigh_coeff * (1.0 - (3.8 * (top - z) / scale).tanh())
                }
                RayleighType::Classic => {
                    let scale = (top - damping_height).max(0.001);
                    let x = (z - damping_height).max(0.0);
                    config.rayleigh_coeff * (PI / 2.0 * x / scale).sin().powi(2)
                }
            }
        })
        .collect();
    let (start, end) = (config.divdamp_trans_start, config.divdamp_trans_end);
    let scalfac_dd3d = (0..nlev)
        .map(|k| {
            if config.divdamp_type != 32 {
                return 1.0;
            }
            let zf = 0.5 * (vct_a[k] + vct_a[k + 1]);
            if zf >= end {
                0.0
            } else if zf >= start {
                (end - zf) / (end - start)
            } else {
                1.0
            }
        })
        .collect();
    LevelProfiles {
        rayleigh_w,
        scalfac_dd3d,
    }
}
