//! Programs: a [`ProgramDef`] names its static arguments and a definition function,
//! and is specialised per variant into checked IR (declarations in `decl`, lowering in
//! `lower`).

use super::decl::{ProgramBuilder, StaticDecl, StaticValues};
use super::lower::lower_program;
use crate::error::{Error, Result};
use crate::ir::{self, StaticValue, Variant};
use std::sync::Arc;

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
        let mut b = ProgramBuilder::new(self.name.clone(), variant.clone(), self.statics.clone());
        (self.define)(&mut b);
        if let Some(e) = b.first_error() {
            return Err(e.clone().into());
        }
        lower_program(&b).map_err(Error::from)
    }
}
