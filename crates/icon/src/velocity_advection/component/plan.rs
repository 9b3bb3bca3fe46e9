//! How the predictor and the corrector step run: the steps of each schedule ([`Plan`]:
//! the unfused calls of [`super::steps`] split by the host reduction, or the one linked
//! step, optimised or not, with the reduction after it), and the chained references of
//! a linked step.

use super::steps::{all_calls, linked_program, unfused_steps, work_fields, CORRECTOR_NAME};
use super::{Kind, Statics};
use crate::common::runner::{bind, calls, execute, optimised, Call, Engine, Schedule, Step};
use foehn::error::{Error, Result};
use foehn::ir::{self, Role, Scalar};
use foehn::runtime::field::{Args, Field, FieldView};
use foehn_grid::Grid;

/// The steps of one predictor or corrector step: those before the host reduction of
/// the vertical CFL number and those after it.
#[derive(Clone)]
pub struct Segments {
    /// The calls before the reduction.
    pub before: Vec<Step>,
    /// The calls after the reduction.
    pub after: Vec<Step>,
}

impl Segments {
    /// Every call, in order.
    pub fn calls(&self) -> impl Iterator<Item = &Call> {
        calls(&self.before).chain(calls(&self.after))
    }
}

/// The steps of the predictor (with and without the skip) and of the corrector.
#[derive(Clone)]
pub struct Plan {
    segments: [Segments; 3],
}

impl Plan {
    /// The steps of `schedule` for `statics`.
    pub fn new(schedule: Schedule, statics: &Statics) -> Result<Plan> {
        let build = |kind: Kind| -> Result<Segments> {
            Ok(match schedule {
                Schedule::Unfused => {
                    let (before, after) = unfused_steps(statics, kind)?;
                    Segments { before, after }
                }
                Schedule::Fused => Segments {
                    before: fused_steps(statics, kind)?,
                    after: vec![],
                },
                Schedule::Optimised => Segments {
                    before: fused_steps(statics, kind)?
                        .into_iter()
                        .map(optimised)
                        .collect(),
                    after: vec![],
                },
            })
        };
        Ok(Plan {
            segments: [
                build(Kind::ALL[0])?,
                build(Kind::ALL[1])?,
                build(Kind::ALL[2])?,
            ],
        })
    }

    /// The steps of `kind`.
    pub fn segments(&self, kind: Kind) -> &Segments {
        &self.segments[kind.index()]
    }

    /// The programs of `kind` as specialised, in call order.
    pub fn programs(&self, kind: Kind) -> Vec<&ir::Program> {
        self.segments(kind).calls().map(|c| &c.ir).collect()
    }
}

/// The fused step: one call of the step linked from the unfused calls
/// ([`linked_program`]), whose reference is [`chained_reference`].
pub fn fused_steps(s: &Statics, kind: Kind) -> Result<Vec<Step>> {
    let ir = linked_program(s, kind)?;
    Ok(vec![Step::Call(Box::new(super::steps::call(
        ir,
        &[],
        chained_reference,
    )))])
}

/// The chained references: the unfused calls of the linked program's step (its
/// [`Statics`] and kind from its variant and name) run with the programs' plain-Rust
/// references on `args` (the linked program's arguments; the intermediate fields start
/// at zero).
pub fn chained_reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let statics = Statics::from_variant(&program.variant)?;
    let kind = if program.name == CORRECTOR_NAME {
        Kind::Corrector
    } else {
        Kind::Predictor {
            skip: Statics::skip_of(&program.variant)?,
        }
    };
    let missing = |n: &str| Error::Field(format!("{} reference: missing `{n}`", program.name));
    let nlev = args
        .field("vn")
        .map(Field::levels)
        .ok_or_else(|| missing("vn"))?;
    let steps = all_calls(&statics, kind)?;
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
    for (name, dims) in work_fields() {
        if !slot_names.iter().any(|n| n == name) {
            slot_names.push(name.to_string());
            slots.push(Field::zeros(grid, nlev, dims, foehn::dsl::prelude::F64));
        }
    }
    let scalar_names: Vec<&str> = program.scalars.iter().map(|s| s.name.as_str()).collect();
    let scalars: Vec<Scalar> = program
        .scalars
        .iter()
        .map(|s| args.scalar(&s.name).ok_or_else(|| missing(&s.name)))
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
