//! The metric fields of the horizontal gradients: slopes of the coordinate surfaces
//! (zero over flat ground, the surface slope over a tilted plane), the Taylor pressure
//! gradient's levels and distances (every access inside the column, consistent with the
//! heights it reaches), its downward extrapolation, and the truly horizontal diffusion
//! (levels inside the column, interpolation to the cell's height), on R2B2 and the
//! limited-area cap. The timing of R2B6 × 80 is an ignored test.

mod fields_support;
mod metrics_support;

use foehn_grid::{Connectivity, Grid, Location, Zone};
use foehn_icon::fields::metrics::MetricsConfig;
use foehn_icon::fields::topography::{JwTopography, Topography};
use foehn_testkit::grids;
use metrics_support::{mountain, unsmoothed_heights, Case};

const JW: Topography = Topography::JablonowskiWilliamson(JwTopography {
    u0: 35.0,
    eta_0: 0.252,
});
const NLEV: usize = 30;

fn start(grid: &Grid, loc: Location, zone: Zone) -> usize {
    grid.zones.of(loc).start(zone).unwrap()
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[test]
fn slopes_vanish_over_flat_ground() {
    for grid in [grids::global(), grids::limited_area()] {
        let case = Case::new(grid, NLEV, Topography::Flat);
        let m = &case.metrics;
        // Normal slopes are differences of equal heights: 0. Tangential ones are
        // differences of vertex values interpolated with ICON's area weights, whose rows
        // sum to 1 only approximately on the sphere (kite areas over the dual area):
        // what is left is the height times the difference of the two row sums.
        for f in [&m.ddxn_z_half_e, &m.ddxn_z_full] {
            assert!(f.as_slice().iter().all(|&x| x == 0.0));
        }
        let (g, e2v) = (&grid.geometry, grid.topology.table(Connectivity::E2V));
        let aw = &case.coefficients.cells_aw_verts;
        let row_sum = |v: usize| aw.row(v).iter().sum::<f64>();
        let lb3 = start(grid, Location::Edge, Zone::LateralBoundary(3));
        for e in lb3..grid.topology.n_edges() {
            let (v0, v1) = (e2v.neighbor(e, 0).unwrap(), e2v.neighbor(e, 1).unwrap());
            for k in 0..=NLEV {
                let z = case.vertical.vct_a[k];
                let defect = g.tangent_orientation[e]
                    * z
                    * (row_sum(v1) - row_sum(v0))
                    * g.inv_primal_edge_length[e];
                let x = m.ddxt_z_half_e.get(e, k);
                assert!(
                    (x - defect).abs() < 1e-15,
                    "{}: edge {e} level {k}",
                    grid.name
                );
                assert!(x.abs() < 1e-5);
            }
        }
        for f in [
            &m.maxslp,
            &m.maxhgtd,
            &m.maxslp_avg,
            &m.maxhgtd_avg,
            &m.zd_diffcoef,
        ] {
            assert!(f.as_slice().iter().all(|&x| x == 0.0));
        }
    }
}

/// A tilted plane: the surface `A·(p·d)` (p the unit position, d a fixed direction) has
/// the slope `A/R·(d·n)` along a unit tangent `n`; every coordinate surface is
/// `vct_a + b₁·surface`, so its slope is the surface slope times `b₁`.
#[test]
fn slopes_of_a_tilted_plane_are_the_plane_slope() {
    for grid in [grids::global(), grids::limited_area()] {
        let amplitude = 1000.0;
        let d = {
            let v = [0.3, -0.5, 0.8];
            let n = dot(v, v).sqrt();
            [v[0] / n, v[1] / n, v[2] / n]
        };
        let surface: Vec<f64> = grid
            .points
            .cell
            .iter()
            .map(|p| amplitude * dot(*p, d) / dot(*p, *p).sqrt())
            .collect();
        let vertical = fields_support::vertical(NLEV);
        let heights = unsmoothed_heights(&vertical, &surface);
        let case = Case::with_heights(grid, vertical, heights, &MetricsConfig::default());
        let (m, g) = (&case.metrics, &grid.geometry);
        let scale = amplitude / foehn_grid::EARTH_RADIUS;
        let (lb2, lb3) = (
            start(grid, Location::Edge, Zone::LateralBoundary(2)),
            start(grid, Location::Edge, Zone::LateralBoundary(3)),
        );
        let (mut worst_n, mut worst_t) = (0.0f64, 0.0f64);
        for e in lb3..grid.topology.n_edges() {
            let normal = scale * dot(d, g.primal_normal_cartesian[e]);
            let tangent = scale * dot(d, g.dual_normal_cartesian[e]);
            worst_n = worst_n.max((m.ddxn_z_half_e.get(e, NLEV) - normal).abs() / scale);
            worst_t = worst_t.max((m.ddxt_z_half_e.get(e, NLEV) - tangent).abs() / scale);
        }
        assert!(
            worst_n < 0.01,
            "{}: normal slope off by {worst_n}",
            grid.name
        );
        // The area-weighted cell→vertex interpolation is exact only for constants: its
        // first-order error shows on coarse grids (R2B2: ~500 km cells).
        let tol_t = if grid.is_limited_area() { 0.05 } else { 0.15 };
        assert!(
            worst_t < tol_t,
            "{}: tangential slope off by {worst_t}",
            grid.name
        );
        // Every level: the surface slope times the level's decay, flat from nflatlev up;
        // full levels average their interfaces.
        for e in lb2..grid.topology.n_edges() {
            let bottom = m.ddxn_z_half_e.get(e, NLEV);
            for k in 0..=NLEV {
                let x = m.ddxn_z_half_e.get(e, k);
                if k <= case.vertical.nflatlev {
                    assert_eq!(x, 0.0);
                } else {
                    assert!(x.abs() <= bottom.abs() * (1.0 + 1e-9) + 1e-18);
                }
            }
            for k in 0..NLEV {
                let half = |f: &foehn_icon::fields::Columns| 0.5 * (f.get(e, k) + f.get(e, k + 1));
                assert_eq!(m.ddxn_z_full.get(e, k), half(&m.ddxn_z_half_e));
                assert_eq!(m.ddxt_z_full.get(e, k), half(&m.ddxt_z_half_e));
            }
        }
        for e in 0..lb2 {
            assert_eq!(
                m.ddxn_z_half_e.get(e, NLEV),
                0.0,
                "first boundary row stays 0"
            );
        }
    }
}

/// The Taylor pressure gradient over JW and over a steep mountain: every level it reads
/// (`k + vertoffset_gradp`) lies in the column; below the flat levels the edge height
/// (or the extrapolation height) lies in the neighbour layer read, unless that is the
/// lowest; `zdiff_gradp` is the height above that layer's centre.
#[test]
fn pressure_gradient_levels_stay_in_the_column_and_match_the_heights() {
    for grid in [grids::global(), grids::limited_area()] {
        let vertical = fields_support::vertical(NLEV);
        let steep = unsmoothed_heights(&vertical, &mountain(grid, 3000.0, 600e3, 46.0, 8.0));
        let (_, jw) = fields_support::heights(grid, &vertical, JW);
        for (name, heights) in [("jw", jw), ("mountain", steep)] {
            let case =
                Case::with_heights(grid, vertical.clone(), heights, &MetricsConfig::default());
            let (m, z) = (&case.metrics, &case.heights);
            let e2c = grid.topology.table(Connectivity::E2C);
            let lb2 = start(grid, Location::Edge, Zone::LateralBoundary(2));
            let (mut offsets, mut extrapolated) = (0, 0);
            for e in 0..grid.topology.n_edges() {
                for j in 0..2 {
                    for k in 0..NLEV {
                        let off = m.vertoffset_gradp.get(e, j, k);
                        let k1 = k as i64 + off as i64;
                        assert!((0..NLEV as i64).contains(&k1), "{name}: edge {e} level {k}");
                        if e < lb2 {
                            assert_eq!((off, m.zdiff_gradp.get(e, j, k)), (0, 0.0));
                            continue;
                        }
                        let c = e2c.neighbor(e, j).unwrap();
                        let k1 = k1 as usize;
                        let flat = m.flat_idx_max[e];
                        let pg = m.pg_exdist.get(e, k);
                        let target = case.z_me(e, k) - pg;
                        let zd = m.zdiff_gradp.get(e, j, k);
                        assert!(
                            (zd - (target - z.z_mc.get(c, k1))).abs() < 1e-9,
                            "{name}: edge {e} cell {j} level {k}"
                        );
                        if k <= flat {
                            assert_eq!(off, 0);
                            continue;
                        }
                        offsets += (off != 0) as usize;
                        extrapolated += (pg != 0.0) as usize;
                        if k1 < NLEV - 1 {
                            let eps = 1e-9;
                            assert!(
                                target <= z.z_ifc.get(c, k1) + eps
                                    && target >= z.z_ifc.get(c, k1 + 1) - eps,
                                "{name}: edge {e} cell {j} level {k} reads {k1}"
                            );
                            assert!(zd.abs() <= 0.5 * m.ddqz_z_full.get(c, k1) + 1e-9);
                        }
                    }
                }
            }
            if name == "mountain" {
                assert!(
                    offsets > 0,
                    "{}: some levels read a neighbour level",
                    grid.name
                );
                assert!(
                    extrapolated > 0,
                    "{}: the mountain needs extrapolation",
                    grid.name
                );
            }
        }
    }
}

#[test]
fn downward_extrapolation_lies_below_the_highest_neighbour_surface() {
    for grid in [grids::global(), grids::limited_area()] {
        let vertical = fields_support::vertical(NLEV);
        let heights = unsmoothed_heights(&vertical, &mountain(grid, 3000.0, 600e3, 46.0, 8.0));
        let case = Case::with_heights(grid, vertical, heights, &MetricsConfig::default());
        let (m, z) = (&case.metrics, &case.heights);
        let e2c = grid.topology.table(Connectivity::E2C);
        let nudging2 = start(grid, Location::Edge, Zone::Nudging(2));
        let mut count = 0;
        for e in 0..grid.topology.n_edges() {
            for k in 0..NLEV {
                let pg = m.pg_exdist.get(e, k);
                assert_eq!(m.pg_exdist_mask[e * NLEV + k], pg != 0.0);
                if pg == 0.0 {
                    continue;
                }
                count += 1;
                assert!(e >= nudging2 && k > m.flat_idx_max[e]);
                let highest = (0..2)
                    .map(|j| z.z_ifc.get(e2c.neighbor(e, j).unwrap(), NLEV))
                    .fold(f64::MIN, f64::max);
                assert!(pg < 0.0);
                assert!((case.z_me(e, k) - pg - (highest - 5.0)).abs() < 1e-9);
            }
        }
        assert!(count > 0, "{}", grid.name);
    }
}

/// Truly horizontal diffusion over a steep mountain: the coefficient is in its range
/// where applied and 0 before the nudging zone; each neighbour access `k + off` and
/// `k + off + 1` lies in the column and the interpolation between them gives the
/// cell's height.
#[test]
fn truly_horizontal_diffusion_reads_inside_the_column_at_the_cells_height() {
    for grid in [grids::global(), grids::limited_area()] {
        let vertical = fields_support::vertical(NLEV);
        let heights = unsmoothed_heights(&vertical, &mountain(grid, 3000.0, 300e3, 46.0, 8.0));
        let case = Case::with_heights(grid, vertical, heights, &MetricsConfig::default());
        let (m, z) = (&case.metrics, &case.heights);
        let c2e2c = grid.topology.table(Connectivity::C2E2C);
        let nudging = start(grid, Location::Cell, Zone::Nudging(1));
        let mut applied = 0;
        for c in 0..grid.topology.n_cells() {
            let nb_max = (0..3)
                .filter_map(|j| c2e2c.neighbor(c, j))
                .map(|n| z.z_mc.get(n, NLEV - 1))
                .fold(f64::MIN, f64::max);
            assert_eq!(m.max_nbhgt[c], nb_max);
            for k in 0..NLEV {
                let d = m.zd_diffcoef.get(c, k);
                assert!((0.0..=0.002).contains(&d));
                if c < nudging {
                    assert_eq!(d, 0.0);
                }
                let active = d > 0.0;
                applied += active as usize;
                for j in 0..3 {
                    let off = m.zd_vertoffset.get(c, j, k);
                    let coef = m.zd_intcoef.get(c, j, k);
                    let k1 = k as i64 + off as i64;
                    assert!(k1 >= 0 && k1 < NLEV as i64, "cell {c} level {k}");
                    if !active {
                        assert_eq!((off, coef), (0, 0.0));
                        continue;
                    }
                    assert!(k1 + 1 < NLEV as i64, "cell {c} level {k}: k + off + 1");
                    let n = c2e2c.neighbor(c, j).unwrap();
                    let k1 = k1 as usize;
                    let (up, down) = (z.z_mc.get(n, k1), z.z_mc.get(n, k1 + 1));
                    let here = z.z_mc.get(c, k);
                    assert!(here >= nb_max - 1e-9, "only levels above the neighbours");
                    assert!((coef * up + (1.0 - coef) * down - here).abs() < 1e-6);
                    assert!(
                        (-1e-12..=1.0 + 1e-12).contains(&coef),
                        "cell {c} level {k}: {coef}"
                    );
                }
            }
        }
        assert!(applied > 0, "{}: the mountain is steep enough", grid.name);
    }
}

/// All metric fields for R2B6 × 80 levels over JW (release: `cargo test --release -p
/// foehn-icon --test fields_metrics_gradients -- --ignored --nocapture`).
#[test]
#[ignore]
fn time_r2b6_80_levels() {
    use std::time::Instant;
    let t = Instant::now();
    let grid: &'static Grid = Box::leak(Box::new(
        Grid::icosahedral(2, 6, foehn_grid::EARTH_RADIUS).unwrap(),
    ));
    let t_grid = t.elapsed();
    let vertical = fields_support::vertical(80);
    let t = Instant::now();
    let (_, heights) = fields_support::heights(grid, &vertical, JW);
    let t_heights = t.elapsed();
    let t = Instant::now();
    let coefficients = metrics_support::Coefficients::of(grid);
    let t_coefficients = t.elapsed();
    let t = Instant::now();
    let metrics = foehn_icon::fields::metrics::MetricFields::compute(
        grid,
        &vertical,
        &heights,
        &coefficients.inputs(),
        &MetricsConfig::default(),
    )
    .unwrap();
    let t_metrics = t.elapsed();
    println!(
        "R2B6 × 80: grid {t_grid:.2?}, heights {t_heights:.2?}, c_lin_e/cells_aw_verts/c_bln_avg \
         {t_coefficients:.2?}, metric fields (with the reference atmosphere) {t_metrics:.2?} \
         (threads: {}, nflat_gradp {})",
        rayon::current_num_threads(),
        metrics.nflat_gradp
    );
}
