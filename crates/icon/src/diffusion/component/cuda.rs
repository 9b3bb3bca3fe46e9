//! The component on the GPU with the fields kept on the device: compile every program of
//! the schedule once ([`CudaDiffusion`]), upload the state once and bind every program
//! once ([`CudaDiffusion::upload`] → [`DeviceDiffusion`]), launch per step
//! ([`DeviceDiffusion::run`]: kernels are only enqueued), download at the end
//! ([`DeviceDiffusion::download`]). The work is [`crate::common::cuda`]'s; this module
//! says which fields diffusion downloads and which scalars a step sets.

use super::plan::kind;
use super::state::{DIAGNOSTIC, PROGNOSTIC};
use super::{scalar_values, Diffusion, DiffusionState};
use crate::common::cuda::{CudaPrograms, DeviceRun};
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::cuda::{CudaBackend, DeviceArgs};

crate::host_state_impl!(DiffusionState);

/// The compiled step of a [`Diffusion`] on a CUDA device.
pub struct CudaDiffusion<'a> {
    diffusion: &'a Diffusion<'a>,
    programs: CudaPrograms<'a>,
}

impl<'a> CudaDiffusion<'a> {
    /// Compiles every program of `diffusion`'s schedule (NVRTC, cached on disk).
    pub fn new(diffusion: &'a Diffusion<'a>, cuda: &'a CudaBackend) -> Result<CudaDiffusion<'a>> {
        let outputs = |n: &str| PROGNOSTIC.contains(&n) || DIAGNOSTIC.contains(&n);
        let scalars = scalar_values(diffusion.params(), 0.0).to_vec();
        Ok(CudaDiffusion {
            diffusion,
            programs: CudaPrograms::new(diffusion.core(), cuda, &outputs, &[], scalars)?,
        })
    }

    /// Uploads the fields of `state` (and the component's K coefficients and work
    /// fields) once and binds every program to them.
    pub fn upload(&self, state: &mut DiffusionState) -> Result<DeviceDiffusion<'_>> {
        self.bind_device(self.programs.upload(state)?)
    }

    /// The component's own fields (K coefficients, work fields) and scalars on the
    /// device, without the state: the caller adds the state's fields as views of its
    /// own device memory (`DeviceArgs::borrow_field` for each of
    /// [`CudaDiffusion::state_fields`], declared in [`CudaDiffusion::storage`]) and
    /// binds them with [`CudaDiffusion::bind_device`]; nothing of the state is copied.
    pub fn workspace_on_device(&self) -> Result<DeviceArgs> {
        self.programs.workspace_on_device()
    }

    /// The state fields the device step binds (names of [`CudaDiffusion::storage`]
    /// that are fields of a diffusion state).
    pub fn state_fields(&self) -> Vec<&str> {
        self.programs.state_fields()
    }

    /// The declarations of every field and scalar the device step binds.
    pub fn storage(&self) -> &ir::Program {
        self.programs.storage()
    }

    /// Binds every program of the step to `dev` (uploaded by
    /// [`CudaDiffusion::upload`], or the component's workspace with the caller's
    /// borrowed state fields) and finds each call's scalars once.
    pub fn bind_device(&self, dev: DeviceArgs) -> Result<DeviceDiffusion<'_>> {
        Ok(DeviceDiffusion {
            run: self.programs.bind(dev)?,
            diffusion: self.diffusion,
        })
    }
}

/// The state on the device with every program bound: [`DeviceDiffusion::run`] only
/// enqueues kernels.
pub struct DeviceDiffusion<'p> {
    run: DeviceRun<'p>,
    diffusion: &'p Diffusion<'p>,
}

impl DeviceDiffusion<'_> {
    /// Enqueues one diffusion step (asynchronous; errors of the kernels' run-time checks
    /// surface in [`DeviceDiffusion::finish`] or [`DeviceDiffusion::download`]).
    pub fn run(&mut self, dtime: f64, initial_run: bool) -> Result<()> {
        let values = scalar_values(self.diffusion.params_for(initial_run), dtime);
        self.run.launch_all(kind(initial_run), &values)
    }

    /// Waits for the device and reports the first failed run-time check.
    pub fn finish(&self) -> Result<()> {
        self.run.finish()
    }

    /// Waits, checks, and copies the prognostic and diagnostic fields into `state`.
    pub fn download(&self, state: &mut DiffusionState) -> Result<()> {
        self.run.download(state)
    }
}
