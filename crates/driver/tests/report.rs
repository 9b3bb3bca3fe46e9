//! The JW report's numbers (`foehn_driver::report`): interpolation of cell fields to the
//! lat/lon grid (exact for fields linear in x, y, z; second order for smooth fields),
//! l2 differences (zero for identical runs, the offset for a planted offset), minima
//! against the bands, and the report's files from two small synthetic runs.

use foehn_driver::report::latlon::{unit, Interpolator, LatLonGrid};
use foehn_driver::report::write::write_report;
use foehn_driver::report::{analyse, RunBuilder, RunData, DAY};
use foehn_grid::{Grid, EARTH_RADIUS};
use std::sync::OnceLock;

/// Cell centres (degrees) of R2B`bisections` (2..=4), generated once per test process.
fn centres(bisections: u32) -> (Vec<f64>, Vec<f64>) {
    type Centres = (Vec<f64>, Vec<f64>);
    static GRIDS: [OnceLock<Centres>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    GRIDS[bisections as usize - 2]
        .get_or_init(|| {
            let g = Grid::icosahedral(2, bisections, EARTH_RADIUS).expect("icosahedral grid");
            let deg = |x: &[f64]| x.iter().map(|v| v.to_degrees()).collect::<Vec<_>>();
            (deg(&g.geometry.cell_lon), deg(&g.geometry.cell_lat))
        })
        .clone()
}

/// A smooth surface pressure (Pa): 1000 hPa, a zonal-wavenumber-3 wave in the
/// mid-latitudes and a Gaussian low of `depth` hPa at (`lon0`, `lat0`), radius 1500 km.
fn ps(lon: f64, lat: f64, depth: f64, lon0: f64, lat0: f64) -> f64 {
    let p = unit(lon, lat);
    let c = unit(lon0, lat0);
    let angle = (p[0] * c[0] + p[1] * c[1] + p[2] * c[2])
        .clamp(-1.0, 1.0)
        .acos();
    let r = angle * EARTH_RADIUS / 1.5e6;
    let wave = 4.0 * (3.0 * lon.to_radians()).cos() * (2.0 * lat.to_radians()).sin().powi(2);
    100.0 * (1000.0 + wave - depth * (-r * r).exp())
}

#[test]
fn interpolation_is_exact_for_linear_fields() {
    let (lon, lat) = centres(3);
    let grid = LatLonGrid::new(2.0).unwrap();
    let points = grid.points();
    let interp = Interpolator::new(&lon, &lat, &points).unwrap();
    let f = |lo: f64, la: f64| {
        let p = unit(lo, la);
        101_325.0 + 812.0 * p[0] - 377.0 * p[1] + 1544.0 * p[2]
    };
    let values: Vec<f64> = lon.iter().zip(&lat).map(|(&a, &b)| f(a, b)).collect();
    let got = interp.apply(&values).unwrap();
    let worst = points
        .iter()
        .zip(&got)
        .map(|(&(a, b), g)| (g - f(a, b)).abs())
        .fold(0.0, f64::max);
    assert!(
        worst < 1e-8,
        "largest error {worst} Pa on a field of 1e5 Pa"
    );
    // At a cell centre the cell's value.
    let at = Interpolator::new(&lon, &lat, &[(lon[17], lat[17])]).unwrap();
    let v: Vec<f64> = (0..lon.len()).map(|i| i as f64).collect();
    assert_eq!(at.apply(&v).unwrap(), vec![17.0]);
}

#[test]
fn interpolation_error_shrinks_at_second_order() {
    let grid = LatLonGrid::new(2.0).unwrap();
    let points = grid.points();
    let errors: Vec<f64> = (2..=4)
        .map(|n| {
            let (lon, lat) = centres(n);
            let interp = Interpolator::new(&lon, &lat, &points).unwrap();
            let v: Vec<f64> = lon
                .iter()
                .zip(&lat)
                .map(|(&a, &b)| ps(a, b, 20.0, 200.0, 55.0))
                .collect();
            let got = interp.apply(&v).unwrap();
            let exact: Vec<f64> = points
                .iter()
                .map(|&(a, b)| ps(a, b, 20.0, 200.0, 55.0))
                .collect();
            grid.l2_difference(&got, &exact).unwrap()
        })
        .collect();
    for w in errors.windows(2) {
        let rate = (w[0] / w[1]).log2();
        assert!(
            rate > 1.6,
            "l2 errors {errors:?} Pa: order {rate:.2} per bisection"
        );
    }
}

#[test]
fn interpolation_refuses_bad_grids() {
    let (lon, lat) = centres(2);
    // A cap of cells: points elsewhere are outside the grid.
    let cap: (Vec<f64>, Vec<f64>) = lon
        .iter()
        .zip(&lat)
        .filter(|(_, &b)| b > 30.0)
        .map(|(&a, &b)| (a, b))
        .unzip();
    let e = Interpolator::new(&cap.0, &cap.1, &[(10.0, -40.0)]).unwrap_err();
    assert!(e.to_string().contains("does not cover the globe"), "{e}");
    let e = Interpolator::new(&lon[..5], &lat[..5], &[(0.0, 0.0)]).unwrap_err();
    assert!(e.to_string().contains("at least"), "{e}");
}

/// A run on R2B`n` with outputs at `days`, p_s from [`ps`] with a low deepening in time
/// and an offset of `offset` hPa.
fn run(name: &str, n: u32, days: &[u32], offset: f64, grid: &LatLonGrid) -> RunData {
    let (lon, lat) = centres(n);
    let mut b = RunBuilder::new(name, "synthetic", lon.clone(), lat.clone(), grid, &[8]).unwrap();
    for &d in days {
        let lon0 = 150.0 + 7.0 * (d as f64 - 6.0);
        let v: Vec<f64> = lon
            .iter()
            .zip(&lat)
            .map(|(&a, &b)| ps(a, b, 4.0 * d as f64, lon0, 55.0) + 100.0 * offset)
            .collect();
        let t850 = b.map_day(d as f64 * DAY).map(|_| vec![270.0; lon.len()]);
        b.push(d as f64 * DAY, v, t850).unwrap();
    }
    b.finish().unwrap()
}

#[test]
fn l2_of_identical_runs_is_zero_and_of_an_offset_the_offset() {
    let grid = LatLonGrid::new(2.0).unwrap();
    let a = run("a", 2, &[0, 8], 0.0, &grid);
    let b = run("b", 2, &[0, 8], 0.0, &grid);
    let c = run("c", 2, &[0, 8], 1.5, &grid);
    for (x, y) in a.times.iter().zip(&b.times) {
        assert_eq!(grid.l2_difference(&x.ps_latlon, &y.ps_latlon).unwrap(), 0.0);
    }
    for (x, y) in a.times.iter().zip(&c.times) {
        let l2 = grid.l2_difference(&x.ps_latlon, &y.ps_latlon).unwrap();
        assert!((l2 - 1.5).abs() < 1e-9, "l2 {l2} hPa for a 1.5 hPa offset");
    }
    assert!(grid.l2_difference(&a.times[0].ps_latlon, &[1.0]).is_err());
}

#[test]
fn report_of_three_resolutions() {
    let grid = LatLonGrid::new(2.0).unwrap();
    let days = [0, 6, 8];
    // Given fine to coarse: the report sorts them.
    let mut runs = vec![
        run("r2b4", 4, &days, 0.0, &grid),
        run("r2b2", 2, &days, 0.0, &grid),
        run("r2b3", 3, &days, 0.0, &grid),
    ];
    let mut report = analyse(&mut runs, &grid, &[6, 8]).unwrap();
    let names: Vec<&str> = report.runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["r2b2", "r2b3", "r2b4"]);
    assert_eq!(report.differences.len(), 2);
    // The low of day 8 (32 hPa deep at 164°E, 55°N, on a trough of the wave: about
    // 965.6 hPa): minimum near it, R2B≤4 band ≤ 980 hPa met, the location (193 ± 10°E) not.
    let m = report
        .minima
        .iter()
        .find(|m| m.run == "r2b4" && m.day == 8)
        .unwrap();
    let min = m.minimum.unwrap();
    assert!((min.hpa - 965.6).abs() < 1.0, "{min:?}");
    assert!(
        (min.lon - 164.0).abs() < 3.0 && (min.lat - 55.0).abs() < 3.0,
        "{min:?}"
    );
    assert_eq!(
        (m.value_ok, m.location_ok, m.pass()),
        (Some(true), Some(false), Some(false))
    );
    // Differences come from the discretisation only and shrink with refinement.
    for c in &report.convergence {
        assert_eq!(c.shrinks, Some(true), "{c:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    write_report(&mut report, &runs, dir.path()).unwrap();
    for f in [
        "report.md",
        "report.json",
        "l2_ps.png",
        "ps_r2b4_day8.png",
        "t850_r2b2_day8.png",
    ] {
        assert!(
            dir.path().join(f).is_file(),
            "{f} missing: {:?}",
            report.figures
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(json["runs"].as_array().unwrap().len(), 3);
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(md.contains("| r2b4 | 8 |"), "{md}");
}

#[test]
fn report_refuses_runs_without_common_times_or_with_one_name() {
    let grid = LatLonGrid::new(2.0).unwrap();
    let mut runs = vec![
        run("a", 2, &[0, 1], 0.0, &grid),
        run("b", 3, &[2], 0.0, &grid),
    ];
    let e = analyse(&mut runs, &grid, &[1]).unwrap_err().to_string();
    assert!(e.contains("no output time in common"), "{e}");
    let mut runs = vec![run("a", 2, &[0], 0.0, &grid), run("a", 3, &[0], 0.0, &grid)];
    let e = analyse(&mut runs, &grid, &[1]).unwrap_err().to_string();
    assert!(e.contains("two runs are named `a`"), "{e}");
    let (lon, lat) = centres(2);
    let mut b = RunBuilder::new("x", "synthetic", lon.clone(), lat, &grid, &[]).unwrap();
    b.push(0.0, vec![1e5; lon.len()], None).unwrap();
    let e = b
        .push(0.0, vec![1e5; lon.len()], None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("must increase"), "{e}");
    let e = b.push(DAY, vec![1e5; 3], None).unwrap_err().to_string();
    assert!(e.contains("3 values on a grid of 1280 cells"), "{e}");
}
