//! Writing ICON grid files.

use super::layout::{dimensions, global_attributes, variables, Data, Var};
use super::open::library_error;
use crate::error::{GridError, Result};
use crate::grid::Grid;
use netcdf::{AttributeValue, FileMut, Options};
use std::path::Path;

/// Writes `grid` as an ICON grid file at `path`, replacing any file there.
///
/// The file is classic NetCDF "64-bit offset" (CDF-2), or CDF-5 where a variable would
/// exceed CDF-2's 4 GiB limit; the [module documentation](super) lists its contents. The output is deterministic: the same grid always gives the same
/// bytes. The file is written to a temporary file in the same directory and renamed into
/// place, so an interrupted write never leaves a truncated grid file at `path`.
pub fn write_grid(grid: &Grid, path: &Path) -> Result<()> {
    let dims = dimensions(grid);
    let globals = global_attributes(grid, path)?;
    let vars = variables(grid);
    let staged = foehn_fsio::Staged::new(path)
        .map_err(|e| file_error(path, format!("cannot be written: {e}")))?;
    let cdf5 = vars
        .iter()
        .any(|v| bytes(v, &dims) > CDF2_MAX_VARIABLE_BYTES);
    let options = if cdf5 {
        Options::_64BIT_DATA
    } else {
        Options::_64BIT_OFFSET
    };
    let nc = |context: String| {
        move |e: netcdf::Error| file_error(path, format!("{context} ({})", library_error(&e)))
    };
    let mut file = staged
        .create_by_path(|p| netcdf::create_with(p, options))
        .map_err(nc("cannot create".into()))?;
    define(&mut file, &dims, &globals, &vars)
        .map_err(nc("cannot define the file's layout".into()))?;
    for v in &vars {
        let mut var = file
            .variable_mut(v.name)
            .ok_or_else(|| file_error(path, format!("variable `{}` is not defined", v.name)))?;
        let written = match (v.data)() {
            Data::Int(d) => var.put_values(&d, ..),
            Data::Real(d) => var.put_values(&d, ..),
        };
        written.map_err(nc(format!("cannot write variable `{}`", v.name)))?;
    }
    file.close().map_err(nc("cannot close".into()))?;
    staged.commit().map_err(|e| {
        file_error(
            path,
            format!("cannot move the written file into place: {e}"),
        )
    })?;
    Ok(())
}

/// CDF-2 stores each variable's size in 32 bits.
const CDF2_MAX_VARIABLE_BYTES: usize = (1 << 32) - 4;

/// Size of a variable's data in bytes.
fn bytes(var: &Var<'_>, dims: &[(&'static str, usize)]) -> usize {
    let len = |d: &str| dims.iter().find(|x| x.0 == d).map_or(0, |x| x.1);
    let elem = if var.real { 8 } else { 4 };
    var.dims
        .iter()
        .fold(elem, |acc, d| acc.saturating_mul(len(d)))
}

fn file_error(path: &Path, message: String) -> GridError {
    GridError::File {
        path: path.to_path_buf(),
        message,
    }
}

fn define(
    file: &mut FileMut,
    dims: &[(&'static str, usize)],
    globals: &[(&'static str, AttributeValue)],
    vars: &[Var<'_>],
) -> std::result::Result<(), netcdf::Error> {
    for &(name, len) in dims {
        file.add_dimension(name, len)?;
    }
    for (name, value) in globals {
        file.add_attribute(name, value.clone())?;
    }
    for v in vars {
        let mut var = if v.real {
            file.add_variable::<f64>(v.name, &v.dims)?
        } else {
            file.add_variable::<i32>(v.name, &v.dims)?
        };
        for (key, value) in &v.attrs {
            var.put_attribute(key, value.as_str())?;
        }
    }
    file.enddef()
}
