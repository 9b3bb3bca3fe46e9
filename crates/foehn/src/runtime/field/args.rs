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

    /// Checks the arguments against `program`, then runs `body` on the program's fields in
    /// declaration order (argument fields moved out, freshly allocated poisoned temporaries
    /// in their places), the level count and the program's scalars in declaration order;
    /// the argument fields are put back afterwards, whatever `body` returns.
    pub fn with_program_fields<R>(
        &mut self,
        program: &ir::Program,
        grid: &Grid,
        body: impl FnOnce(&mut [Field], usize, &[Scalar]) -> Result<R>,
    ) -> Result<R> {
        let nlev = self.check(program, grid)?;
        let scalars: Vec<Scalar> = program
            .scalars
            .iter()
            .map(|s| self.scalar(&s.name).expect("arguments were checked"))
            .collect();
        let mut fields: Vec<Field> = program
            .fields
            .iter()
            .map(|d| match d.role {
                Role::Temp => Field::filled(grid, nlev, d.ty.dims.list(), d.ty.dtype.poison()),
                _ => self.take_field(&d.name).expect("arguments were checked"),
            })
            .collect();
        let result = body(&mut fields, nlev, &scalars);
        for (d, f) in program.fields.iter().zip(fields) {
            if d.role != Role::Temp {
                self.set_field(&d.name, f);
            }
        }
        result
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

    /// All fields, mutably.
    pub fn fields_mut(&mut self) -> impl Iterator<Item = &mut Field> {
        self.fields.values_mut()
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
            check_field(program, d, f, grid, nlev)?;
        }
        for s in &program.scalars {
            let v = self
                .scalars
                .get(&s.name)
                .ok_or_else(|| err(&s.name, format!("missing (scalar {})", s.dtype)))?;
            check_scalar(program, s, *v)?;
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

/// What an argument check needs of a field, owned ([`super::Field`]) or borrowed
/// ([`super::FieldView`]).
pub trait Shaped {
    /// The dimensions.
    fn dims(&self) -> ir::Dims;
    /// The shape.
    fn shape(&self) -> &[usize];
    /// The element type.
    fn dtype(&self) -> ir::DType;
    /// Dims, shape and type, for messages.
    fn describe(&self) -> String;
}

impl Shaped for super::Field {
    fn dims(&self) -> ir::Dims {
        super::Field::dims(self)
    }
    fn shape(&self) -> &[usize] {
        super::Field::shape(self)
    }
    fn dtype(&self) -> ir::DType {
        super::Field::dtype(self)
    }
    fn describe(&self) -> String {
        super::Field::describe(self)
    }
}

impl Shaped for super::FieldView<'_> {
    fn dims(&self) -> ir::Dims {
        super::FieldView::dims(self)
    }
    fn shape(&self) -> &[usize] {
        super::FieldView::shape(self)
    }
    fn dtype(&self) -> ir::DType {
        super::FieldView::dtype(self)
    }
    fn describe(&self) -> String {
        super::FieldView::describe(self)
    }
}

/// Checks one argument field against its declaration on `grid` with `nlev` levels:
/// dimensions, shape and element type; the error names the argument and both shapes.
pub fn check_field(
    program: &ir::Program,
    d: &ir::FieldDecl,
    f: &impl Shaped,
    grid: &Grid,
    nlev: usize,
) -> Result<()> {
    let want = super::Field::grid_shape(grid, nlev, d.ty.dims);
    if f.dims() != d.ty.dims || f.shape() != want.as_slice() || f.dtype() != d.ty.dtype {
        return Err(Error::Argument {
            program: program.name.clone(),
            arg: d.name.clone(),
            message: format!(
                "expected {}, got {} (grid {}, nlev {nlev})",
                describe(d.ty.dims, &want, d.ty.dtype),
                f.describe(),
                grid.name
            ),
        });
    }
    Ok(())
}

/// Checks one scalar argument's type against its declaration.
pub fn check_scalar(program: &ir::Program, s: &ir::ScalarDecl, v: Scalar) -> Result<()> {
    if v.dtype() != s.dtype {
        return Err(Error::Argument {
            program: program.name.clone(),
            arg: s.name.clone(),
            message: format!("expected a {} scalar, got {} ({v})", s.dtype, v.dtype()),
        });
    }
    Ok(())
}

/// Checks arguments given by position against `program` on `grid` with `nlev` levels:
/// `fields` are the program's non-temporary fields and `scalars` its scalars, both in
/// declaration order (counts, shapes, element types), as [`Args::check`] does for named
/// arguments.
pub fn check_positional(
    program: &ir::Program,
    grid: &Grid,
    nlev: usize,
    fields: &[impl Shaped],
    scalars: &[Scalar],
) -> Result<()> {
    let decls: Vec<&ir::FieldDecl> = program
        .fields
        .iter()
        .filter(|d| d.role != Role::Temp)
        .collect();
    if decls.len() != fields.len() || program.scalars.len() != scalars.len() {
        return Err(Error::Argument {
            program: program.name.clone(),
            arg: "-".into(),
            message: format!(
                "{} fields and {} scalars given by position, the program has {} and {}",
                fields.len(),
                scalars.len(),
                decls.len(),
                program.scalars.len()
            ),
        });
    }
    for (d, f) in decls.into_iter().zip(fields) {
        check_field(program, d, f, grid, nlev)?;
    }
    for (s, v) in program.scalars.iter().zip(scalars) {
        check_scalar(program, s, *v)?;
    }
    Ok(())
}
