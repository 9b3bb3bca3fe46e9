//! Programs: field/scalar/static declarations and stencils (field operator applications
//! with output domains), specialised per variant into checked IR.

use super::expr::{EKind, Expr};
use super::ops::IntoDims;
use crate::error::{CheckError, CheckErrorKind, Error, Result};
use crate::ir::{self, Bound, DType, Dims, Domain, Role, SrcLoc, StaticValue, Variant};
use std::panic::Location as Caller;
use std::sync::Arc;

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

type DefineFn = dyn Fn(&mut ProgramBuilder) + Send + Sync;

/// A DSL program definition: a name, static arguments, and a Rust function that
/// declares fields and stencils. Each variant (one value per static argument) is
/// built by calling the function and checked into its own [`ir::Program`].
///
/// ```
/// use foehn::dsl::prelude::*;
/// let p = ProgramDef::new("scale", |b| {
///     let x = b.input("x", (CELL, K), F64);
///     let a = b.scalar("a", F64);
///     let y = b.output("y", (CELL, K), F64);
///     b.stencil("scale", &y, &a * &x);
/// });
/// let ir = p.specialize(&Variant::new()).unwrap();
/// assert_eq!(ir.stencils.len(), 1);
/// ```
#[derive(Clone)]
pub struct ProgramDef {
    name: String,
    statics: Vec<StaticDecl>,
    define: Arc<DefineFn>,
}

impl std::fmt::Debug for ProgramDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgramDef")
            .field("name", &self.name)
            .field("statics", &self.statics)
            .finish()
    }
}

impl ProgramDef {
    /// A program named `name` whose body is `define`.
    pub fn new(
        name: &str,
        define: impl Fn(&mut ProgramBuilder) + Send + Sync + 'static,
    ) -> ProgramDef {
        ProgramDef {
            name: name.to_string(),
            statics: vec![],
            define: Arc::new(define),
        }
    }

    /// Declares a boolean static argument (two variants).
    pub fn static_bool(mut self, name: &str) -> ProgramDef {
        self.statics.push(StaticDecl {
            name: name.to_string(),
            values: StaticValues::Bool,
        });
        self
    }

    /// Declares an integer static argument with the listed values (empty: any value).
    pub fn static_i32(mut self, name: &str, values: &[i32]) -> ProgramDef {
        self.statics.push(StaticDecl {
            name: name.to_string(),
            values: StaticValues::I32(values.to_vec()),
        });
        self
    }

    /// The program name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The static argument declarations.
    pub fn statics(&self) -> &[StaticDecl] {
        &self.statics
    }

    /// Every variant: the cartesian product of the static values, in declaration order
    /// (last static varies fastest). Integer statics without listed values take their
    /// value from `fixed`.
    pub fn variants(&self, fixed: &Variant) -> Result<Vec<Variant>> {
        let mut out = vec![Variant::new()];
        for s in &self.statics {
            let values: Vec<StaticValue> = match (&s.values, fixed.get(&s.name)) {
                (_, Some(v)) => vec![v],
                (StaticValues::Bool, None) => vec![false.into(), true.into()],
                (StaticValues::I32(v), None) if !v.is_empty() => {
                    v.iter().map(|&i| i.into()).collect()
                }
                (StaticValues::I32(_), None) => {
                    return Err(self.variant_error(format!(
                        "static `{}` has no listed values: give one",
                        s.name
                    )))
                }
            };
            out = out
                .into_iter()
                .flat_map(|v| values.iter().map(move |&x| v.clone().with(&s.name, x)))
                .collect();
        }
        Ok(out)
    }

    fn variant_error(&self, message: String) -> Error {
        Error::Variant {
            program: self.name.clone(),
            message,
        }
    }

    /// Checks that `variant` gives exactly the declared statics with allowed values.
    pub fn check_variant(&self, variant: &Variant) -> Result<()> {
        for (k, _) in variant.0.iter() {
            if !self.statics.iter().any(|s| &s.name == k) {
                return Err(self.variant_error(format!("variant names unknown static `{k}`")));
            }
        }
        for s in &self.statics {
            let v = variant
                .get(&s.name)
                .ok_or_else(|| self.variant_error(format!("variant lacks static `{}`", s.name)))?;
            let ok = match (&s.values, v) {
                (StaticValues::Bool, StaticValue::Bool(_)) => true,
                (StaticValues::I32(list), StaticValue::I32(i)) => {
                    list.is_empty() || list.contains(&i)
                }
                _ => false,
            };
            if !ok {
                return Err(self.variant_error(format!(
                    "static `{}` = {v} is not one of its declared values",
                    s.name
                )));
            }
        }
        Ok(())
    }

    /// Builds and checks the IR of one variant. All type and dimension errors are
    /// reported here, before any code generation.
    pub fn specialize(&self, variant: &Variant) -> Result<ir::Program> {
        self.check_variant(variant)?;
        let mut b = ProgramBuilder {
            name: self.name.clone(),
            variant: variant.clone(),
            statics: self.statics.clone(),
            fields: vec![],
            scalars: vec![],
            stencils: vec![],
            errors: vec![],
        };
        (self.define)(&mut b);
        if let Some(e) = b.errors.first() {
            return Err(e.clone().into());
        }
        super::lower::lower_program(&b).map_err(Error::from)
    }
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
