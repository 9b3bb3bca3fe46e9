//! Grid names and sizes, and grid files from elsewhere: refused before anything is
//! allocated or computed, with the limit or the inconsistency named.

use super::{foehn, refused};
use std::path::{Path, PathBuf};

/// Oversized, non-finite and absurd sizes are clear errors naming the limit, before
/// anything is allocated (these aborted or panicked before).
#[test]
fn oversized_and_nonsensical_sizes_are_refused_with_the_limit() {
    let cases: [(&[&str], &[&str]); 11] = [
        (&["grid", "info", "r2b12"], &["R2B12", "FOEHN_MAX_CELLS"]),
        (&["run", "--grid", "r9b9"], &["FOEHN_MAX_CELLS"]),
        (
            &["grid", "info", "torus_1000000000mx1000000000m_res1m"],
            &["FOEHN_MAX_CELLS"],
        ),
        (&["grid", "info", "torus_infmx1000m_res100m"], &["finite"]),
        (&["explain", "divergence", "--levels", "0"], &["1 to 1000"]),
        (
            &["bench", "--programs", "divergence", "--levels", "0"],
            &["1 to 1000"],
        ),
        (&["run", "--levels", "18446744073709551615"], &["1 to 1000"]),
        (&["run", "--levels", "100000000"], &["1 to 1000"]),
        (&["grid", "info", "r2b4x"], &["unknown grid", "r2b4"]),
        (
            &[
                "explain",
                "apply_diffusion_to_vn",
                "--variant",
                "limitd_area=true",
            ],
            &["limitd_area", "not a static argument", "limited_area"],
        ),
        (
            &["explain", "divergence", "--variant", "nonsense=7"],
            &["nonsense", "none"],
        ),
    ];
    for (args, words) in cases {
        refused(&foehn(args), words);
    }
}

/// Paths that are not grid files are refused before libnetcdf sees them (a URL made it
/// go to the network; a folder gave "Unknown file format"), each saying what to give.
#[test]
fn paths_that_are_not_grid_files_say_what_to_give() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder.nc");
    std::fs::create_dir(&folder).unwrap();
    let text = dir.path().join("notes.nc");
    std::fs::write(&text, "my notes\n").unwrap();
    let empty = dir.path().join("empty.nc");
    std::fs::write(&empty, "").unwrap();
    let url = PathBuf::from("https://example.com/icon_grid_0013_R02B04_G.nc");
    let cases: [(&Path, &[&str]); 5] = [
        (&url, &["is a URL", "download"]),
        (&folder, &["is a folder"]),
        (&text, &["not a NetCDF file", "my notes"]),
        (&empty, &["is empty"]),
        (&dir.path().join("absent.nc"), &["does not exist", "r2b4"]),
    ];
    for (path, words) in cases {
        let r = foehn(&["grid".as_ref(), "info".as_ref(), path.as_os_str()]);
        refused(&r, words);
        assert!(r.stderr.contains(&*path.to_string_lossy()), "{}", r.stderr);
    }
}

/// A grid file cut short (at any length) is reported as cut short or truncated, never
/// as a missing variable or libnetcdf's bare "Invalid argument".
#[test]
fn grid_files_cut_short_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.nc");
    assert_eq!(
        foehn(&[
            "grid".as_ref(),
            "generate".as_ref(),
            "r2b0".as_ref(),
            "-o".as_ref(),
            whole.as_os_str()
        ])
        .code,
        Some(0)
    );
    let bytes = std::fs::read(&whole).unwrap();
    let cut = dir.path().join("cut.nc");
    for len in [4, 100, 1000, bytes.len() / 2, bytes.len() - 8] {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        let r = foehn(&["grid".as_ref(), "info".as_ref(), cut.as_os_str()]);
        refused(&r, &["cut.nc"]);
        assert!(
            r.stderr.contains("cut short") || r.stderr.contains("truncated"),
            "{len} bytes: {}",
            r.stderr
        );
    }
}

/// An ICON-style grid file (no foehn content hash vouches for it): a copy of a foehn
/// file whose `foehn_grid_kind` attribute is renamed in the classic header, so the
/// reader treats it as a file from elsewhere.
fn icon_style(dir: &Path) -> PathBuf {
    let path = dir.join("icon_grid.nc");
    let r = foehn(&[
        "grid".as_ref(),
        "generate".as_ref(),
        "r2b1".as_ref(),
        "-o".as_ref(),
        path.as_os_str(),
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let mut bytes = std::fs::read(&path).unwrap();
    let (from, to) = (b"foehn_grid_kind", b"other_grid_kind");
    let at = bytes
        .windows(from.len())
        .position(|w| w == from)
        .expect("foehn files carry foehn_grid_kind");
    bytes[at..at + to.len()].copy_from_slice(to);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Sets one entry of an integer or real variable of a classic file.
fn spoil<T: netcdf::NcTypeDescriptor + Copy>(path: &Path, var: &str, at: &[usize], value: T) {
    let mut f = netcdf::append(path).unwrap();
    f.variable_mut(var).unwrap().put_value(value, at).unwrap();
}

/// ICON-style files with a negative neighbour index in a global grid, tables that
/// disagree, a cell whose vertices are listed the wrong way round (negative area) or a
/// NaN position are refused naming the variable; before, `run` printed NaN fields.
#[test]
fn inconsistent_grid_files_from_elsewhere_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let plain = icon_style(dir.path());
    let r = foehn(&["grid".as_ref(), "info".as_ref(), plain.as_os_str()]);
    assert_eq!(r.code, Some(0), "the unspoilt copy reads: {}", r.stderr);
    type Spoil = fn(&Path);
    let cases: [(Spoil, &[&str]); 5] = [
        (
            |p| spoil(p, "adjacent_cell_of_edge", &[1, 3], -5i32),
            &["adjacent_cell_of_edge", "without boundary"],
        ),
        (
            |p| spoil(p, "edge_of_cell", &[0, 0], 77i32),
            &["edge_of_cell", "disagree"],
        ),
        (
            |p| {
                let f = netcdf::open(p).unwrap();
                let v = f.variable("vertex_of_cell").unwrap();
                let (a, b): (i32, i32) =
                    (v.get_value([0, 4]).unwrap(), v.get_value([1, 4]).unwrap());
                drop(f);
                spoil(p, "vertex_of_cell", &[0, 4], b);
                spoil(p, "vertex_of_cell", &[1, 4], a);
            },
            &["cell_area", "not positive"],
        ),
        (
            |p| spoil(p, "cell_circumcenter_cartesian_x", &[7], f64::NAN),
            &["not a finite number"],
        ),
        (
            |p| spoil(p, "cells_of_vertex", &[2, 5], 3i32),
            &["disagree"],
        ),
    ];
    for (i, (spoil_it, words)) in cases.into_iter().enumerate() {
        let path = dir.path().join(format!("spoilt{i}.nc"));
        std::fs::copy(&plain, &path).unwrap();
        spoil_it(&path);
        for args in [
            &["grid", "info"][..],
            &["run", "--levels", "2", "--steps", "1", "--grid"][..],
        ] {
            let mut all: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
            all.push(path.as_os_str());
            let r = foehn(&all);
            refused(&r, words);
            assert!(r.stderr.contains(&format!("spoilt{i}.nc")), "{}", r.stderr);
        }
    }
}

/// A damaged NetCDF-4 (HDF5) file, on which the HDF5 library frees an invalid pointer
/// (found by fuzzing, docs/fuzzing.md), is read in a child process: whatever the library
/// does, foehn ends with a clear error.
#[test]
fn damaged_netcdf4_files_are_read_in_a_child_process() {
    let damaged = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../grid/tests/fuzz_corpus/grid_file_pending/hdf5_invalid_free");
    let r = foehn(&["grid".as_ref(), "info".as_ref(), damaged.as_os_str()]);
    refused(&r, &["hdf5_invalid_free", "HDF5"]);
}
