//! The velocity-advection component (ICON4Py `VelocityAdvection`, ICON
//! `mo_velocity_advection::velocity_tendencies`): the predictor and the corrector step as
//! the four programs called in ICON's order with the host reduction of the vertical CFL
//! number between them, on any engine, one program per call or one linked program per
//! step.
//!
//! ```text
//! run_predictor_step(skip):
//!   compute_diagnostics_from_normal_wind              vt, vn_ie, z_kin_hor_e, z_w_concorr_me
//!                                                     (not skip: z_vt_ie, z_v_grad_w)
//!   compute_advection_in_predictor_vertical_momentum  w_concorr_c, z_w_con_c_full, vertical_cfl
//!                                                     (not skip: ddt_w_adv, predictor slot)
//!   max_vertical_cfl = max(max_vertical_cfl, max |vertical_cfl| over cells [LB4, HALO end) × [0, nlev))
//!   compute_advection_in_horizontal_momentum          ddt_vn_apc, predictor slot
//! run_corrector_step:
//!   compute_advection_in_corrector_vertical_momentum  z_w_con_c_full, vertical_cfl,
//!                                                     ddt_w_adv, corrector slot
//!   max_vertical_cfl reduction
//!   compute_advection_in_horizontal_momentum          ddt_vn_apc, corrector slot
//! ```
//!
//! Constants as ICON4Py's `_scale_factors_by_dtime` ([`scale_factors`]):
//! `cfl_w_limit = 0.65/dtime`, `scalfac_exdiff = 0.05/(dtime·(0.85 − 0.65))`; the extra
//! diffusion on `vn` is always on. The skip of the predictor's vertical advection is
//! ICON's `lvn_only` ([`skip_compute_predictor_vertical_advection`]).
//!
//! The reduction takes ICON's `MAX(maxvcfl, ABS(vcfl))` (the magnitude of the CFL number)
//! and keeps the running maximum in [`VelocityAdvectionState::max_vertical_cfl`] until
//! the driver resets it (ICON's `max_vcfl_dyn`). ICON4Py's `VelocityAdvection` takes the
//! maximum of the signed values instead; a downward flow beyond the CFL limit only shows
//! in ICON's.
//!
//! Halo exchanges: none (see [`steps`]).
//!
//! Engines: [`Engine::Interpreter`], [`Engine::Cpu`], [`Engine::Reference`] (the
//! programs' plain-Rust references chained), [`Engine::Cuda`] (upload, launch, download
//! per step); for device-resident steps use [`VelocityAdvection::cuda`] (upload once,
//! bind every program once, launch per step, download at the end). The CUDA path
//! downloads `vertical_cfl` for the host reduction (foehn has no device reduction yet).

pub mod cuda;
pub mod entry;
pub mod inputs;
pub mod plan;
pub mod state;
pub mod steps;

use crate::common::runner::{self, BoundStep};
pub use crate::common::runner::{Engine, Schedule};
pub use state::VelocityAdvectionState;

use crate::fields::vertical::VerticalGrid;
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir::{FieldType, Scalar, StaticValue};
use foehn::runtime::cuda::CudaBackend;
use foehn::runtime::field::{Field, FieldView};
use foehn_grid::Grid;
use std::collections::BTreeMap;

/// Which step runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The predictor step; `skip` is `skip_compute_predictor_vertical_advection`.
    Predictor {
        /// Skip the vertical advection (ICON's `lvn_only`).
        skip: bool,
    },
    /// The corrector step.
    Corrector,
}

impl Kind {
    /// Every kind, in [`Kind::index`] order.
    pub const ALL: [Kind; 3] = [
        Kind::Predictor { skip: false },
        Kind::Predictor { skip: true },
        Kind::Corrector,
    ];

    /// The position in [`Kind::ALL`].
    pub fn index(self) -> usize {
        match self {
            Kind::Predictor { skip } => skip as usize,
            Kind::Corrector => 2,
        }
    }
}

/// Whether the predictor skips the vertical advection (ICON's `lvn_only`, ICON4Py's
/// `skip_compute_predictor_vertical_advection` for its time-stepping scheme
/// `MOST_EFFICIENT`, the only one foehn runs): everywhere except in the first substep of
/// the initial time step, where the predictor's `ddt_w_adv` is not yet known from a
/// previous corrector.
pub fn skip_compute_predictor_vertical_advection(
    at_initial_timestep: bool,
    at_first_substep: bool,
) -> bool {
    !(at_initial_timestep && at_first_substep)
}

/// `(cfl_w_limit, scalfac_exdiff)` for a substep of `dtime` seconds (ICON4Py
/// `_scale_factors_by_dtime`): `0.65/dtime` and `0.05/(dtime·(0.85 − 0.65))`.
pub fn scale_factors(dtime: f64) -> (f64, f64) {
    let cfl_w_limit = 0.65 / dtime;
    (cfl_w_limit, 0.05 / (dtime * (0.85 - cfl_w_limit * dtime)))
}

/// The names of the runtime scalars of a step, in the order of [`scalar_values`].
pub const SCALARS: [&str; 3] = ["dtime", "cfl_w_limit", "scalfac_exdiff"];

/// The runtime scalars of a step of `dtime` seconds in the order of [`SCALARS`].
pub fn scalar_values(dtime: f64) -> [Scalar; 3] {
    let (cfl_w_limit, scalfac_exdiff) = scale_factors(dtime);
    [dtime, cfl_w_limit, scalfac_exdiff].map(Scalar::F64)
}

/// The static (compile-time) choices of the steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Statics {
    /// First level of the terrain-following coordinate surfaces (ICON `nflatlev`).
    pub nflatlev: i32,
    /// End of the Rayleigh damping layer (ICON `nrdmax`, ICON4Py
    /// `end_index_of_damping_layer`).
    pub end_index_of_damping_layer: i32,
}

impl Statics {
    /// The choices of `vertical`.
    pub fn new(vertical: &VerticalGrid) -> Statics {
        Statics {
            nflatlev: vertical.nflatlev as i32,
            end_index_of_damping_layer: vertical.end_index_of_damping_layer as i32,
        }
    }

    /// The linked program's variant of `kind`: `nflatlev`, `end_index_of_damping_layer`,
    /// `apply_extra_diffusion_on_vn = true` and, for the predictor,
    /// `skip_compute_predictor_vertical_advection`.
    pub fn variant(&self, kind: Kind) -> Variant {
        let v = Variant::new()
            .with("nflatlev", self.nflatlev)
            .with(
                "end_index_of_damping_layer",
                self.end_index_of_damping_layer,
            )
            .with("apply_extra_diffusion_on_vn", true);
        match kind {
            Kind::Predictor { skip } => v.with("skip_compute_predictor_vertical_advection", skip),
            Kind::Corrector => v,
        }
    }

    /// The choices of a linked program's variant.
    pub fn from_variant(variant: &Variant) -> Result<Statics> {
        let int = |name: &str| match variant.get(name) {
            Some(StaticValue::I32(i)) => Ok(i),
            _ => Err(lacks(name)),
        };
        Ok(Statics {
            nflatlev: int("nflatlev")?,
            end_index_of_damping_layer: int("end_index_of_damping_layer")?,
        })
    }

    /// The skip flag of a linked predictor's variant.
    pub fn skip_of(variant: &Variant) -> Result<bool> {
        let name = "skip_compute_predictor_vertical_advection";
        match variant.get(name) {
            Some(StaticValue::Bool(b)) => Ok(b),
            _ => Err(lacks(name)),
        }
    }
}

fn lacks(name: &str) -> Error {
    Error::Variant {
        program: steps::PREDICTOR_NAME.into(),
        message: format!("variant lacks static `{name}`"),
    }
}

/// The cells of the host reduction: `[LATERAL_BOUNDARY_LEVEL_4, HALO end)` (ICON4Py's
/// `start_cell_lateral_boundary_level_4`, `end_cell_halo`).
pub fn reduction_cells(grid: &Grid) -> Result<(usize, usize)> {
    let z = grid.zones.of(Location::Cell);
    let bad = |e: foehn_grid::GridError| Error::Field(format!("{}: {e}", grid.name));
    Ok((
        z.start(Zone::LateralBoundary(4)).map_err(bad)?,
        z.end(Zone::Halo(1)).map_err(bad)?,
    ))
}

/// The host reduction: the largest `|vertical_cfl|` over the cells of
/// [`reduction_cells`] and every level of the field (0 if the domain is empty).
pub fn max_abs_vertical_cfl(grid: &Grid, vertical_cfl: &Field) -> Result<f64> {
    let (lo, hi) = reduction_cells(grid)?;
    let data = vertical_cfl
        .as_f64()
        .ok_or_else(|| Error::Field("vertical_cfl: not an f64 field".into()))?;
    let mut max = 0.0f64;
    for k in 0..vertical_cfl.levels() {
        for h in lo..hi.min(vertical_cfl.shape()[0]) {
            max = max.max(data[vertical_cfl.flat_index(h, 0, k)].abs());
        }
    }
    Ok(max)
}

/// The bound steps of one kind.
struct BoundSegments {
    before: Vec<BoundStep>,
    after: Vec<BoundStep>,
}

/// The velocity-advection component: statics, the compiled schedule and its work fields.
pub struct VelocityAdvection<'a> {
    grid: &'a Grid,
    nlev: usize,
    statics: Statics,
    schedule: Schedule,
    engine: Engine<'a>,
    plan: plan::Plan,
    /// The component's own work fields, in slot order after the state's fields.
    workspace: Vec<Field>,
    /// The name of each slot (for binding and messages).
    slot_names: Vec<String>,
    /// The steps of each [`Kind`] (by [`Kind::index`]), bound to the slots.
    bound: Vec<BoundSegments>,
    /// The index of `vertical_cfl` in `workspace`.
    cfl_at: usize,
    /// The type every state field must have (those some program binds).
    expected: Vec<Option<FieldType>>,
}

impl<'a> VelocityAdvection<'a> {
    /// The component for `grid` and `vertical` (unfused, on the interpreter; see
    /// [`VelocityAdvection::with_schedule`], [`VelocityAdvection::with_engine`]).
    pub fn new(grid: &'a Grid, vertical: &VerticalGrid) -> Result<VelocityAdvection<'a>> {
        let nlev = vertical.num_levels();
        if nlev < 4 {
            return Err(Error::Variant {
                program: steps::PREDICTOR_NAME.into(),
                message: format!("velocity advection needs at least 4 levels, got {nlev}"),
            });
        }
        let statics = Statics::new(vertical);
        let mut slot_names: Vec<String> =
            VelocityAdvectionState::names().map(String::from).collect();
        let mut workspace = vec![];
        for (name, dims) in steps::work_fields() {
            slot_names.push(name.to_string());
            workspace.push(Field::zeros(grid, nlev, dims, F64));
        }
        let cfl_at = steps::work_fields()
            .iter()
            .position(|(n, _)| *n == steps::VERTICAL_CFL)
            .expect("vertical_cfl is a work field");
        reduction_cells(grid)?;
        let schedule = Schedule::Unfused;
        let plan = plan::Plan::new(schedule, &statics)?;
        let bound = Self::bind(&plan, &slot_names)?;
        let expected = expected_types(&plan);
        Ok(VelocityAdvection {
            grid,
            nlev,
            statics,
            schedule,
            engine: Engine::Interpreter,
            plan,
            workspace,
            slot_names,
            bound,
            cfl_at,
            expected,
        })
    }

    fn bind(plan: &plan::Plan, slot_names: &[String]) -> Result<Vec<BoundSegments>> {
        Kind::ALL
            .iter()
            .map(|&kind| {
                let s = plan.segments(kind);
                Ok(BoundSegments {
                    before: runner::bind(&s.before, slot_names, &SCALARS)?,
                    after: runner::bind(&s.after, slot_names, &SCALARS)?,
                })
            })
            .collect()
    }

    /// Selects the schedule.
    pub fn with_schedule(mut self, schedule: Schedule) -> Result<VelocityAdvection<'a>> {
        self.plan = plan::Plan::new(schedule, &self.statics)?;
        self.bound = Self::bind(&self.plan, &self.slot_names)?;
        self.schedule = schedule;
        Ok(self)
    }

    /// Selects the engine.
    pub fn with_engine(mut self, engine: Engine<'a>) -> VelocityAdvection<'a> {
        self.engine = engine;
        self
    }

    /// The static choices.
    pub fn statics(&self) -> &Statics {
        &self.statics
    }

    /// The schedule.
    pub fn schedule(&self) -> Schedule {
        self.schedule
    }

    /// The grid.
    pub fn grid(&self) -> &'a Grid {
        self.grid
    }

    /// Number of full levels.
    pub fn nlev(&self) -> usize {
        self.nlev
    }

    /// The specialised programs of a step of `kind`, in call order (one under
    /// [`Schedule::Fused`] and [`Schedule::Optimised`]).
    pub fn programs(&self, kind: Kind) -> Vec<&foehn::ir::Program> {
        self.plan.programs(kind)
    }

    /// The component's own work fields by name (see [`steps::work_fields`]).
    pub fn workspace(&self) -> BTreeMap<&str, &Field> {
        self.slot_names[VelocityAdvectionState::len()..]
            .iter()
            .map(String::as_str)
            .zip(&self.workspace)
            .collect()
    }

    /// A work field by name, mutably (a dycore writes `z_kin_hor_e`, `z_vt_ie` and
    /// `z_w_concorr_me` between the predictor and the corrector, as ICON's `solve_nh`).
    pub fn workspace_field_mut(&mut self, name: &str) -> Option<&mut Field> {
        let i = self.slot_names[VelocityAdvectionState::len()..]
            .iter()
            .position(|n| n == name)?;
        self.workspace.get_mut(i)
    }

    /// The predictor step of `dtime` seconds on `state` (ICON4Py
    /// `VelocityAdvection.run_predictor_step`; `state.prognostic` the current state):
    /// see the module docs. `skip` is [`skip_compute_predictor_vertical_advection`].
    pub fn run_predictor_step(
        &mut self,
        state: &mut VelocityAdvectionState,
        skip_compute_predictor_vertical_advection: bool,
        dtime: f64,
    ) -> Result<()> {
        let kind = Kind::Predictor {
            skip: skip_compute_predictor_vertical_advection,
        };
        self.run(kind, state, dtime)
    }

    /// The corrector step of `dtime` seconds on `state` (ICON4Py
    /// `VelocityAdvection.run_corrector_step`; `state.prognostic` the next state).
    pub fn run_corrector_step(
        &mut self,
        state: &mut VelocityAdvectionState,
        dtime: f64,
    ) -> Result<()> {
        self.run(Kind::Corrector, state, dtime)
    }

    /// A step of `kind` on `state`.
    pub fn run(
        &mut self,
        kind: Kind,
        state: &mut VelocityAdvectionState,
        dtime: f64,
    ) -> Result<()> {
        if state.nlev() != self.nlev {
            return Err(Error::Field(format!(
                "velocity advection: the state has {} levels, the component {}",
                state.nlev(),
                self.nlev
            )));
        }
        if let Engine::Cuda(cuda) = self.engine {
            check_dtime(dtime)?;
            let work = {
                let programs = self.cuda(cuda)?;
                let mut device = programs.upload(state)?;
                device.run(kind, dtime)?;
                device.download(state)?;
                device.download_workspace()?
            };
            for (name, field) in work {
                if let Some(f) = self.workspace_field_mut(&name) {
                    *f = field;
                }
            }
            return Ok(());
        }
        let mut max = state.max_vertical_cfl;
        self.run_views(kind, &mut state.views_mut(), &mut max, dtime)?;
        state.max_vertical_cfl = max;
        Ok(())
    }

    /// [`VelocityAdvection::run_predictor_step`] on fields the caller owns: `state`
    /// holds views of every field of a velocity-advection state in
    /// [`VelocityAdvectionState::names`] order, updated in place; `max_vertical_cfl` is
    /// the running maximum of the CFL number.
    pub fn run_predictor_step_views(
        &mut self,
        state: &mut [FieldView],
        max_vertical_cfl: &mut f64,
        skip_compute_predictor_vertical_advection: bool,
        dtime: f64,
    ) -> Result<()> {
        let kind = Kind::Predictor {
            skip: skip_compute_predictor_vertical_advection,
        };
        self.run_views(kind, state, max_vertical_cfl, dtime)
    }

    /// [`VelocityAdvection::run_corrector_step`] on fields the caller owns (see
    /// [`VelocityAdvection::run_predictor_step_views`]).
    pub fn run_corrector_step_views(
        &mut self,
        state: &mut [FieldView],
        max_vertical_cfl: &mut f64,
        dtime: f64,
    ) -> Result<()> {
        self.run_views(Kind::Corrector, state, max_vertical_cfl, dtime)
    }

    fn run_views(
        &mut self,
        kind: Kind,
        state: &mut [FieldView],
        max_vertical_cfl: &mut f64,
        dtime: f64,
    ) -> Result<()> {
        if state.len() != VelocityAdvectionState::len() {
            return Err(Error::Field(format!(
                "velocity advection: {} field views given, a velocity advection state has {} ({})",
                state.len(),
                VelocityAdvectionState::len(),
                VelocityAdvectionState::names()
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        if matches!(self.engine, Engine::Cuda(_)) {
            return Err(Error::Variant {
                program: steps::step_name(kind).into(),
                message: "the CUDA engine runs a VelocityAdvectionState (VelocityAdvection::run_predictor_step) or a device-resident state (VelocityAdvection::cuda)".into(),
            });
        }
        check_dtime(dtime)?;
        self.check_views(state)?;
        let scalars = scalar_values(dtime);
        let bound = &self.bound[kind.index()];
        for (segment, reduce) in [(&bound.before, true), (&bound.after, false)] {
            let mut views: Vec<FieldView> = state.iter_mut().map(FieldView::reborrow).collect();
            views.extend(self.workspace.iter_mut().map(Field::view_mut));
            runner::execute(
                segment,
                self.engine,
                self.grid,
                self.nlev,
                &mut views,
                &scalars,
            )?;
            drop(views);
            if reduce {
                let cfl = max_abs_vertical_cfl(self.grid, &self.workspace[self.cfl_at])?;
                *max_vertical_cfl = max_vertical_cfl.max(cfl);
            }
        }
        Ok(())
    }

    /// Every state view has the dimensions, shape and element type the programs bind
    /// it with (an error names the first that has not).
    fn check_views(&self, state: &[FieldView]) -> Result<()> {
        let names = VelocityAdvectionState::names();
        for ((name, view), want) in names.zip(state).zip(&self.expected) {
            let Some(want) = want else { continue };
            let shape = Field::grid_shape(self.grid, self.nlev, want.dims);
            if view.dims() != want.dims || view.shape() != shape || view.dtype() != want.dtype {
                return Err(Error::Field(format!(
                    "velocity advection: `{name}` is {}, the component needs {} ({} levels on {})",
                    view.describe(),
                    foehn::runtime::field::describe(want.dims, &shape, want.dtype),
                    self.nlev,
                    self.grid.name
                )));
            }
        }
        Ok(())
    }

    /// Compiles the steps for the GPU: see [`cuda::CudaVelocityAdvection`].
    pub fn cuda<'b>(&'b self, cuda: &'b CudaBackend) -> Result<cuda::CudaVelocityAdvection<'b>> {
        cuda::CudaVelocityAdvection::new(self, cuda)
    }

    pub(crate) fn plan(&self) -> &plan::Plan {
        &self.plan
    }
}

/// The type of each state field (in [`VelocityAdvectionState::names`] order) as the
/// calls of `plan` declare it; `None` for fields no call binds.
fn expected_types(plan: &plan::Plan) -> Vec<Option<FieldType>> {
    let mut types: BTreeMap<&str, FieldType> = BTreeMap::new();
    for kind in Kind::ALL {
        for c in plan.segments(kind).calls() {
            for d in &c.renamed.fields {
                types.entry(d.name.as_str()).or_insert(d.ty);
            }
        }
    }
    VelocityAdvectionState::names()
        .map(|n| types.get(n).copied())
        .collect()
}

/// A substep must be positive and finite (the constants divide by it).
fn check_dtime(dtime: f64) -> Result<()> {
    if dtime.is_finite() && dtime > 0.0 {
        Ok(())
    } else {
        Err(Error::Field(format!(
            "velocity advection: dtime must be positive and finite, got {dtime}"
        )))
    }
}
