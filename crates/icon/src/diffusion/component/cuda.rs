//! The component on the GPU with the fields kept on the device: compile every program of
//! the schedule once ([`CudaDiffusion`]), upload the state once and bind every program
//! once ([`CudaDiffusion::upload`] → [`DeviceDiffusion`]), launch per step
//! ([`DeviceDiffusion::run`]: kernels are only enqueued), download at the end
//! ([`DeviceDiffusion::download`]).
//!
//! The CUDA backend binds device fields to a program by its argument names; each program
//! is bound through its renamed copy (see [`super::plan`]), whose names are the
//! component's, so all programs share the device fields of one upload.

use super::steps::bound_fields;
use super::{scalar_values, scalars, Diffusion, DiffusionState, SCALARS};
use crate::common::runner::{calls, Step};
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::ir::layout::indices_fit;
use foehn::runtime::cuda::{Bound, CudaBackend, CudaCompiled, DeviceArgs};
use foehn::runtime::field::Args;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A program compiled for the device, with the component's argument names (the
/// optimised program under [`super::Schedule::Optimised`]).
struct CudaCall {
    compiled: Arc<CudaCompiled>,
    renamed: ir::Program,
}

/// The compiled step of a [`Diffusion`] on a CUDA device.
pub struct CudaDiffusion<'a> {
    diffusion: &'a Diffusion<'a>,
    cuda: &'a CudaBackend,
    regular: Vec<CudaCall>,
    initial: Vec<CudaCall>,
    /// Every field and scalar the calls bind (all read-write: uploaded once).
    storage: ir::Program,
    /// The prognostic and diagnostic fields (downloaded at the end).
    outputs: ir::Program,
}

/// A declarations-only program: `fields` (read-write) and `scalars` (f64).
fn declarations(
    name: &str,
    fields: Vec<(String, Vec<Dim>, DType)>,
    scalars: Vec<String>,
) -> Result<ir::Program> {
    ProgramDef::new(name, move |b| {
        for (n, dims, dtype) in &fields {
            b.inout(n, dims.clone(), *dtype);
        }
        for s in &scalars {
            b.scalar(s, F64);
        }
    })
    .specialize(&Variant::new())
}

impl<'a> CudaDiffusion<'a> {
    /// Compiles every program of `diffusion`'s schedule (NVRTC, cached on disk).
    pub fn new(diffusion: &'a Diffusion<'a>, cuda: &'a CudaBackend) -> Result<CudaDiffusion<'a>> {
        let nlev = diffusion.nlev();
        let compile = |steps: &[Step]| {
            calls(steps)
                .map(|c| {
                    // 32-bit indices only where every field of this grid fits them.
                    let mut schedule = c.schedule.clone();
                    schedule.idx32 &= indices_fit(c.program(), diffusion.grid(), nlev);
                    Ok(CudaCall {
                        compiled: cuda.compile(
                            c.program(),
                            &schedule,
                            foehn::codegen::Sizes::of(diffusion.grid(), nlev),
                        )?,
                        renamed: c.program().clone(),
                    })
                })
                .collect::<Result<Vec<_>>>()
        };
        let plan = diffusion.plan();
        let (regular, initial) = (compile(plan.steps(false))?, compile(plan.steps(true))?);
        let mut decls: BTreeMap<String, (Vec<Dim>, DType)> = BTreeMap::new();
        for steps in [plan.steps(false), plan.steps(true)] {
            for d in bound_fields(steps) {
                decls.insert(d.name.clone(), (d.ty.dims.list(), d.ty.dtype));
            }
        }
        let scalar_names: Vec<String> = scalars(diffusion.params(), 0.0).into_keys().collect();
        let outputs = decls
            .iter()
            .filter(|(n, _)| {
                super::state::PROGNOSTIC.contains(&n.as_str())
                    || super::state::DIAGNOSTIC.contains(&n.as_str())
            })
            .map(|(n, (d, t))| (n.clone(), d.clone(), *t))
            .collect();
        let storage = decls.into_iter().map(|(n, (d, t))| (n, d, t)).collect();
        Ok(CudaDiffusion {
            diffusion,
            cuda,
            regular,
            initial,
            storage: declarations("diffusion_state", storage, scalar_names)?,
            outputs: declarations("diffusion_outputs", outputs, vec![])?,
        })
    }

    /// Uploads the fields of `state` (and the component's K coefficients and work
    /// fields) once and binds every program to them.
    pub fn upload(&self, state: &mut DiffusionState) -> Result<DeviceDiffusion<'_>> {
        let d = self.diffusion;
        let mut args = Args::new().with_nlev(d.nlev());
        let mut from_state = Vec::new();
        let work = d.workspace();
        for decl in self.storage.fields.iter() {
            let n = &decl.name;
            if let Some(f) = state.take_field(n) {
                args.set_field(n, f);
                from_state.push(n.clone());
            } else if let Some(f) = work.get(n.as_str()) {
                args.set_field(n, (*f).clone());
            }
        }
        for (n, x) in scalars(d.params(), 0.0) {
            args.set_scalar(&n, x);
        }
        let checked = args.check(&self.storage, d.grid()).map(|_| ());
        let dev = checked.and_then(|()| self.cuda.upload(&self.storage, &args));
        for n in from_state {
            state.set_field(&n, args.take_field(&n).expect("uploaded"))?;
        }
        self.bind_device(dev?)
    }

    /// The component's own fields (K coefficients, work fields) and scalars on the
    /// device, without the state: the caller adds the state's fields as views of its
    /// own device memory (`DeviceArgs::borrow_field` for each of
    /// [`CudaDiffusion::state_fields`], declared in [`CudaDiffusion::storage`]) and
    /// binds them with [`CudaDiffusion::bind_device`]; nothing of the state is copied.
    pub fn workspace_on_device(&self) -> Result<DeviceArgs> {
        let d = self.diffusion;
        let work = d.workspace();
        let decls = self
            .storage
            .fields
            .iter()
            .filter(|f| work.contains_key(f.name.as_str()));
        let mut args = Args::new().with_nlev(d.nlev());
        let mut program = self.storage.clone();
        program.fields = decls.clone().cloned().collect();
        for decl in decls {
            args.set_field(&decl.name, work[decl.name.as_str()].clone());
        }
        for (n, x) in scalars(d.params(), 0.0) {
            args.set_scalar(&n, x);
        }
        self.cuda.upload(&program, &args)
    }

    /// The state fields the device step binds (names of [`CudaDiffusion::storage`]
    /// that are fields of a diffusion state).
    pub fn state_fields(&self) -> Vec<&str> {
        let work = self.diffusion.workspace();
        self.storage
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .filter(|n| !work.contains_key(n))
            .collect()
    }

    /// The declarations of every field and scalar the device step binds.
    pub fn storage(&self) -> &ir::Program {
        &self.storage
    }

    /// Binds every program of the step to `dev` (uploaded by
    /// [`CudaDiffusion::upload`], or the component's workspace with the caller's
    /// borrowed state fields) and finds each call's scalars once.
    pub fn bind_device(&self, dev: DeviceArgs) -> Result<DeviceDiffusion<'_>> {
        let (regular, initial) = (
            self.bind(&self.regular, &dev)?,
            self.bind(&self.initial, &dev)?,
        );
        let scalars = [
            scalar_slots(&regular, &self.regular)?,
            scalar_slots(&initial, &self.initial)?,
        ];
        Ok(DeviceDiffusion {
            regular,
            initial,
            scalars,
            programs: self,
            dev,
        })
    }
}

impl<'a> CudaDiffusion<'a> {
    fn bind<'s>(&'s self, calls: &'s [CudaCall], dev: &DeviceArgs) -> Result<Vec<Bound<'s>>> {
        let d = self.diffusion;
        calls
            .iter()
            .map(|c| {
                self.cuda
                    .bind(&c.renamed, &c.compiled, d.grid(), d.nlev(), dev)
            })
            .collect()
    }
}

/// Per call: each of its scalars as (index among the bound program's scalars, index in
/// `SCALARS`), so that a step only copies values.
fn scalar_slots(bounds: &[Bound], calls: &[CudaCall]) -> Result<Vec<Vec<(usize, usize)>>> {
    bounds
        .iter()
        .zip(calls)
        .map(|(bound, call)| {
            let program = &call.renamed;
            program
                .scalars
                .iter()
                .map(|s| {
                    Ok((
                        bound.scalar_index(&s.name)?,
                        scalar_position(program, &s.name)?,
                    ))
                })
                .collect()
        })
        .collect()
}

/// The index of the diffusion scalar `name` in `SCALARS`.
fn scalar_position(program: &ir::Program, name: &str) -> Result<usize> {
    SCALARS
        .iter()
        .position(|n| *n == name)
        .ok_or_else(|| Error::Argument {
            program: program.name.clone(),
            arg: name.to_string(),
            message: "no such diffusion scalar".into(),
        })
}

/// The state on the device with every program bound: [`DeviceDiffusion::run`] only
/// enqueues kernels.
pub struct DeviceDiffusion<'p> {
    // Declared before `dev`: the bindings point into its buffers and are dropped first.
    regular: Vec<Bound<'p>>,
    initial: Vec<Bound<'p>>,
    /// Per call of the regular and the initial step: (program scalar, index in
    /// `SCALARS`), found once when binding.
    scalars: [Vec<Vec<(usize, usize)>>; 2],
    programs: &'p CudaDiffusion<'p>,
    dev: DeviceArgs,
}

impl DeviceDiffusion<'_> {
    /// Enqueues one diffusion step (asynchronous; errors of the kernels' run-time checks
    /// surface in [`DeviceDiffusion::finish`] or [`DeviceDiffusion::download`]).
    pub fn run(&mut self, dtime: f64, initial_run: bool) -> Result<()> {
        let d = self.programs.diffusion;
        let values = scalar_values(d.params_for(initial_run), dtime);
        let bounds = if initial_run {
            &mut self.initial
        } else {
            &mut self.regular
        };
        // Halo exchanges are no-ops on one domain (see `common::runner::exchange_with`).
        for (bound, at) in bounds.iter_mut().zip(&self.scalars[initial_run as usize]) {
            for &(i, j) in at {
                bound.set_scalar_at(i, values[j]);
            }
            bound.launch()?;
        }
        Ok(())
    }

    /// Waits for the device and reports the first failed run-time check.
    pub fn finish(&self) -> Result<()> {
        for b in self.regular.iter().chain(&self.initial) {
            b.finish()?;
        }
        Ok(())
    }

    /// Waits, checks, and copies the prognostic and diagnostic fields into `state`.
    pub fn download(&self, state: &mut DiffusionState) -> Result<()> {
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
            Some(n) => Err(Error::Field(format!("diffusion: the state lacks `{n}`"))),
            None => self.programs.cuda.download(outputs, &self.dev, &mut args),
        };
        for decl in &outputs.fields {
            if let Some(f) = args.take_field(&decl.name) {
                state.set_field(&decl.name, f)?;
            }
        }
        r
    }
}
