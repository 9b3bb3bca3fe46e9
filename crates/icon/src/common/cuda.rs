//! The device side of a dycore component, written once: compile every program of the
//! component's plan once ([`CudaPrograms`]), upload the state once
//! ([`CudaPrograms::upload`], or borrow the caller's device memory through
//! [`CudaPrograms::workspace_on_device`]), bind every program once
//! ([`CudaPrograms::bind`] → [`DeviceRun`]), launch a kind's segments per step
//! ([`DeviceRun::launch`]: kernels are only enqueued), download at the end
//! ([`DeviceRun::download`], [`DeviceRun::download_workspace`]).
//!
//! The CUDA backend binds device fields to a program by its argument names; each
//! program is bound through its renamed copy (see [`crate::common::plan`]), whose names
//! are the component's, so all programs share the device fields of one upload.

use crate::common::component::Core;
use crate::common::runner::{calls, Call};
use crate::common::tuning::tuned_schedules;
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir::layout::indices_fit;
use foehn::ir::{self, FieldType, Scalar};
use foehn::runtime::cuda::{Bound, CudaBackend, CudaCompiled, DeviceArgs};
use foehn::runtime::field::{Args, Field};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The programs of `calls` compiled for `grid` with `nlev` levels on all threads (NVRTC,
/// or loads from the cache), in their order; 32-bit indices only where every field of
/// this grid fits them; tuned first when the backend tunes programs ([`tuned_schedules`]).
pub(crate) fn compile_calls(
    cuda: &CudaBackend,
    calls: &[&Call],
    grid: &foehn_grid::Grid,
    nlev: usize,
) -> Result<Vec<Arc<CudaCompiled>>> {
    let schedules = calls
        .iter()
        .map(|c| {
            let mut schedule = c.schedule.clone();
            schedule.idx32 &= indices_fit(c.program(), grid, nlev);
            schedule
        })
        .collect();
    let schedules = tuned_schedules(cuda, calls, schedules, grid, nlev)?;
    calls
        .par_iter()
        .zip(schedules.par_iter())
        .map(|(c, schedule)| {
            cuda.compile(c.program(), schedule, foehn::codegen::Sizes::of(grid, nlev))
        })
        .collect()
}

/// A state whose fields can be moved out by name and put back (for uploads and
/// downloads); [`crate::host_state_impl!`] implements it for a component state.
pub trait HostState {
    /// Moves a field out by name, leaving a placeholder until it is set again.
    fn take_field(&mut self, name: &str) -> Option<Field>;

    /// Replaces a field by name; a name that is not a field of the state is an error.
    fn set_field(&mut self, name: &str, field: Field) -> Result<()>;
}

/// Implements [`HostState`] for a state declared with
/// [`crate::component_state_impl!`], through its own `take_field` and `set_field`.
#[macro_export]
macro_rules! host_state_impl {
    ($state:ident) => {
        impl $crate::common::cuda::HostState for $state {
            fn take_field(&mut self, name: &str) -> Option<foehn::runtime::field::Field> {
                $state::take_field(self, name)
            }

            fn set_field(
                &mut self,
                name: &str,
                field: foehn::runtime::field::Field,
            ) -> foehn::error::Result<()> {
                $state::set_field(self, name, field)
            }
        }
    };
}

/// A program compiled for the device, with the component's argument names (the
/// optimised program under the optimised schedule).
struct CudaCall {
    compiled: Arc<CudaCompiled>,
    renamed: ir::Program,
}

/// A declarations-only program: `fields` (read-write) and `scalars` (f64).
pub(crate) fn declarations(
    name: &str,
    fields: &[(&str, FieldType)],
    scalars: &[&str],
) -> Result<ir::Program> {
    let fields: Vec<(String, FieldType)> =
        fields.iter().map(|(n, t)| (n.to_string(), *t)).collect();
    let scalars: Vec<String> = scalars.iter().map(|s| s.to_string()).collect();
    ProgramDef::new(name, move |b| {
        for (n, t) in &fields {
            b.inout(n, t.dims.list(), t.dtype);
        }
        for s in &scalars {
            b.scalar(s, F64);
        }
    })
    .specialize(&Variant::new())
}

/// The compiled plan of a component on a CUDA device.
pub struct CudaPrograms<'a> {
    core: &'a Core<'a>,
    cuda: &'a CudaBackend,
    /// By kind and segment.
    kinds: Vec<Vec<Vec<CudaCall>>>,
    /// Every field and scalar the calls bind (all read-write: uploaded once).
    storage: ir::Program,
    /// The state's fields downloaded at the end.
    outputs: ir::Program,
    /// The work fields the calls bind (downloaded by [`DeviceRun::download_workspace`]).
    work_outputs: ir::Program,
    /// The scalars' values at upload (a step sets its own).
    initial_scalars: Vec<Scalar>,
}

impl<'a> CudaPrograms<'a> {
    /// Compiles every program of `core`'s plan (NVRTC, cached on disk). `outputs` picks
    /// the state fields [`DeviceRun::download`] copies back; `extra` declares fields
    /// beyond those the calls bind (what the component's own device work reads);
    /// `initial_scalars` are the values of the step's scalars at upload.
    pub fn new(
        core: &'a Core<'a>,
        cuda: &'a CudaBackend,
        outputs: &dyn Fn(&str) -> bool,
        extra: &[(&str, FieldType)],
        initial_scalars: Vec<Scalar>,
    ) -> Result<CudaPrograms<'a>> {
        let (grid, nlev) = (core.grid(), core.nlev());
        let plan = core.plan();
        let kinds = (0..plan.kinds())
            .map(|kind| {
                let all: Vec<&Call> = plan.calls(kind).collect();
                let mut compiled = compile_calls(cuda, &all, grid, nlev)?.into_iter();
                Ok(plan
                    .segments(kind)
                    .iter()
                    .map(|s| {
                        calls(s)
                            .map(|c| CudaCall {
                                compiled: compiled.next().expect("one program per call"),
                                renamed: c.program().clone(),
                            })
                            .collect()
                    })
                    .collect())
            })
            .collect::<Result<_>>()?;
        let mut decls = plan.field_types();
        for (n, t) in extra {
            decls.insert(n, *t);
        }
        let work = core.workspace();
        let select = |keep: &dyn Fn(&str) -> bool| -> Vec<(&str, FieldType)> {
            decls
                .iter()
                .filter(|(n, _)| keep(n))
                .map(|(n, t)| (*n, *t))
                .collect()
        };
        let prefix = core.names().what.replace(' ', "_");
        let named = |what: &str| format!("{prefix}_{what}");
        Ok(CudaPrograms {
            core,
            cuda,
            kinds,
            storage: declarations(&named("state"), &select(&|_| true), core.scalars())?,
            outputs: declarations(&named("outputs"), &select(outputs), &[])?,
            work_outputs: declarations(&named("work"), &select(&|n| work.contains_key(n)), &[])?,
            initial_scalars,
        })
    }

    /// The backend.
    pub fn backend(&self) -> &'a CudaBackend {
        self.cuda
    }

    /// The declarations of every field and scalar the device step binds.
    pub fn storage(&self) -> &ir::Program {
        &self.storage
    }

    /// The state fields the device step binds (names of [`CudaPrograms::storage`] that
    /// are not work fields).
    pub fn state_fields(&self) -> Vec<&str> {
        let work = self.core.workspace();
        self.storage
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .filter(|n| !work.contains_key(n))
            .collect()
    }

    fn set_scalars(&self, args: &mut Args) {
        for (n, x) in self.core.scalars().iter().zip(&self.initial_scalars) {
            args.set_scalar(n, *x);
        }
    }

    /// Uploads the fields of `state` the calls bind and the component's work fields
    /// (`state` is left as it was).
    pub fn upload(&self, state: &mut impl HostState) -> Result<DeviceArgs> {
        let core = self.core;
        let mut args = Args::new().with_nlev(core.nlev());
        let mut from_state = Vec::new();
        let work = core.workspace();
        for decl in self.storage.fields.iter() {
            let n = &decl.name;
            if let Some(f) = state.take_field(n) {
                args.set_field(n, f);
                from_state.push(n.clone());
            } else if let Some(f) = work.get(n.as_str()) {
                args.set_field(n, (*f).clone());
            }
        }
        self.set_scalars(&mut args);
        let checked = args.check(&self.storage, core.grid()).map(|_| ());
        let dev = checked.and_then(|()| self.cuda.upload(&self.storage, &args));
        for n in from_state {
            state.set_field(&n, args.take_field(&n).expect("uploaded"))?;
        }
        dev
    }

    /// The component's own fields (work fields) and scalars on the device, without the
    /// state: the caller adds the state's fields as views of its own device memory
    /// (`DeviceArgs::borrow_field` for each of [`CudaPrograms::state_fields`], declared
    /// in [`CudaPrograms::storage`]) and binds them; nothing of the state is copied.
    pub fn workspace_on_device(&self) -> Result<DeviceArgs> {
        let work = self.core.workspace();
        let mut program = self.storage.clone();
        program
            .fields
            .retain(|f| work.contains_key(f.name.as_str()));
        let mut args = Args::new().with_nlev(self.core.nlev());
        for decl in &program.fields {
            args.set_field(&decl.name, work[decl.name.as_str()].clone());
        }
        self.set_scalars(&mut args);
        self.cuda.upload(&program, &args)
    }

    /// Binds every program to `dev` and finds each call's scalars once.
    pub fn bind(&self, dev: DeviceArgs) -> Result<DeviceRun<'_>> {
        let core = self.core;
        let kinds = self
            .kinds
            .iter()
            .map(|segments| {
                segments
                    .iter()
                    .map(|calls| {
                        let bounds = calls
                            .iter()
                            .map(|c| {
                                let (grid, nlev) = (core.grid(), core.nlev());
                                self.cuda.bind(&c.renamed, &c.compiled, grid, nlev, &dev)
                            })
                            .collect::<Result<Vec<_>>>()?;
                        let scalars = self.scalar_slots(&bounds, calls)?;
                        Ok(DeviceSegment { bounds, scalars })
                    })
                    .collect()
            })
            .collect::<Result<_>>()?;
        Ok(DeviceRun {
            kinds,
            programs: self,
            dev,
        })
    }

    /// Per call: each of its scalars as (index among the bound program's scalars, index
    /// among the step's scalars), so that a step only copies values.
    fn scalar_slots(
        &self,
        bounds: &[Bound],
        calls: &[CudaCall],
    ) -> Result<Vec<Vec<(usize, usize)>>> {
        let names = self.core.scalars();
        let what = self.core.names().what;
        bounds
            .iter()
            .zip(calls)
            .map(|(bound, call)| {
                let program = &call.renamed;
                program
                    .scalars
                    .iter()
                    .map(|s| {
                        let at = names.iter().position(|n| *n == s.name).ok_or_else(|| {
                            Error::Argument {
                                program: program.name.clone(),
                                arg: s.name.clone(),
                                message: format!("no such {what} scalar"),
                            }
                        })?;
                        Ok((bound.scalar_index(&s.name)?, at))
                    })
                    .collect()
            })
            .collect()
    }
}

/// The bound calls of one segment.
struct DeviceSegment<'p> {
    bounds: Vec<Bound<'p>>,
    /// Per call: (program scalar, index among the step's scalars).
    scalars: Vec<Vec<(usize, usize)>>,
}

/// A component's fields on the device with every program bound: launches only enqueue
/// kernels.
pub struct DeviceRun<'p> {
    // Declared before `dev`: the bindings point into its buffers and are dropped first.
    kinds: Vec<Vec<DeviceSegment<'p>>>,
    programs: &'p CudaPrograms<'p>,
    dev: DeviceArgs,
}

impl<'p> DeviceRun<'p> {
    /// Enqueues the calls of `segment` of `kind` with the step's scalar `values` (in
    /// the order of the core's scalar names); asynchronous: errors of the kernels'
    /// run-time checks surface in [`DeviceRun::finish`] or [`DeviceRun::download`].
    pub fn launch(&mut self, kind: usize, segment: usize, values: &[Scalar]) -> Result<()> {
        // Halo exchanges are no-ops on one domain (see `common::runner::exchange_with`).
        let s = &mut self.kinds[kind][segment];
        for (bound, at) in s.bounds.iter_mut().zip(&s.scalars) {
            for &(i, j) in at {
                bound.set_scalar_at(i, values[j]);
            }
            bound.launch()?;
        }
        Ok(())
    }

    /// Enqueues every segment of `kind`, in order (for components without host work
    /// between segments).
    pub fn launch_all(&mut self, kind: usize, values: &[Scalar]) -> Result<()> {
        (0..self.kinds[kind].len()).try_for_each(|s| self.launch(kind, s, values))
    }

    /// Waits for the device and reports the first failed run-time check.
    pub fn finish(&self) -> Result<()> {
        for segment in self.kinds.iter().flatten() {
            for b in &segment.bounds {
                b.finish()?;
            }
        }
        Ok(())
    }

    /// Waits, checks, and copies the output fields into `state`.
    pub fn download(&self, state: &mut impl HostState) -> Result<()> {
        self.finish()?;
        let outputs = &self.programs.outputs;
        let mut args = Args::new();
        let mut missing = None;
        for decl in &outputs.fields {
            match state.take_field(&decl.name) {
                Some(f) => args.set_field(&decl.name, f),
                None => missing = Some(decl.name.clone()),
            }
        }
        let r = match missing {
            Some(n) => Err(Error::Field(format!(
                "{}: the state lacks `{n}`",
                self.programs.core.names().what
            ))),
            None => self.programs.cuda.download(outputs, &self.dev, &mut args),
        };
        for decl in &outputs.fields {
            if let Some(f) = args.take_field(&decl.name) {
                state.set_field(&decl.name, f)?;
            }
        }
        r
    }

    /// Waits, checks, and returns the work fields the calls bind, by name.
    pub fn download_workspace(&self) -> Result<BTreeMap<String, Field>> {
        self.finish()?;
        let p = self.programs;
        let work = p.core.workspace();
        let mut args = Args::new();
        for decl in &p.work_outputs.fields {
            args.set_field(&decl.name, work[decl.name.as_str()].clone());
        }
        p.cuda.download(&p.work_outputs, &self.dev, &mut args)?;
        Ok(p.work_outputs
            .fields
            .iter()
            .filter_map(|d| args.take_field(&d.name).map(|f| (d.name.clone(), f)))
            .collect())
    }
}
