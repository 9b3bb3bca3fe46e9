//! The component on the GPU with the fields kept on the device: compile every program of
//! the schedule once ([`CudaVelocityAdvection`]), upload the state once and bind every
//! program once ([`CudaVelocityAdvection::upload`] → [`DeviceVelocityAdvection`]), launch
//! per step ([`DeviceVelocityAdvection::run`]), download at the end
//! ([`DeviceVelocityAdvection::download`]).
//!
//! The host reduction of the vertical CFL number downloads `vertical_cfl` after the calls
//! before it (foehn has no device reduction yet): one wait for the device and one
//! `cells × nlev` copy per step.
//!
//! The CUDA backend binds device fields to a program by its argument names; each program
//! is bound through its renamed copy (see [`super::steps`]), whose names are the
//! component's, so all programs share the device fields of one upload.

use super::plan::Segments;
use super::state::VelocityAdvectionState;
use super::steps::{bound_fields, VERTICAL_CFL};
use super::{max_abs_vertical_cfl, scalar_values, Kind, VelocityAdvection, SCALARS};
use crate::common::runner::{calls, Step};
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::ir::layout::indices_fit;
use foehn::runtime::cuda::{Bound, CudaBackend, CudaCompiled, DeviceArgs};
use foehn::runtime::field::{Args, Field};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A program compiled for the device, with the component's argument names.
struct CudaCall {
    compiled: Arc<CudaCompiled>,
    renamed: ir::Program,
}

/// The compiled calls of one kind, before and after the reduction.
struct CudaSegments {
    before: Vec<CudaCall>,
    after: Vec<CudaCall>,
}

/// The compiled steps of a [`VelocityAdvection`] on a CUDA device.
pub struct CudaVelocityAdvection<'a> {
    component: &'a VelocityAdvection<'a>,
    cuda: &'a CudaBackend,
    /// By [`Kind::index`].
    kinds: Vec<CudaSegments>,
    /// Every field and scalar the calls bind (all read-write: uploaded once).
    storage: ir::Program,
    /// The state's diagnostic fields (downloaded at the end).
    outputs: ir::Program,
    /// The work fields kept between steps (downloaded by
    /// [`DeviceVelocityAdvection::download_workspace`]).
    work_outputs: ir::Program,
    /// `vertical_cfl` alone (downloaded for the reduction).
    cfl: ir::Program,
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

impl<'a> CudaVelocityAdvection<'a> {
    /// Compiles every program of `component`'s schedule (NVRTC, cached on disk).
    pub fn new(
        component: &'a VelocityAdvection<'a>,
        cuda: &'a CudaBackend,
    ) -> Result<CudaVelocityAdvection<'a>> {
        let (grid, nlev) = (component.grid(), component.nlev());
        let compile = |steps: &[Step]| {
            calls(steps)
                .map(|c| {
                    // 32-bit indices only where every field of this grid fits them.
                    let mut schedule = c.schedule.clone();
                    schedule.idx32 &= indices_fit(c.program(), grid, nlev);
                    Ok(CudaCall {
                        compiled: cuda.compile(
                            c.program(),
                            &schedule,
                            foehn::codegen::Sizes::of(grid, nlev),
                        )?,
                        renamed: c.program().clone(),
                    })
                })
                .collect::<Result<Vec<_>>>()
        };
        let plan = component.plan();
        let kinds = Kind::ALL
            .iter()
            .map(|&k| {
                let s: &Segments = plan.segments(k);
                Ok(CudaSegments {
                    before: compile(&s.before)?,
                    after: compile(&s.after)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut decls: BTreeMap<String, (Vec<Dim>, DType)> = BTreeMap::new();
        for k in Kind::ALL {
            let s = plan.segments(k);
            for steps in [&s.before, &s.after] {
                for d in bound_fields(steps) {
                    decls.insert(d.name.clone(), (d.ty.dims.list(), d.ty.dtype));
                }
            }
        }
        // The reduction reads vertical_cfl whichever calls write it.
        decls.insert(VERTICAL_CFL.to_string(), (vec![CELL.into(), K.into()], F64));
        let select = |keep: &dyn Fn(&str) -> bool| -> Vec<(String, Vec<Dim>, DType)> {
            decls
                .iter()
                .filter(|(n, _)| keep(n))
                .map(|(n, (d, t))| (n.clone(), d.clone(), *t))
                .collect()
        };
        let work = component.workspace();
        let diagnostic =
            |n: &str| super::state::VelocityAdvectionDiagnosticState::NAMES.contains(&n);
        use crate::common::state::FieldGroup;
        let outputs = select(&|n| diagnostic(n));
        let work_outputs = select(&|n| work.contains_key(n));
        let storage = select(&|_| true);
        Ok(CudaVelocityAdvection {
            component,
            cuda,
            kinds,
            storage: declarations(
                "velocity_advection_state",
                storage,
                SCALARS.iter().map(|s| s.to_string()).collect(),
            )?,
            outputs: declarations("velocity_advection_outputs", outputs, vec![])?,
            work_outputs: declarations("velocity_advection_work", work_outputs, vec![])?,
            cfl: declarations(
                "velocity_advection_vertical_cfl",
                vec![(VERTICAL_CFL.into(), vec![CELL.into(), K.into()], F64)],
                vec![],
            )?,
        })
    }

    /// Uploads the fields of `state` (and the component's work fields) once and binds
    /// every program to them; the device step starts from `state.max_vertical_cfl`.
    pub fn upload(
        &self,
        state: &mut VelocityAdvectionState,
    ) -> Result<DeviceVelocityAdvection<'_>> {
        let c = self.component;
        let mut args = Args::new().with_nlev(c.nlev());
        let mut from_state = Vec::new();
        let work = c.workspace();
        for decl in self.storage.fields.iter() {
            let n = &decl.name;
            if let Some(f) = state.take_field(n) {
                args.set_field(n, f);
                from_state.push(n.clone());
            } else if let Some(f) = work.get(n.as_str()) {
                args.set_field(n, (*f).clone());
            }
        }
        for (n, x) in SCALARS.iter().zip(scalar_values(1.0)) {
            args.set_scalar(n, x);
        }
        let checked = args.check(&self.storage, c.grid()).map(|_| ());
        let dev = checked.and_then(|()| self.cuda.upload(&self.storage, &args));
        for n in from_state {
            state.set_field(&n, args.take_field(&n).expect("uploaded"))?;
        }
        let mut device = self.bind_device(dev?)?;
        device.max_vertical_cfl = state.max_vertical_cfl;
        Ok(device)
    }

    /// The declarations of every field and scalar the device step binds.
    pub fn storage(&self) -> &ir::Program {
        &self.storage
    }

    /// Binds every program of the steps to `dev` and finds each call's scalars once.
    pub fn bind_device<'s>(&'s self, dev: DeviceArgs) -> Result<DeviceVelocityAdvection<'s>> {
        let c = self.component;
        let bind = |calls: &'s [CudaCall]| -> Result<Vec<Bound<'s>>> {
            calls
                .iter()
                .map(|k| {
                    self.cuda
                        .bind(&k.renamed, &k.compiled, c.grid(), c.nlev(), &dev)
                })
                .collect()
        };
        let mut kinds = vec![];
        for s in &self.kinds {
            let (before, after) = (bind(&s.before)?, bind(&s.after)?);
            let scalars = [
                scalar_slots(&before, &s.before)?,
                scalar_slots(&after, &s.after)?,
            ];
            kinds.push(DeviceSegments {
                before,
                after,
                scalars,
            });
        }
        let cfl_host = Field::zeros(c.grid(), c.nlev(), (CELL, K), F64);
        Ok(DeviceVelocityAdvection {
            kinds,
            programs: self,
            max_vertical_cfl: 0.0,
            cfl_host,
            dev,
        })
    }
}

/// Per call: each of its scalars as (index among the bound program's scalars, index in
/// `SCALARS`).
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
                    let at = SCALARS.iter().position(|n| *n == s.name).ok_or_else(|| {
                        Error::Argument {
                            program: program.name.clone(),
                            arg: s.name.clone(),
                            message: "no such velocity advection scalar".into(),
                        }
                    })?;
                    Ok((bound.scalar_index(&s.name)?, at))
                })
                .collect()
        })
        .collect()
}

/// The bound calls of one kind.
struct DeviceSegments<'p> {
    before: Vec<Bound<'p>>,
    after: Vec<Bound<'p>>,
    /// Per segment and call: (program scalar, index in `SCALARS`).
    scalars: [Vec<Vec<(usize, usize)>>; 2],
}

/// The state on the device with every program bound.
pub struct DeviceVelocityAdvection<'p> {
    // Declared before `dev`: the bindings point into its buffers and are dropped first.
    kinds: Vec<DeviceSegments<'p>>,
    programs: &'p CudaVelocityAdvection<'p>,
    /// The running maximum of the CFL number (written to the state by
    /// [`DeviceVelocityAdvection::download`]).
    pub max_vertical_cfl: f64,
    cfl_host: Field,
    dev: DeviceArgs,
}

impl DeviceVelocityAdvection<'_> {
    /// One step of `kind`: enqueues the calls before the reduction, waits for them,
    /// downloads `vertical_cfl` and reduces it on the host, enqueues the calls after it.
    pub fn run(&mut self, kind: Kind, dtime: f64) -> Result<()> {
        let values = scalar_values(dtime);
        let p = self.programs;
        let seg = &mut self.kinds[kind.index()];
        let [before_scalars, after_scalars] = &seg.scalars;
        for (bound, at) in seg.before.iter_mut().zip(before_scalars) {
            for &(i, j) in at {
                bound.set_scalar_at(i, values[j]);
            }
            bound.launch()?;
        }
        for b in &seg.before {
            b.finish()?;
        }
        let mut args = Args::new().with_field(
            VERTICAL_CFL,
            std::mem::replace(&mut self.cfl_host, Field::placeholder()),
        );
        let r = p.cuda.download(&p.cfl, &self.dev, &mut args);
        self.cfl_host = args.take_field(VERTICAL_CFL).expect("kept");
        r?;
        let cfl = max_abs_vertical_cfl(p.component.grid(), &self.cfl_host)?;
        self.max_vertical_cfl = self.max_vertical_cfl.max(cfl);
        for (bound, at) in seg.after.iter_mut().zip(after_scalars) {
            for &(i, j) in at {
                bound.set_scalar_at(i, values[j]);
            }
            bound.launch()?;
        }
        Ok(())
    }

    /// Waits for the device and reports the first failed run-time check.
    pub fn finish(&self) -> Result<()> {
        for s in &self.kinds {
            for b in s.before.iter().chain(&s.after) {
                b.finish()?;
            }
        }
        Ok(())
    }

    /// Waits, checks, and copies the diagnostic fields and `max_vertical_cfl` into
    /// `state`.
    pub fn download(&self, state: &mut VelocityAdvectionState) -> Result<()> {
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
                "velocity advection: the state lacks `{n}`"
            ))),
            None => self.programs.cuda.download(outputs, &self.dev, &mut args),
        };
        for decl in &outputs.fields {
            if let Some(f) = args.take_field(&decl.name) {
                state.set_field(&decl.name, f)?;
            }
        }
        state.max_vertical_cfl = self.max_vertical_cfl;
        r
    }

    /// Waits, checks, and returns the work fields the steps bind, by name.
    pub fn download_workspace(&self) -> Result<BTreeMap<String, Field>> {
        self.finish()?;
        let p = self.programs;
        let work = p.component.workspace();
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
