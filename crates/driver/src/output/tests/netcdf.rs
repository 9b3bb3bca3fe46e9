//! The NetCDF output read back: CF attributes, dimensions, values (missing values as the
//! fill value), deterministic bytes, atomic files (an output that fails leaves the ones
//! written before whole), `ncdump -h` where installed, and the reader's refusals.

use super::super::netcdf::{NetcdfOutput, OutputFile};
use super::super::{Snapshot, Vertical};
use super::{cases, Case};
use foehn_grid::Location;

fn write(case: &Case, dir: &std::path::Path, time: f64) -> std::path::PathBuf {
    let snapshot = Snapshot {
        time,
        ..case.snapshot.clone()
    };
    NetcdfOutput::new(dir, "jw")
        .write(&case.fields, &snapshot)
        .unwrap()
}

/// Every variable with its CF attributes, dimensions and values.
#[test]
fn read_back() {
    for case in cases() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(case, dir.path(), 86_400.0);
        assert_eq!(path.file_name().unwrap(), "jw_0001d00h00m00s.nc");
        let f = OutputFile::open(&path).unwrap();
        let grid = case.fields.grid();
        assert_eq!(
            f.text_attribute("", "Conventions").as_deref(),
            Some("CF-1.8")
        );
        assert_eq!(
            f.text_attribute("time", "units").as_deref(),
            Some("seconds since 2000-01-01 00:00:00")
        );
        assert_eq!(
            f.text_attribute("time", "calendar").as_deref(),
            Some("proleptic_gregorian")
        );
        assert_eq!(f.times().unwrap(), [86_400.0]);
        for (name, standard) in [
            ("clon", "longitude"),
            ("clat", "latitude"),
            ("elon", "longitude"),
            ("elat", "latitude"),
        ] {
            assert_eq!(f.text_attribute(name, "units").as_deref(), Some("radian"));
            assert_eq!(
                f.text_attribute(name, "standard_name").as_deref(),
                Some(standard)
            );
        }
        assert_eq!(
            f.text_attribute("clon", "bounds").as_deref(),
            Some("clon_bnds")
        );
        let (lon, lat) = f.cell_lon_lat().unwrap();
        assert_eq!(lon[7], grid.geometry.cell_lon[7].to_degrees());
        assert_eq!(lat.len(), grid.size(Location::Cell));
        let bnds = f.variable("clat_bnds").unwrap();
        assert_eq!(
            bnds.dims,
            [("ncells".to_string(), lat.len()), ("nv".to_string(), 3)]
        );
        let z = f.variable("z_ifc").unwrap();
        assert_eq!(z.dim("height_2"), Some(case.fields.nlev() + 1));
        for (info, field) in case.snapshot.iter() {
            let v = f.variable(info.name).unwrap();
            let standard = f
                .text_attribute(info.name, "standard_name")
                .unwrap_or_default();
            assert_eq!(standard, info.standard_name, "{}", info.name);
            assert_eq!(v.units, info.units);
            assert_eq!(v.long_name, info.long_name);
            let coords = f.text_attribute(info.name, "coordinates").unwrap();
            let horizontal = if info.location == Location::Edge {
                "nedges"
            } else {
                "ncells"
            };
            assert_eq!(
                coords,
                if horizontal == "nedges" {
                    "elat elon"
                } else {
                    "clat clon"
                }
            );
            let vertical = match info.vertical {
                Vertical::Surface => None,
                Vertical::Full => Some("height"),
                Vertical::Half => Some("height_2"),
                Vertical::Pressure => Some("plev"),
            };
            let names: Vec<&str> = v.dims.iter().map(|(n, _)| n.as_str()).collect();
            let mut want = vec!["time"];
            want.extend(vertical);
            want.push(horizontal);
            assert_eq!(names, want, "{}", info.name);
            let n = field.len();
            for (i, x) in v.values.iter().enumerate() {
                let (k, h) = (i / n, i % n);
                let y = field.get(h, k);
                assert!(
                    *x == y || (x.is_nan() && y.is_nan()),
                    "{} [{k}, {h}]: {x} {y}",
                    info.name
                );
            }
        }
        if case.fields.grid().is_limited_area() {
            // The first boundary row has no cell wind: written as the fill value.
            let u = f.variable("u").unwrap();
            assert!(u.values[0].is_nan());
        }
    }
}

/// A variable selection writes those variables with the values of the full file, the
/// cell centres and only the coordinates they use.
#[test]
fn variable_selection() {
    let case = cases()[0];
    let dir = tempfile::tempdir().unwrap();
    let full = OutputFile::open(&write(case, dir.path(), 0.0)).unwrap();
    let snapshot = Snapshot {
        time: 3600.0,
        ..case.snapshot.clone()
    };
    let path = NetcdfOutput::new(dir.path(), "jw")
        .with_variables(Some(vec!["ps".into(), "temp_p".into()]))
        .write(&case.fields, &snapshot)
        .unwrap();
    let f = OutputFile::open(&path).unwrap();
    let mut names = f.names();
    names.sort();
    assert_eq!(
        names,
        ["clat", "clon", "height", "height_2", "plev", "ps", "temp_p", "time"]
    );
    for name in ["ps", "temp_p", "clon", "clat"] {
        assert_eq!(
            f.variable(name).unwrap().values,
            full.variable(name).unwrap().values,
            "{name}"
        );
    }
    let only_vn = NetcdfOutput::new(dir.path(), "vn")
        .with_variables(Some(vec!["vn".into()]))
        .write(&case.fields, &snapshot)
        .unwrap();
    let names = OutputFile::open(&only_vn).unwrap().names();
    for name in ["elon", "elat", "z_mc", "vn"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    assert!(!names.iter().any(|n| n == "z_ifc" || n == "clon_bnds"));
}

/// A run's output path names the folder and the start of the file names.
#[test]
fn from_path() {
    let out = NetcdfOutput::from_path(std::path::Path::new("runs/jw.nc"));
    assert_eq!(
        out.path(21_600.0),
        std::path::Path::new("runs/jw_0000d06h00m00s.nc")
    );
    let out = NetcdfOutput::from_path(std::path::Path::new("jw.nc"));
    assert_eq!(
        out.path(0.0),
        std::path::Path::new("./jw_0000d00h00m00s.nc")
    );
}

/// The same snapshot gives the same bytes; no temporary file stays behind; a failed
/// output leaves those written before whole and readable.
#[test]
fn atomic_and_deterministic() {
    let case = cases()[1];
    let dir = tempfile::tempdir().unwrap();
    let first = write(case, dir.path(), 0.0);
    let bytes = std::fs::read(&first).unwrap();
    assert_eq!(write(case, dir.path(), 0.0), first);
    assert_eq!(std::fs::read(&first).unwrap(), bytes);
    let second = write(case, dir.path(), 21_600.0);
    // The third output's name is taken by a folder: that write fails.
    let out = NetcdfOutput::new(dir.path(), "jw");
    std::fs::create_dir(out.path(43_200.0)).unwrap();
    let snapshot = Snapshot {
        time: 43_200.0,
        ..case.snapshot.clone()
    };
    let e = out.write(&case.fields, &snapshot).unwrap_err().to_string();
    assert!(e.contains("jw_0000d12h00m00s.nc"), "{e}");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "jw_0000d00h00m00s.nc",
            "jw_0000d06h00m00s.nc",
            "jw_0000d12h00m00s.nc"
        ]
    );
    assert_eq!(std::fs::read(&first).unwrap(), bytes);
    assert_eq!(
        OutputFile::open(&second).unwrap().times().unwrap(),
        [21_600.0]
    );
}

/// The output of a command-line tool, `None` when it is not installed.
fn tool(name: &str, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new(name).args(args).output().ok()?;
    assert!(
        out.status.success(),
        "{name} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

/// `ncdump -h` (netcdf-bin) reads the header and CDO the grid, levels and time, where
/// installed: CDO sees the unstructured grid with its cell bounds and averages `ps`.
#[test]
fn ncdump_and_cdo_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(cases()[0], dir.path(), 0.0);
    let p = path.to_str().unwrap();
    match tool("ncdump", &["-h", p]) {
        None => eprintln!("ncdump not installed: skipped"),
        Some(text) => {
            for want in [
                "time = UNLIMITED ; // (1 currently)",
                ":Conventions = \"CF-1.8\"",
                "double ps(time, ncells)",
                "double vn(time, height, nedges)",
                "double w(time, height_2, ncells)",
                "ps:standard_name = \"surface_air_pressure\"",
                "temp_p:coordinates = \"clat clon\"",
                "ps:_FillValue = 9.96920996838687e+36",
            ] {
                assert!(text.contains(want), "missing `{want}` in\n{text}");
            }
        }
    }
    match tool("cdo", &["-s", "sinfon", p]) {
        None => eprintln!("cdo not installed: skipped"),
        Some(text) => {
            for want in [
                "unstructured",
                "cellbounds",
                "plev : 85000 Pa",
                "proleptic_gregorian",
            ] {
                assert!(text.contains(want), "missing `{want}` in\n{text}");
            }
            let mean = tool("cdo", &["-s", "outputf,%.3f", "-fldmean", "-selname,ps", p]).unwrap();
            let mean: f64 = mean.trim().parse().unwrap();
            assert!((mean - 100_000.0).abs() < 100.0, "{mean}");
        }
    }
}

/// A missing file, a file that is not NetCDF and a missing variable are named.
#[test]
fn reader_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.nc");
    let e = OutputFile::open(&missing).err().unwrap().to_string();
    assert!(e.contains("none.nc") && e.contains("no such file"), "{e}");
    let text = dir.path().join("text.nc");
    std::fs::write(&text, "not netcdf").unwrap();
    let e = OutputFile::open(&text).err().unwrap().to_string();
    assert!(
        e.contains("text.nc") && e.contains("not a NetCDF file"),
        "{e}"
    );
    let path = write(cases()[0], dir.path(), 0.0);
    let e = OutputFile::open(&path)
        .unwrap()
        .variable("psl")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no variable `psl`") && e.contains("ps,"), "{e}");
}
