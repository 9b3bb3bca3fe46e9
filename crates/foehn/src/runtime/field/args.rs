//! Program arguments: named fields and scalars, checked against a program at every call.

use super::{describe, Field};
use crate::error::{Error, Result};
use crate::ir::{self, Role, Scalar};
use foehn_grid::Grid;
use std::collections::BTreeMap;

/// The arguments of one program call: fields (inputs and outputs, updated in place)
/// and runtime scalars by name, and optionally the number of full levels (otherwise
/// inferred from the fields).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    fields: BTreeMap<String, Field>,
    scalars: BTreeMap<String, Scalar>,
    nlev: Option<usize>,
}

impl Args {
    /// No arguments.
    pub fn new() -> Args {
        Args::default()
    }

    /// Adds a field (builder style).
    pub fn with_field(mut self, name: &str, field: Field) -> Args {
        self.set_field(name, field);
        self
    }

    /// Adds a scalar (builder style).
    pub fn with_scalar(mut self, name: &str, value: impl Into<Scalar>) -> Args {
        self.set_scalar(name, value);
        self
    }

    /// Sets the number of full levels (builder style).
    pub fn with_nlev(mut self, nlev: usize) -> Args {
        self.nlev = Some(nlev);
        self
    }

    /// Adds or replaces a field.
    pub fn set_field(&mut self, name: &str, field: Field) {
        self.fields.insert(name.to_string(), field);
    }

    /// Adds or replaces a scalar.
    pub fn set_scalar(&mut self, name: &str, value: impl Into<Scalar>) {
        self.scalars.insert(name.to_string(), value.into());
    }

    /// Moves the program's argument fields out (in declaration order), with freshly
    /// allocated, poisoned temporaries in their places; give them back with
    /// [`Args::restore_program_fields`].
    pub fn take_program_fields(
        &mut self,
        program: &ir::Program,
        grid: &Grid,
        nlev: usize,
    ) -> Vec<Field> {
        program
            .fields
            .iter()
            .map(|d| match d.role {
                Role::Temp => Field::filled(grid, nlev, d.ty.dims.list(), d.ty.dtype.poison()),
                _ => self.take_field(&d.name).expect("arguments were checked"),
            })
            .collect()
    }

    /// Puts argument fields taken by [`Args::take_program_fields`] back (temporaries are dropped).
    pub fn restore_program_fields(&mut self, program: &ir::Program, fields: Vec<Field>) {
        for (d, f) in program.fields.iter().zip(fields) {
            if d.role != Role::Temp {
                self.set_field(&d.name, f);
            }
        }
    }

    /// A field by name.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.get(name)
    }

    /// A field by name, mutably.
    pub fn field_mut(&mut self, name: &str) -> Option<&mut Field> {
        self.fields.get_mut(name)
    }

    /// Removes and returns a field.
    pub fn take_field(&mut self, name: &str) -> Option<Field> {
        self.fields.remove(name)
    }

    /// A scalar by name.
    pub fn scalar(&self, name: &str) -> Option<Scalar> {
        self.scalars.get(name).copied()
    }

    /// All fields, by name.
    pub fn fields(&self) -> impl Iterator<Item = (&str, &Field)> {
        self.fields.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The explicitly set number of full levels.
    pub fn nlev(&self) -> Option<usize> {
        self.nlev
    }

    /// Checks the arguments against `program` on `grid` and returns `nlev`: every
    /// argument field present with the right element type and shape, every scalar
    /// present with the right type, nothing unknown. Errors name the argument and both
    /// shapes.
    pub fn check(&self, program: &ir::Program, grid: &Grid) -> Result<usize> {
        let err = |arg: &str, message: String| Error::Argument {
            program: program.name.clone(),
            arg: arg.to_string(),
            message,
        };
        let nlev = match self.nlev {
            Some(n) => n,
            None => program
                .fields
                .iter()
                .filter(|d| d.role != Role::Temp)
                .find_map(|d| {
                    let v = d.ty.dims.vertical?;
                    let levels = self.fields.get(&d.name)?.levels();
                    Some(if v == ir::VKind::Half {
                        levels.saturating_sub(1)
                    } else {
                        levels
                    })
                })
                .unwrap_or(1),
        };
        for d in program.fields.iter().filter(|d| d.role != Role::Temp) {
            let f = self.fields.get(&d.name).ok_or_else(|| {
                err(
                    &d.name,
                    format!("missing ({} field {})", d.role.name(), d.ty),
                )
            })?;
            let want = super::Field::grid_shape(grid, nlev, d.ty.dims);
            if f.dims() != d.ty.dims || f.shape() != want.as_slice() || f.dtype() != d.ty.dtype {
                return Err(err(
                    &d.name,
                    format!(
                        "expected {}, got {} (grid {}, nlev {nlev})",
                        describe(d.ty.dims, &want, d.ty.dtype),
                        f.describe(),
                        grid.name
                    ),
                ));
            }
        }
        for s in &program.scalars {
            let v = self
                .scalars
                .get(&s.name)
                .ok_or_else(|| err(&s.name, format!("missing (scalar {})", s.dtype)))?;
            if v.dtype() != s.dtype {
                return Err(err(
                    &s.name,
                    format!("expected a {} scalar, got {} ({v})", s.dtype, v.dtype()),
                ));
            }
        }
        for name in self.fields.keys() {
            if !program
                .fields
                .iter()
                .any(|d| &d.name == name && d.role != Role::Temp)
            {
                return Err(err(name, "not a field argument of the program".to_string()));
            }
        }
        for name in self.scalars.keys() {
            if !program.scalars.iter().any(|d| &d.name == name) {
                return Err(err(
                    name,
                    "not a scalar argument of the program".to_string(),
                ));
            }
        }
        Ok(nlev)
    }
}
