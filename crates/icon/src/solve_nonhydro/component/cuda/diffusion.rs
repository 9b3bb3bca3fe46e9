//! The horizontal diffusion on the solver's device prognostic buffers, so that a time
//! loop keeps the whole state on the device: the diffusion's own fields (its constants
//! and diagnostics) are uploaded once, and its device step is bound twice, once to each
//! set of prognostic buffers (those `current_*` and those `next_*` held at upload).
//! [`DeviceSolveNonhydroState::diffuse`] runs the binding of the set a slot points at
//! under the present [`Parity`](super::Parity): nothing is copied, no pointer is
//! rewritten (the bindings' CUDA graphs stay valid).

use super::slots::SlotBuffer;
use super::DeviceSolveNonhydroState;
use crate::diffusion::component::cuda::{CudaDiffusion, DeviceDiffusion};
use crate::diffusion::component::state::{DiffusionState, PROGNOSTIC};
use crate::solve_nonhydro::component::state::{CURRENT, NEXT};
use foehn::error::{Error, Result};
use foehn_grid::Grid;
use std::collections::BTreeMap;

/// The diffusion bound to both sets of the solver's prognostic buffers.
pub(super) struct DiffusionOnDevice<'c> {
    // Declared before `own`: the bindings point into its buffers and are dropped first.
    /// Bound to the buffers of `current_*` at upload (0) and of `next_*` (1).
    runs: [DeviceDiffusion<'c>; 2],
    /// Which binding ran last (its fields are what a download returns).
    last: usize,
    /// The diffusion state's fields other than the prognostic ones, by name.
    _own: BTreeMap<String, SlotBuffer>,
}

impl DiffusionOnDevice<'_> {
    /// Waits for the device and reports the first failed run-time check of either
    /// binding.
    pub(super) fn finish(&self) -> Result<()> {
        self.runs.iter().try_for_each(DeviceDiffusion::finish)
    }
}

/// The solver's slot of the diffusion's prognostic field `name` in `set`.
fn slot_of(set: usize, name: &str) -> Option<&'static str> {
    let at = <crate::common::state::PrognosticState as crate::common::state::FieldGroup>::NAMES
        .iter()
        .position(|n| *n == name)?;
    Some([CURRENT, NEXT][set][at])
}

impl<'c> DeviceSolveNonhydroState<'c> {
    /// Uploads the fields of `state` the device step of `diffusion` binds, except the
    /// prognostic ones, and binds the step to each set of this state's prognostic
    /// buffers ([`DeviceSolveNonhydroState::diffuse`] runs it). Call before swapping
    /// the prognostic pair (the sets are named by the slots at upload).
    pub fn attach_diffusion(
        &mut self,
        diffusion: &'c CudaDiffusion<'c>,
        state: &DiffusionState,
        grid: &Grid,
    ) -> Result<()> {
        if self.parity.prognostic {
            return Err(Error::Field(
                "solve_nonhydro device state: attach the diffusion before the first swap".into(),
            ));
        }
        let gpu = self.cuda.gpu();
        let mut own = BTreeMap::new();
        for name in diffusion.state_fields() {
            if PROGNOSTIC.contains(&name) {
                continue;
            }
            let f = state
                .field(name)
                .ok_or_else(|| Error::Field(format!("diffusion state: no field `{name}`")))?;
            own.insert(name.to_string(), SlotBuffer::upload(gpu, name, f)?);
        }
        let bind = |set: usize| -> Result<DeviceDiffusion<'c>> {
            let mut dev = diffusion.workspace_on_device()?;
            for name in diffusion.state_fields() {
                let buf = match slot_of(set, name).filter(|_| PROGNOSTIC.contains(&name)) {
                    Some(slot) => {
                        &self
                            .slots
                            .get(slot)
                            .ok_or_else(|| {
                                Error::Field(format!("solve_nonhydro device state: no `{slot}`"))
                            })?
                            .buf
                    }
                    None => &own[name].buf,
                };
                // SAFETY: the buffers are this device state's (or `own`, kept beside the
                // bindings and dropped after them); the bindings are dropped before the
                // state's slots (field order of `DeviceSolveNonhydroState`).
                unsafe {
                    dev.borrow_field(
                        diffusion.storage(),
                        name,
                        buf.ptr(),
                        buf.bytes(),
                        grid,
                        self.nlev,
                    )?
                };
            }
            diffusion.bind_device(dev)
        };
        let runs = [bind(0)?, bind(1)?];
        self.diffusion = Some(DiffusionOnDevice {
            runs,
            last: 1,
            _own: own,
        });
        Ok(())
    }

    /// Enqueues one diffusion step of `dtime` on the prognostic state the slots
    /// `current_*` (`on_current`, the initial run before the first step) or `next_*`
    /// point at now.
    pub fn diffuse(&mut self, dtime: f64, initial_run: bool, on_current: bool) -> Result<()> {
        let slot = if on_current { CURRENT[0] } else { NEXT[0] };
        let set = usize::from(self.parity.buffer(slot) != CURRENT[0]);
        let d = self.diffusion.as_mut().ok_or_else(|| {
            Error::Field("solve_nonhydro device state: no diffusion attached".into())
        })?;
        d.last = set;
        d.runs[set].run(dtime, initial_run)
    }

    /// Waits, checks, and copies the diffusion's prognostic and diagnostic fields (as
    /// its last run left them) into `state`.
    pub fn download_diffusion(&self, state: &mut DiffusionState) -> Result<()> {
        let d = self.diffusion.as_ref().ok_or_else(|| {
            Error::Field("solve_nonhydro device state: no diffusion attached".into())
        })?;
        d.runs[d.last].download(state)
    }
}
