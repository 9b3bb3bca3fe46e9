//! What is refused before libnetcdf sees a path, and how: a URL (libnetcdf would go to
//! the network), a folder, an empty file, a file that is not NetCDF, a missing file; each
//! error names the file and says what to give instead, without libnetcdf's raw codes.

use foehn_grid::io::read_grid;
use std::path::Path;

fn message(path: &Path) -> String {
    read_grid(path).unwrap_err().to_string()
}

#[test]
fn paths_that_are_not_grid_files_are_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder.nc");
    std::fs::create_dir(&folder).unwrap();
    let empty = dir.path().join("empty.nc");
    std::fs::write(&empty, b"").unwrap();
    let text = dir.path().join("text.nc");
    std::fs::write(&text, b"hello, world\n").unwrap();
    let npz = dir.path().join("fields.nc");
    std::fs::write(&npz, b"PK\x03\x04rest of a zip").unwrap();
    let cases: [(&Path, &[&str]); 6] = [
        (
            Path::new("https://example.com/r2b4.nc"),
            &["is a URL", "download"],
        ),
        (&folder, &["is a folder"]),
        (&empty, &["is empty"]),
        (&text, &["not a NetCDF file", "hello, world"]),
        (&npz, &["not a NetCDF file", "zip"]),
        (&dir.path().join("absent.nc"), &["does not exist", "r2b4"]),
    ];
    for (path, words) in cases {
        let e = message(path);
        assert!(e.contains(&*path.to_string_lossy()), "{e}");
        for w in words {
            assert!(e.contains(w), "`{w}` missing in: {e}");
        }
        assert!(!e.contains("netcdf error("), "raw libnetcdf text in: {e}");
    }
}

/// A classic file cut inside its header is reported as damaged or cut short, never as a
/// missing variable or with libnetcdf's bare code.
#[test]
fn files_cut_short_are_reported_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r2b0.nc");
    let grid = foehn_grid::Grid::icosahedral(2, 0, foehn_grid::EARTH_RADIUS).unwrap();
    foehn_grid::io::write_grid(&grid, &path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let cut = dir.path().join("cut.nc");
    for len in [8, 100, 300, 1000, 3000, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        let e = message(&cut);
        assert!(
            e.contains("cut short") || e.contains("truncated"),
            "{len} bytes: {e}"
        );
        assert!(!e.contains("netcdf error("), "{len} bytes: {e}");
    }
}
