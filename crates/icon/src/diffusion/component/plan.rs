//! How a diffusion step runs: the steps of each schedule ([`Plan`]: the unfused calls
//! of [`super::steps`], or the one linked step, optimised or not), their execution on
//! the host engines, the halo-exchange hook, and the chained references of the whole
//! step.

use super::steps::{call, exchange, intermediates, linked_program, unfused_steps, STEP_NAME};
use super::Statics;
use crate::common::runner::{
    bind, calls, execute, optimised, Engine, ExchangeMode, Schedule, Step,
};
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir::{self, Role, Scalar};
use foehn::runtime::field::{Args, Field, FieldView};
use foehn_grid::Grid;

/// The steps of a regular and of an initial-run diffusion step.
#[derive(Clone)]
pub struct Plan {
    regular: Vec<Step>,
    initial: Vec<Step>,
}

impl Plan {
    /// The steps of `schedule` for `statics`.
    pub fn new(schedule: Schedule, statics: &Statics) -> Result<Plan> {
        let build = |initial| match schedule {
            Schedule::Unfused => unfused_steps(statics, initial),
            Schedule::Fused => fused_steps(statics, initial),
            Schedule::Optimised => Ok(fused_steps(statics, initial)?
                .into_iter()
                .map(optimised)
                .collect()),
        };
        Ok(Plan {
            regular: build(false)?,
            initial: build(true)?,
        })
    }

    /// The steps of a regular or initial-run step.
    pub fn steps(&self, initial_run: bool) -> &[Step] {
        if initial_run {
            &self.initial
        } else {
            &self.regular
        }
    }

    /// The programs of a regular step, in call order.
    pub fn programs(&self) -> Vec<&ir::Program> {
        calls(&self.regular).map(|c| &c.ir).collect()
    }
}

/// The fused step: one call of the step linked from the unfused calls
/// ([`linked_program`], regular-step names; the initial run binds its coefficients as
/// any call does).
pub fn fused_steps(s: &Statics, initial: bool) -> Result<Vec<Step>> {
    let ir = linked_program(s, false)?;
    Ok(vec![
        Step::Call(Box::new(call(ir, &[], chained_reference, initial))),
        exchange(CELL, &["theta_v", "exner", "w"], ExchangeMode::Blocking),
    ])
}

/// The chained references: the unfused steps of the variant's [`Statics`] run with the
/// programs' plain-Rust references on `args` (the fused program's arguments; the
/// intermediate fields start at zero).
pub fn chained_reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let statics = Statics::from_variant(&program.variant)?;
    let nlev = args
        .field("vn")
        .map(Field::levels)
        .ok_or_else(|| Error::Field(format!("{STEP_NAME} reference: missing `vn`")))?;
    let steps = unfused_steps(&statics, false)?;
    let names: Vec<&str> = program
        .fields
        .iter()
        .filter(|d| d.role != Role::Temp)
        .map(|d| d.name.as_str())
        .collect();
    let mut slot_names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let mut slots: Vec<Field> = names
        .iter()
        .map(|n| args.take_field(n).unwrap_or_else(Field::placeholder))
        .collect();
    for (name, dims) in intermediates() {
        slot_names.push(name.to_string());
        slots.push(Field::zeros(grid, nlev, dims, F64));
    }
    let scalar_names: Vec<&str> = program.scalars.iter().map(|s| s.name.as_str()).collect();
    let scalars: Vec<Scalar> = program
        .scalars
        .iter()
        .map(|s| {
            args.scalar(&s.name)
                .ok_or_else(|| Error::Field(format!("{STEP_NAME} reference: missing `{}`", s.name)))
        })
        .collect::<Result<_>>()?;
    let result = bind(&steps, &slot_names, &scalar_names).and_then(|bound| {
        let mut views: Vec<FieldView> = slots.iter_mut().map(Field::view_mut).collect();
        execute(&bound, Engine::Reference, grid, nlev, &mut views, &scalars)
    });
    for (n, f) in names.into_iter().zip(slots) {
        args.set_field(n, f);
    }
    result
}
