//! How a diffusion step runs: the steps of each schedule ([`Plan`]: the unfused calls
//! of [`super::steps`], or the one linked step, optimised or not), their execution on
//! the host engines, the halo-exchange hook, and the chained references of the whole
//! step.

use super::steps::{
    call, calls, exchange, intermediates, linked_program, unfused_steps, Call, Exchange,
    ExchangeMode, Step, STEP_NAME,
};
use super::{Engine, Schedule, Statics};
use crate::common::exchange::{Exchange as HaloExchange, NoExchange};
use foehn::codegen::Sizes;
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir::{self, Role, Scalar};
use foehn::opt::{optimise_scheduled, OptOptions};
use foehn::runtime::cpu::CompiledProgram;
use foehn::runtime::field::{Args, Field, Positional};
use foehn::runtime::interp::Interpreter;
use foehn::runtime::Backend;
use foehn_grid::Grid;
use std::sync::{Arc, OnceLock};

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

/// A call's program optimised (with the optimiser's default options) and its schedule.
fn optimised(step: Step) -> Step {
    match step {
        Step::Call(mut c) => {
            let opts = OptOptions::default();
            let (run, schedule, _) = optimise_scheduled(&c.renamed, &opts);
            c.optimised = Some(run);
            c.schedule = schedule;
            Step::Call(c)
        }
        other => other,
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

/// A step bound, once, to the positions of its fields in the slots of a run (see
/// [`bind`]): no name is looked up while the step runs.
pub enum BoundStep {
    /// A program call: the slots of its argument fields (the program's non-temporary
    /// fields, in declaration order) and the indices of its scalars in the step's
    /// scalar list.
    Call {
        /// The call.
        call: Box<Call>,
        /// Slots of the argument fields.
        fields: Vec<usize>,
        /// Indices of the scalars.
        scalars: Vec<usize>,
        /// The compiled program (CPU engine), compiled at its first run.
        compiled: OnceLock<Arc<CompiledProgram>>,
    },
    /// A halo exchange of the fields in these slots.
    Exchange {
        /// The exchange point.
        exchange: Exchange,
        /// Slots of the exchanged fields.
        fields: Vec<usize>,
    },
}

/// Binds `steps` to the slots named `slots` (the state's fields, then the component's
/// work fields) and to the scalars named `scalars`; a name neither holds is an error
/// naming the program and the argument.
pub fn bind(steps: &[Step], slots: &[String], scalars: &[&str]) -> Result<Vec<BoundStep>> {
    let slot = |program: &str, name: &str| {
        slots
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| Error::Argument {
                program: program.to_string(),
                arg: name.to_string(),
                message: "the diffusion state and workspace have no such field".into(),
            })
    };
    steps
        .iter()
        .map(|step| match step {
            Step::Call(c) => {
                let p = c.program();
                let fields = p
                    .fields
                    .iter()
                    .filter(|d| d.role != Role::Temp)
                    .map(|d| slot(&p.name, &d.name))
                    .collect::<Result<_>>()?;
                let scalars =
                    p.scalars
                        .iter()
                        .map(|s| {
                            scalars.iter().position(|n| *n == s.name).ok_or_else(|| {
                                Error::Argument {
                                    program: p.name.clone(),
                                    arg: s.name.clone(),
                                    message: format!(
                                        "not a scalar of the diffusion step ({})",
                                        scalars.join(", ")
                                    ),
                                }
                            })
                        })
                        .collect::<Result<_>>()?;
                Ok(BoundStep::Call {
                    call: c.clone(),
                    fields,
                    scalars,
                    compiled: OnceLock::new(),
                })
            }
            Step::Exchange(x) => Ok(BoundStep::Exchange {
                fields: x
                    .fields
                    .iter()
                    .map(|n| slot("halo exchange", n))
                    .collect::<Result<_>>()?,
                exchange: x.clone(),
            }),
        })
        .collect()
}

/// Moves the fields at `at` out of `slots` (leaving placeholders).
fn take(slots: &mut [Field], at: &[usize]) -> Vec<Field> {
    at.iter()
        .map(|&i| std::mem::replace(&mut slots[i], Field::placeholder()))
        .collect()
}

/// Puts fields taken by [`take`] back.
fn put_back(slots: &mut [Field], at: &[usize], fields: Vec<Field>) {
    for (&i, f) in at.iter().zip(fields) {
        slots[i] = f;
    }
}

/// Runs the halo-exchange step `exchange` through `hook` (the
/// [`Exchange`](crate::common::exchange::Exchange) a decomposed run fills in; on one
/// domain the no-op `NoExchange`): a blocking exchange, or the start or the wait of an
/// asynchronous one, of `fields`.
pub fn exchange_with(
    hook: &mut dyn HaloExchange,
    exchange: &Exchange,
    fields: &mut [Field],
) -> Result<()> {
    let (location, names) = (exchange.location, &exchange.fields);
    match exchange.mode {
        ExchangeMode::Blocking => hook.exchange(location, names, fields),
        ExchangeMode::Start => hook.start(location, names, fields),
        ExchangeMode::Wait => hook.wait(location, names, fields),
    }
}

/// Runs bound steps on a host engine over `slots` with the step's `scalars`.
pub fn execute(
    steps: &[BoundStep],
    engine: Engine<'_>,
    grid: &Grid,
    nlev: usize,
    slots: &mut [Field],
    scalars: &[Scalar],
) -> Result<()> {
    for step in steps {
        match step {
            BoundStep::Exchange { exchange, fields } => {
                let mut taken = take(slots, fields);
                let r = exchange_with(&mut NoExchange, exchange, &mut taken);
                put_back(slots, fields, taken);
                r?
            }
            BoundStep::Call {
                call,
                fields,
                scalars: at,
                compiled,
            } => {
                let mut taken = take(slots, fields);
                let values: Vec<Scalar> = at.iter().map(|&i| scalars[i]).collect();
                let r = run_call(call, engine, grid, nlev, &mut taken, &values, compiled);
                put_back(slots, fields, taken);
                r?
            }
        }
    }
    Ok(())
}

fn run_call(
    c: &Call,
    engine: Engine<'_>,
    grid: &Grid,
    nlev: usize,
    fields: &mut [Field],
    scalars: &[Scalar],
    compiled: &OnceLock<Arc<CompiledProgram>>,
) -> Result<()> {
    let mut args = Positional { fields, scalars };
    match engine {
        Engine::Interpreter => Interpreter.execute_positional(c.program(), grid, nlev, &mut args),
        Engine::Reference => reference_call(c, grid, nlev, &mut args),
        Engine::Cpu(cpu) => {
            let program = match compiled.get() {
                Some(p) => p,
                None => {
                    let p = cpu.compile(c.program(), &c.schedule, Sizes::of(grid, nlev))?;
                    compiled.get_or_init(|| p)
                }
            };
            cpu.run_compiled_positional(c.program(), program, grid, nlev, &mut args)
        }
        Engine::Cuda(_) => Err(Error::Variant {
            program: c.ir.name.clone(),
            message: "the CUDA engine runs through `Diffusion::cuda`".into(),
        }),
    }
}

/// Runs a call's plain-Rust reference, which reads the program's own argument names.
fn reference_call(c: &Call, grid: &Grid, nlev: usize, args: &mut Positional) -> Result<()> {
    let decls: Vec<&ir::FieldDecl> =
        c.ir.fields
            .iter()
            .filter(|d| d.role != Role::Temp)
            .collect();
    let mut named = Args::new().with_nlev(nlev);
    for (d, f) in decls.iter().zip(args.fields.iter_mut()) {
        named.set_field(&d.name, std::mem::replace(f, Field::placeholder()));
    }
    for (s, v) in c.ir.scalars.iter().zip(args.scalars) {
        named.set_scalar(&s.name, *v);
    }
    let result = (c.reference)(&c.ir, grid, &mut named);
    for (d, f) in decls.iter().zip(args.fields.iter_mut()) {
        if let Some(x) = named.take_field(&d.name) {
            *f = x;
        }
    }
    result
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
    let result = bind(&steps, &slot_names, &scalar_names)
        .and_then(|bound| execute(&bound, Engine::Reference, grid, nlev, &mut slots, &scalars));
    for (n, f) in names.into_iter().zip(slots) {
        args.set_field(n, f);
    }
    result
}
