//! What every dycore component's step is made of and how it runs on the host: program
//! [`Call`]s and halo-exchange points ([`Step`]) in ICON's order, written once by the
//! component; the [`Schedule`] that compiles them (one program per call, or the whole
//! step linked into one program, optimised or not); and the runner that binds the steps
//! to the positions of the component's fields once ([`bind`]) and runs them on an
//! [`Engine`] without looking a name up ([`execute`]).

use crate::common::exchange::{Exchange as HaloExchange, NoExchange};
use foehn::codegen::Sizes;
use foehn::error::{Error, Result};
use foehn::ir::Dims;
use foehn::ir::{self, Role, Scalar};
use foehn::opt::{optimise_scheduled, OptOptions};
use foehn::runtime::cpu::{CompiledProgram, CpuBackend};
use foehn::runtime::cuda::CudaBackend;
use foehn::runtime::field::{Args, Field, FieldData, FieldView, SliceData};
use foehn::runtime::interp::Interpreter;
use foehn::runtime::Backend;
use foehn_grid::{Grid, Location};
use std::sync::{Arc, OnceLock};

/// How a component's step is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// One compiled program per program of the component, called in ICON's order.
    Unfused,
    /// The whole step as one program (linked from the calls by `foehn::ir::link`).
    Fused,
    /// The whole step as one program after foehn's optimiser (regions specialised,
    /// temporaries inlined, kernels fused, k-blocking in k-major order, sizes fixed at
    /// compile time for the component's grid).
    Optimised,
}

/// What runs the programs.
#[derive(Clone, Copy)]
pub enum Engine<'a> {
    /// The reference interpreter.
    Interpreter,
    /// The native CPU backend.
    Cpu(&'a CpuBackend),
    /// The programs' plain-Rust `reference()` functions (the fused program's reference
    /// is the chain of them).
    Reference,
    /// The CUDA backend (a component runs it with its state on the device).
    Cuda(&'a CudaBackend),
}

/// A plain-Rust reference of a call: computes the program's outputs into `args`, by
/// the program's own argument names (the reference engine runs them).
pub type ReferenceFn = fn(&ir::Program, &Grid, &mut Args) -> Result<()>;

/// One program call.
#[derive(Clone)]
pub struct Call {
    /// The program variant with its own argument names.
    pub ir: ir::Program,
    /// The same program with the component's field and scalar names.
    pub renamed: ir::Program,
    /// `renamed` after the optimiser (same arguments), under [`Schedule::Optimised`].
    pub optimised: Option<ir::Program>,
    /// The resolved kernel schedule of [`Call::program`] (the optimiser's when
    /// optimised, a kernel per stencil otherwise).
    pub schedule: ir::Schedule,
    /// Its plain-Rust reference (called with `ir` and the program's argument names).
    pub reference: ReferenceFn,
}

impl Call {
    /// What the engines run: the optimised program if there is one, else `renamed`.
    pub fn program(&self) -> &ir::Program {
        self.optimised.as_ref().unwrap_or(&self.renamed)
    }
}

/// Whether an exchange is blocking, or the start or end of an asynchronous one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExchangeMode {
    /// Exchange and wait.
    Blocking,
    /// Start an exchange (ICON4Py `exchange`).
    Start,
    /// Wait for the started exchange.
    Wait,
}

/// A halo-exchange point of ICON's schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// Location of the exchanged fields.
    pub location: Location,
    /// The fields (component names).
    pub fields: Vec<&'static str>,
    /// Blocking, start or wait.
    pub mode: ExchangeMode,
}

/// A step of the schedule.
#[derive(Clone)]
pub enum Step {
    /// Run a program.
    Call(Box<Call>),
    /// Exchange halos (a no-op on one domain).
    Exchange(Exchange),
}

/// The calls among `steps`.
pub fn calls(steps: &[Step]) -> impl Iterator<Item = &Call> {
    steps.iter().filter_map(|s| match s {
        Step::Call(c) => Some(c.as_ref()),
        Step::Exchange(_) => None,
    })
}

/// A call's program optimised (with the optimiser's default options) and its schedule.
pub fn optimised(step: Step) -> Step {
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
                message: "the component's state and workspace have no such field".into(),
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
                                        "not a scalar of the step ({})",
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
fn take<'a>(slots: &mut [FieldView<'a>], at: &[usize]) -> Vec<FieldView<'a>> {
    at.iter()
        .map(|&i| std::mem::replace(&mut slots[i], FieldView::placeholder()))
        .collect()
}

/// Puts fields taken by [`take`] back.
fn put_back<'a>(slots: &mut [FieldView<'a>], at: &[usize], fields: Vec<FieldView<'a>>) {
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
    fields: &mut [FieldView],
) -> Result<()> {
    let (location, names) = (exchange.location, &exchange.fields);
    match exchange.mode {
        ExchangeMode::Blocking => hook.exchange(location, names, fields),
        ExchangeMode::Start => hook.start(location, names, fields),
        ExchangeMode::Wait => hook.wait(location, names, fields),
    }
}

/// Runs bound steps on a host engine over `slots` with the step's `scalars` (on one
/// domain: the exchanges are [`NoExchange`]).
pub fn execute(
    steps: &[BoundStep],
    engine: Engine<'_>,
    grid: &Grid,
    nlev: usize,
    slots: &mut [FieldView],
    scalars: &[Scalar],
) -> Result<()> {
    execute_with(steps, engine, grid, nlev, slots, scalars, &mut NoExchange)
}

/// [`execute`] with the halo exchanges through `hook`.
pub fn execute_with(
    steps: &[BoundStep],
    engine: Engine<'_>,
    grid: &Grid,
    nlev: usize,
    slots: &mut [FieldView],
    scalars: &[Scalar],
    hook: &mut dyn HaloExchange,
) -> Result<()> {
    for step in steps {
        match step {
            BoundStep::Exchange { exchange, fields } => {
                let mut taken = take(slots, fields);
                let r = exchange_with(hook, exchange, &mut taken);
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
                let r = run_adapted(call, engine, grid, nlev, &mut taken, &values, compiled);
                put_back(slots, fields, taken);
                r?
            }
        }
    }
    Ok(())
}

/// Runs `c` on `fields`, where a slot whose field is larger than the program's argument
/// (as GT4Py lets ICON4Py pass one) is handed over as a copy of the part the argument
/// declares ([`narrowed`]), written back if the program writes it.
fn run_adapted(
    c: &Call,
    engine: Engine<'_>,
    grid: &Grid,
    nlev: usize,
    fields: &mut [FieldView],
    scalars: &[Scalar],
    compiled: &OnceLock<Arc<CompiledProgram>>,
) -> Result<()> {
    let decls: Vec<&ir::FieldDecl> = c
        .program()
        .fields
        .iter()
        .filter(|d| d.role != Role::Temp)
        .collect();
    let differ = |(v, d): (&FieldView, &&ir::FieldDecl)| v.dims() != d.ty.dims;
    if !fields.iter().zip(&decls).any(differ) {
        return run_call(c, engine, grid, nlev, fields, scalars, compiled);
    }
    let mut copies: Vec<Option<Field>> = Vec::with_capacity(fields.len());
    for (v, d) in fields.iter().zip(&decls) {
        copies.push(match v.dims() == d.ty.dims {
            true => None,
            false => Some(narrowed(&c.ir.name, v, d, grid, nlev)?),
        });
    }
    let mut views: Vec<FieldView> = fields
        .iter_mut()
        .zip(copies.iter_mut())
        .map(|(v, copy)| match copy {
            Some(f) => f.view_mut(),
            None => v.reborrow(),
        })
        .collect();
    run_call(c, engine, grid, nlev, &mut views, scalars, compiled)?;
    drop(views);
    for ((v, d), copy) in fields.iter_mut().zip(&decls).zip(&copies) {
        if let (Some(part), true) = (copy, d.role.writable()) {
            widen(v, d, part, grid, nlev)?;
        }
    }
    Ok(())
}

/// Where an argument's values lie in a larger slot field: the first `nlev` levels of a
/// half-level field bound to a full-level argument (a GT4Py `CellKField` argument given
/// a field of `nlev + 1` levels), or the lowest full level `nlev − 1` of a level field
/// bound to a horizontal argument (ICON4Py's one-level view of `z_hydro_corr`, which
/// `compute_hydrostatic_correction_term` writes on level `nlev − 1` and
/// `compute_rho_theta_pgrad_and_update_vn` reads as an edge field).
pub(crate) fn part_of(
    view: Dims,
    want: Dims,
    grid: &Grid,
    nlev: usize,
) -> Option<std::ops::Range<usize>> {
    use foehn::ir::VKind;
    let same = view.horizontal == want.horizontal && view.local == want.local;
    let n = Field::grid_shape(grid, nlev, want)
        .iter()
        .product::<usize>();
    match (same, view.vertical, want.vertical) {
        (true, Some(VKind::Half), Some(VKind::Full)) => Some(0..n),
        (true, Some(_), None) if want.local.is_none() => Some((nlev - 1) * n..nlev * n),
        _ => None,
    }
}

/// A copy of the part of `view` that the argument `d` of `program` declares ([`part_of`]).
fn narrowed(
    program: &str,
    view: &FieldView,
    d: &ir::FieldDecl,
    grid: &Grid,
    nlev: usize,
) -> Result<Field> {
    let refuse = || Error::Argument {
        program: program.to_string(),
        arg: d.name.clone(),
        message: format!(
            "the slot holds {}, the argument is {} (neither its first levels nor one level)",
            view.describe(),
            foehn::runtime::field::describe(
                d.ty.dims,
                &Field::grid_shape(grid, nlev, d.ty.dims),
                d.ty.dtype
            )
        ),
    };
    let range = part_of(view.dims(), d.ty.dims, grid, nlev).ok_or_else(refuse)?;
    let data = match view.data() {
        SliceData::F64(v) => FieldData::F64(v[range].to_vec()),
        SliceData::F32(v) => FieldData::F32(v[range].to_vec()),
        SliceData::I32(v) => FieldData::I32(v[range].to_vec()),
        SliceData::Bool(v) => FieldData::Bool(v[range].to_vec()),
    };
    Field::new(d.ty.dims, Field::grid_shape(grid, nlev, d.ty.dims), data)
}

/// Writes `part` (the copy [`narrowed`] made for the argument `d`) back into its place
/// in `view`, in place.
fn widen(
    view: &mut FieldView,
    d: &ir::FieldDecl,
    part: &Field,
    grid: &Grid,
    nlev: usize,
) -> Result<()> {
    let range = part_of(view.dims(), d.ty.dims, grid, nlev)
        .ok_or_else(|| Error::Field(format!("`{}`: no longer a part of its slot", d.name)))?;
    match (view.data_mut(), part.data()) {
        (SliceData::F64(v), FieldData::F64(x)) => v[range].copy_from_slice(x),
        (SliceData::F32(v), FieldData::F32(x)) => v[range].copy_from_slice(x),
        (SliceData::I32(v), FieldData::I32(x)) => v[range].copy_from_slice(x),
        (SliceData::Bool(v), FieldData::Bool(x)) => v[range].copy_from_slice(x),
        _ => return Err(Error::Field("a narrowed copy changed its type".into())),
    }
    Ok(())
}

fn run_call(
    c: &Call,
    engine: Engine<'_>,
    grid: &Grid,
    nlev: usize,
    fields: &mut [FieldView],
    scalars: &[Scalar],
    compiled: &OnceLock<Arc<CompiledProgram>>,
) -> Result<()> {
    match engine {
        Engine::Interpreter => Interpreter.execute_views(c.program(), grid, nlev, fields, scalars),
        Engine::Reference => reference_call(c, grid, nlev, fields, scalars),
        Engine::Cpu(cpu) => {
            let program = match compiled.get() {
                Some(p) => p,
                None => {
                    let p = cpu.compile(c.program(), &c.schedule, Sizes::of(grid, nlev))?;
                    compiled.get_or_init(|| p)
                }
            };
            cpu.run_compiled_views(c.program(), program, grid, nlev, fields, scalars)
        }
        Engine::Cuda(_) => Err(Error::Variant {
            program: c.ir.name.clone(),
            message: "the CUDA engine runs a component with its state on the device".into(),
        }),
    }
}

/// Runs a call's plain-Rust reference, which reads the program's own argument names.
fn reference_call(
    c: &Call,
    grid: &Grid,
    nlev: usize,
    fields: &mut [FieldView],
    scalars: &[Scalar],
) -> Result<()> {
    let decls: Vec<&ir::FieldDecl> =
        c.ir.fields
            .iter()
            .filter(|d| d.role != Role::Temp)
            .collect();
    let mut named = Args::new().with_nlev(nlev);
    for (d, f) in decls.iter().zip(fields.iter()) {
        named.set_field(&d.name, f.to_field());
    }
    for (s, v) in c.ir.scalars.iter().zip(scalars) {
        named.set_scalar(&s.name, *v);
    }
    (c.reference)(&c.ir, grid, &mut named)?;
    for (d, f) in decls.iter().zip(fields.iter_mut()) {
        if d.role.writable() {
            f.copy_from(
                named
                    .field(&d.name)
                    .expect("the reference keeps its arguments"),
            )?;
        }
    }
    Ok(())
}
