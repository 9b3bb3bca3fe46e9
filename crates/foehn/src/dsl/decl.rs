//! Program declarations: fields, scalars, static arguments and stencils, collected by
//! the [`ProgramBuilder`] while a program's definition function runs.

use super::expr::{EKind, Expr};
use super::ops::IntoDims;
use crate::error::{CheckError, CheckErrorKind};
use crate::ir::{Bound, DType, Dims, Domain, Role, SrcLoc, StaticValue, Variant};
use std::panic::Location as Caller;

/// The values a static (compile-time) argument may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StaticValues {
    /// `false` and `true`.
    Bool,
    /// The listed integers; an empty list means "any value, given when specialising".
    I32(Vec<i32>),
}

/// A static argument declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticDecl {
    /// Name.
    pub name: String,
    /// Allowed values.
    pub values: StaticValues,
}

pub(crate) struct FieldDeclDsl {
    pub(crate) name: String,
    pub(crate) dims: Dims,
    pub(crate) dtype: DType,
    pub(crate) role: Role,
}

/// One stencil declared in a program: outputs, expression, domain. Returned by
/// [`ProgramBuilder::stencil`] to set the domain in builder style.
pub struct StencilDecl {
    pub(crate) name: String,
    pub(crate) outputs: Vec<Expr>,
    pub(crate) expr: Expr,
    pub(crate) domain: Domain,
    pub(crate) loc: &'static Caller<'static>,
}

impl StencilDecl {
    /// Sets the horizontal output range `[lo, hi)` (default: the whole location),
    /// e.g. `.horizontal(start(Zone::Nudging(2)), end(Zone::Local))`.
    pub fn horizontal(&mut self, lo: impl Into<Bound>, hi: impl Into<Bound>) -> &mut StencilDecl {
        self.domain.horizontal = (lo.into(), hi.into());
        self
    }

    /// Sets the vertical output range `[lo, hi)` (default: all levels of the outputs'
    /// kind), e.g. `.vertical(1, nlev())`.
    pub fn vertical(&mut self, lo: impl Into<Bound>, hi: impl Into<Bound>) -> &mut StencilDecl {
        self.domain.vertical = (lo.into(), hi.into());
        self
    }
}

/// Output fields of a stencil: one field handle, a tuple or a slice of them.
pub trait IntoOutputs {
    /// The handles.
    fn into_outputs(self) -> Vec<Expr>;
}

impl IntoOutputs for &Expr {
    fn into_outputs(self) -> Vec<Expr> {
        vec![self.clone()]
    }
}
impl IntoOutputs for (&Expr, &Expr) {
    fn into_outputs(self) -> Vec<Expr> {
        vec![self.0.clone(), self.1.clone()]
    }
}
impl IntoOutputs for (&Expr, &Expr, &Expr) {
    fn into_outputs(self) -> Vec<Expr> {
        vec![self.0.clone(), self.1.clone(), self.2.clone()]
    }
}
impl IntoOutputs for &[&Expr] {
    fn into_outputs(self) -> Vec<Expr> {
        self.iter().map(|&e| e.clone()).collect()
    }
}
impl IntoOutputs for Vec<Expr> {
    fn into_outputs(self) -> Vec<Expr> {
        self
    }
}

/// Collects a program's declarations and stencils while its definition function runs.
pub struct ProgramBuilder {
    pub(crate) name: String,
    variant: Variant,
    statics: Vec<StaticDecl>,
    pub(crate) fields: Vec<FieldDeclDsl>,
    pub(crate) scalars: Vec<(String, DType)>,
    pub(crate) stencils: Vec<StencilDecl>,
    errors: Vec<CheckError>,
}

impl ProgramBuilder {
    /// An empty builder for the variant `variant` of program `name`.
    pub(crate) fn new(name: String, variant: Variant, statics: Vec<StaticDecl>) -> ProgramBuilder {
        ProgramBuilder {
            name,
            variant,
            statics,
            fields: vec![],
            scalars: vec![],
            stencils: vec![],
            errors: vec![],
        }
    }

    /// The first declaration error, if any.
    pub(crate) fn first_error(&self) -> Option<&CheckError> {
        self.errors.first()
    }

    fn error(&mut self, message: String, loc: &'static Caller<'static>) {
        self.errors.push(CheckError {
            program: self.name.clone(),
            stencil: None,
            kind: CheckErrorKind::Declaration,
            message,
            expr: None,
            span: Some(SrcLoc::from_panic(loc)),
        });
    }

    fn check_name(&mut self, name: &str, loc: &'static Caller<'static>) {
        if self.fields.iter().any(|f| f.name == name) || self.scalars.iter().any(|s| s.0 == name) {
            self.error(format!("`{name}` is declared twice"), loc);
        }
    }

    #[track_caller]
    fn field(&mut self, name: &str, dims: impl IntoDims, dtype: DType, role: Role) -> Expr {
        let loc = Caller::caller();
        self.check_name(name, loc);
        let list = dims.into_dims();
        let dims = Dims::from_list(&list).unwrap_or_else(|m| {
            self.error(format!("field `{name}`: {m}"), loc);
            Dims::SCALAR
        });
        let id = self.fields.len() as u32;
        self.fields.push(FieldDeclDsl {
            name: name.to_string(),
            dims,
            dtype,
            role,
        });
        Expr::make(
            EKind::Field {
                id,
                name: name.to_string(),
            },
            loc,
        )
    }

    /// Declares an input field, e.g. `b.input("vn", (EDGE, K), F64)`.
    #[track_caller]
    pub fn input(&mut self, name: &str, dims: impl IntoDims, dtype: DType) -> Expr {
        self.field(name, dims, dtype, Role::In)
    }

    /// Declares an output field (written by stencils; untouched outside their domains).
    #[track_caller]
    pub fn output(&mut self, name: &str, dims: impl IntoDims, dtype: DType) -> Expr {
        self.field(name, dims, dtype, Role::Out)
    }

    /// Declares a field that is both read and written.
    #[track_caller]
    pub fn inout(&mut self, name: &str, dims: impl IntoDims, dtype: DType) -> Expr {
        self.field(name, dims, dtype, Role::InOut)
    }

    /// Declares a program-internal temporary (not an argument): written by one stencil,
    /// read by later ones.
    #[track_caller]
    pub fn temporary(&mut self, name: &str, dims: impl IntoDims, dtype: DType) -> Expr {
        self.field(name, dims, dtype, Role::Temp)
    }

    /// Declares a runtime scalar argument.
    #[track_caller]
    pub fn scalar(&mut self, name: &str, dtype: DType) -> Expr {
        let loc = Caller::caller();
        self.check_name(name, loc);
        let id = self.scalars.len() as u32;
        self.scalars.push((name.to_string(), dtype));
        Expr::make(
            EKind::Scalar {
                id,
                name: name.to_string(),
            },
            loc,
        )
    }

    fn static_value(&mut self, name: &str, loc: &'static Caller<'static>) -> Option<StaticValue> {
        if !self.statics.iter().any(|s| s.name == name) {
            self.error(
                format!("static `{name}` is not declared on the program"),
                loc,
            );
            return None;
        }
        self.variant.get(name)
    }

    /// The value of a boolean static argument in the variant being built.
    #[track_caller]
    pub fn static_bool(&mut self, name: &str) -> bool {
        let loc = Caller::caller();
        match self.static_value(name, loc) {
            Some(StaticValue::Bool(b)) => b,
            Some(v) => {
                self.error(format!("static `{name}` is {v}, not a bool"), loc);
                false
            }
            None => false,
        }
    }

    /// The value of an integer static argument in the variant being built.
    #[track_caller]
    pub fn static_i32(&mut self, name: &str) -> i32 {
        let loc = Caller::caller();
        match self.static_value(name, loc) {
            Some(StaticValue::I32(i)) => i,
            Some(v) => {
                self.error(format!("static `{name}` is {v}, not an i32"), loc);
                0
            }
            None => 0,
        }
    }

    /// The variant being built.
    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// Applies a field operator: evaluates `expr` at every point of the domain and writes
    /// it to `outputs` (a tuple expression for several outputs). The domain defaults to
    /// the whole field; narrow it with [`StencilDecl::horizontal`] / [`StencilDecl::vertical`].
    #[track_caller]
    pub fn stencil(
        &mut self,
        name: &str,
        outputs: impl IntoOutputs,
        expr: impl Into<Expr>,
    ) -> &mut StencilDecl {
        let loc = Caller::caller();
        if self.stencils.iter().any(|s| s.name == name) {
            self.error(format!("stencil `{name}` is declared twice"), loc);
        }
        self.stencils.push(StencilDecl {
            name: name.to_string(),
            outputs: outputs.into_outputs(),
            expr: expr.into(),
            domain: Domain::default(),
            loc,
        });
        self.stencils.last_mut().unwrap()
    }
}
