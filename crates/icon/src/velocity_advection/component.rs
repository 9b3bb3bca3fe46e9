//! The velocity-advection component (ICON4Py `VelocityAdvection`, ICON
//! `mo_velocity_advection::velocity_tendencies`): the predictor and the corrector step as
//! the four programs called in ICON's order with the reduction of the vertical CFL
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
//! bind every program once, launch per step, download at the end). On the device the
//! reduction runs on the device too ([`crate::common::device_max`]): a kernel after the
//! calls that write `vertical_cfl` folds its maximum into a running maximum in device
//! memory, and only those 8 bytes are downloaded, when the state is.

pub mod cuda;
pub mod entry;
pub mod inputs;
pub mod plan;
pub mod state;
pub mod steps;

use crate::common::component::{Core, Names};
pub use crate::common::runner::{Engine, Schedule};
pub use state::VelocityAdvectionState;

use crate::fields::vertical::VerticalGrid;
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir::{Scalar, StaticValue};
use foehn::runtime::cuda::CudaBackend;
use foehn::runtime::field::{Field, FieldView};
use foehn_grid::Grid;

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

    /// The predictor; `skip` is `skip_compute_predictor_vertical_advection`.
    pub fn predictor(skip: bool) -> Kind {
        Kind::Predictor { skip }
    }

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

/// The cells of the reduction: `[LATERAL_BOUNDARY_LEVEL_4, HALO end)` (ICON4Py's
/// `start_cell_lateral_boundary_level_4`, `end_cell_halo`).
pub fn reduction_cells(grid: &Grid) -> Result<(usize, usize)> {
    let z = grid.zones.of(Location::Cell);
    let bad = |e: foehn_grid::GridError| Error::Field(format!("{}: {e}", grid.name));
    Ok((
        z.start(Zone::LateralBoundary(4)).map_err(bad)?,
        z.end(Zone::Halo(1)).map_err(bad)?,
    ))
}

/// The horizontal indices of `vertical_cfl` the reduction reads: [`reduction_cells`]
/// within the field.
pub fn reduction_range(grid: &Grid, vertical_cfl: &Field) -> Result<(usize, usize)> {
    let (lo, hi) = reduction_cells(grid)?;
    Ok((lo, hi.min(vertical_cfl.shape()[0])))
}

/// The host reduction: the largest `|vertical_cfl|` over the cells of
/// [`reduction_range`] and every level of the field (0 if the domain is empty). The
/// device's ([`cuda::DeviceVelocityAdvection`]) gives the same value, bit for bit.
pub fn max_abs_vertical_cfl(grid: &Grid, vertical_cfl: &Field) -> Result<f64> {
    let (lo, hi) = reduction_range(grid, vertical_cfl)?;
    let data = vertical_cfl
        .as_f64()
        .ok_or_else(|| Error::Field("vertical_cfl: not an f64 field".into()))?;
    let mut max = 0.0f64;
    for k in 0..vertical_cfl.levels() {
        for h in lo..hi {
            max = max.max(data[vertical_cfl.flat_index(h, 0, k)].abs());
        }
    }
    Ok(max)
}

/// How velocity advection is named in messages.
const NAMES: Names = Names {
    what: "velocity advection",
    component: "VelocityAdvection",
    state: "VelocityAdvectionState",
};

/// The velocity-advection component: statics, the compiled schedule and its work fields.
pub struct VelocityAdvection<'a> {
    statics: Statics,
    /// The slots, plan, bound steps and engine.
    core: Core<'a>,
    /// The index of `vertical_cfl` among the work fields.
    cfl_at: usize,
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
        let work = steps::work_fields()
            .into_iter()
            .map(|(name, dims)| (name.to_string(), Field::zeros(grid, nlev, dims, F64)))
            .collect();
        reduction_cells(grid)?;
        let core = Core::new(
            NAMES,
            grid,
            nlev,
            VelocityAdvectionState::names().collect(),
            work,
            &SCALARS,
            plan::plan(Schedule::Unfused, &statics)?,
        )?;
        let cfl_at = core
            .work_index(steps::VERTICAL_CFL)
            .expect("vertical_cfl is a work field");
        Ok(VelocityAdvection {
            statics,
            core,
            cfl_at,
        })
    }

    /// The specialised programs of a step of `kind`, in call order (one under
    /// [`Schedule::Fused`] and [`Schedule::Optimised`]).
    pub fn programs(&self, kind: Kind) -> Vec<&foehn::ir::Program> {
        self.core.plan().programs(kind.index())
    }

    /// A work field by name, mutably (a dycore writes `z_kin_hor_e`, `z_vt_ie` and
    /// `z_w_concorr_me` between the predictor and the corrector, as ICON's `solve_nh`).
    pub fn workspace_field_mut(&mut self, name: &str) -> Option<&mut Field> {
        self.core.workspace_field_mut(name)
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
        let kind = Kind::predictor(skip_compute_predictor_vertical_advection);
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
        self.core.check_levels(state.nlev())?;
        if let Engine::Cuda(cuda) = self.core.engine() {
            check_dtime(dtime)?;
            let work = {
                let programs = self.cuda(cuda)?;
                let mut device = programs.upload(state)?;
                device.run(kind, dtime)?;
                device.download(state)?;
                device.download_workspace()?
            };
            for (name, field) in work {
                if let Some(f) = self.core.workspace_field_mut(&name) {
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
        let kind = Kind::predictor(skip_compute_predictor_vertical_advection);
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

    /// A step on views: the calls before the reduction, the host reduction of
    /// `vertical_cfl` into `max_vertical_cfl`, the calls after it.
    fn run_views(
        &mut self,
        kind: Kind,
        state: &mut [FieldView],
        max_vertical_cfl: &mut f64,
        dtime: f64,
    ) -> Result<()> {
        check_dtime(dtime)?;
        let (grid, cfl_at) = (self.core.grid(), self.cfl_at);
        let reduce = |_segment, work: &[Field]| {
            let cfl = max_abs_vertical_cfl(grid, &work[cfl_at])?;
            *max_vertical_cfl = max_vertical_cfl.max(cfl);
            Ok(())
        };
        self.core
            .run_views(kind.index(), state, &scalar_values(dtime), reduce)
    }

    /// Compiles the steps for the GPU: see [`cuda::CudaVelocityAdvection`].
    pub fn cuda<'b>(&'b self, cuda: &'b CudaBackend) -> Result<cuda::CudaVelocityAdvection<'b>> {
        cuda::CudaVelocityAdvection::new(self, cuda)
    }
}

crate::component_impl!(VelocityAdvection, Statics);

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
