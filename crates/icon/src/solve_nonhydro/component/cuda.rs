//! The solver on the GPU with its state on the device for the whole run: upload the
//! [`SolveNonhydroState`] once ([`SolveNonhydro::upload`] →
//! [`DeviceSolveNonhydroState`]), run substeps on it
//! ([`SolveNonhydro::time_step_on_device`]: kernels are only enqueued), swap the
//! prognostic pair and the tendency pairs between substeps without copying
//! ([`DeviceSolveNonhydroState::swap_prognostic`] and the tendency swaps), download on
//! request ([`DeviceSolveNonhydroState::download`]).
//!
//! Each slot of the state (and each of the component's work fields) is one device
//! buffer, named by the slot it held at upload. A substep's kind (its [`Variants`])
//! appears when first run; its programs are compiled then (NVRTC, cached on disk and in
//! the backend) and bound to the buffers.
//!
//! **Swaps.** A bound program holds its fields' pointers by value (in its argument
//! block and in the CUDA graphs recorded from it, ADR 0011), so a swap cannot rewrite
//! them. The device state keeps a [`Parity`]: which buffer of each pair (`current_*` /
//! `next_*`, the two slots of the normal-wind tendency, the two of the vertical-wind
//! tendency) each slot name points at; a swap flips one bit and copies nothing. The
//! bindings are kept per kind *and* parity, bound when that combination first runs: at
//! most 8 bindings of a kind (in ICON's loop of 5 substeps a kind meets 2 to 4), each
//! with its own temporaries. Binding once per combination and never again is cheaper at
//! run time than rebinding at every swap (a binding allocates its temporaries and
//! builds every kernel's argument block); the memory is the bindings' temporaries,
//! small beside the state.
//!
//! **Narrowed arguments.** Where a program declares less than its slot holds (the first
//! `nlev` levels of a half-level slot, see `common::runner`'s `part_of`), the program is bound to a view into
//! the slot's buffer at that offset (an alias argument named `<slot>__at_<offset>`):
//! nothing is copied, the program writes the slot in place.
//!
//! **Reductions.** The velocity advection's `vertical_cfl` is a device buffer; after
//! each CFL point of the substep (ICON's `max_vcfl_dyn`) a kernel folds its largest
//! magnitude into a running maximum in device memory
//! ([`crate::common::device_max`]); [`DeviceSolveNonhydroState::max_vertical_cfl`]
//! downloads those 8 bytes, the only copy to the host a substep makes.
//!
//! **Exchanges.** At ICON's exchange points the substep calls a [`DeviceExchange`] hook
//! with the device buffers of the exchanged slots ([`ExchangedField`]); on one process
//! it is [`NoExchange`](crate::common::exchange::NoExchange). The kernels before it are
//! enqueued, not finished: a hook that moves data queues its work on the same stream or
//! synchronises it first.
//!
//! [`SolveNonhydro::time_step`] on [`Engine::Cuda`](super::Engine::Cuda) uploads the
//! host state, runs the substep, and downloads it again (the host hook gets the
//! exchanged fields downloaded and uploaded back): a convenience for tests, not for a
//! run. [`SolveNonhydro::time_step_views`] on the CUDA engine is refused (views are host
//! memory).

mod bind;
mod diffusion;
mod exchange;
mod graphs;
mod slots;
#[cfg(test)]
mod tests;

pub use exchange::{DeviceExchange, ExchangedField};

use super::state::{SolveNonhydroState, CURRENT, NEXT};
use super::{Schedule, SolveNonhydro, SubstepFlags, Variants};
use crate::common::device_max::{MaxAbs, RunningMax};
use crate::common::exchange::Exchange as HaloExchange;
use crate::common::runner::Exchange;
use crate::velocity_advection::component::reduction_range;
use exchange::{exchange_on_device, HostHook};
use foehn::error::{Error, Result};
use foehn::ir::{DType, Scalar};
use foehn::runtime::cuda::{Bound, CudaBackend, CudaCompiled};
use foehn::runtime::field::Field;
use slots::{gpu_err, SlotBuffer};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The two slots of the normal-wind tendency (predictor, corrector).
const VN_TENDENCY: [&str; 2] = [
    "normal_wind_advective_tendency_predictor",
    "normal_wind_advective_tendency_corrector",
];
/// The two slots of the vertical-wind tendency (predictor, corrector).
const W_TENDENCY: [&str; 2] = [
    "vertical_wind_advective_tendency_predictor",
    "vertical_wind_advective_tendency_corrector",
];
/// The work field the CFL reductions read.
const VERTICAL_CFL: &str = "vertical_cfl";
/// The slot of the fourth-order divergence-damping profile.
const ENH_DIVDAMP_FAC: &str = "interpolated_fourth_order_divdamp_factor";

/// Which buffer of each pair the slot names point at: `false` is the buffer the slot
/// held at upload, `true` the other one of its pair.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Parity {
    /// The prognostic pair (`current_*` ↔ `next_*`).
    pub prognostic: bool,
    /// The normal-wind tendency's predictor and corrector slots.
    pub normal_wind_tendency: bool,
    /// The vertical-wind tendency's predictor and corrector slots.
    pub vertical_wind_tendency: bool,
}

impl Parity {
    /// The buffer (named by the slot that held it at upload) that `slot` points at.
    pub fn buffer<'n>(&self, slot: &'n str) -> &'n str {
        let prognostic = CURRENT
            .iter()
            .zip(NEXT)
            .map(|(a, b)| (self.prognostic, *a, b));
        let tendencies = [
            (self.normal_wind_tendency, VN_TENDENCY[0], VN_TENDENCY[1]),
            (self.vertical_wind_tendency, W_TENDENCY[0], W_TENDENCY[1]),
        ];
        for (swapped, a, b) in prognostic.chain(tendencies) {
            if swapped && slot == a {
                return b;
            }
            if swapped && slot == b {
                return a;
            }
        }
        slot
    }
}

/// A step of a bound kind.
enum DeviceStep<'c> {
    /// A bound program and its scalars: (index among the program's, index in
    /// [`SCALARS`], the program's type).
    Call {
        bound: Box<Bound<'c>>,
        scalars: Vec<(usize, usize, DType)>,
    },
    /// An exchange point with the device fields it exchanges.
    Exchange {
        exchange: Exchange,
        fields: Vec<ExchangedField>,
    },
}

/// The steps of one kind bound for one parity.
struct DeviceKind<'c> {
    // Declared before `_compiled`: the bindings borrow the compiled programs.
    segments: Vec<Vec<DeviceStep<'c>>>,
    /// Its substeps recorded as CUDA graphs (ADR 0028).
    graphs: graphs::SubstepGraphs,
    _compiled: Vec<Arc<CudaCompiled>>,
}

/// Where the reduction reads `vertical_cfl`: the horizontal range, the levels and the
/// distance between levels, in elements.
#[derive(Debug, Clone, Copy)]
struct CflLayout {
    cells: (usize, usize),
    levels: usize,
    stride: usize,
}

/// The solver's state on a CUDA device, with the programs of every substep kind run so
/// far bound to it (per [`Parity`]).
pub struct DeviceSolveNonhydroState<'c> {
    // Declared before `slots`: the bindings point into the buffers and are dropped first.
    kinds: HashMap<(Variants, Parity), DeviceKind<'c>>,
    /// The diffusion bound to the prognostic buffers, once attached.
    diffusion: Option<diffusion::DiffusionOnDevice<'c>>,
    /// The buffers, by the slot (or work field) that held them at upload.
    slots: BTreeMap<String, SlotBuffer>,
    parity: Parity,
    /// The schedule the bindings were made for.
    schedule: Schedule,
    max: RunningMax,
    max_abs: MaxAbs,
    /// The running maximum before the first reduction (the state's).
    start: f64,
    /// Whether a substep has reduced into `max`.
    reduced: bool,
    /// Substeps may be recorded as CUDA graphs (ADR 0028; [`Self::record_substeps`]).
    record_substeps: bool,
    /// Substeps recorded and substeps replayed so far.
    graph_counts: (usize, usize),
    cfl: CflLayout,
    cuda: &'c CudaBackend,
    grid: String,
    nlev: usize,
}

impl<'a> SolveNonhydro<'a> {
    /// Uploads every field of `state` (placeholders left out), the solver's work fields
    /// and its fourth-order divergence-damping profile to `cuda`'s device once.
    pub fn upload<'c>(
        &self,
        cuda: &'c CudaBackend,
        state: &SolveNonhydroState,
    ) -> Result<DeviceSolveNonhydroState<'c>> {
        self.core.check_levels(state.nlev())?;
        let gpu = cuda.gpu();
        let work = self.core.workspace();
        let fields = SolveNonhydroState::names()
            .map(|n| (n, state.field(n).expect("a slot")))
            .chain(work.iter().map(|(n, f)| (*n, *f)));
        let mut slots = BTreeMap::new();
        for (name, field) in fields {
            let field = if name == ENH_DIVDAMP_FAC {
                &self.enh_divdamp_fac
            } else {
                field
            };
            if !field.shape().is_empty() {
                slots.insert(name.to_string(), SlotBuffer::upload(gpu, name, field)?);
            }
        }
        let cfl = work[VERTICAL_CFL];
        let max_abs = MaxAbs::new(gpu)?;
        Ok(DeviceSolveNonhydroState {
            kinds: HashMap::new(),
            diffusion: None,
            slots,
            parity: Parity::default(),
            schedule: self.schedule,
            max: max_abs.running(gpu)?,
            max_abs,
            start: state.max_vertical_cfl,
            reduced: false,
            record_substeps: true,
            graph_counts: (0, 0),
            cfl: CflLayout {
                cells: reduction_range(self.core.grid(), cfl)?,
                levels: cfl.levels(),
                stride: cfl.flat_index(0, 0, 1) - cfl.flat_index(0, 0, 0),
            },
            cuda,
            grid: self.core.grid().name.clone(),
            nlev: self.core.nlev(),
        })
    }

    /// [`SolveNonhydro::time_step`] on the device state `dev`: binds the substep's kind
    /// for `dev`'s parity when first run, enqueues its programs, the CFL reductions and
    /// the exchanges through `exchange` (nothing waits, nothing is copied; errors of
    /// the kernels' run-time checks surface in [`DeviceSolveNonhydroState::finish`] or
    /// [`DeviceSolveNonhydroState::download`]).
    #[allow(clippy::too_many_arguments)]
    pub fn time_step_on_device(
        &mut self,
        dev: &mut DeviceSolveNonhydroState<'_>,
        divdamp_fac_o2: f64,
        dtime: f64,
        ndyn_substeps_var: usize,
        flags: SubstepFlags,
        iau_wgt_dyn: f64,
        exchange: &mut dyn DeviceExchange,
    ) -> Result<()> {
        let (grid, nlev) = (self.core.grid(), self.core.nlev());
        if dev.grid != grid.name || dev.nlev != nlev {
            return Err(Error::Field(format!(
                "solve_nonhydro: a device state of {} with {} levels, the solver's grid is {} \
                 with {nlev}",
                dev.grid, dev.nlev, grid.name
            )));
        }
        self.check_flags(flags)?;
        let variants = self.variants(flags, divdamp_fac_o2, dtime);
        let kind = self.kind(&variants)?;
        if dev.schedule != self.schedule {
            dev.kinds.clear();
            dev.schedule = self.schedule;
        }
        let key = (variants, dev.parity);
        if !dev.kinds.contains_key(&key) {
            let bound = dev.bind_kind(self, kind)?;
            dev.kinds.insert(key, bound);
        }
        let scalars = self.scalar_values(divdamp_fac_o2, dtime, ndyn_substeps_var, iau_wgt_dyn);
        let reduce_first = variants.velocity_advection_predictor.is_some();
        dev.launch(&key, &scalars, reduce_first, exchange)?;
        self.dtime_previous_substep = dtime;
        Ok(())
    }

    /// [`SolveNonhydro::time_step`] on the CUDA engine: upload, one substep on the
    /// device, download (the host `exchange` gets the exchanged fields downloaded, and
    /// they are uploaded back after it).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn time_step_through_device(
        &mut self,
        cuda: &CudaBackend,
        state: &mut SolveNonhydroState,
        (divdamp_fac_o2, dtime, ndyn_substeps_var, iau_wgt_dyn): (f64, f64, usize, f64),
        flags: SubstepFlags,
        exchange: &mut dyn HaloExchange,
    ) -> Result<()> {
        let mut dev = self.upload(cuda, state)?;
        let mut hook = HostHook {
            hook: exchange,
            gpu: cuda.gpu(),
        };
        self.time_step_on_device(
            &mut dev,
            divdamp_fac_o2,
            dtime,
            ndyn_substeps_var,
            flags,
            iau_wgt_dyn,
            &mut hook,
        )?;
        dev.download(state)
    }
}

impl<'c> DeviceSolveNonhydroState<'c> {
    /// The device field of the slot `name` for an exchange hook.
    fn exchanged(&self, name: &str) -> ExchangedField {
        match self.slots.get(self.parity.buffer(name)) {
            Some(held) => ExchangedField {
                name: name.to_string(),
                ptr: held.buf.ptr(),
                bytes: held.buf.bytes(),
                ty: held.ty,
                shape: held.shape.clone(),
            },
            None => ExchangedField {
                name: name.to_string(),
                ptr: 0,
                bytes: 0,
                ty: Field::placeholder().field_type(),
                shape: Vec::new(),
            },
        }
    }

    /// Enqueues the bound kind `key` with the substep's `scalars` (in [`SCALARS`]
    /// order), the CFL reductions and the exchanges: by replaying the kind's recording
    /// for these scalars, or recording one now, where the hook allows it (ADR 0028);
    /// otherwise program by program.
    fn launch(
        &mut self,
        key: &(Variants, Parity),
        scalars: &[Scalar],
        reduce_first: bool,
        hook: &mut dyn DeviceExchange,
    ) -> Result<()> {
        if !(self.record_substeps && hook.recordable() && graphs::wanted()) {
            return self.enqueue_substep(key, scalars, reduce_first, hook, false);
        }
        let cuda = self.cuda;
        let fail = gpu_err("the substep's CUDA graph");
        let graph_key = graphs::key(scalars, reduce_first);
        let kind = self.kinds.get_mut(key).expect("bound before launched");
        if let Some((graph, reduces)) = kind.graphs.find(&graph_key) {
            graph.launch().map_err(&fail)?;
            self.reduced |= *reduces;
            self.graph_counts.1 += 1;
            return Ok(());
        }
        if !kind.graphs.should_record(&graph_key) {
            return self.enqueue_substep(key, scalars, reduce_first, hook, false);
        }
        let reduced = std::mem::replace(&mut self.reduced, false);
        let recorded = cuda.gpu().record(
            || self.enqueue_substep(key, scalars, reduce_first, hook, true),
            &fail,
        );
        let reduces = self.reduced;
        self.reduced |= reduced;
        let recorded = recorded?;
        let kind = self.kinds.get_mut(key).expect("bound before launched");
        match recorded {
            Some(graph) => {
                graph.launch().map_err(&fail)?;
                kind.graphs.push(graph_key, (graph, reduces));
                self.graph_counts.0 += 1;
                Ok(())
            }
            // Nothing was enqueued: nothing to replay either.
            None => Ok(()),
        }
    }

    /// Enqueues the bound kind `key` program by program (`recording`: for a graph
    /// around the substep, without the programs' own graphs and metrics).
    fn enqueue_substep(
        &mut self,
        key: &(Variants, Parity),
        scalars: &[Scalar],
        reduce_first: bool,
        hook: &mut dyn DeviceExchange,
        recording: bool,
    ) -> Result<()> {
        let gpu = self.cuda.gpu();
        let kind = self.kinds.get_mut(key).expect("bound before launched");
        let cfl = self.slots.get(VERTICAL_CFL).expect("a work field");
        let n = kind.segments.len();
        for (i, segment) in kind.segments.iter_mut().enumerate() {
            for step in segment.iter_mut() {
                match step {
                    DeviceStep::Call { bound, scalars: at } => {
                        for &(i, j, dtype) in at.iter() {
                            bound.set_scalar_at(i, scalars[j].cast(dtype));
                        }
                        if recording {
                            bound.enqueue_unrecorded()?;
                        } else {
                            bound.launch()?;
                        }
                    }
                    DeviceStep::Exchange { exchange, fields } => {
                        exchange_on_device(hook, exchange, fields)?
                    }
                }
            }
            if i + 1 < n && (i > 0 || reduce_first) {
                let CflLayout {
                    cells,
                    levels,
                    stride,
                } = self.cfl;
                // SAFETY: the buffer holds the whole field (`levels` levels `stride`
                // apart, the range within a level) and lives as long as `self`.
                unsafe {
                    self.max_abs
                        .enqueue(gpu, cfl.buf.ptr(), cells, levels, stride, &self.max)?
                };
                self.reduced = true;
            }
        }
        Ok(())
    }

    /// Records substeps as CUDA graphs and replays them (`on`, the default; still only
    /// with an exchange that allows it, `FOEHN_CUDA_GRAPHS` not `0` and per-program
    /// metrics off), or enqueues every substep program by program (ADR 0028).
    pub fn record_substeps(&mut self, on: bool) {
        self.record_substeps = on;
        if !on {
            self.kinds.values_mut().for_each(|k| k.graphs.clear());
        }
    }

    /// How many substeps were recorded as CUDA graphs and how many replayed one.
    pub fn substep_graphs(&self) -> (usize, usize) {
        self.graph_counts
    }

    /// Swaps the prognostic pair (ICON4Py `prognostic_states.swap()`): the `current_*`
    /// slots point at the buffers `next_*` pointed at and back; nothing is copied.
    pub fn swap_prognostic(&mut self) {
        self.parity.prognostic ^= true;
    }

    /// Swaps the predictor and corrector slots of the normal-wind tendency.
    pub fn swap_normal_wind_tendency(&mut self) {
        self.parity.normal_wind_tendency ^= true;
    }

    /// Swaps the predictor and corrector slots of the vertical-wind tendency.
    pub fn swap_vertical_wind_tendency(&mut self) {
        self.parity.vertical_wind_tendency ^= true;
    }

    /// Which buffer each slot of a pair points at.
    pub fn parity(&self) -> Parity {
        self.parity
    }

    /// The device field of the slot `name` (as the slots point now): for a component
    /// that works on the same device memory (the diffusion on the prognostic state).
    pub fn field(&self, name: &str) -> Option<ExchangedField> {
        self.slots
            .contains_key(self.parity.buffer(name))
            .then(|| self.exchanged(name))
    }

    /// The running maximum of the CFL number (ICON's `max_vcfl_dyn`): the state's at
    /// upload and every reduction since. Waits for the device and downloads 8 bytes.
    pub fn max_vertical_cfl(&self) -> Result<f64> {
        if !self.reduced {
            return Ok(self.start);
        }
        Ok(self.start.max(self.max.get(self.cuda.gpu())?))
    }

    /// Sets the running maximum (the driver's reset of `max_vcfl_dyn`).
    pub fn set_max_vertical_cfl(&mut self, value: f64) -> Result<()> {
        self.max.reset(self.cuda.gpu())?;
        self.start = value;
        self.reduced = false;
        Ok(())
    }

    /// Waits for the device and reports the first failed run-time check.
    pub fn finish(&self) -> Result<()> {
        for kind in self.kinds.values() {
            for step in kind.segments.iter().flatten() {
                if let DeviceStep::Call { bound, .. } = step {
                    bound.finish()?;
                }
            }
        }
        if let Some(d) = &self.diffusion {
            d.finish()?;
        }
        self.cuda
            .gpu()
            .synchronize()
            .map_err(gpu_err("synchronize"))
    }

    /// Waits, checks, and copies every uploaded slot (as the slots point now) and the
    /// CFL maximum into `state`.
    pub fn download(&self, state: &mut SolveNonhydroState) -> Result<()> {
        self.download_slots(state, SolveNonhydroState::names())?;
        state.max_vertical_cfl = self.max_vertical_cfl()?;
        Ok(())
    }

    /// Waits, checks, and copies only the current prognostic state (the five
    /// `current_*` slots, as they point now) into `state.current`: what output and a
    /// run's series read, a few percent of [`download`](Self::download)'s bytes (which
    /// also copies the constant fields and every intermediate).
    pub fn download_current(&self, state: &mut SolveNonhydroState) -> Result<()> {
        self.download_slots(state, CURRENT.into_iter())
    }

    /// Waits, checks, and copies the uploaded slots among `names` into `state`.
    fn download_slots<'n>(
        &self,
        state: &mut SolveNonhydroState,
        names: impl Iterator<Item = &'n str>,
    ) -> Result<()> {
        self.finish()?;
        let gpu = self.cuda.gpu();
        for name in names {
            let Some(held) = self.slots.get(self.parity.buffer(name)) else {
                continue;
            };
            let field = state.field_mut(name).expect("a slot");
            held.download(gpu, name, field)?;
        }
        Ok(())
    }

    /// Waits, checks, and returns the solver's work fields (velocity advection's
    /// `z_v_grad_w`, `z_w_con_c_full`, `vertical_cfl`), by name.
    pub fn download_workspace(
        &self,
        solver: &SolveNonhydro<'_>,
    ) -> Result<BTreeMap<String, Field>> {
        self.finish()?;
        let gpu = self.cuda.gpu();
        let mut out = BTreeMap::new();
        for (name, f) in solver.core.workspace() {
            let mut f = f.clone();
            self.slots[name].download(gpu, name, &mut f)?;
            out.insert(name.to_string(), f);
        }
        Ok(out)
    }
}
