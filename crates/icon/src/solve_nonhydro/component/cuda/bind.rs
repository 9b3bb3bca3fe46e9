//! Binding a kind of the solver's plan to the device state: its programs compiled (on
//! all threads), each argument pointed at the slot buffer (or the part of it) the
//! program declares, and the scalars' positions in each launch's argument block.

use super::{DeviceKind, DeviceSolveNonhydroState, DeviceStep};
use crate::common::cuda::{compile_calls, declarations};
use crate::common::runner::{part_of, Call, Exchange, Step};
use crate::solve_nonhydro::component::{SolveNonhydro, SCALARS};
use foehn::error::{Error, Result};
use foehn::ir::{self, DType, FieldType, Role, Scalar};
use foehn::runtime::cuda::{CudaCompiled, DeviceArgs};
use foehn::runtime::field::Field;
use foehn_gpu::DevicePtr;
use std::collections::BTreeMap;
use std::sync::Arc;

/// An argument of a bound program: its name there, and where it lies.
#[derive(Debug)]
pub(super) struct Argument {
    pub(super) ty: FieldType,
    pub(super) buffer: String,
    /// Offset into the buffer, in bytes.
    pub(super) offset: usize,
}

impl<'c> DeviceSolveNonhydroState<'c> {
    /// Compiles the programs of `kind` of `solver`'s plan and binds them for the
    /// current parity.
    pub(super) fn bind_kind(
        &self,
        solver: &SolveNonhydro<'_>,
        kind: usize,
    ) -> Result<DeviceKind<'c>> {
        let core = &solver.core;
        let (grid, nlev) = (core.grid(), core.nlev());
        let cuda = self.cuda;
        let mut arguments: BTreeMap<String, Argument> = BTreeMap::new();
        // The kind's programs compiled on all threads (NVRTC, or loads from the cache)
        // before they are bound one by one, in the order of their calls: a cold run's
        // first step binds several kinds of a dozen programs each.
        let calls: Vec<&Call> = core.plan().calls(kind).collect();
        let compiled = compile_calls(cuda, &calls, grid, nlev)?;
        let mut next_call = 0;
        // Per segment: the programs to bind (arguments renamed where narrowed) or the
        // exchange points.
        let mut prepared: Vec<Vec<Result<(ir::Program, usize), &Exchange>>> = Vec::new();
        for segment in core.plan().segments(kind) {
            let mut steps = Vec::new();
            for step in segment {
                let c = match step {
                    Step::Call(c) => c,
                    Step::Exchange(x) => {
                        steps.push(Err(x));
                        continue;
                    }
                };
                let program = c.program();
                let mut bound = program.clone();
                for d in bound.fields.iter_mut().filter(|d| d.role != Role::Temp) {
                    let buffer = self.parity.buffer(&d.name);
                    let held = self.slots.get(buffer).map(|h| h.ty);
                    let at = (grid, nlev);
                    let (name, arg) = argument(held, buffer, &program.name, &d.name, d.ty, at)?;
                    d.name = name.clone();
                    arguments.insert(name, arg);
                }
                steps.push(Ok((bound, next_call)));
                next_call += 1;
            }
            prepared.push(steps);
        }
        let dev = self.device_args(&arguments, grid, nlev)?;
        let mut segments = Vec::new();
        for steps in prepared {
            let mut bound_steps = Vec::new();
            for step in steps {
                bound_steps.push(match step {
                    Ok((program, at)) => {
                        let named = scalar_positions(&program)?;
                        // SAFETY: the compiled program is kept in the `DeviceKind` beside
                        // the binding, declared after it (dropped last); an `Arc`'s
                        // contents do not move.
                        let c: &'c CudaCompiled = unsafe { &*Arc::as_ptr(&compiled[at]) };
                        let bound = cuda.bind(&program, c, grid, nlev, &dev)?;
                        let scalars = named
                            .into_iter()
                            .map(|(name, at, dtype)| Ok((bound.scalar_index(name)?, at, dtype)))
                            .collect::<Result<_>>()?;
                        DeviceStep::Call {
                            bound: Box::new(bound),
                            scalars,
                        }
                    }
                    Err(x) => DeviceStep::Exchange {
                        exchange: x.clone(),
                        fields: x.fields.iter().map(|n| self.exchanged(n)).collect(),
                    },
                });
            }
            segments.push(bound_steps);
        }
        Ok(DeviceKind {
            segments,
            graphs: super::graphs::none(),
            _compiled: compiled,
        })
    }

    /// Device arguments viewing the buffers as `arguments` say, and every scalar of
    /// [`SCALARS`] (set per launch).
    fn device_args(
        &self,
        arguments: &BTreeMap<String, Argument>,
        grid: &foehn_grid::Grid,
        nlev: usize,
    ) -> Result<DeviceArgs> {
        let decls: Vec<(&str, FieldType)> =
            arguments.iter().map(|(n, a)| (n.as_str(), a.ty)).collect();
        let storage = declarations("solve_nonhydro_device", &decls, &[])?;
        let mut dev = DeviceArgs::default();
        for (name, a) in arguments {
            let held = &self.slots[&a.buffer];
            let bytes = Field::grid_shape(grid, nlev, a.ty.dims)
                .iter()
                .product::<usize>()
                * a.ty.dtype.size_bytes();
            if a.offset + bytes > held.buf.bytes() {
                return Err(Error::Field(format!(
                    "solve_nonhydro device state: `{name}` needs {bytes} bytes at {}, its buffer \
                     `{}` holds {}",
                    a.offset,
                    a.buffer,
                    held.buf.bytes()
                )));
            }
            // SAFETY: a view into a buffer of this device state, which outlives the
            // bindings made from these arguments (see the field order of the state).
            unsafe {
                dev.borrow_field(
                    &storage,
                    name,
                    held.buf.ptr() + a.offset as DevicePtr,
                    bytes,
                    grid,
                    nlev,
                )?
            };
        }
        for s in SCALARS {
            dev.set_scalar(s, Scalar::F64(0.0));
        }
        Ok(dev)
    }
}

/// The name a program binds the slot `slot` by and where it lies (`buffer`, which holds
/// `held`, `None` if not uploaded): the slot itself when the program declares what the
/// slot holds (`ty`), else an alias `<slot>__at_<offset>` of the part it declares
/// (`part_of`) on `grid` with `nlev` levels.
pub(super) fn argument(
    held: Option<FieldType>,
    buffer: &str,
    program: &str,
    slot: &str,
    ty: FieldType,
    (grid, nlev): (&foehn_grid::Grid, usize),
) -> Result<(String, Argument)> {
    let err = |message: String| Error::Argument {
        program: program.to_string(),
        arg: slot.to_string(),
        message,
    };
    let held = held.ok_or_else(|| err("not uploaded: a placeholder in the state".into()))?;
    let buffer = buffer.to_string();
    if held == ty {
        let arg = Argument {
            ty,
            buffer,
            offset: 0,
        };
        return Ok((slot.to_string(), arg));
    }
    let range = part_of(held.dims, ty.dims, grid, nlev)
        .filter(|_| held.dtype == ty.dtype)
        .ok_or_else(|| err(format!("the slot holds {held}, the argument is {ty}")))?;
    let arg = Argument {
        ty,
        buffer,
        offset: range.start * ty.dtype.size_bytes(),
    };
    Ok((format!("{slot}__at_{}", range.start), arg))
}

/// Per scalar of `program`: its name, its index in [`SCALARS`], its type (an error
/// names a scalar the solver does not give, before anything is bound).
fn scalar_positions(program: &ir::Program) -> Result<Vec<(&str, usize, DType)>> {
    program
        .scalars
        .iter()
        .map(|s| {
            let at = SCALARS
                .iter()
                .position(|n| *n == s.name)
                .ok_or_else(|| Error::Argument {
                    program: program.name.clone(),
                    arg: s.name.clone(),
                    message: "no such solve_nonhydro scalar".into(),
                })?;
            Ok((s.name.as_str(), at, s.dtype))
        })
        .collect()
}
