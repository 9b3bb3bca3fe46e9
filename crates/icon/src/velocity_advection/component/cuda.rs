//! The component on the GPU with the fields kept on the device: compile every program of
//! the schedule once ([`CudaVelocityAdvection`]), upload the state once and bind every
//! program once ([`CudaVelocityAdvection::upload`] → [`DeviceVelocityAdvection`]), launch
//! per step ([`DeviceVelocityAdvection::run`]), download at the end
//! ([`DeviceVelocityAdvection::download`]). The work is [`crate::common::cuda`]'s; this
//! module adds the reduction of the vertical CFL number.
//!
//! The reduction runs on the device ([`crate::common::device_max`]): `vertical_cfl`
//! lives in a device buffer of this module's own, bound to the programs as a borrowed
//! field, and a kernel queued after the calls that write it folds the largest
//! `|vertical_cfl|` over the cells of [`super::reduction_range`] and every level into a
//! running maximum in device memory. A step only enqueues work: nothing waits, nothing
//! of the field is copied, and reading the maximum
//! ([`DeviceVelocityAdvection::max_vertical_cfl`], [`DeviceVelocityAdvection::download`])
//! downloads its 8 bytes.

use super::plan::SEGMENTS;
use super::state::{VelocityAdvectionDiagnosticState, VelocityAdvectionState};
use super::steps::VERTICAL_CFL;
use super::{reduction_range, scalar_values, Kind, VelocityAdvection};
use crate::common::cuda::{CudaPrograms, DeviceRun};
use crate::common::device_max::{MaxAbs, RunningMax};
use crate::common::state::FieldGroup;
use foehn::error::{Error, Result};
use foehn::ir::{self, FieldType};
use foehn::runtime::cuda::{CudaBackend, DeviceArgs};
use foehn::runtime::field::Field;
use foehn_gpu::DeviceBuffer;
use std::collections::BTreeMap;

crate::host_state_impl!(VelocityAdvectionState);

/// Where the reduction reads `vertical_cfl`: the horizontal range, the levels and the
/// distance between levels, in elements.
#[derive(Debug, Clone, Copy)]
struct CflLayout {
    cells: (usize, usize),
    levels: usize,
    stride: usize,
}

/// The compiled steps of a [`VelocityAdvection`] on a CUDA device.
pub struct CudaVelocityAdvection<'a> {
    component: &'a VelocityAdvection<'a>,
    programs: CudaPrograms<'a>,
    max_abs: MaxAbs,
    layout: CflLayout,
}

impl<'a> CudaVelocityAdvection<'a> {
    /// Compiles every program of `component`'s schedule (NVRTC, cached on disk) and the
    /// reduction kernel.
    pub fn new(
        component: &'a VelocityAdvection<'a>,
        cuda: &'a CudaBackend,
    ) -> Result<CudaVelocityAdvection<'a>> {
        let cfl = component.core().workspace()[VERTICAL_CFL];
        let cfl_type = FieldType {
            dims: cfl.dims(),
            dtype: cfl.dtype(),
        };
        let diagnostic = |n: &str| VelocityAdvectionDiagnosticState::NAMES.contains(&n);
        // The reduction reads vertical_cfl whichever calls write it.
        let programs = CudaPrograms::new(
            component.core(),
            cuda,
            &diagnostic,
            &[(VERTICAL_CFL, cfl_type)],
            scalar_values(1.0).to_vec(),
        )?;
        let layout = CflLayout {
            cells: reduction_range(component.grid(), cfl)?,
            levels: cfl.levels(),
            stride: cfl.flat_index(0, 0, 1) - cfl.flat_index(0, 0, 0),
        };
        Ok(CudaVelocityAdvection {
            component,
            programs,
            max_abs: MaxAbs::new(cuda.gpu())?,
            layout,
        })
    }

    /// Uploads the fields of `state` (and the component's work fields) once and binds
    /// every program to them; the device step starts from `state.max_vertical_cfl`.
    pub fn upload(
        &self,
        state: &mut VelocityAdvectionState,
    ) -> Result<DeviceVelocityAdvection<'_>> {
        let mut device = self.bind_device(self.programs.upload(state)?)?;
        device.start = state.max_vertical_cfl;
        Ok(device)
    }

    /// The declarations of every field and scalar the device step binds.
    pub fn storage(&self) -> &ir::Program {
        self.programs.storage()
    }

    /// Binds every program of the steps to `dev` and finds each call's scalars once;
    /// `vertical_cfl` is bound to a buffer of the device state's own, filled from the
    /// component's work field, and the running maximum starts at 0.
    pub fn bind_device(&self, mut dev: DeviceArgs) -> Result<DeviceVelocityAdvection<'_>> {
        let c = self.component;
        let gpu = self.programs.backend().gpu();
        let host = c.core().workspace()[VERTICAL_CFL]
            .as_f64()
            .ok_or_else(|| Error::Field("vertical_cfl: not an f64 field".into()))?;
        let gpu_err = |e: foehn_gpu::GpuError| Error::Field(format!("{VERTICAL_CFL}: {e}"));
        let cfl = DeviceBuffer::from_slice(gpu, host).map_err(gpu_err)?;
        // SAFETY: `cfl` is kept beside the bindings in the device state, declared after
        // them (dropped last).
        unsafe {
            dev.borrow_field(
                self.storage(),
                VERTICAL_CFL,
                cfl.ptr(),
                cfl.bytes(),
                c.grid(),
                c.nlev(),
            )?
        };
        Ok(DeviceVelocityAdvection {
            run: self.programs.bind(dev)?,
            max: self.max_abs.running(gpu)?,
            start: 0.0,
            reduced: false,
            programs: self,
            cfl,
        })
    }
}

/// The state on the device with every program bound.
pub struct DeviceVelocityAdvection<'p> {
    // Declared before `cfl`: the bindings point into it and are dropped first.
    run: DeviceRun<'p>,
    /// The largest `|vertical_cfl|` of the steps so far (0 before the first).
    max: RunningMax,
    /// The running maximum before the first step (the state's).
    start: f64,
    /// Whether a step has reduced into `max`.
    reduced: bool,
    programs: &'p CudaVelocityAdvection<'p>,
    cfl: DeviceBuffer,
}

impl DeviceVelocityAdvection<'_> {
    /// One step of `kind`: enqueues the calls before the reduction, the reduction of
    /// `vertical_cfl` into the running maximum, and the calls after it (nothing waits).
    pub fn run(&mut self, kind: Kind, dtime: f64) -> Result<()> {
        let values = scalar_values(dtime);
        let k = kind.index();
        self.run.launch(k, 0, &values)?;
        let p = self.programs;
        let CflLayout {
            cells,
            levels,
            stride,
        } = p.layout;
        let gpu = p.programs.backend().gpu();
        // SAFETY: `cfl` holds the whole field (`levels` levels `stride` apart, the
        // range within a level) and lives as long as `self`.
        unsafe {
            p.max_abs
                .enqueue(gpu, self.cfl.ptr(), cells, levels, stride, &self.max)?
        };
        self.reduced = true;
        (1..SEGMENTS).try_for_each(|s| self.run.launch(k, s, &values))
    }

    /// The running maximum of the CFL number (ICON's `max_vcfl_dyn`): the state's at
    /// upload and `|vertical_cfl|` of every step since, as the host's
    /// `f64::max`. Waits for the device and downloads 8 bytes.
    pub fn max_vertical_cfl(&self) -> Result<f64> {
        if !self.reduced {
            return Ok(self.start);
        }
        let gpu = self.programs.programs.backend().gpu();
        Ok(self.start.max(self.max.get(gpu)?))
    }

    /// Sets the running maximum (the driver's reset of `max_vcfl_dyn`).
    pub fn set_max_vertical_cfl(&mut self, value: f64) -> Result<()> {
        self.max.reset(self.programs.programs.backend().gpu())?;
        self.start = value;
        self.reduced = false;
        Ok(())
    }

    /// Waits for the device and reports the first failed run-time check.
    pub fn finish(&self) -> Result<()> {
        self.run.finish()
    }

    /// Waits, checks, and copies the diagnostic fields and `max_vertical_cfl` into
    /// `state`.
    pub fn download(&self, state: &mut VelocityAdvectionState) -> Result<()> {
        let r = self.run.download(state);
        state.max_vertical_cfl = self.max_vertical_cfl()?;
        r
    }

    /// Waits, checks, and returns the work fields the steps bind, by name.
    pub fn download_workspace(&self) -> Result<BTreeMap<String, Field>> {
        self.run.download_workspace()
    }
}
