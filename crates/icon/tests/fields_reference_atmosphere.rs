//! The reference atmosphere: ideal gas and hydrostatic analytically, hydrostatic to
//! second order in its discretisation over SLEVE heights (JW topography, a global and a
//! limited-area grid), and its edge values at the interpolated heights.

mod fields_support;

use fields_support::{heights, vertical};
use foehn_grid::{Connectivity, Location, Zone};
use foehn_icon::common::constants::{CPD, GRAV, RD};
use foehn_icon::fields::reference_atmosphere::{
    EdgeFieldError, ReferenceAtmosphere, ReferenceAtmosphereEdges, ReferenceConfig,
};
use foehn_icon::fields::topography::Topography;
use foehn_testkit::grids;

const JW: Topography =
    Topography::JablonowskiWilliamson(foehn_icon::fields::topography::JwTopography {
        u0: 35.0,
        eta_0: 0.252,
    });

#[test]
fn the_profile_is_an_ideal_gas_in_hydrostatic_balance() {
    let r = ReferenceConfig::default();
    assert!((r.pressure(0.0) - 101_325.0).abs() < 1e-9);
    assert!((r.temperature(0.0) - 288.15).abs() < 1e-12);
    assert!((r.temperature(1e6) - 213.15).abs() < 1e-9, "T0 − ΔT aloft");
    for z in [-300.0, 0.0, 500.0, 5000.0, 16000.0, 23500.0, 75000.0] {
        let (p, t) = (r.pressure(z), r.temperature(z));
        assert!((r.density(z) * RD * t / p - 1.0).abs() < 1e-15);
        assert!((r.theta(z) * r.exner(z) / t - 1.0).abs() < 1e-15);
        // dp/dz = −ρg (central difference, 1 m).
        let dpdz = (r.pressure(z + 1.0) - r.pressure(z - 1.0)) / 2.0;
        assert!(
            (dpdz / (-r.density(z) * GRAV) - 1.0).abs() < 1e-8,
            "z = {z}"
        );
        // dπ/dz = −g/(cpd θ).
        let dexdz = (r.exner(z + 1.0) - r.exner(z - 1.0)) / 2.0;
        assert!(
            (dexdz * CPD * r.theta(z) / -GRAV - 1.0).abs() < 1e-8,
            "z = {z}"
        );
    }
}

/// Largest relative deviation of the centred difference of `exner_ref_mc` between two
/// full levels from `d_exner_dz_ref_ic` at the interface between them.
fn discrete_balance_error(nlev: usize) -> f64 {
    let grid = grids::global();
    let v = vertical(nlev);
    let (_, z) = heights(grid, &v, JW);
    let r = ReferenceAtmosphere::new(&z);
    let mut worst: f64 = 0.0;
    for c in 0..grid.topology.n_cells() {
        for k in 1..nlev {
            let dz = z.z_mc.get(c, k - 1) - z.z_mc.get(c, k);
            let fd = (r.exner_ref_mc.get(c, k - 1) - r.exner_ref_mc.get(c, k)) / dz;
            worst = worst.max((fd / r.d_exner_dz_ref_ic.get(c, k) - 1.0).abs());
        }
    }
    worst
}

#[test]
fn the_discretisation_is_hydrostatic_to_second_order() {
    let (e40, e80) = (discrete_balance_error(40), discrete_balance_error(80));
    // Measured: 3.4e-4 and 5.5e-5.
    assert!(e40 < 5e-4 && e80 < 1e-4, "{e40} {e80}");
    assert!(e40 / e80 > 3.0, "second order: {e40} / {e80}");
}

#[test]
fn cell_fields_over_jw_heights() {
    for grid in [grids::global(), grids::limited_area()] {
        let v = vertical(35);
        let (_, z) = heights(grid, &v, JW);
        let r = ReferenceAtmosphere::new(&z);
        let cfg = ReferenceConfig::default();
        let nlev = v.num_levels();
        for c in 0..grid.topology.n_cells() {
            for k in 0..=nlev {
                let theta_ic = r.theta_ref_ic.get(c, k);
                assert_eq!(theta_ic, cfg.theta(z.z_ifc.get(c, k)));
                // Exactly hydrostatic: cpd·θ·∂π/∂z = −g.
                let balance = CPD * theta_ic * r.d_exner_dz_ref_ic.get(c, k) / GRAV;
                assert!((balance + 1.0).abs() < 1e-14);
            }
            for k in 0..nlev {
                let zm = z.z_mc.get(c, k);
                let theta = r.theta_ref_mc.get(c, k);
                assert_eq!(theta, cfg.theta(zm));
                assert_eq!(r.exner_ref_mc.get(c, k), cfg.exner(zm));
                assert_eq!(r.rho_ref_mc.get(c, k), cfg.density(zm));
                assert!(theta > 280.0 && theta < 700.0 && r.rho_ref_mc.get(c, k) > 0.0);
                // θ grows with height (stable), ρ falls.
                if k > 0 {
                    assert!(r.theta_ref_mc.get(c, k - 1) > theta);
                    assert!(r.rho_ref_mc.get(c, k - 1) < r.rho_ref_mc.get(c, k));
                }
                // fac1·Δz = −g/(cpd θ²); fac2 = ∂z(−g/(cpd θ²)) (central difference).
                let dz = z.z_ifc.get(c, k) - z.z_ifc.get(c, k + 1);
                let f = |z: f64| -GRAV / (CPD * cfg.theta(z).powi(2));
                let fac1 = r.d2dexdz2_fac1_mc.get(c, k);
                assert!((fac1 * dz / f(zm) - 1.0).abs() < 1e-13);
                let fd = (f(zm + 1.0) - f(zm - 1.0)) / 2.0;
                assert!((r.d2dexdz2_fac2_mc.get(c, k) / fd - 1.0).abs() < 1e-6);
            }
        }
    }
}

#[test]
fn edge_fields_at_interpolated_heights() {
    for grid in [grids::global(), grids::limited_area()] {
        let v = vertical(20);
        let (_, z) = heights(grid, &v, JW);
        let cfg = ReferenceConfig::default();
        let e2c = grid.topology.table(Connectivity::E2C);
        let n_edges = grid.size(Location::Edge);
        // Cell→edge weights are an input (the interpolation fields' c_lin_e): here ⅓, ⅔.
        let c_lin_e: Vec<f64> = (0..n_edges).flat_map(|_| [1.0 / 3.0, 2.0 / 3.0]).collect();
        let r = ReferenceAtmosphereEdges::new(grid, &z.z_mc, &c_lin_e, &cfg).unwrap();
        let start = grid
            .zones
            .of(Location::Edge)
            .start(Zone::LateralBoundary(2))
            .unwrap();
        assert_eq!(start > 0, grid.is_limited_area());
        for e in 0..n_edges {
            for k in 0..20 {
                let (rho, theta) = (r.rho_ref_me.get(e, k), r.theta_ref_me.get(e, k));
                if e < start {
                    assert_eq!((rho, theta), (0.0, 0.0), "boundary row 1 left at 0");
                    continue;
                }
                let (c0, c1) = (e2c.neighbor(e, 0).unwrap(), e2c.neighbor(e, 1).unwrap());
                let z_me = z.z_mc.get(c0, k) / 3.0 + 2.0 * z.z_mc.get(c1, k) / 3.0;
                assert!((rho / cfg.density(z_me) - 1.0).abs() < 1e-14);
                assert!((theta / cfg.theta(z_me) - 1.0).abs() < 1e-14);
            }
        }
        let e = ReferenceAtmosphereEdges::new(grid, &z.z_mc, &c_lin_e[1..], &cfg).unwrap_err();
        assert!(
            matches!(
                e,
                EdgeFieldError::WrongLength {
                    field: "c_lin_e",
                    ..
                }
            ),
            "{e}"
        );
    }
}
