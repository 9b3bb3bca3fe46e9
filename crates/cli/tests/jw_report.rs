//! `foehn jw-report` and `foehn plot SERIES.csv --column …` through the real binary on
//! small synthetic runs (NetCDF files with cell centres of R2B2 and R2B3, p_s with a
//! deepening low, T850): the report's files, and clear refusals of missing or
//! mismatched files.

#![cfg(feature = "netcdf")]

mod support;

use foehn_grid::{Grid, EARTH_RADIUS};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use support::foehn;

/// Writes one output file `dir/PREFIX_DDDDd00h00m00s.nc` of a run on R2B`n` (2 or 3) at
/// `day`.
fn write_output(dir: &Path, prefix: &str, n: u32, day: u32, with_ps: bool) -> PathBuf {
    static GRIDS: [OnceLock<Grid>; 2] = [OnceLock::new(), OnceLock::new()];
    let g = GRIDS[n as usize - 2].get_or_init(|| Grid::icosahedral(2, n, EARTH_RADIUS).unwrap());
    let (lon, lat) = (&g.geometry.cell_lon, &g.geometry.cell_lat);
    let cells = lon.len();
    let path = dir.join(format!("{prefix}_{day:04}d00h00m00s.nc"));
    // A classic (64-bit offset) file as the runs write: no HDF5 underneath, so no HDF5
    // file locks between the test threads and the binary reading the files.
    let mut f = netcdf::create_with(&path, netcdf::Options::_64BIT_OFFSET).unwrap();
    f.add_unlimited_dimension("time").unwrap();
    f.add_dimension("ncells", cells).unwrap();
    f.add_dimension("plev", 1).unwrap();
    // A low of 3·day hPa at (100 + 12·day °E, 50°N), 1200 km wide.
    let (l0, p0) = ((100.0 + 12.0 * day as f64).to_radians(), 50f64.to_radians());
    let ps: Vec<f64> = (0..cells)
        .map(|c| {
            let cosd = lat[c].sin() * p0.sin() + lat[c].cos() * p0.cos() * (lon[c] - l0).cos();
            let r = cosd.clamp(-1.0, 1.0).acos() * EARTH_RADIUS / 1.2e6;
            100_000.0 - 300.0 * day as f64 * (-r * r).exp()
        })
        .collect();
    let t: Vec<f64> = lat.iter().map(|p| 290.0 - 40.0 * p.sin().powi(2)).collect();
    let time = [day as f64 * 86_400.0];
    let mut vars: Vec<(&str, &[&str], &str, &[f64])> = vec![
        (
            "time",
            &["time"],
            "seconds since 2000-01-01 00:00:00",
            &time,
        ),
        ("clon", &["ncells"], "radian", lon),
        ("clat", &["ncells"], "radian", lat),
        ("plev", &["plev"], "Pa", &[85_000.0]),
        ("temp_p", &["time", "plev", "ncells"], "K", &t),
    ];
    if with_ps {
        vars.push(("ps", &["time", "ncells"], "Pa", &ps));
    }
    for (name, dims, units, _) in &vars {
        let mut var = f.add_variable::<f64>(name, dims).unwrap();
        var.put_attribute("units", *units).unwrap();
    }
    f.enddef().unwrap();
    for (name, _, _, values) in &vars {
        let mut var = f.variable_mut(name).unwrap();
        let extents: Vec<std::ops::Range<usize>> = var
            .dimensions()
            .iter()
            .map(|d| 0..if d.is_unlimited() { 1 } else { d.len() })
            .collect();
        var.put_values(values, extents).unwrap();
    }
    path
}

fn run_files(dir: &Path, prefix: &str, n: u32, days: &[u32]) {
    std::fs::create_dir_all(dir).unwrap();
    for &d in days {
        write_output(dir, prefix, n, d, true);
    }
}

fn report(args: &[&str]) -> support::Run {
    let mut all = vec!["jw-report"];
    all.extend_from_slice(args);
    foehn(&all)
}

#[test]
fn report_of_two_synthetic_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run_files(&a, "jw", 2, &[0, 8, 9]);
    run_files(&b, "jw", 3, &[0, 8, 9]);
    let out = tmp.path().join("report");
    let r = report(&[
        "--run",
        &format!("fine={}", b.display()),
        "--run",
        &format!("coarse={}", a.join("jw.nc").display()),
        "--days",
        "8,9",
        "--step",
        "2",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    for f in [
        "report.md",
        "report.json",
        "l2_ps.png",
        "ps_coarse_day8.png",
        "ps_fine_day9.png",
        "t850_fine_day8.png",
    ] {
        assert!(out.join(f).is_file(), "{f} missing\n{}", r.stdout);
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    // Coarse first; the day-9 minimum 27 hPa deep near 208°E, 50°N.
    assert_eq!(json["runs"][0]["name"], "coarse");
    let m = &json["minima"][3];
    assert_eq!(
        (m["run"].as_str(), m["day"].as_u64()),
        (Some("fine"), Some(9))
    );
    let hpa = m["minimum"]["hpa"].as_f64().unwrap();
    assert!((973.0..975.0).contains(&hpa), "{m}");
    let d = &json["differences"][0]["points"];
    assert_eq!(d.as_array().unwrap().len(), 3);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("## Minimum surface pressure"), "{md}");
}

#[test]
fn report_refusals_name_the_file_and_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, out) = (tmp.path().join("a"), tmp.path().join("out"));
    run_files(&a, "jw", 2, &[0, 1]);
    let o = out.to_str().unwrap();
    // A missing run.
    let missing = tmp.path().join("nowhere/jw.nc");
    let r = report(&["--run", &format!("x={}", missing.display()), "-o", o]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr.contains("nowhere") && r.stderr.contains("--output path"),
        "{}",
        r.stderr
    );
    // A bad --run.
    let r = report(&["--run", "just-a-path", "-o", o]);
    assert!(
        r.code == Some(1) && r.stderr.contains("NAME=DIR_OR_STEM"),
        "{}",
        r.stderr
    );
    // Files of two grids in one run.
    write_output(&a, "jw", 3, 2, true);
    let r = report(&["--run", &format!("x={}", a.display()), "-o", o]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr.contains("jw_0002d00h00m00s.nc") && r.stderr.contains("one grid"),
        "{}",
        r.stderr
    );
    // A file without ps.
    let c = tmp.path().join("c");
    std::fs::create_dir_all(&c).unwrap();
    write_output(&c, "jw", 2, 0, false);
    let r = report(&["--run", &format!("x={}", c.display()), "-o", o]);
    assert!(
        r.code == Some(1) && r.stderr.contains("no variable `ps`"),
        "{}",
        r.stderr
    );
    // Two runs in one folder.
    write_output(&c, "other", 2, 0, true);
    let r = report(&["--run", &format!("x={}", c.display()), "-o", o]);
    assert!(
        r.code == Some(1) && r.stderr.contains("jw, other"),
        "{}",
        r.stderr
    );
}

#[test]
fn plot_of_a_series_column() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("jw_series.csv");
    let mut text = "time_s,mass_rel,l2_u\n".to_string();
    for i in 0..=120 {
        let t = i as f64 * 21_600.0;
        text.push_str(&format!(
            "{t},{},{}\n",
            1e-14 * i as f64,
            1e-4 * (1.0 + t / 86_400.0)
        ));
    }
    std::fs::write(&csv, text).unwrap();
    let png = tmp.path().join("l2u.png");
    let r = foehn(&[
        "plot",
        csv.to_str().unwrap(),
        "--column",
        "l2_u",
        "--log-y",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(&std::fs::read(&png).unwrap()[..4], b"\x89PNG");
    let r = foehn(&[
        "plot",
        csv.to_str().unwrap(),
        "--column",
        "l2_v",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr.contains("no column `l2_v`") && r.stderr.contains("time_s, mass_rel, l2_u"),
        "{}",
        r.stderr
    );
    let r = foehn(&["plot", csv.to_str().unwrap(), "-o", png.to_str().unwrap()]);
    assert!(
        r.code == Some(1) && r.stderr.contains("--column"),
        "{}",
        r.stderr
    );
}
