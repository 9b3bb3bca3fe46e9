//! The snapshot of a Jablonowski–Williamson state: every variable present with its
//! shape, values of the right sign and magnitude, the prognostics unchanged; the output
//! schedule and file names.

use super::super::{file_name, time_label, variable, OutputSchedule, Vertical, VARIABLES};
use super::cases;
use crate::initial::jw::JwConfig;
use crate::layout::columns_of;
use foehn_grid::{Location, Zone};

/// Shapes follow [`VARIABLES`]; the prognostics are the state's.
#[test]
fn shapes_and_prognostics() {
    for case in cases() {
        let grid = case.fields.grid();
        let nlev = case.fields.nlev();
        for (info, field) in case.snapshot.iter() {
            let n = grid.size(info.location);
            let levels = match info.vertical {
                Vertical::Surface => 1,
                Vertical::Full => nlev,
                Vertical::Half => nlev + 1,
                Vertical::Pressure => 1,
            };
            assert_eq!((field.len(), field.levels()), (n, levels), "{}", info.name);
            assert_eq!(variable(info.name), Some(info));
        }
        let s = &case.state;
        for (name, f) in [
            ("vn", &s.vn),
            ("w", &s.w),
            ("rho", &s.rho),
            ("exner", &s.exner),
            ("theta_v", &s.theta_v),
        ] {
            assert_eq!(case.snapshot.field(name), columns_of(f).as_ref(), "{name}");
        }
        assert!(case.snapshot.field("nothing").is_none());
    }
}

/// The JW state's diagnostics: surface pressure 1000 hPa (the JW surface), 850 hPa
/// temperature 230–300 K, winds up to the jet's 35 m/s, vorticity below 1e-4/s.
#[test]
fn jw_values() {
    for case in cases() {
        let s = &case.snapshot;
        let finite = |name: &str| -> Vec<f64> {
            s.field(name)
                .unwrap()
                .as_slice()
                .iter()
                .copied()
                .filter(|x| !x.is_nan())
                .collect()
        };
        let ps = finite("ps");
        assert_eq!(ps.len(), case.fields.grid().size(Location::Cell));
        assert!(
            ps.iter().all(|p| (p - 100_000.0).abs() < 100.0),
            "{}: ps {:?}",
            case.name,
            ps.iter().fold(0.0f64, |a, p| a.max((p - 1e5).abs()))
        );
        let t850 = finite("temp_p");
        assert!(
            t850.len() * 10 > ps.len() * 9,
            "{}: T850 mostly above ground",
            case.name
        );
        // JW06's temperature at η = 0.85 (p_s = 1000 hPa), within the error of the
        // interpolation between the test's 12 levels.
        let jw = JwConfig::default();
        let lat = &case.fields.grid().geometry.cell_lat;
        let t_p = s.field("temp_p").unwrap();
        let worst = (0..lat.len())
            .map(|c| (t_p.get(c, 0) - jw.temperature(0.85, lat[c])).abs())
            .fold(0.0f64, f64::max);
        eprintln!("{}: T850 error {worst:.3} K", case.name);
        assert!(worst < 0.3, "{}: T850 {worst} K off", case.name);
        // The JW wind (zonal) at the cells whose reconstruction reads no edge of the
        // boundary rows ICON leaves at 0.
        let grid = case.fields.grid();
        let g = &grid.geometry;
        let first = grid
            .zones
            .of(Location::Cell)
            .start(Zone::LateralBoundary(4))
            .unwrap_or(0);
        let (u, v) = (s.field("u").unwrap(), s.field("v").unwrap());
        let (mut du, mut dv) = (0.0f64, 0.0f64);
        for c in first..grid.zones.of(Location::Cell).end(Zone::Local).unwrap() {
            for k in 0..u.levels() {
                let ue = jw.zonal_wind(case.eta_v.get(c, k), g.cell_lon[c], g.cell_lat[c]);
                du = du.max((u.get(c, k) - ue).abs());
                dv = dv.max(v.get(c, k).abs());
            }
        }
        eprintln!("{}: u error {du:.3}, v error {dv:.3} m/s", case.name);
        assert!(du < 1.0 && dv < 1.0, "{}: u {du}, v {dv}", case.name);
        // Vorticity of the jet's magnitude (u0/a·O(1)) there.
        let end = grid.zones.of(Location::Cell).end(Zone::Local).unwrap();
        for name in ["vor", "vor_p"] {
            let z = s.field(name).unwrap();
            let worst = (first..end)
                .flat_map(|c| z.column(c).iter().copied())
                .filter(|x| !x.is_nan())
                .fold(0.0f64, |a, x| a.max(x.abs()));
            assert!(
                worst > 1e-6 && worst < 5e-5,
                "{}: {name} up to {worst}",
                case.name
            );
        }
        let pres = s.field("pres").unwrap();
        assert!(pres
            .as_slice()
            .iter()
            .all(|p| (500.0..105_000.0).contains(p)));
        assert_eq!(s.time, 86_400.0);
        assert_eq!(s.pressure_levels, [85_000.0]);
    }
}

/// Output times every interval from the start, at the step nearest each (one per time).
#[test]
fn schedule() {
    let every_6h = OutputSchedule { interval: 21_600.0 };
    let dt = 300.0;
    let due: Vec<u64> = (0..=2 * 72 + 1)
        .map(|i| i as f64 * dt)
        .filter(|&t| every_6h.is_due(t, dt))
        .map(|t| t as u64)
        .collect();
    assert_eq!(due, [0, 21_600, 43_200]);
    // A step not dividing the interval: the nearest step, once.
    let dt = 700.0;
    let due = (0..100)
        .filter(|i| every_6h.is_due(*i as f64 * dt, dt))
        .count();
    assert_eq!(due, 4); // 0, ~6 h, ~12 h, ~18 h within 19.4 h
    assert!(!OutputSchedule { interval: 0.0 }.is_due(0.0, dt));
}

/// File names sort by time and say days, hours, minutes and seconds.
#[test]
fn names() {
    assert_eq!(time_label(9.0 * 86_400.0 + 3723.0), "0009d01h02m03s");
    assert_eq!(file_name("jw", 0.0), "jw_0000d00h00m00s.nc");
    assert!(file_name("jw", 86_399.0) < file_name("jw", 86_400.0));
    assert_eq!(VARIABLES.len(), 13);
}
