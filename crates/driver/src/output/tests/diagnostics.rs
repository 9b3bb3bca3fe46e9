//! The diagnostics against analytic fields: a tilted solid-body rotation (Williamson et
//! al. 1992, test case 1: `u`, `v` and the vorticity `2u0/a·(k·r̂)` known everywhere),
//! isothermal hydrostatic columns (exact surface pressure) and profiles linear in
//! `ln p` (exact on pressure levels).

use super::super::diagnostics::*;
use super::cases;
use crate::diagnostics::surface_pressure;
use foehn_grid::{Connectivity, Grid, Location, Zone, EARTH_RADIUS};
use foehn_icon::common::constants::{CPD, GRAV, P0REF, RD};
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::fields::topography::Topography;
use foehn_icon::fields::vertical::VerticalConfig;
use foehn_icon::fields::Columns;

/// Speed of the rotation, m/s, per level, and the tilt of its axis, rad.
const U0: [f64; 2] = [20.0, 35.0];
const TILT: f64 = 0.3;

/// `(u, v)` of the solid-body rotation of speed `u0` at `(lon, lat)`.
fn rotation(u0: f64, lon: f64, lat: f64) -> (f64, f64) {
    let (sa, ca) = TILT.sin_cos();
    (
        u0 * (lat.cos() * ca + lat.sin() * lon.cos() * sa),
        -u0 * lon.sin() * sa,
    )
}

/// Its relative vorticity `2u0/a·(cos α sin φ − sin α cos φ cos λ)`.
fn rotation_vorticity(u0: f64, lon: f64, lat: f64) -> f64 {
    let (sa, ca) = TILT.sin_cos();
    2.0 * u0 / EARTH_RADIUS * (ca * lat.sin() - sa * lat.cos() * lon.cos())
}

/// The normal wind of the rotation at every edge.
fn rotation_vn(grid: &Grid) -> Columns {
    let g = &grid.geometry;
    Columns::from_fn(grid.size(Location::Edge), U0.len(), |e, k| {
        let (u, v) = rotation(U0[k], g.edge_lon[e], g.edge_lat[e]);
        u * g.primal_normal_x[e] + v * g.primal_normal_y[e]
    })
}

/// Largest errors of `u`, `v` (relative to `u0`) and of the cell vorticity (relative to
/// `2u0/a`) over the cells where they are defined; checks that they are defined on
/// every cell from the second boundary row to the end of the local cells.
fn rotation_errors(fields: &GridFields) -> (f64, f64) {
    let grid = fields.grid();
    let i = &fields.statics.interpolation;
    let vn = rotation_vn(grid);
    let (u, v) = cell_wind(grid, &i.rbf_vec_coeff_c1, &i.rbf_vec_coeff_c2, &vn).unwrap();
    let vor_v = vertex_vorticity(grid, &i.geofac_rot, &vn).unwrap();
    let weights = verts_aw_cells(grid, &i.cells_aw_verts);
    let vor = cell_vorticity(grid, &weights, &vor_v).unwrap();
    let zones = grid.zones.of(Location::Cell);
    let start = zones.start(Zone::LateralBoundary(2)).unwrap_or(0);
    let end = zones.end(Zone::Local).unwrap();
    let g = &grid.geometry;
    let (mut wind_err, mut vor_err, mut vor_cells) = (0.0f64, 0.0f64, 0);
    for c in 0..grid.size(Location::Cell) {
        for (k, &u0) in U0.iter().enumerate() {
            let (lon, lat) = (g.cell_lon[c], g.cell_lat[c]);
            let (ue, ve) = rotation(u0, lon, lat);
            if (start..end).contains(&c) {
                wind_err = wind_err.max((u.get(c, k) - ue).abs() / u0);
                wind_err = wind_err.max((v.get(c, k) - ve).abs() / u0);
            } else {
                assert!(u.get(c, k).is_nan() && v.get(c, k).is_nan(), "cell {c}");
            }
            let z = vor.get(c, k);
            if !z.is_nan() {
                vor_cells += usize::from(k == 0);
                let scale = 2.0 * u0 / EARTH_RADIUS;
                vor_err = vor_err.max((z - rotation_vorticity(u0, lon, lat)).abs() / scale);
            }
        }
    }
    // Vorticity is missing only next to the first boundary row.
    let first_row = zones.end(Zone::LateralBoundary(1)).unwrap_or(0);
    assert!(
        vor_cells + 3 * first_row >= end - start,
        "{vor_cells} cells with vorticity"
    );
    (wind_err, vor_err)
}

fn fields_r2b(level: u32) -> GridFields<'static> {
    let grid = Box::leak(Box::new(Grid::icosahedral(2, level, EARTH_RADIUS).unwrap()));
    GridFields::compute(grid, VerticalConfig::new(4), &Topography::Flat).unwrap()
}

/// `u`, `v` and the vorticity of a tilted solid-body rotation within the discretisation
/// error on both grids, and the errors shrink from R2B2 to R2B3.
#[test]
fn solid_body_rotation() {
    let mut global = None;
    for case in cases() {
        let (wind, vor) = rotation_errors(&case.fields);
        eprintln!(
            "{}: wind error {wind:.2e}, vorticity error {vor:.2e}",
            case.name
        );
        assert!(wind < 5e-3 && vor < 2.5e-2, "{}: {wind} {vor}", case.name);
        global.get_or_insert((wind, vor));
    }
    let (wind2, vor2) = global.unwrap();
    let (wind3, vor3) = rotation_errors(&fields_r2b(3));
    eprintln!("R2B3: wind error {wind3:.2e}, vorticity error {vor3:.2e}");
    assert!(wind3 < 0.6 * wind2 && vor3 < 0.6 * vor2, "{wind3} {vor3}");
}

/// The weights of the vertex→cell average are positive and those ICON defines sum to
/// one within 2e-3 before the normalisation (the two weight sets describe the same areas).
#[test]
fn vertex_to_cell_weights() {
    for case in cases() {
        let grid = case.fields.grid();
        let w = verts_aw_cells(grid, &case.fields.statics.interpolation.cells_aw_verts);
        let start = grid
            .zones
            .of(Location::Cell)
            .start(Zone::LateralBoundary(2))
            .unwrap_or(0);
        let (c2v, v2c) = (
            grid.topology.table(Connectivity::C2V),
            grid.topology.table(Connectivity::V2C),
        );
        let (g, aw) = (
            &grid.geometry,
            &case.fields.statics.interpolation.cells_aw_verts,
        );
        let mut worst = 0.0f64;
        for (c, row) in w.iter().enumerate().skip(start) {
            let sum: f64 = row.iter().sum();
            assert!((sum - 1.0).abs() < 1e-12, "{}: {row:?}", case.name);
            assert!(
                row.iter().all(|&x| x > 0.1 && x < 0.6),
                "{}: {row:?}",
                case.name
            );
            // ICON's weights themselves, from the same intersection areas.
            let raw: f64 = (0..3)
                .map(|j| {
                    let v = c2v.neighbor(c, j).unwrap();
                    let i = (0..v2c.width())
                        .find(|&i| v2c.neighbor(v, i) == Some(c))
                        .unwrap();
                    aw.get(v, i) * g.dual_area[v] / g.cell_area[c]
                })
                .sum();
            worst = worst.max((raw - 1.0).abs());
        }
        eprintln!("{}: raw weights sum to 1 within {worst:.1e}", case.name);
        assert!(worst < 2e-3, "{}: {worst}", case.name);
    }
}

/// Isothermal hydrostatic columns over the case's heights: `p`, `T` and the cell's
/// `(ps, T)`; surface pressures from 800 to 1030 hPa.
fn isothermal(fields: &GridFields) -> (Columns, Columns, Columns, Vec<(f64, f64)>) {
    let grid = fields.grid();
    let h = &fields.statics.heights;
    let nlev = fields.nlev();
    let lat = &grid.geometry.cell_lat;
    let column = |c: usize| {
        // Every cell's own surface pressure, spread over 800–1030 hPa.
        let ps = 80_000.0 + 23_000.0 * ((c * 37) % 101) as f64 / 100.0;
        (ps, 230.0 + 40.0 * lat[c].cos())
    };
    let p = Columns::from_fn(lat.len(), nlev, |c, k| {
        let (ps, t) = column(c);
        ps * (-GRAV * (h.z_mc.get(c, k) - h.z_ifc.get(c, nlev)) / (RD * t)).exp()
    });
    let exner = Columns::from_fn(lat.len(), nlev, |c, k| (p.get(c, k) / P0REF).powf(RD / CPD));
    let theta_v = Columns::from_fn(lat.len(), nlev, |c, k| column(c).1 / exner.get(c, k));
    let cols = (0..lat.len()).map(column).collect();
    (p, exner, theta_v, cols)
}

/// ICON's surface pressure is exact for isothermal columns; `p` and `T` come back.
#[test]
fn isothermal_surface_pressure() {
    for case in cases() {
        let (p, exner, theta_v, cols) = isothermal(&case.fields);
        let ddqz = &case.fields.statics.metrics.ddqz_z_full;
        let ps = surface_pressure(&exner, &theta_v, ddqz).unwrap();
        let t = temperature(&exner, &theta_v).unwrap();
        let pres = pressure(&exner);
        for (c, &(ps_true, t_true)) in cols.iter().enumerate() {
            assert!(
                (ps[c] / ps_true - 1.0).abs() < 1e-12,
                "{}: cell {c}",
                case.name
            );
            for k in 0..case.fields.nlev() {
                assert!((t.get(c, k) / t_true - 1.0).abs() < 1e-13);
                assert!((pres.get(c, k) / p.get(c, k) - 1.0).abs() < 1e-13);
            }
        }
    }
}

/// A profile linear in `ln p` is exact at 850 hPa; 850 hPa below the lowest level
/// (surface pressure 800–850 hPa) and 10 hPa above the top are missing.
#[test]
fn pressure_levels() {
    for case in cases() {
        let (p, _, _, cols) = isothermal(&case.fields);
        let f = Columns::from_fn(p.len(), p.levels(), |c, k| {
            300.0 + 20.0 * (p.get(c, k) / P0REF).ln()
        });
        let on_p = at_pressure_levels(&f, &p, &[85_000.0, 1_000.0]).unwrap();
        let (mut masked, mut exact) = (0, 0);
        for (c, (ps, _)) in cols.iter().enumerate() {
            assert!(on_p.get(c, 1).is_nan());
            let lowest = p.get(c, p.levels() - 1);
            if lowest < 85_000.0 {
                assert!(on_p.get(c, 0).is_nan(), "cell {c}: ps {ps}");
                masked += 1;
            } else {
                let want = 300.0 + 20.0 * 0.85f64.ln();
                assert!((on_p.get(c, 0) / want - 1.0).abs() < 1e-12, "cell {c}");
                exact += 1;
            }
        }
        assert!(
            masked > 0 && exact > 0,
            "{}: {masked} masked, {exact}",
            case.name
        );
    }
    // A single column by hand: halfway in ln p between two levels.
    let (p, f) = ([50_000.0, 100_000.0], [1.0, 3.0]);
    let mid = (50_000.0f64 * 100_000.0).sqrt();
    assert!((column_at_pressure(&f, &p, mid) - 2.0).abs() < 1e-14);
    assert_eq!(column_at_pressure(&f, &p, 100_000.0), 3.0);
    assert!(column_at_pressure(&f, &p, 100_001.0).is_nan());
}

/// Fields of the wrong size are refused.
#[test]
fn shapes_refused() {
    let case = cases()[0];
    let grid = case.fields.grid();
    let i = &case.fields.statics.interpolation;
    let wrong = Columns::from_fn(3, 2, |_, _| 1.0);
    assert!(cell_wind(grid, &i.rbf_vec_coeff_c1, &i.rbf_vec_coeff_c2, &wrong).is_none());
    assert!(vertex_vorticity(grid, &i.geofac_rot, &wrong).is_none());
    assert!(cell_vorticity(grid, &[], &wrong).is_none());
    assert!(temperature(&wrong, &Columns::from_fn(3, 1, |_, _| 1.0)).is_none());
    assert!(at_pressure_levels(&wrong, &Columns::from_fn(2, 2, |_, _| 1.0), &[1.0]).is_none());
}
