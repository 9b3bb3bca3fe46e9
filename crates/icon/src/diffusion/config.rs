//! Diffusion configuration with ICON's defaults, and the coefficients derived from it
//! (ICON4Py `DiffusionConfig`, `DiffusionParams` and the `Diffusion` constructor).

use crate::common::constants::{DBL_EPS, RD_O_CVD};
use crate::fields::vertical::VerticalGrid;

/// Namelist parameters of the diffusion (type 5 only: Smagorinsky with 4th-order background).
#[derive(Debug, Clone, PartialEq)]
pub struct DiffusionConfig {
    /// Diffuse w (`lhdiff_w`).
    pub apply_to_vertical_wind: bool,
    /// Diffuse vn (`lhdiff_vn`).
    pub apply_to_horizontal_wind: bool,
    /// Diffuse θv/exner (`lhdiff_temp`).
    pub apply_to_temperature: bool,
    /// `itype_vn_diffu` (1: diamond).
    pub type_vn_diffu: i32,
    /// `itype_t_diffu` (2).
    pub type_t_diffu: i32,
    /// `hdiff_efdt_ratio`.
    pub hdiff_efdt_ratio: f64,
    /// `hdiff_w_efdt_ratio`.
    pub hdiff_w_efdt_ratio: f64,
    /// `hdiff_smag_fac`.
    pub smagorinski_scaling_factor: f64,
    /// Dynamics substeps per time step (`ndyn_substeps`).
    pub ndyn_substeps: usize,
    /// Truly horizontal temperature diffusion over steep slopes (`l_zdiffu_t`).
    pub apply_zdiffusion_t: bool,
    /// `denom_diffu_v`.
    pub velocity_boundary_diffusion_denominator: f64,
    /// Maximal lateral-boundary nudging coefficient (scaled).
    pub max_nudging_coefficient: f64,
    /// `itype_sher` (0 or 2).
    pub shear_type: i32,
    /// Limited-area grid.
    pub limited_area: bool,
}

impl Default for DiffusionConfig {
    fn default() -> Self {
        DiffusionConfig {
            apply_to_vertical_wind: true,
            apply_to_horizontal_wind: true,
            apply_to_temperature: true,
            type_vn_diffu: 1,
            type_t_diffu: 2,
            hdiff_efdt_ratio: 36.0,
            hdiff_w_efdt_ratio: 15.0,
            smagorinski_scaling_factor: 0.015,
            ndyn_substeps: 5,
            apply_zdiffusion_t: true,
            velocity_boundary_diffusion_denominator: 200.0,
            max_nudging_coefficient: 0.1,
            shear_type: 0,
            limited_area: false,
        }
    }
}

/// Coefficients derived from the configuration and the vertical grid.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffusionParams {
    /// `K2 = 1/(8·hdiff_efdt_ratio)`.
    pub k2: f64,
    /// `K4 = K2/8`.
    pub k4: f64,
    /// `K4W = 1/(36·hdiff_w_efdt_ratio)`.
    pub k4w: f64,
    /// Smagorinsky factors (4) of the height profile.
    pub smag_factor: [f64; 4],
    /// Heights (m) of the profile's sections.
    pub smag_height: [f64; 4],
    /// `0.04/(max_nudge + ε)`.
    pub nudgezone_diff: f64,
    /// `√ndyn/denom_diffu_v`.
    pub fac_bdydiff_v: f64,
    /// `0.25·K4·ndyn` (0 in the initial run).
    pub smag_offset: f64,
    /// `min(1/48, K4W·ndyn)`.
    pub diff_multfac_w: f64,
    /// `Rd/cvd`.
    pub rd_o_cvd: f64,
    /// Threshold temperature deviation for cold-pool diffusion (−5 K).
    pub thresh_tdiff: f64,
    /// Per level: `min(1/128, K4·ndyn/3)` (initial run: `K4/3·hdiff_efdt_ratio`).
    pub diff_multfac_vn: Vec<f64>,
    /// Per level: `0.125 − 4·diff_multfac_vn`.
    pub smag_limit: Vec<f64>,
    /// Per level: the enhanced Smagorinsky factor profile.
    pub enh_smag_fac: Vec<f64>,
    /// Per half level: nabla² factor for w in the upper damping layer.
    pub diff_multfac_n2w: Vec<f64>,
}

impl DiffusionParams {
    /// Derives every coefficient; `initial_run` selects ICON's first-step variant.
    pub fn new(
        config: &DiffusionConfig,
        vertical: &VerticalGrid,
        initial_run: bool,
    ) -> DiffusionParams {
        let k2 = if config.hdiff_efdt_ratio > 0.0 {
            1.0 / (8.0 * config.hdiff_efdt_ratio)
        } else {
            0.0
        };
        let k4 = k2 / 8.0;
        let k4w = if config.hdiff_w_efdt_ratio > 0.0 {
            1.0 / (36.0 * config.hdiff_w_efdt_ratio)
        } else {
            0.0
        };
        let ndyn = config.ndyn_substeps as f64;
        let magic = (1600.0f64 * (1600.0 + 50000.0)).sqrt();
        let smag_factor = [
            config.smagorinski_scaling_factor,
            2e-6 * (1600.0 + 25000.0 + magic),
            0.0,
            1.0,
        ];
        let smag_height = [32500.0, 1600.0 + 50000.0 + magic, 50000.0, 90000.0];
        let nlev = vertical.num_levels();
        let multfac_vn = if initial_run {
            k4 / 3.0 * config.hdiff_efdt_ratio
        } else {
            (1.0f64 / 128.0).min(k4 * ndyn / 3.0)
        };
        let diff_multfac_vn = vec![multfac_vn; nlev];
        let smag_limit = diff_multfac_vn.iter().map(|m| 0.125 - 4.0 * m).collect();
        let enh_smag_fac = enhanced_smagorinsky_factor(&vertical.vct_a, smag_factor, smag_height);
        DiffusionParams {
            k2,
            k4,
            k4w,
            smag_factor,
            smag_height,
            nudgezone_diff: 0.04 / (config.max_nudging_coefficient + DBL_EPS),
            fac_bdydiff_v: ndyn.sqrt() / config.velocity_boundary_diffusion_denominator,
            smag_offset: if initial_run { 0.0 } else { 0.25 * k4 * ndyn },
            diff_multfac_w: (1.0f64 / 48.0).min(k4w * ndyn),
            rd_o_cvd: RD_O_CVD,
            thresh_tdiff: -5.0,
            diff_multfac_vn,
            smag_limit,
            enh_smag_fac,
            diff_multfac_n2w: nabla2_factor_in_upper_damping_zone(vertical),
        }
    }
}

/// ICON's `en_smag_fac_for_zero_nshift`: at the layer's mid height `zf`, linear from
/// `fac[0]` at `z[0]` to `fac[1]` at `z[1]`, then quadratic through `fac[2]`@`z[2]` to
/// `fac[3]`@`z[3]`.
pub fn enhanced_smagorinsky_factor(vct_a: &[f64], fac: [f64; 4], z: [f64; 4]) -> Vec<f64> {
    let dz21 = z[1] - z[0];
    let alin = (fac[1] - fac[0]) / dz21;
    let (df32, df42) = (fac[2] - fac[1], fac[3] - fac[1]);
    let (dz32, dz42) = (z[2] - z[1], z[3] - z[1]);
    let bqdr = (df42 * dz32 - df32 * dz42) / (dz32 * dz42 * (dz42 - dz32));
    let aqdr = df32 / dz32 - bqdr * dz32;
    vct_a
        .windows(2)
        .map(|w| {
            let zf = 0.5 * (w[0] + w[1]);
            let dzlin = dz21.min((zf - z[0]).max(0.0));
            let dzqdr = dz42.min((zf - z[1]).max(0.0));
            fac[0] + dzlin * alin + dzqdr * (aqdr + dzqdr * bqdr)
        })
        .collect()
}

/// `diff_multfac_n2w(k) = 1/12·((z_k − z_{nrdmax+1})/(z_1 − z_{nrdmax+1}))⁴` for
/// `1 ≤ k < nrdmax + 1` (interface heights), 0 elsewhere; `nlev + 1` entries.
pub fn nabla2_factor_in_upper_damping_zone(vertical: &VerticalGrid) -> Vec<f64> {
    let nrdmax = vertical.end_index_of_damping_layer;
    let z = &vertical.vct_a;
    let mut out = vec![0.0; vertical.num_levels() + 1];
    if nrdmax > 0 {
        let (z1, zn) = (z[1], z[nrdmax + 1]);
        for (k, o) in out.iter_mut().enumerate().take(nrdmax + 1).skip(1) {
            *o = 1.0 / 12.0 * ((z[k] - zn) / (z1 - zn)).powi(4);
        }
    }
    out
}
