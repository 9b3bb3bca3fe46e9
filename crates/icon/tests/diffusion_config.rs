//! Diffusion configuration: ICON's defaults and derived coefficients, checked by hand.

use foehn_icon::diffusion::config::{
    enhanced_smagorinsky_factor, DiffusionConfig, DiffusionParams,
};
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-14 * a.abs().max(b.abs())
}

#[test]
fn vertical_grid_has_the_configured_top_and_lowest_layer() {
    let v = VerticalGrid::new(VerticalConfig::new(35));
    assert_eq!(v.vct_a.len(), 36);
    assert!(close(v.vct_a[0], 23500.0));
    assert_eq!(v.vct_a[35], 0.0);
    assert!(
        (v.vct_a[34] - 50.0).abs() < 1e-9,
        "lowest layer {}",
        v.vct_a[34]
    );
    assert!(
        v.vct_a.windows(2).all(|w| w[0] > w[1]),
        "heights decrease downwards"
    );
    // Damping height above the model top: no damping layer.
    assert_eq!(v.end_index_of_damping_layer, 0);
    assert!(v.vct_a[v.nflatlev] >= 16000.0 && v.vct_a[v.nflatlev + 1] < 16000.0);
}

#[test]
fn derived_coefficients_match_icon_formulas() {
    let v = VerticalGrid::new(VerticalConfig::new(35));
    let c = DiffusionConfig::default();
    let p = DiffusionParams::new(&c, &v, false);
    assert!(close(p.k2, 1.0 / 288.0));
    assert!(close(p.k4, 1.0 / 2304.0));
    assert!(close(p.k4w, 1.0 / 540.0));
    assert!(close(p.diff_multfac_vn[0], 5.0 / 2304.0 / 3.0));
    assert!(close(p.smag_limit[7], 0.125 - 4.0 * 5.0 / 2304.0 / 3.0));
    assert!(close(p.smag_offset, 0.25 * 5.0 / 2304.0));
    assert!(close(p.diff_multfac_w, 5.0 / 540.0));
    assert!(close(p.nudgezone_diff, 0.04 / (0.1 + f64::EPSILON)));
    assert!(close(p.fac_bdydiff_v, 5f64.sqrt() / 200.0));
    assert!(close(p.rd_o_cvd, 287.04 / (1004.64 - 287.04)));
    // Below 32.5 km the Smagorinsky factor is the namelist value.
    assert!(p.enh_smag_fac.iter().all(|&f| close(f, 0.015)));
    assert!(p.diff_multfac_n2w.iter().all(|&f| f == 0.0));
    let first = DiffusionParams::new(&c, &v, true);
    assert!(close(first.diff_multfac_vn[0], 1.0 / 2304.0 / 3.0 * 36.0));
    assert_eq!(first.smag_offset, 0.0);
}

#[test]
fn smagorinsky_profile_is_continuous_and_reaches_its_end_values() {
    // Interface heights every 500 m up to 95 km.
    let vct_a: Vec<f64> = (0..=190).rev().map(|i| 500.0 * i as f64).collect();
    let magic = (1600.0f64 * 51600.0).sqrt();
    let fac = [0.015, 2e-6 * (26600.0 + magic), 0.0, 1.0];
    let z = [32500.0, 51600.0 + magic, 50000.0, 90000.0];
    let f = enhanced_smagorinsky_factor(&vct_a, fac, z);
    // Layers below 32.5 km keep the namelist factor; above 90 km the profile reaches fac[3].
    assert!(f
        .iter()
        .zip(vct_a.windows(2))
        .filter(|(_, w)| w[0] <= 32500.0)
        .all(|(&x, _)| close(x, 0.015)));
    assert!(close(*f.first().unwrap(), 1.0), "top {}", f[0]);
    assert!(f.windows(2).all(|w| (w[0] - w[1]).abs() < 0.05), "no jumps");
}

#[test]
fn upper_damping_factor_starts_at_one_twelfth() {
    let mut cfg = VerticalConfig::new(40);
    cfg.rayleigh_damping_height = 12500.0;
    let v = VerticalGrid::new(cfg);
    assert!(v.end_index_of_damping_layer > 2);
    let p = DiffusionParams::new(&DiffusionConfig::default(), &v, false);
    assert!(close(p.diff_multfac_n2w[1], 1.0 / 12.0));
    let n = v.end_index_of_damping_layer;
    assert!(p.diff_multfac_n2w[1..=n].windows(2).all(|w| w[0] > w[1]));
    assert!(p.diff_multfac_n2w[n + 1..].iter().all(|&x| x == 0.0) && p.diff_multfac_n2w[0] == 0.0);
}
