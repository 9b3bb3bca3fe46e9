//! The metric fields of the cell columns, the level profiles, the edge weights and the
//! masks, on R2B2 (pentagons) and the limited-area cap, over flat and JW topography:
//! thicknesses consistent with the heights, interpolation weights exact for linear
//! (wgtfac) and quadratic (wgtfacq, dw/dz) profiles, ICON's ranges of the Exner and
//! vertical-wind weights, damping profiles and zone masks, errors, determinism.

mod fields_support;
mod metrics_support;

use foehn_grid::{Grid, Location, Zone};
use foehn_icon::fields::metrics::{MetricFields, MetricsConfig, MetricsError};
use foehn_icon::fields::topography::{JwTopography, Topography};
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid};
use foehn_testkit::grids;
use metrics_support::{Case, Coefficients};

const JW: Topography = Topography::JablonowskiWilliamson(JwTopography {
    u0: 35.0,
    eta_0: 0.252,
});
const NLEV: usize = 30;

fn cases() -> Vec<(String, Case)> {
    let mut out = Vec::new();
    for (name, grid) in [("r2b2", grids::global()), ("cap", grids::limited_area())] {
        for (topo_name, topo) in [("flat", Topography::Flat), ("jw", JW)] {
            out.push((format!("{name} {topo_name}"), Case::new(grid, NLEV, topo)));
        }
    }
    out
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

fn edge_start(grid: &Grid, zone: Zone) -> usize {
    grid.zones.of(Location::Edge).start(zone).unwrap()
}

#[test]
fn thicknesses_are_positive_and_match_the_heights() {
    for (name, case) in cases() {
        let (m, z, nlev) = (&case.metrics, &case.heights, case.nlev());
        for c in 0..case.grid.topology.n_cells() {
            let mut total = 0.0;
            for k in 0..nlev {
                let d = m.ddqz_z_full.get(c, k);
                assert!(d > 0.0, "{name}: ddqz_z_full[{c}, {k}] = {d}");
                assert_eq!(d, z.z_ifc.get(c, k) - z.z_ifc.get(c, k + 1));
                assert!(close(m.inv_ddqz_z_full.get(c, k) * d, 1.0, 1e-15));
                total += d;
            }
            assert!(close(
                total,
                z.z_ifc.get(c, 0) - z.z_ifc.get(c, nlev),
                1e-12
            ));
            for k in 0..=nlev {
                let h = m.ddqz_z_half.get(c, k);
                assert!(h > 0.0, "{name}: ddqz_z_half[{c}, {k}] = {h}");
                let expected = match k {
                    0 => 2.0 * (z.z_ifc.get(c, 0) - z.z_mc.get(c, 0)),
                    k if k == nlev => 2.0 * (z.z_mc.get(c, nlev - 1) - z.z_ifc.get(c, nlev)),
                    k => z.z_mc.get(c, k - 1) - z.z_mc.get(c, k),
                };
                assert_eq!(h, expected);
            }
            // The two half layers at top and bottom are a whole layer.
            assert!(close(
                m.ddqz_z_half.get(c, 0),
                m.ddqz_z_full.get(c, 0),
                1e-12
            ));
        }
        // At edges: positive from the second boundary row on, the cells' value where
        // they agree (flat), between the two cells' values otherwise.
        let e2c = case.grid.topology.table(foehn_grid::Connectivity::E2C);
        for e in edge_start(case.grid, Zone::LateralBoundary(2))..case.grid.topology.n_edges() {
            let (c0, c1) = (e2c.neighbor(e, 0).unwrap(), e2c.neighbor(e, 1).unwrap());
            for k in 0..nlev {
                let (a, b) = (m.ddqz_z_full.get(c0, k), m.ddqz_z_full.get(c1, k));
                let x = m.ddqz_z_full_e.get(e, k);
                assert!(x > 0.0 && x >= a.min(b) * (1.0 - 1e-12) && x <= a.max(b) * (1.0 + 1e-12));
            }
        }
    }
}

#[test]
fn wgtfac_interpolates_linear_profiles_and_has_icons_end_values() {
    for (name, case) in cases() {
        let (m, z, nlev) = (&case.metrics, &case.heights, case.nlev());
        let f = |h: f64| 3.0 - 0.002 * h;
        for c in 0..case.grid.topology.n_cells() {
            let zi = |k| z.z_ifc.get(c, k);
            for k in 1..nlev {
                let w = m.wgtfac_c.get(c, k);
                assert!(w > 0.0 && w < 1.0, "{name}: wgtfac_c[{c}, {k}] = {w}");
                let x = w * f(z.z_mc.get(c, k)) + (1.0 - w) * f(z.z_mc.get(c, k - 1));
                assert!(close(x, f(zi(k)), 1e-12), "{name}: cell {c} level {k}");
            }
            assert_eq!(m.wgtfac_c.get(c, 0), (zi(1) - zi(0)) / (zi(2) - zi(0)));
            assert_eq!(
                m.wgtfac_c.get(c, nlev),
                (zi(nlev - 1) - zi(nlev)) / (zi(nlev - 2) - zi(nlev))
            );
            for k in [0, nlev] {
                let w = m.wgtfac_c.get(c, k);
                assert!(w > 0.0 && w < 1.0, "{name}: wgtfac_c[{c}, {k}] = {w}");
            }
        }
        // At edges: the cells' weights interpolated, in (0, 1) in the interior.
        for e in edge_start(case.grid, Zone::LateralBoundary(2))..case.grid.topology.n_edges() {
            for k in 1..nlev {
                let w = m.wgtfac_e.get(e, k);
                assert!(w > 0.0 && w < 1.0, "{name}: wgtfac_e[{e}, {k}] = {w}");
            }
        }
    }
}

#[test]
fn wgtfacq_extrapolates_quadratics_to_the_surface() {
    for (name, case) in cases() {
        let (m, z, nlev) = (&case.metrics, &case.heights, case.nlev());
        assert_eq!((m.wgtfacq_c.levels(), m.wgtfacq_e.levels()), (3, 3));
        for c in 0..case.grid.topology.n_cells() {
            let surface = z.z_ifc.get(c, nlev);
            let f = |h: f64| 280.0 + 0.01 * (h - surface) - 3e-6 * (h - surface).powi(2);
            let w = m.wgtfacq_c.column(c);
            assert!(close(w.iter().sum::<f64>(), 1.0, 1e-13), "{name}: cell {c}");
            let x: f64 = (0..3).map(|j| w[j] * f(z.z_mc.get(c, nlev - 3 + j))).sum();
            assert!(close(x, f(surface), 1e-12), "{name}: cell {c}: {x}");
        }
        let n_edges = case.grid.topology.n_edges();
        let flat = name.ends_with("flat");
        for e in edge_start(case.grid, Zone::LateralBoundary(2))..n_edges {
            let w = m.wgtfacq_e.column(e);
            assert!(close(w.iter().sum::<f64>(), 1.0, 1e-13), "{name}: edge {e}");
            if flat {
                let f = |h: f64| 1.0 + 0.5 * h + 0.02 * h * h;
                let x: f64 = (0..3).map(|j| w[j] * f(case.z_me(e, nlev - 3 + j))).sum();
                assert!(close(x, f(0.0), 1e-10), "{name}: edge {e}: {x}");
            }
        }
    }
}

#[test]
fn dwdz_coefficients_differentiate_quadratics_exactly() {
    for (name, case) in cases() {
        let (m, z, nlev) = (&case.metrics, &case.heights, case.nlev());
        let w = |h: f64| 0.3 + 2e-4 * h - 7e-9 * h * h;
        let dw = |h: f64| 2e-4 - 14e-9 * h;
        for c in 0..case.grid.topology.n_cells() {
            assert_eq!(
                (m.coeff1_dwdz.get(c, 0), m.coeff2_dwdz.get(c, 0)),
                (0.0, 0.0)
            );
            for k in 1..nlev {
                let zi = |k| z.z_ifc.get(c, k);
                let (c1, c2) = (m.coeff1_dwdz.get(c, k), m.coeff2_dwdz.get(c, k));
                assert!(c1 > 0.0 && c2 > 0.0);
                let x = c1 * (w(zi(k - 1)) - w(zi(k))) + c2 * (w(zi(k)) - w(zi(k + 1)));
                assert!(
                    (x - dw(zi(k))).abs() < 1e-12,
                    "{name}: cell {c} level {k}: {x} vs {}",
                    dw(zi(k))
                );
            }
        }
    }
}

#[test]
fn exner_and_vertical_wind_weights_lie_in_icons_ranges() {
    let cfg = MetricsConfig::default();
    for (name, case) in cases() {
        let m = &case.metrics;
        let flat = name.ends_with("flat");
        for c in 0..case.grid.topology.n_cells() {
            let (i, e) = (m.vwind_impl_wgt[c], m.vwind_expl_wgt[c]);
            assert!(
                (0.5 + cfg.vwind_offctr..=1.25).contains(&i),
                "{name}: vwind_impl_wgt[{c}] = {i}"
            );
            assert_eq!(e, 1.0 - i);
            if flat {
                assert_eq!(i, 0.5 + cfg.vwind_offctr);
            }
            for k in 0..case.nlev() {
                let x = m.exner_exfac.get(c, k);
                assert!(
                    (-1.0 / 6.0..=cfg.exner_expol).contains(&x),
                    "{name}: exner_exfac[{c}, {k}] = {x}"
                );
                if flat || k < case.vertical.nflatlev {
                    assert_eq!(x, cfg.exner_expol, "{name}: flat levels keep exner_expol");
                }
            }
        }
        if !flat {
            let reduced = (0..case.grid.topology.n_cells())
                .filter(|&c| m.exner_exfac.get(c, case.nlev() - 1) < cfg.exner_expol)
                .count();
            assert!(
                reduced > 0,
                "{name}: JW reduces the extrapolation somewhere"
            );
        }
    }
}

fn vertical_with_damping(nlev: usize, damping_height: f64) -> VerticalGrid {
    VerticalGrid::try_new(VerticalConfig {
        rayleigh_damping_height: damping_height,
        ..VerticalConfig::new(nlev)
    })
    .unwrap()
}

#[test]
fn rayleigh_w_is_zero_below_the_damping_height_and_positive_above() {
    let grid = grids::global();
    let vertical = vertical_with_damping(NLEV, 12_500.0);
    let (_, heights) = fields_support::heights(grid, &vertical, JW);
    let case = Case::with_heights(grid, vertical, heights, &MetricsConfig::default());
    let r = &case.metrics.rayleigh_w;
    assert_eq!(r.len(), NLEV + 1);
    let vct_a = &case.vertical.vct_a;
    assert!(case.vertical.end_index_of_damping_layer > 2);
    for k in 0..=NLEV {
        if vct_a[k] >= 12_500.0 {
            assert!(r[k] > 0.0, "rayleigh_w[{k}] at {} m", vct_a[k]);
        } else {
            assert_eq!(r[k], 0.0, "rayleigh_w[{k}] at {} m", vct_a[k]);
        }
        if k > 0 && r[k] > 0.0 {
            assert!(r[k] < r[k - 1], "decreasing downwards");
        }
    }
    assert_eq!(r[0], 0.05, "rayleigh_coeff at the top");
    // ICON's default damping height (45 km) lies above the 23.5 km top: ICON4Py still
    // damps the top interface (end_index_of_damping_layer 0).
    let case = Case::new(grid, NLEV, Topography::Flat);
    assert_eq!(case.metrics.rayleigh_w[0], 0.05);
    assert!(case.metrics.rayleigh_w[1..].iter().all(|&x| x == 0.0));
}

#[test]
fn scalfac_dd3d_is_one_or_tapers_for_type_32() {
    let case = Case::new(grids::global(), NLEV, Topography::Flat);
    assert!(case.metrics.scalfac_dd3d.iter().all(|&x| x == 1.0));
    let cfg = MetricsConfig {
        divdamp_type: 32,
        ..MetricsConfig::default()
    };
    let grid = grids::global();
    let vertical = fields_support::vertical(NLEV);
    let (_, heights) = fields_support::heights(grid, &vertical, Topography::Flat);
    let case = Case::with_heights(grid, vertical, heights, &cfg);
    let vct_a = &case.vertical.vct_a;
    for (k, &s) in case.metrics.scalfac_dd3d.iter().enumerate() {
        let zf = 0.5 * (vct_a[k] + vct_a[k + 1]);
        assert!((0.0..=1.0).contains(&s));
        if zf >= 17_500.0 {
            assert_eq!(s, 0.0);
        } else if zf < 12_500.0 {
            assert_eq!(s, 1.0);
        } else {
            assert!(close(s, (17_500.0 - zf) / 5000.0, 1e-14));
        }
    }
}

#[test]
fn coeff_gradekin_weights_the_cell_distances() {
    for grid in [grids::global(), grids::limited_area()] {
        let case = Case::new(grid, NLEV, Topography::Flat);
        let g = &grid.geometry;
        let lb2 = edge_start(grid, Zone::LateralBoundary(2));
        for e in 0..grid.topology.n_edges() {
            let (a, b) = (
                case.metrics.coeff_gradekin[2 * e],
                case.metrics.coeff_gradekin[2 * e + 1],
            );
            if e < lb2 {
                assert_eq!((a, b), (0.0, 0.0));
                continue;
            }
            let (d0, d1) = (g.edge_cell_distance[2 * e], g.edge_cell_distance[2 * e + 1]);
            assert!(close(a * b, g.inv_dual_edge_length[e].powi(2), 1e-13));
            assert!(close(a / b, (d1 / d0).powi(2), 1e-13));
        }
    }
}

#[test]
fn masks_are_zero_and_one_where_the_zones_say() {
    for (name, case) in cases() {
        let (grid, m) = (case.grid, &case.metrics);
        let zones = grid.zones.of(Location::Edge);
        let refin = zones.refin_ctrl();
        let lb2 = edge_start(grid, Zone::LateralBoundary(2));
        for (e, (&h, &rc)) in m.hmask_dd3d.iter().zip(refin).enumerate() {
            if e < lb2 || (1..=17).contains(&rc) {
                assert_eq!(h, 0.0, "{name}: hmask_dd3d[{e}] (refin {rc})");
            } else if rc <= 0 {
                assert_eq!(h, 1.0, "{name}: hmask_dd3d[{e}]");
            } else {
                assert!((0.0..=1.0).contains(&h));
            }
        }
        if grid.is_limited_area() {
            assert!(m.hmask_dd3d.contains(&0.0) && m.hmask_dd3d.contains(&1.0));
        } else {
            assert!(m.hmask_dd3d.iter().all(|&h| h == 1.0));
        }
        // One process: no halo, so no prognostic halo cells and no boundary halo cells.
        assert_eq!(m.mask_prog_halo_c.len(), grid.topology.n_cells());
        assert!(m.mask_prog_halo_c.iter().all(|&x| !x));
        assert!(m.bdy_halo_c.is_empty());
    }
}

#[test]
fn bad_inputs_are_refused_with_a_reason() {
    let grid = grids::global();
    let case = Case::new(grid, NLEV, Topography::Flat);
    let c = &case.coefficients;
    let compute = |inputs: &foehn_icon::fields::metrics::MetricInputs<'_>, cfg: &MetricsConfig| {
        MetricFields::compute(grid, &case.vertical, &case.heights, inputs, cfg)
    };
    let mut inputs = c.inputs();
    inputs.c_lin_e = &c.c_lin_e.as_slice()[1..];
    let e = compute(&inputs, &MetricsConfig::default()).unwrap_err();
    assert!(matches!(
        e,
        MetricsError::WrongLength {
            field: "c_lin_e",
            ..
        }
    ));
    assert!(e.to_string().contains("c_lin_e has"), "{e}");

    let mut bad = c.cells_aw_verts.as_slice().to_vec();
    bad[7] = f64::NAN;
    let mut inputs = c.inputs();
    inputs.cells_aw_verts = &bad;
    let e = compute(&inputs, &MetricsConfig::default()).unwrap_err();
    assert_eq!(
        e,
        MetricsError::NotFinite {
            field: "cells_aw_verts",
            index: 7
        }
    );

    let cfg = MetricsConfig {
        vwind_offctr: -0.1,
        ..MetricsConfig::default()
    };
    let e = compute(&c.inputs(), &cfg).unwrap_err();
    assert!(e.to_string().contains("vwind_offctr"), "{e}");

    let other = fields_support::vertical(NLEV + 1);
    let e = MetricFields::compute(
        grid,
        &other,
        &case.heights,
        &c.inputs(),
        &MetricsConfig::default(),
    )
    .unwrap_err();
    assert!(matches!(
        e,
        MetricsError::WrongLength {
            field: "heights (levels)",
            ..
        }
    ));

    let two = fields_support::vertical(2);
    let (_, h2) = fields_support::heights(grid, &two, Topography::Flat);
    let e =
        MetricFields::compute(grid, &two, &h2, &c.inputs(), &MetricsConfig::default()).unwrap_err();
    assert_eq!(e, MetricsError::TooFewLevels { levels: 2 });
}

#[test]
fn one_and_two_threads_give_the_same_bits() {
    let grid = grids::limited_area();
    let vertical = fields_support::vertical(NLEV);
    let (_, heights) = fields_support::heights(grid, &vertical, JW);
    let c = Coefficients::of(grid);
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                MetricFields::compute(
                    grid,
                    &vertical,
                    &heights,
                    &c.inputs(),
                    &MetricsConfig::default(),
                )
                .unwrap()
            })
    };
    assert!(run(1) == run(2));
}
