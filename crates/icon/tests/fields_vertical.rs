//! The vertical grid: ICON's configurations (values from ICON4Py's tests and docs), the
//! properties of `vct_a` for many options, the layer-thickness capping, and the
//! validation of every option.

use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid, VerticalGridError};

/// Strictly decreasing from the top to 0, lowest layer as configured, indices where
/// their definitions put them.
fn assert_consistent(v: &VerticalGrid) {
    let (c, a, n) = (&v.config, &v.vct_a, v.num_levels());
    assert_eq!(a.len(), n + 1);
    assert_eq!(v.vct_b.len(), n + 1);
    assert!(a.windows(2).all(|w| w[0] > w[1]), "vct_a decreasing: {a:?}");
    assert_eq!(a[n], 0.0);
    if c.is_stretched() && n > 1 {
        let dz = a[n - 1] - a[n];
        assert!(
            (dz - c.lowest_layer_thickness).abs() < 1e-9 * c.model_top_height,
            "{dz}"
        );
    }
    for (x, b) in a.iter().zip(&v.vct_b) {
        assert_eq!(*b, (-x / 5000.0).exp());
    }
    // nflatlev: last interface at or above the flat height.
    let f = v.nflatlev;
    assert!(a[f] >= c.flat_height || (f == 0 && c.flat_height > a[0]));
    assert!(a[f + 1] < c.flat_height);
    // end_index_of_damping_layer: the same for the damping height, 0 above the top.
    let d = v.end_index_of_damping_layer;
    if c.rayleigh_damping_height > a[0] {
        assert_eq!(d, 0);
    } else {
        assert!(a[d] >= c.rayleigh_damping_height && a[d + 1] < c.rayleigh_damping_height);
    }
    // kstart_moist: the first full level below htop_moist_proc.
    let full = v.full_level_heights();
    let m = v.kstart_moist;
    assert!(full[m] < c.htop_moist_proc);
    assert!(m == 0 || full[m - 1] >= c.htop_moist_proc);
}

#[test]
fn icon4py_defaults_with_80_levels() {
    // ../shared/docs/icon4py-fields.md: ICON4Py 0.4.1 on r2b4 × 80 levels.
    let v = VerticalGrid::try_new(VerticalConfig::new(80)).unwrap();
    assert_consistent(&v);
    assert_eq!(v.nflatlev, 16);
    assert_eq!(v.kstart_moist, 2);
    assert_eq!(v.end_index_of_damping_layer, 0);
    assert!((v.vct_a[0] - 23500.0).abs() < 1e-9);
}

#[test]
fn jw_35_levels() {
    // ICON's nh35_tri_jws: 35 levels, top 23.5 km, flat above 16 km, no damping layer.
    let v = VerticalGrid::try_new(VerticalConfig::new(35)).unwrap();
    assert_consistent(&v);
    assert!((v.vct_a[34] - 50.0).abs() < 1e-9);
    assert_eq!(v.end_index_of_damping_layer, 0);
    // The top layer's middle is at 22 815 m, above htop_moist_proc = 22 500 m.
    assert_eq!(v.kstart_moist, 1);
}

#[test]
fn icon4py_experiments_give_their_moist_level() {
    // ICON4Py test_moist_level_calculation (datatest; the configurations of its
    // `definitions.py` and fixtures before the namelist configs): EXCLAIM_APE 25,
    // MCH_CH_R04B09 0.
    let ape = VerticalConfig {
        model_top_height: 75000.0,
        stretch_factor: 0.9,
        rayleigh_damping_height: 50000.0,
        ..VerticalConfig::new(60)
    };
    let mch = VerticalConfig {
        model_top_height: 23000.0,
        stretch_factor: 0.65,
        lowest_layer_thickness: 20.0,
        rayleigh_damping_height: 12500.0,
        ..VerticalConfig::new(65)
    };
    for (config, moist) in [(ape, 25), (mch, 0)] {
        let v = VerticalGrid::try_new(config).unwrap();
        assert_consistent(&v);
        assert_eq!(v.kstart_moist, moist);
    }
}

#[test]
fn damping_layer_index_of_given_tables() {
    // ICON4Py test_damping_layer_calculation: uniform tables 0..max_h by delta.
    for (max_h, damping, delta, flat) in [
        (60000, 34000.0, 612, 50000.0),
        (12000, 10000.0, 100, 11000.0),
        (109050, 45000.0, 123, 80000.0),
    ] {
        let vct_a: Vec<f64> = (0..max_h).step_by(delta).rev().map(f64::from).collect();
        let n = vct_a.len() - 1;
        let config = VerticalConfig {
            flat_height: flat,
            rayleigh_damping_height: damping,
            ..VerticalConfig::new(n)
        };
        let vct_b = vec![1.0; n + 1];
        let v = VerticalGrid::from_tables(config, vct_a, vct_b).unwrap();
        let expected = n + 1 - (damping / delta as f64).ceil() as usize - 1;
        assert_eq!(v.end_index_of_damping_layer, expected);
    }
}

#[test]
fn many_configurations_are_consistent() {
    for n in [1, 2, 3, 5, 10, 35, 60, 80, 137, 1000] {
        for (top, lowest, stretch) in [
            (23500.0, 50.0, 1.0),
            (75000.0, 20.0, 0.9),
            (30000.0, 10.0, 0.65),
            (12000.0, 0.0, 1.0),
        ] {
            let config = VerticalConfig {
                model_top_height: top,
                lowest_layer_thickness: lowest,
                stretch_factor: stretch,
                rayleigh_damping_height: 0.6 * top,
                htop_moist_proc: 0.9 * top,
                ..VerticalConfig::new(n)
            };
            let v = VerticalGrid::try_new(config).unwrap();
            assert_consistent(&v);
            assert!((v.vct_a[0] - top).abs() < 1e-9 * top);
        }
    }
}

#[test]
fn a_lowest_layer_of_at_most_a_centimetre_gives_a_uniform_grid() {
    let config = VerticalConfig {
        lowest_layer_thickness: 0.0,
        ..VerticalConfig::new(47)
    };
    let v = VerticalGrid::try_new(config).unwrap();
    let dz = 23500.0 / 47.0;
    assert!(v.vct_a.windows(2).all(|w| (w[0] - w[1] - dz).abs() < 1e-9));
}

#[test]
fn capping_limits_layers_below_the_height_limit_and_keeps_the_top() {
    // 2·Δz_min < Δz_max < htop_thcknlimit/2: ICON caps. (The smoothing of the stretching
    // may leave the layer across the height limit slightly thicker, as in ICON; this
    // port gives the same bits as a line-by-line port of ICON4Py's.)
    for (n, max, limit, stretch) in [
        (60, 400.0, 10000.0, 1.0),
        (90, 300.0, 12000.0, 0.9),
        (50, 600.0, 15000.0, 1.0),
    ] {
        let config = VerticalConfig {
            model_top_height: 30000.0,
            lowest_layer_thickness: 20.0,
            maximal_layer_thickness: max,
            top_height_limit_for_maximal_layer_thickness: limit,
            stretch_factor: stretch,
            ..VerticalConfig::new(n)
        };
        let uncapped = VerticalGrid::try_new(VerticalConfig {
            maximal_layer_thickness: 1e9,
            ..config.clone()
        })
        .unwrap();
        let thick = |v: &VerticalGrid| {
            (0..n)
                .filter(|&k| v.vct_a[k] < limit)
                .map(|k| v.vct_a[k] - v.vct_a[k + 1])
                .fold(0.0, f64::max)
        };
        assert!(thick(&uncapped) > max, "the test needs layers to cap");
        let v = VerticalGrid::try_new(config).unwrap();
        assert_consistent(&v);
        assert!(thick(&v) <= max * (1.0 + 1e-12), "{} > {max}", thick(&v));
        assert!((v.vct_a[0] - 30000.0).abs() < 1e-6, "top {}", v.vct_a[0]);
        assert!(v.vct_a != uncapped.vct_a);
    }
}

#[test]
fn capping_is_off_outside_its_window() {
    // Defaults: Δz_max = 25 km is not below htop_thcknlimit/2 = 7.5 km.
    let with = VerticalGrid::try_new(VerticalConfig {
        maximal_layer_thickness: 100.0, // below 2·Δz_min = 100 m: off as well
        ..VerticalConfig::new(60)
    })
    .unwrap();
    assert_eq!(with.vct_a, VerticalGrid::new(VerticalConfig::new(60)).vct_a);
}

#[test]
fn invalid_options_are_refused_by_name() {
    let base = VerticalConfig::new(30);
    let refused = |c: VerticalConfig| VerticalGrid::try_new(c).unwrap_err();
    assert_eq!(refused(VerticalConfig::new(0)), VerticalGridError::NoLevels);
    let cases: Vec<(VerticalConfig, &str)> = vec![
        (
            VerticalConfig {
                model_top_height: -1.0,
                ..base.clone()
            },
            "model_top_height",
        ),
        (
            VerticalConfig {
                model_top_height: f64::NAN,
                ..base.clone()
            },
            "model_top_height",
        ),
        (
            VerticalConfig {
                lowest_layer_thickness: -5.0,
                ..base.clone()
            },
            "lowest_layer_thickness",
        ),
        (
            VerticalConfig {
                lowest_layer_thickness: 30000.0,
                ..base.clone()
            },
            "lowest_layer_thickness",
        ),
        (
            VerticalConfig {
                stretch_factor: 0.0,
                ..base.clone()
            },
            "stretch_factor",
        ),
        (
            VerticalConfig {
                flat_height: 0.0,
                ..base.clone()
            },
            "flat_height",
        ),
        (
            VerticalConfig {
                flat_height: f64::INFINITY,
                ..base.clone()
            },
            "flat_height",
        ),
        (
            VerticalConfig {
                maximal_layer_thickness: 0.0,
                ..base.clone()
            },
            "maximal_layer_thickness",
        ),
        (
            VerticalConfig {
                sleve_decay_scale_1: -1.0,
                ..base.clone()
            },
            "sleve_decay_scale_1",
        ),
        (
            VerticalConfig {
                sleve_decay_scale_2: 0.0,
                ..base.clone()
            },
            "sleve_decay_scale_2",
        ),
        (
            VerticalConfig {
                sleve_decay_exponent: f64::NAN,
                ..base.clone()
            },
            "sleve_decay_exponent",
        ),
        (
            VerticalConfig {
                rayleigh_damping_height: -1.0,
                ..base.clone()
            },
            "rayleigh_damping_height",
        ),
        (
            VerticalConfig {
                htop_moist_proc: 0.0,
                ..base.clone()
            },
            "htop_moist_proc",
        ),
    ];
    for (config, name) in cases {
        let e = refused(config);
        assert!(
            matches!(e, VerticalGridError::InvalidOption { option, .. } if option == name),
            "{name}: {e}"
        );
        assert!(e.to_string().contains(name), "{e}");
    }
    let e = refused(VerticalConfig {
        htop_moist_proc: 10.0,
        ..base.clone()
    });
    assert!(matches!(e, VerticalGridError::NoMoistLevel { .. }), "{e}");
}

#[test]
fn given_tables_are_checked() {
    let c = VerticalConfig::new(3);
    let e = VerticalGrid::from_tables(c.clone(), vec![3.0, 2.0, 0.0], vec![1.0; 3]).unwrap_err();
    assert!(matches!(
        e,
        VerticalGridError::WrongLength {
            table: "vct_a",
            expected: 4,
            found: 3
        }
    ));
    let e = VerticalGrid::from_tables(c.clone(), vec![3.0, 2.0, 2.0, 0.0], vec![1.0; 4]);
    assert!(matches!(
        e,
        Err(VerticalGridError::NotMonotonic { k: 2, .. })
    ));
    let e = VerticalGrid::from_tables(c.clone(), vec![3.0, 2.0, 1.0, 0.5], vec![1.0; 4]);
    assert!(matches!(
        e,
        Err(VerticalGridError::NotMonotonic { k: 3, .. })
    ));
    let e = VerticalGrid::from_tables(c, vec![30e3, 2e3, 1e3, 0.0], vec![1.0; 3]);
    assert!(matches!(
        e,
        Err(VerticalGridError::WrongLength { table: "vct_b", .. })
    ));
}
