//! Checked access to the dimensions, variables and attributes of an open NetCDF file:
//! every failure becomes a [`GridError`] naming the file and the variable.

use super::names::global;
use super::open::{library_error, type_name, value_text};
use crate::error::{GridError, Result};
use netcdf::types::NcVariableType;
use netcdf::{AttributeValue, Variable};
use std::path::Path;

/// An open grid file and its path (for error messages).
pub(crate) struct Reader<'f> {
    pub file: &'f netcdf::File,
    pub path: &'f Path,
}

/// A dimension as a variable is expected to use it: its name and length.
pub(crate) type Dim = (&'static str, usize);

impl<'f> Reader<'f> {
    /// `MissingVariable` for `name`, or a `File` error if the file holds no variables at
    /// all (a header cut short, or not a grid file).
    pub fn missing(&self, name: &str) -> GridError {
        if let Some(e) = self.empty(name) {
            return e;
        }
        GridError::MissingVariable {
            path: self.path.to_path_buf(),
            variable: name.to_string(),
        }
    }

    /// The error for a file that holds no variables at all (a classic header cut short
    /// reads as an empty file), found while looking for `name`.
    fn empty(&self, name: &str) -> Option<GridError> {
        self.file.variables().next().is_none().then(|| {
            self.failure(format!(
                "holds no variables at all (looking for `{name}`): it was cut short or is not \
                 a grid file"
            ))
        })
    }

    /// `BadVariable` for `name`.
    pub fn bad(&self, name: &str, message: impl Into<String>) -> GridError {
        GridError::BadVariable {
            path: self.path.to_path_buf(),
            variable: name.to_string(),
            message: message.into(),
        }
    }

    /// `File` error with a message.
    pub fn failure(&self, message: impl Into<String>) -> GridError {
        GridError::File {
            path: self.path.to_path_buf(),
            message: message.into(),
        }
    }

    /// Whether the file has a variable.
    pub fn has(&self, name: &str) -> bool {
        self.file.variable(name).is_some()
    }

    /// Length of a dimension the file must define.
    pub fn dim_len(&self, name: &str) -> Result<usize> {
        self.file.dimension_len(name).ok_or_else(|| {
            self.empty(name).unwrap_or_else(|| {
                self.failure(format!(
                    "has no dimension `{name}` (ICON grid files define it)"
                ))
            })
        })
    }

    fn var(&self, name: &str) -> Result<Variable<'f>> {
        self.file.variable(name).ok_or_else(|| self.missing(name))
    }

    /// Reads a whole variable after checking its element type.
    fn values<T: netcdf::NcTypeDescriptor + Copy>(
        &self,
        var: &Variable<'_>,
        name: &str,
        int: bool,
    ) -> Result<Vec<T>> {
        match (var.vartype(), int) {
            (NcVariableType::Int(_), _) | (NcVariableType::Float(_), false) => {}
            (t, _) => {
                let want = if int {
                    "an integer type"
                } else {
                    "a numeric type"
                };
                return Err(self.bad(name, format!("has type {}, expected {want}", type_name(&t))));
            }
        }
        var.get_values::<T, _>(..)
            .map_err(|e| self.bad(name, format!("cannot be read: {}", library_error(&e))))
    }

    /// The dimensions of a variable as (name, length).
    fn shape(var: &Variable<'_>) -> Vec<(String, usize)> {
        var.dimensions()
            .iter()
            .map(|d| (d.name(), d.len()))
            .collect()
    }

    fn one_dim<T: netcdf::NcTypeDescriptor + Copy>(
        &self,
        name: &str,
        dim: Dim,
        int: bool,
    ) -> Result<Vec<T>> {
        let var = self.var(name)?;
        match Self::shape(&var).as_slice() {
            [(_, len)] if *len == dim.1 => self.values(&var, name, int),
            [(_, len)] => Err(self.bad(
                name,
                format!(
                    "has {len} entries, expected {} (dimension `{}`)",
                    dim.1, dim.0
                ),
            )),
            s => Err(self.bad(
                name,
                format!("has {} dimensions, expected 1 (`{}`)", s.len(), dim.0),
            )),
        }
    }

    /// A 1-D integer variable of the given dimension.
    pub fn ints(&self, name: &str, dim: Dim) -> Result<Vec<i32>> {
        self.one_dim(name, dim, true)
    }

    /// A 1-D numeric variable of the given dimension, as `f64`.
    pub fn reals(&self, name: &str, dim: Dim) -> Result<Vec<f64>> {
        self.one_dim(name, dim, false)
    }

    /// A 2-D integer table of `count` rows of `width` entries, returned row-major
    /// `[count, width]`. ICON stores such tables as `(width, count)`; `(count, width)` is
    /// accepted too (by dimension size, and by name where the sizes are equal).
    pub fn int_table(&self, name: &str, width: Dim, count: Dim) -> Result<Vec<i32>> {
        let var = self.var(name)?;
        let shape = Self::shape(&var);
        let transposed = match shape.as_slice() {
            [(a, wa), (_, nb)] if (*wa, *nb) == (width.1, count.1) => {
                // Equal sizes are told apart by name.
                !(width.1 == count.1 && a == count.0)
            }
            [(_, na), (_, wb)] if (*na, *wb) == (count.1, width.1) => false,
            [(_, a), (_, b)] => {
                return Err(self.bad(
                    name,
                    format!(
                        "has {a} x {b} entries, expected {} x {} (dimension `{}`)",
                        width.1, count.1, count.0
                    ),
                ))
            }
            s => {
                return Err(self.bad(
                    name,
                    format!(
                        "has {} dimensions, expected 2 (`{}`, `{}`)",
                        s.len(),
                        width.0,
                        count.0
                    ),
                ))
            }
        };
        let data: Vec<i32> = self.values(&var, name, true)?;
        Ok(if transposed {
            let n = count.1;
            (0..n * width.1)
                .map(|i| data[(i % width.1) * n + i / width.1])
                .collect()
        } else {
            data
        })
    }

    /// A text attribute of a variable, if present.
    pub fn var_text(&self, name: &str, key: &str) -> Option<String> {
        let value = self.file.variable(name)?.attribute(key)?.value().ok()?;
        String::try_from(value).ok()
    }

    fn global_value(&self, name: &str) -> Result<Option<AttributeValue>> {
        self.file
            .attribute(name)
            .map(|a| a.value())
            .transpose()
            .map_err(|e| {
                self.bad(
                    &global(name),
                    format!("cannot be read: {}", library_error(&e)),
                )
            })
    }

    /// A numeric global attribute, if present.
    pub fn attr_f64(&self, name: &str) -> Result<Option<f64>> {
        self.global_value(name)?
            .map(|v| {
                f64::try_from(v.clone()).map_err(|_| {
                    self.bad(
                        &global(name),
                        format!("is {}, expected a number", value_text(&v)),
                    )
                })
            })
            .transpose()
    }

    /// An integer global attribute, if present.
    pub fn attr_int(&self, name: &str) -> Result<Option<i64>> {
        self.global_value(name)?
            .map(|v| {
                i64::try_from(v.clone()).map_err(|_| {
                    self.bad(
                        &global(name),
                        format!("is {}, expected an integer", value_text(&v)),
                    )
                })
            })
            .transpose()
    }

    /// A text global attribute, if present.
    pub fn attr_text(&self, name: &str) -> Result<Option<String>> {
        self.global_value(name)?
            .map(|v| {
                String::try_from(v.clone()).map_err(|_| {
                    self.bad(
                        &global(name),
                        format!("is {}, expected text", value_text(&v)),
                    )
                })
            })
            .transpose()
    }

    /// Rejects a classic-format file shorter than its variables' data: libnetcdf reads
    /// data past the end of such a file as zeros.
    pub fn check_size(&self) -> Result<()> {
        let size = std::fs::metadata(self.path).map_or(0, |m| m.len());
        let needed = self
            .file
            .variables()
            .map(|v| (v.len() as u64).saturating_mul(v.vartype().size() as u64))
            .fold(0u64, u64::saturating_add);
        if size < needed {
            return Err(self.failure(format!(
                "is truncated: it has {size} bytes, but its variables need at least {needed}"
            )));
        }
        Ok(())
    }

    /// A global attribute the file must have.
    pub fn require<T>(&self, name: &str, value: Option<T>) -> Result<T> {
        value.ok_or_else(|| self.missing(&global(name)))
    }
}
