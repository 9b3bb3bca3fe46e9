//! Grids by name or file for every command: generated from a name (`r2b4`,
//! `r2b4:spring`, `r2b6:cap:46,8,800`, a torus) or read from an ICON grid file.

use anyhow::Result;
use foehn_grid::{Grid, GridSpec};
use std::path::Path;

/// Builds a grid from a name, with an optional sphere radius.
pub fn build(name: &str, radius: Option<f64>) -> Result<Grid> {
    Ok(GridSpec::parse(name)?.build_with_radius(radius)?)
}

/// Loads a grid from a file path (if it exists or ends in `.nc`) or builds it from a name.
pub fn load(name_or_file: &str) -> Result<Grid> {
    let path = Path::new(name_or_file);
    if path.exists() || name_or_file.ends_with(".nc") {
        read_file(path)
    } else {
        build(name_or_file, None)
    }
}

/// Reads a grid file in this process (what `grid to-classic` does in the child).
#[cfg(feature = "netcdf")]
pub fn read_in_process(path: &Path) -> Result<Grid> {
    Ok(foehn_grid::io::read_grid(path)?)
}

/// Reads a grid file in this process (what `grid to-classic` does in the child).
#[cfg(not(feature = "netcdf"))]
pub fn read_in_process(path: &Path) -> Result<Grid> {
    read_file(path)
}

/// Reads a grid file; a NetCDF-4 (HDF5) file in a child process (`grid to-classic`),
/// whose crash on a damaged file becomes an error here.
#[cfg(feature = "netcdf")]
fn read_file(path: &Path) -> Result<Grid> {
    if !foehn_grid::io::is_hdf5(path) {
        return Ok(foehn_grid::io::read_grid(path)?);
    }
    let dir = tempfile::tempdir()?;
    let classic = dir.path().join("grid.nc");
    let out = std::process::Command::new(std::env::current_exe()?)
        .args(["grid", "to-classic"])
        .arg(path)
        .arg(&classic)
        .stdout(std::process::Stdio::null())
        .output()?;
    match out.status.code() {
        Some(0) => Ok(foehn_grid::io::read_grid(&classic)?),
        Some(1) => {
            let said = String::from_utf8_lossy(&out.stderr);
            let said = said.trim().trim_start_matches("error: ");
            anyhow::bail!("{said}")
        }
        _ => anyhow::bail!(
            "grid file {}: the NetCDF-4 (HDF5) reader crashed on it ({}): the file is damaged; \
             check it with `ncdump -h`, or convert a good copy with `nccopy -k cdf5`",
            path.display(),
            out.status
        ),
    }
}

#[cfg(not(feature = "netcdf"))]
fn read_file(path: &Path) -> Result<Grid> {
    anyhow::bail!(
        "cannot read {}: this foehn was built without NetCDF support (feature `netcdf`)",
        path.display()
    )
}
