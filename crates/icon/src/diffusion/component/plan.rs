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
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir::{self, Role, Scalar};
use foehn::opt::{optimise_scheduled, OptOptions};
use foehn::runtime::cpu::CompiledProgram;
use foehn::runtime::field::{Args, Field};
use foehn::runtime::interp::Interpreter;
use foehn_grid::Grid;
use std::collections::BTreeMap;
use std::sync::Arc;

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

/// The halo-exchange step on one domain: [`exchange_with`] the no-op [`NoExchange`].
pub fn halo_exchange(exchange: &Exchange, store: &mut BTreeMap<String, Field>) -> Result<()> {
    exchange_with(&mut NoExchange, exchange, store)
}

/// Runs the halo-exchange step `exchange` through `hook` (the
/// [`Exchange`](crate::common::exchange::Exchange) a decomposed run fills in): a blocking
/// exchange, or the start or the wait of an asynchronous one, of the listed fields of
/// `store`.
pub fn exchange_with(
    hook: &mut dyn HaloExchange,
    exchange: &Exchange,
    store: &mut BTreeMap<String, Field>,
) -> Result<()> {
    let (location, fields) = (exchange.location, &exchange.fields);
    match exchange.mode {
        ExchangeMode::Blocking => hook.exchange(location, fields, store),
        ExchangeMode::Start => hook.start(location, fields, store),
        ExchangeMode::Wait => hook.wait(location, fields, store),
    }
}

/// Runs `steps` on a host engine over the fields of `store` (component names).
pub fn execute(
    steps: &[Step],
    engine: Engine<'_>,
    grid: &Grid,
    nlev: usize,
    store: &mut BTreeMap<String, Field>,
    scalars: &BTreeMap<String, Scalar>,
    compiled: &mut BTreeMap<String, Arc<CompiledProgram>>,
) -> Result<()> {
    for step in steps {
        match step {
            Step::Exchange(x) => halo_exchange(x, store)?,
            Step::Call(c) => run_call(c, engine, grid, nlev, store, scalars, compiled)?,
        }
    }
    Ok(())
}

fn run_call(
    c: &Call,
    engine: Engine<'_>,
    grid: &Grid,
    nlev: usize,
    store: &mut BTreeMap<String, Field>,
    scalars: &BTreeMap<String, Scalar>,
    compiled: &mut BTreeMap<String, Arc<CompiledProgram>>,
) -> Result<()> {
    // The reference reads the program's own names; the engines run the renamed program.
    let own_names = matches!(engine, Engine::Reference);
    let pairs: Vec<(&str, &str)> =
        c.ir.fields
            .iter()
            .zip(&c.renamed.fields)
            .filter(|(d, _)| d.role != Role::Temp)
            .map(|(d, r)| (d.name.as_str(), r.name.as_str()))
            .collect();
    let arg = |(own, component): (&str, &str)| if own_names { own } else { component }.to_string();
    let mut args = Args::new().with_nlev(nlev);
    let mut missing = None;
    for &p in &pairs {
        match store.remove(p.1) {
            Some(f) => args.set_field(&arg(p), f),
            None => missing = Some(p.1),
        }
    }
    for (d, r) in c.ir.scalars.iter().zip(&c.renamed.scalars) {
        match scalars.get(&r.name) {
            Some(&x) => args.set_scalar(&arg((&d.name, &r.name)), x),
            None => missing = Some(r.name.as_str()),
        }
    }
    let result = match missing {
        Some(name) => Err(Error::Argument {
            program: c.ir.name.clone(),
            arg: name.to_string(),
            message: "the diffusion state has no such field or scalar".into(),
        }),
        None => match engine {
            Engine::Interpreter => Interpreter.run_ir(c.program(), grid, &mut args),
            Engine::Reference => (c.reference)(&c.ir, grid, &mut args),
            Engine::Cpu(cpu) => {
                let key = format!("{} [{}]", c.ir.name, c.ir.variant);
                let program = match compiled.get(&key) {
                    Some(p) => p.clone(),
                    None => {
                        let p = cpu.compile(
                            c.program(),
                            &c.schedule,
                            foehn::codegen::Sizes::of(grid, nlev),
                        )?;
                        compiled.insert(key, p.clone());
                        p
                    }
                };
                cpu.run_compiled(c.program(), &program, grid, &mut args)
            }
            Engine::Cuda(_) => Err(Error::Variant {
                program: c.ir.name.clone(),
                message: "the CUDA engine runs through `Diffusion::cuda`".into(),
            }),
        },
    };
    for p in pairs {
        if let Some(f) = args.take_field(&arg(p)) {
            store.insert(p.1.to_string(), f);
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
    let mut store = BTreeMap::new();
    for &n in &names {
        if let Some(f) = args.take_field(n) {
            store.insert(n.to_string(), f);
        }
    }
    for (name, dims) in intermediates() {
        store.insert(name.to_string(), Field::zeros(grid, nlev, dims, F64));
    }
    let scalars = program
        .scalars
        .iter()
        .filter_map(|s| Some((s.name.clone(), args.scalar(&s.name)?)))
        .collect();
    let result = execute(
        &steps,
        Engine::Reference,
        grid,
        nlev,
        &mut store,
        &scalars,
        &mut BTreeMap::new(),
    );
    for n in names {
        if let Some(f) = store.remove(n) {
            args.set_field(n, f);
        }
    }
    result
}
