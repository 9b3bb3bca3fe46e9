//! The nonhydrostatic solver's configuration: ICON's defaults, the refusals of what
//! foehn does not implement (by option name), the parameters derived from it, the
//! second-order divergence-damping schedule of the spin-up and the damping decisions of
//! a corrector, against ICON's numbers.

mod common;

use foehn_icon::diffusion::config::enhanced_smagorinsky_factor;
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid};
use foehn_icon::solve_nonhydro::component::SolveNonhydro;
use foehn_icon::solve_nonhydro::config::{
    second_order_divdamp_factor, DivergenceDampingOrder, DivergenceDampingType,
    HorizontalPressureDiscretizationType, NonHydrostaticConfig, NonHydrostaticParams, RayleighType,
    RhoThetaAdvectionType, TimeSteppingScheme,
};

const NLEV: usize = 10;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-14 * a.abs().max(b.abs())
}

/// 10 levels up to 75 km (with 40, the damping profile has levels below 32.5 km, on
/// its linear part and above 40 km), terrain-following below 5 km, a damping layer.
fn vertical() -> VerticalGrid {
    vertical_of(NLEV)
}

/// [`vertical`] with `nlev` levels.
fn vertical_of(nlev: usize) -> VerticalGrid {
    VerticalGrid::new(VerticalConfig {
        model_top_height: 75000.0,
        rayleigh_damping_height: 50000.0,
        flat_height: 5000.0,
        htop_moist_proc: 20000.0,
        ..VerticalConfig::new(nlev)
    })
}

#[test]
fn the_defaults_are_icons() {
    let c = NonHydrostaticConfig::default();
    assert_eq!(c.itime_scheme, TimeSteppingScheme::MostEfficient);
    assert_eq!(c.iadv_rhotheta, RhoThetaAdvectionType::Miura);
    assert_eq!(
        c.igradp_method,
        HorizontalPressureDiscretizationType::TaylorHydro
    );
    assert_eq!(c.ndyn_substeps, 5);
    assert_eq!(c.rayleigh_type, RayleighType::Klemp);
    assert_eq!(c.rayleigh_coeff, 0.05);
    assert_eq!(c.divdamp_order, DivergenceDampingOrder::Combined);
    assert_eq!(c.divdamp_type, DivergenceDampingType::ThreeDimensional);
    assert_eq!(
        [
            c.divdamp_fac,
            c.divdamp_fac2,
            c.divdamp_fac3,
            c.divdamp_fac4
        ],
        [0.0025, 0.004, 0.004, 0.004]
    );
    assert_eq!(
        [c.divdamp_z, c.divdamp_z2, c.divdamp_z3, c.divdamp_z4],
        [32500.0, 40000.0, 60000.0, 80000.0]
    );
    assert_eq!(c.rhotheta_offctr, -0.1);
    assert_eq!(c.veladv_offctr, 0.25);
    assert_eq!(c.max_nudging_coefficient, 0.1);
    assert!(!c.l_vert_nested && !c.deepatmos_mode && !c.iau_init);
    assert!(c.extra_diffu);
    assert!(!c.apply_extra_second_order_divdamp);
    c.validate().unwrap();
    // ICON's integers of the options.
    use foehn_icon::solve_nonhydro::config::IconValue;
    assert_eq!(
        [
            c.itime_scheme.icon(),
            c.iadv_rhotheta.icon(),
            c.igradp_method.icon(),
            c.rayleigh_type.icon(),
            c.divdamp_order.icon(),
            c.divdamp_type.icon()
        ],
        [4, 2, 3, 2, 24, 3]
    );
}

#[test]
fn unsupported_options_are_refused_by_name() {
    let refused = |change: fn(&mut NonHydrostaticConfig), option: &str, value: &str| {
        let mut c = NonHydrostaticConfig::default();
        change(&mut c);
        let e = c.validate().unwrap_err();
        assert_eq!(e.option, option);
        let text = e.to_string();
        assert!(
            text.contains(&format!("{option} = {value} is not supported")),
            "{text}"
        );
        // The component refuses it too, before building anything.
        let [grid, _] = common::grids();
        let e = SolveNonhydro::new(c, grid, &vertical(), 5).err().unwrap();
        assert!(e.to_string().contains(option), "{e}");
    };
    refused(|c| c.l_vert_nested = true, "lvert_nest", "true");
    refused(|c| c.deepatmos_mode = true, "ldeepatmo", "true");
    for m in [
        HorizontalPressureDiscretizationType::Conventional,
        HorizontalPressureDiscretizationType::Taylor,
        HorizontalPressureDiscretizationType::Polynomial,
        HorizontalPressureDiscretizationType::PolynomialHydro,
    ] {
        let c = NonHydrostaticConfig {
            igradp_method: m,
            ..NonHydrostaticConfig::default()
        };
        let e = c.validate().unwrap_err();
        assert_eq!(e.option, "igradp_method");
        assert!(e.message.contains("only 3"), "{e}");
    }
    refused(
        |c| c.itime_scheme = TimeSteppingScheme::Stable,
        "itime_scheme",
        "5",
    );
    refused(
        |c| c.itime_scheme = TimeSteppingScheme::Expensive,
        "itime_scheme",
        "6",
    );
    refused(
        |c| c.iadv_rhotheta = RhoThetaAdvectionType::Simple,
        "iadv_rhotheta",
        "1",
    );
    refused(
        |c| c.divdamp_type = DivergenceDampingType::TwoDimensional,
        "divdamp_type",
        "2",
    );
    refused(
        |c| c.rayleigh_type = RayleighType::Classic,
        "rayleigh_type",
        "1",
    );
    refused(|c| c.extra_diffu = false, "lextra_diffu", "false");
    refused(|c| c.ndyn_substeps = 0, "ndyn_substeps", "0");
    let mut c = NonHydrostaticConfig::default();
    c.divdamp_z3 = c.divdamp_z2;
    let e = c.validate().unwrap_err();
    assert!(e.message.contains("must increase"), "{e}");
    // What the programs implement is accepted.
    for (order, ty) in [
        (
            DivergenceDampingOrder::Second,
            DivergenceDampingType::Combined,
        ),
        (
            DivergenceDampingOrder::Fourth,
            DivergenceDampingType::ThreeDimensional,
        ),
    ] {
        let c = NonHydrostaticConfig {
            divdamp_order: order,
            divdamp_type: ty,
            iau_init: true,
            ..NonHydrostaticConfig::default()
        };
        c.validate().unwrap();
    }
}

#[test]
fn the_derived_parameters_are_icons() {
    let nlev = 40;
    let v = vertical_of(nlev);
    let area = 1.234e9;
    let p = NonHydrostaticParams::new(&NonHydrostaticConfig::default(), &v, area).unwrap();
    assert_eq!(p.advection_explicit_weight_parameter, 0.25);
    assert_eq!(p.advection_implicit_weight_parameter, 0.75);
    assert!(close(p.rhotheta_implicit_weight_parameter, 0.4));
    assert!(close(p.rhotheta_explicit_weight_parameter, 0.6));
    assert_eq!(p.r_nsubsteps, 0.2);
    assert_eq!(p.mean_cell_area, area);
    // enh_divdamp_fac: 0.0025 up to 32.5 km, linear to 0.004 at 40 km, then the
    // quadratic through 0.004 at 60 and 80 km, i.e. 0.004.
    assert_eq!(p.enh_divdamp_fac.len(), nlev);
    let (mut below, mut linear, mut above) = (0, 0, 0);
    for (k, f) in p.enh_divdamp_fac.iter().enumerate() {
        let zf = 0.5 * (v.vct_a[k] + v.vct_a[k + 1]);
        let want = if zf <= 32500.0 {
            below += 1;
            0.0025
        } else if zf <= 40000.0 {
            linear += 1;
            0.0025 + (zf - 32500.0) * 0.0015 / 7500.0
        } else {
            above += 1;
            0.004
        };
        assert!(close(*f, want), "level {k} at {zf} m: {f} vs {want}");
    }
    assert!(
        below > 0 && linear > 0 && above > 0,
        "{below} {linear} {above}"
    );
    // scal_divdamp for order 24: −max(0, enh − ¼·divdamp_fac_o2)·area².
    let s = p.scal_divdamp(0.012);
    for (k, x) in s.iter().enumerate() {
        let want = -(p.enh_divdamp_fac[k] - 0.003).max(0.0) * area * area;
        assert!(close(*x, want), "{k}: {x} vs {want}");
    }
    assert!(s.contains(&0.0) && s.iter().any(|&x| x < 0.0));
    let fourth = NonHydrostaticConfig {
        divdamp_order: DivergenceDampingOrder::Fourth,
        ..NonHydrostaticConfig::default()
    };
    let p4 = NonHydrostaticParams::new(&fourth, &v, area).unwrap();
    for (x, f) in p4.scal_divdamp(0.012).iter().zip(&p4.enh_divdamp_fac) {
        assert!(close(*x, -f * area * area));
    }
    // The profile is the diffusion's Smagorinsky profile function.
    let again = enhanced_smagorinsky_factor(
        &v.vct_a,
        [0.0025, 0.004, 0.004, 0.004],
        [32500.0, 40000.0, 60000.0, 80000.0],
    );
    assert_eq!(p.enh_divdamp_fac, again);
}

#[test]
fn the_second_order_damping_schedule_is_icons() {
    let dt = 300.0;
    let off = NonHydrostaticConfig::default();
    let on = NonHydrostaticConfig {
        apply_extra_second_order_divdamp: true,
        ..NonHydrostaticConfig::default()
    };
    // divdamp_order 24 without the spin-up: no second-order damping.
    for t in [150.0, 1800.0, 4500.0, 9000.0] {
        assert_eq!(second_order_divdamp_factor(&off, t, dt), 0.0);
    }
    // With it: 8·divdamp_fac = 0.02 up to 1800 s, linear to 0 at 7200 s.
    let want = [
        (150.0, 0.02),
        (1800.0, 0.02),
        (4500.0, 0.01),
        (6300.0, 0.02 * 900.0 / 5400.0),
        (7200.0, 0.0),
        (7350.0, 0.0),
        (7500.0, 0.0),
    ];
    for (t, f) in want {
        let got = second_order_divdamp_factor(&on, t, dt);
        assert!(close(got, f) || got == f, "t = {t}: {got} vs {f}");
    }
    // Other orders keep divdamp_fac.
    for order in [
        DivergenceDampingOrder::Second,
        DivergenceDampingOrder::Fourth,
    ] {
        let c = NonHydrostaticConfig {
            divdamp_order: order,
            apply_extra_second_order_divdamp: true,
            ..NonHydrostaticConfig::default()
        };
        assert_eq!(second_order_divdamp_factor(&c, 150.0, dt), 0.0025);
        assert_eq!(second_order_divdamp_factor(&c, 9000.0, dt), 0.0025);
    }
}

#[test]
fn the_damping_decisions_are_icons() {
    let v = vertical();
    let area = 1.0e9;
    let p = NonHydrostaticParams::new(&NonHydrostaticConfig::default(), &v, area).unwrap();
    // No second-order damping: fourth order only.
    let d = p.divergence_damping(0.0);
    assert_eq!((d.apply_2nd_order, d.apply_4th_order), (false, true));
    assert_eq!(d.second_order_divdamp_scaling_coeff, 0.0);
    // The spin-up's 8·divdamp_fac = 0.02 > 4·divdamp_fac: second order only.
    let d = p.divergence_damping(0.02);
    assert_eq!((d.apply_2nd_order, d.apply_4th_order), (true, false));
    assert!(close(d.second_order_divdamp_scaling_coeff, 0.02 * area));
    // On the way down, at most 4·divdamp_fac = 0.01: both.
    let d = p.divergence_damping(0.01);
    assert_eq!((d.apply_2nd_order, d.apply_4th_order), (true, true));
    // scal_divdamp_o2 must exceed 1e-6.
    let tiny = NonHydrostaticParams::new(&NonHydrostaticConfig::default(), &v, 1e-5).unwrap();
    let d = tiny.divergence_damping(0.01);
    assert_eq!((d.apply_2nd_order, d.apply_4th_order), (false, true));
    for (order, want) in [
        (DivergenceDampingOrder::Second, (true, false)),
        (DivergenceDampingOrder::Fourth, (false, true)),
    ] {
        let c = NonHydrostaticConfig {
            divdamp_order: order,
            ..NonHydrostaticConfig::default()
        };
        let p = NonHydrostaticParams::new(&c, &v, area).unwrap();
        for fac in [0.0, 0.0025, 0.02] {
            let d = p.divergence_damping(fac);
            assert_eq!((d.apply_2nd_order, d.apply_4th_order), want, "{order:?}");
        }
    }
}
