//! Topography (flat, Jablonowski–Williamson) and SLEVE heights on a global and a
//! limited-area grid: interfaces strictly decreasing in every column, the bottom
//! interface on the topography, flat levels flat, the limiter's minimal thickness kept.

mod fields_support;

use fields_support::{heights, nabla2_weights, vertical};
use foehn_grid::{Connectivity, Grid};
use foehn_icon::fields::sleve::{smooth_topography, Heights, SleveError};
use foehn_icon::fields::topography::{JwTopography, Topography, TopographyError};
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid};
use foehn_testkit::grids;

const JW: Topography = Topography::JablonowskiWilliamson(JwTopography {
    u0: 35.0,
    eta_0: 0.252,
});

/// JW06 eq. 7 at η = 1 over g, evaluated by hand (u0 = 35 m/s, η0 = 0.252, ICON's a,
/// Ω, g): the equator and the poles.
const JW_EQUATOR: f64 = 112.80344160356047;
const JW_POLE: f64 = -315.4492800900493;

#[test]
fn jw_surface_is_zonal_and_between_its_pole_and_equator_values() {
    let jw = JwTopography::default();
    assert!((jw.height(0.0) - JW_EQUATOR).abs() < 1e-9);
    for lat in [std::f64::consts::FRAC_PI_2, -std::f64::consts::FRAC_PI_2] {
        assert!((jw.height(lat) - JW_POLE).abs() < 1e-9);
    }
    // Falls monotonically from the equator to the poles, symmetric about the equator.
    let lats: Vec<f64> = (0..=9000)
        .map(|i| (i as f64 / 100.0).to_radians())
        .collect();
    assert!(lats.windows(2).all(|w| jw.height(w[1]) < jw.height(w[0])));
    assert!(lats.iter().all(|&l| jw.height(l) == jw.height(-l)));
    for grid in [grids::global(), grids::limited_area()] {
        let h = JW.at_cells(grid).unwrap();
        let g = &grid.geometry;
        assert_eq!(h.len(), grid.topology.n_cells());
        for (c, &z) in h.iter().enumerate() {
            assert!((JW_POLE..=JW_EQUATOR).contains(&z), "cell {c}: {z}");
            assert_eq!(z, jw.height(g.cell_lat[c]), "a function of latitude only");
        }
    }
    // On R2B2 the cells nearest the equator and the poles come within a few metres.
    let h = JW.at_cells(grids::global()).unwrap();
    let (max, min) = h
        .iter()
        .fold((f64::MIN, f64::MAX), |(a, b), &z| (a.max(z), b.min(z)));
    assert!(
        max > JW_EQUATOR - 5.0 && min < JW_POLE + 5.0,
        "{min} … {max}"
    );
}

#[test]
fn topography_options() {
    let g = grids::global();
    assert!(Topography::Flat
        .at_cells(g)
        .unwrap()
        .iter()
        .all(|&z| z == 0.0));
    assert_eq!("jw".parse::<Topography>().unwrap(), JW);
    assert_eq!("flat".parse::<Topography>().unwrap(), Topography::Flat);
    assert!(matches!(
        "alps".parse::<Topography>(),
        Err(TopographyError::Unknown(_))
    ));
    let e = JW.at_cells(grids::torus()).unwrap_err();
    assert!(matches!(e, TopographyError::NotOnSphere { .. }), "{e}");
    let bad = Topography::JablonowskiWilliamson(JwTopography {
        u0: 35.0,
        eta_0: 1.5,
    });
    assert!(matches!(
        bad.at_cells(g),
        Err(TopographyError::InvalidOption {
            option: "eta_0",
            ..
        })
    ));
}

/// Every SLEVE property that holds over any topography.
fn assert_sleve(grid: &Grid, v: &VerticalGrid, h: &[f64], z: &Heights) {
    let nlev = v.num_levels();
    assert_eq!(z.z_ifc.len(), grid.topology.n_cells());
    assert_eq!((z.z_ifc.levels(), z.z_mc.levels()), (nlev + 1, nlev));
    for (c, col) in z.z_ifc.columns().enumerate() {
        assert!(
            col.windows(2).all(|w| w[0] > w[1]),
            "cell {c} not decreasing"
        );
        assert_eq!(col[nlev], h[c], "cell {c}: bottom on the topography");
        let flat = v.nflatlev + 1;
        assert_eq!(col[..flat], v.vct_a[..flat], "cell {c}: flat levels");
        for k in 0..nlev {
            assert_eq!(z.z_mc.get(c, k), 0.5 * (col[k] + col[k + 1]));
        }
    }
}

#[test]
fn sleve_heights_over_jw_topography() {
    for grid in [grids::global(), grids::limited_area()] {
        for nlev in [35, 80] {
            let v = vertical(nlev);
            let (h, z) = heights(grid, &v, JW);
            assert_sleve(grid, &v, &h, &z);
            // The terrain signal decays upwards: largest at the lowest interfaces.
            let dev = |k: usize| {
                (0..h.len())
                    .map(|c| (z.z_ifc.get(c, k) - v.vct_a[k]).abs())
                    .fold(0.0, f64::max)
            };
            assert!(dev(nlev - 1) > dev(v.nflatlev + 1));
            assert!(dev(nlev - 1) <= 316.0);
        }
    }
}

#[test]
fn flat_topography_gives_the_nominal_heights() {
    let (grid, v) = (grids::limited_area(), vertical(30));
    let (h, z) = heights(grid, &v, Topography::Flat);
    assert_sleve(grid, &v, &h, &z);
    // Up to rounding: the limiter lifts a lowest interface at 49.99999999999998 m to its
    // minimal thickness 50 m, as in ICON.
    for col in z.z_ifc.columns() {
        assert!(col.iter().zip(&v.vct_a).all(|(a, b)| (a - b).abs() < 1e-9));
    }
}

#[test]
fn smoothing_is_a_diffusion() {
    for grid in [grids::global(), grids::limited_area()] {
        let (n2s, area) = (nabla2_weights(grid), &grid.geometry.cell_area);
        let c2e2co = grid.topology.table(Connectivity::C2E2CO);
        // A constant stays constant.
        let flat = vec![1234.5; grid.topology.n_cells()];
        let s = smooth_topography(&flat, area, &n2s, c2e2co).unwrap();
        assert!(s.iter().all(|&x| (x - 1234.5).abs() < 1e-9));
        // A single spike spreads: maximum principle, the peak falls, neighbours rise.
        let mut spike = vec![0.0; grid.topology.n_cells()];
        spike[grid.topology.n_cells() / 2] = 3000.0;
        let s = smooth_topography(&spike, area, &n2s, c2e2co).unwrap();
        assert!(s.iter().all(|&x| (-1e-9..=3000.0).contains(&x)));
        assert!(s[grid.topology.n_cells() / 2] < 1500.0);
        assert!(s.iter().filter(|&&x| x > 1.0).count() > 7);
    }
}

#[test]
fn steep_topography_is_limited_to_the_minimal_layer_thickness() {
    let grid = grids::global();
    let v = vertical(60);
    // 3 km mountains on every tenth cell: small-scale terrain the SLEVE decay keeps.
    let h: Vec<f64> = (0..grid.topology.n_cells())
        .map(|c| if c % 10 == 0 { 3000.0 } else { 0.0 })
        .collect();
    let z = Heights::on_grid(grid, &v, &h, &nabla2_weights(grid)).unwrap();
    assert_sleve(grid, &v, &h, &z);
    // ICON's minimum: a third of the nominal thickness below 100 m (here the lowest
    // layers are thinner than 100 m) and never below min(50 m, lowest layer).
    let nlev = v.num_levels();
    for col in z.z_ifc.columns() {
        let d = v.vct_a[nlev - 1] - v.vct_a[nlev];
        assert!(col[nlev - 1] - col[nlev] >= (d / 3.0).max(50.0f64.min(d)) - 1e-9);
    }
}

#[test]
fn a_model_top_too_low_for_the_terrain_is_an_error() {
    let grid = grids::global();
    let v = VerticalGrid::try_new(VerticalConfig {
        model_top_height: 4000.0,
        flat_height: 3500.0,
        lowest_layer_thickness: 20.0,
        htop_moist_proc: 3000.0,
        ..VerticalConfig::new(20)
    })
    .unwrap();
    let h = vec![3800.0; grid.topology.n_cells()];
    let e = Heights::on_grid(grid, &v, &h, &nabla2_weights(grid)).unwrap_err();
    assert!(
        matches!(
            e,
            SleveError::ModelTopTooLow { .. } | SleveError::NotFlat { .. }
        ),
        "{e}"
    );
}

#[test]
fn inputs_are_checked() {
    let grid = grids::global();
    let (v, n) = (vertical(10), grid.topology.n_cells());
    let n2s = nabla2_weights(grid);
    let e = Heights::on_grid(grid, &v, &vec![0.0; n - 1], &n2s).unwrap_err();
    assert!(
        matches!(
            e,
            SleveError::WrongLength {
                field: "cell_area",
                ..
            }
        ),
        "{e}"
    );
    let e = Heights::on_grid(grid, &v, &vec![0.0; n], &n2s[1..]).unwrap_err();
    assert!(
        matches!(
            e,
            SleveError::WrongLength {
                field: "geofac_n2s",
                ..
            }
        ),
        "{e}"
    );
    let mut h = vec![0.0; n];
    h[7] = f64::NAN;
    let e = Heights::compute(&v, &h, &vec![0.0; n]).unwrap_err();
    assert_eq!(
        e,
        SleveError::NotFinite {
            field: "topography",
            index: 7
        }
    );
}

#[test]
fn nflat_gradp_from_the_heights() {
    for grid in [grids::global(), grids::limited_area()] {
        let v = vertical(35);
        let n_edges = grid.topology.n_edges();
        let c_lin_e: Vec<f64> = (0..n_edges).flat_map(|_| [0.5, 0.5]).collect();
        // Flat: every level is flat at every edge with two cells.
        let (_, z) = heights(grid, &v, Topography::Flat);
        let flat = z.flat_idx_max(grid, &c_lin_e).unwrap();
        let e2c = grid.topology.table(Connectivity::E2C);
        for (e, &k) in flat.iter().enumerate() {
            let both = e2c.valid(e).count() == 2;
            assert_eq!(k, if both { 34 } else { 0 }, "edge {e}");
        }
        assert_eq!(z.nflat_gradp(grid, &c_lin_e).unwrap(), 34);
        // JW: gentle (a few metres between neighbours), so nearly every level counts as
        // flat (measured: 33 on R2B2, 34 on the cap).
        let (_, z) = heights(grid, &v, JW);
        assert!(z.nflat_gradp(grid, &c_lin_e).unwrap() >= 33);
        // 3 km spikes: the levels above nflatlev stay flat, the lowest ones do not.
        let h: Vec<f64> = (0..grid.topology.n_cells())
            .map(|c| if c % 10 == 0 { 3000.0 } else { 0.0 })
            .collect();
        let z = Heights::on_grid(grid, &v, &h, &nabla2_weights(grid)).unwrap();
        let n = z.nflat_gradp(grid, &c_lin_e).unwrap();
        assert!(
            n >= v.nflatlev && n < 30,
            "nflat_gradp {n}, nflatlev {}",
            v.nflatlev
        );
        let e = z.flat_idx_max(grid, &c_lin_e[1..]).unwrap_err();
        assert!(matches!(
            e,
            SleveError::WrongLength {
                field: "c_lin_e",
                ..
            }
        ));
    }
}
