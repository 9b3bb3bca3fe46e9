//! Writing named fields ([`NamedField`]) to NetCDF (CF-style attributes) or `.npz`, for
//! `foehn grid fields`.
//!
//! NetCDF: classic "64-bit offset" (CDF-2; CDF-5 where a variable would pass CDF-2's
//! 4 GiB limit), one variable per field under its name, dimensions named as ICON4Py
//! names them (`Cell`, `Edge`, `Vertex`, `K`, `KHalf`, `E2C`, …). Where one name has two
//! sizes (ICON4Py's `wgtfacq_*` have a `K` of 3), the later size's dimension is
//! `NAME_SIZE` (`K_3`) and the variable says ICON4Py's dimensions in its
//! `icon4py_dimensions` attribute. Each variable has `long_name` and `units`, and
//! `icon_name` where ICON has one; masks are `byte` 0/1 with `flag_values` and
//! `flag_meanings` (and `dtype = "bool"`). The file holds no date or path: the same
//! fields always give the same bytes. It is written to a temporary file beside the
//! output and renamed into place.
//!
//! `.npz`: one member per field (`NAME.npy`), float64, int32 or bool, shape as listed.

use anyhow::{bail, Context, Result};
use foehn::runtime::field::npy::{save_npz, Array};
use foehn_icon::fields::named::{FieldData, NamedField};
use std::path::Path;

/// A global attribute value.
#[cfg(feature = "netcdf")]
#[derive(Debug, Clone, PartialEq)]
pub enum Global {
    /// Text.
    Text(String),
    /// A real number.
    Real(f64),
    /// An integer.
    Int(i32),
}

/// The file dimensions (name, size) in a fixed order and each field's dimension names:
/// the `preferred` sizes first (in their order, where used), then the others in order
/// of first use; a name met with a second size becomes `NAME_SIZE`.
#[cfg_attr(not(feature = "netcdf"), allow(dead_code))]
pub fn resolve_dimensions(
    fields: &[NamedField<'_>],
    preferred: &[(&str, usize)],
) -> (Vec<(String, usize)>, Vec<Vec<String>>) {
    let mut dims: Vec<(String, usize)> = Vec::new();
    let mut per_field = Vec::with_capacity(fields.len());
    let used = |name: &str, size: usize| {
        fields.iter().any(|f| {
            f.dims
                .iter()
                .zip(&f.shape)
                .any(|(d, &s)| *d == name && s == size)
        })
    };
    for &(name, size) in preferred {
        if used(name, size) {
            dims.push((name.to_string(), size));
        }
    }
    for f in fields {
        let mut names = Vec::with_capacity(f.dims.len());
        for (&d, &size) in f.dims.iter().zip(&f.shape) {
            let name = match dims.iter().find(|(n, _)| n == d) {
                Some((_, s)) if *s == size => d.to_string(),
                None => {
                    dims.push((d.to_string(), size));
                    d.to_string()
                }
                Some(_) => {
                    let alt = format!("{d}_{size}");
                    if !dims.iter().any(|(n, _)| *n == alt) {
                        dims.push((alt.clone(), size));
                    }
                    alt
                }
            };
            names.push(name);
        }
        per_field.push(names);
    }
    (dims, per_field)
}

/// Writes `fields` to the `.npz` (NumPy) file `path` (NetCDF is written as the fields
/// are computed: `fields_stream`).
pub fn write_npz(path: &Path, fields: &[NamedField<'_>]) -> Result<()> {
    write_npz_arrays(path, fields)
}

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// NetCDF (`.nc`).
    NetCdf,
    /// NumPy archive (`.npz`).
    Npz,
}

impl Format {
    /// The format of an output path by its extension; an error names the path and the
    /// extensions known.
    pub fn of(path: &Path) -> Result<Format> {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("nc") => Ok(Format::NetCdf),
            Some(e) if e.eq_ignore_ascii_case("npz") => Ok(Format::Npz),
            _ => bail!(
                "output {}: unknown file type; name it FILE.nc (NetCDF) or FILE.npz (NumPy)",
                path.display()
            ),
        }
    }
}

fn write_npz_arrays(path: &Path, fields: &[NamedField<'_>]) -> Result<()> {
    use foehn::runtime::field::FieldData as Data;
    let arrays: Vec<(&str, Array)> = fields
        .iter()
        .map(|f| {
            let data = match &f.data {
                FieldData::F64(d) => Data::F64(d.to_vec()),
                FieldData::I32(d) => Data::I32(d.to_vec()),
                FieldData::Bool(d) => Data::Bool(d.to_vec()),
            };
            let array = Array {
                shape: f.shape.clone(),
                data,
                file_dtype: None,
            };
            (f.name, array)
        })
        .collect();
    save_npz(path, arrays.iter().map(|(n, a)| (*n, a)))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// CDF-2 stores each variable's size in 32 bits.
#[cfg(feature = "netcdf")]
pub const CDF2_MAX_VARIABLE_BYTES: usize = (1 << 32) - 4;

/// The library's message without its code and prefix.
#[cfg(feature = "netcdf")]
pub fn library_error(e: &netcdf::Error) -> String {
    let text = e.to_string();
    let text = match text.strip_prefix("netcdf error(") {
        Some(rest) => rest.split_once("): ").map_or(rest, |(_, t)| t).to_string(),
        None => text,
    };
    format!("libnetcdf: {}", text.trim_start_matches("NetCDF: "))
}

/// The dimensions, global attributes and variables (with their attributes) of a
/// fields file.
#[cfg(feature = "netcdf")]
pub fn define(
    file: &mut netcdf::FileMut,
    fields: &[NamedField<'_>],
    dims: &[(String, usize)],
    names: &[Vec<String>],
    globals: &[(&str, Global)],
) -> std::result::Result<(), netcdf::Error> {
    use netcdf::AttributeValue;
    for (name, len) in dims {
        file.add_dimension(name, *len)?;
    }
    for (name, value) in globals {
        let value = match value {
            Global::Text(s) => AttributeValue::Str(s.clone()),
            Global::Real(x) => AttributeValue::Double(*x),
            Global::Int(i) => AttributeValue::Int(*i),
        };
        file.add_attribute(name, value)?;
    }
    for (f, ns) in fields.iter().zip(names) {
        let ns: Vec<&str> = ns.iter().map(String::as_str).collect();
        let mut var = match f.data {
            FieldData::F64(_) => file.add_variable::<f64>(f.name, &ns)?,
            FieldData::I32(_) => file.add_variable::<i32>(f.name, &ns)?,
            FieldData::Bool(_) => file.add_variable::<i8>(f.name, &ns)?,
        };
        var.put_attribute("long_name", f.long_name)?;
        var.put_attribute("units", f.units)?;
        if !f.icon_name.is_empty() {
            var.put_attribute("icon_name", f.icon_name)?;
        }
        if ns.iter().zip(f.dims).any(|(a, b)| a != b) {
            var.put_attribute("icon4py_dimensions", f.dims.join(" "))?;
        }
        if let FieldData::Bool(_) = f.data {
            var.put_attribute("flag_values", vec![0i8, 1i8])?;
            var.put_attribute("flag_meanings", "false true")?;
            var.put_attribute("dtype", "bool")?;
        }
    }
    file.enddef()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(
        name: &'static str,
        dims: &'static [&'static str],
        shape: Vec<usize>,
    ) -> NamedField<'static> {
        let n = shape.iter().product();
        NamedField::new(name, "", dims, shape, vec![0.0; n], "", "1")
    }

    /// A name with two sizes gets `NAME_SIZE` for the later one; preferred sizes come first.
    #[test]
    fn dimension_names() {
        let fields = [
            field("q", &["Cell", "K"], vec![4, 3]),
            field("a", &["Cell", "K"], vec![4, 8]),
            field("s", &[], vec![]),
            field("b", &["Edge", "E2C"], vec![6, 2]),
        ];
        let (dims, names) = resolve_dimensions(&fields, &[("Cell", 4), ("K", 8), ("Vertex", 2)]);
        let dims: Vec<(&str, usize)> = dims.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        assert_eq!(
            dims,
            [("Cell", 4), ("K", 8), ("K_3", 3), ("Edge", 6), ("E2C", 2)]
        );
        assert_eq!(names[0], ["Cell", "K_3"]);
        assert_eq!(names[1], ["Cell", "K"]);
        assert!(names[2].is_empty());
    }

    /// Output types go by extension; others are refused with the known ones named.
    #[test]
    fn formats() {
        assert_eq!(Format::of(Path::new("a.nc")).unwrap(), Format::NetCdf);
        assert_eq!(Format::of(Path::new("a.NPZ")).unwrap(), Format::Npz);
        let e = Format::of(Path::new("a.txt")).unwrap_err().to_string();
        assert!(
            e.contains("a.txt") && e.contains(".nc") && e.contains(".npz"),
            "{e}"
        );
    }
}
