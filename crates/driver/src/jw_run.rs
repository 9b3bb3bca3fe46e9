//! A Jablonowski–Williamson run assembled from its parts: the static fields over the
//! JW surface, the initial state ([`initial::jw`](crate::initial::jw)), the solver and
//! the diffusion on one engine, and the [`Dycore`] time loop over them. What
//! `foehn run jw` and the tests build; the caller owns the grid and the fields, so the
//! loop can borrow them for the whole run.

use crate::config::sections::jw_diffusion;
use crate::initial::jw::{jablonowski_williamson, JwConfig};
use crate::time_loop::{Dycore, LoopSettings};
use foehn::error::{Error, Result};
use foehn_grid::Grid;
use foehn_icon::common::runner::{Engine, Schedule};
use foehn_icon::diffusion::component::state::DiffusionState;
use foehn_icon::diffusion::component::Diffusion;
use foehn_icon::diffusion::config::{DiffusionConfig, DiffusionParams};
use foehn_icon::diffusion::inputs::state as diffusion_state;
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::fields::topography::{JwTopography, Topography};
use foehn_icon::fields::vertical::VerticalConfig;
use foehn_icon::solve_nonhydro::component::{SolveNonhydro, SolveNonhydroState};
use foehn_icon::solve_nonhydro::config::NonHydrostaticConfig;

/// Everything a JW run is made of besides the grid.
#[derive(Debug, Clone)]
pub struct JwRunSpec {
    /// The vertical grid (levels, model top, SLEVE options).
    pub vertical: VerticalConfig,
    /// The initial state: the steady state, or the baroclinic wave (its perturbation).
    pub initial: JwConfig,
    /// The time loop.
    pub settings: LoopSettings,
    /// The nonhydrostatic solver.
    pub nonhydro: NonHydrostaticConfig,
    /// The diffusion.
    pub diffusion: DiffusionConfig,
    /// How the solver's and the diffusion's programs are compiled.
    pub schedule: Schedule,
}

impl JwRunSpec {
    /// ICON's JW setup with `levels` levels and a time step of `dtime` seconds: the
    /// baroclinic wave (`steady`: the steady state), 5 substeps, ICON's solver defaults
    /// and the diffusion of ICON's JW experiment ([`jw_diffusion`]: `hdiff_efdt_ratio`
    /// 10, `hdiff_smag_fac` 0.025, no temperature diffusion, as ICON4Py's driver), the
    /// programs optimised.
    pub fn icon(levels: usize, dtime: f64, steady: bool) -> JwRunSpec {
        JwRunSpec {
            vertical: VerticalConfig::new(levels),
            initial: if steady {
                JwConfig::steady_state()
            } else {
                JwConfig::default()
            },
            settings: LoopSettings::icon(dtime),
            nonhydro: NonHydrostaticConfig::default(),
            diffusion: jw_diffusion(),
            schedule: Schedule::Optimised,
        }
    }
}

/// The static fields of `grid` for `spec`'s vertical grid over the JW surface.
pub fn fields<'g>(grid: &'g Grid, spec: &JwRunSpec) -> Result<GridFields<'g>> {
    let topography = Topography::JablonowskiWilliamson(JwTopography::default());
    GridFields::compute(grid, spec.vertical.clone(), &topography)
        .map_err(|e| Error::Field(format!("JW run: {e}")))
}

/// What a JW run is made of on `fields`: the solver's state from the JW initial state,
/// the solver and the diffusion (on one engine) and the diffusion's state.
pub struct JwParts<'a> {
    /// The solver's state (current = next = the initial state).
    pub state: SolveNonhydroState,
    /// The nonhydrostatic solver.
    pub solver: SolveNonhydro<'a>,
    /// The diffusion.
    pub diffusion: Diffusion<'a>,
    /// The diffusion's state (its constant fields; the prognostic fields are the
    /// solver's during a call).
    pub diffusion_state: DiffusionState,
}

/// The parts of `spec`'s run on `fields`, their programs run by `engine`.
pub fn parts<'a>(
    fields: &'a GridFields<'a>,
    spec: &JwRunSpec,
    engine: Engine<'a>,
) -> Result<JwParts<'a>> {
    let grid = fields.grid();
    let fail = |e: &dyn std::fmt::Display| Error::Field(format!("JW run: {e}"));
    let initial = jablonowski_williamson(fields, &spec.initial).map_err(|e| fail(&e))?;
    let state = foehn_icon::solve_nonhydro::grid_state(fields, &initial.prognostic)
        .map_err(|e| fail(&e))?;
    let vertical = &fields.statics.vertical;
    let solver = SolveNonhydro::new(
        spec.nonhydro.clone(),
        grid,
        vertical,
        fields.statics.metrics.nflat_gradp,
    )?
    .with_engine(engine)
    .with_schedule(spec.schedule)?;
    let params = DiffusionParams::new(&spec.diffusion, vertical, false);
    let diffusion = Diffusion::new(&spec.diffusion, &params, grid, vertical)?
        .with_engine(engine)
        .with_schedule(spec.schedule)?;
    let diffusion_state =
        diffusion_state::constant_state(fields, &spec.diffusion).map_err(|e| fail(&e))?;
    Ok(JwParts {
        state,
        solver,
        diffusion,
        diffusion_state,
    })
}

/// The time loop of `spec` on `fields` from the JW initial state, its programs run by
/// `engine` on the host (the CPU backend, the interpreter or the references; the GPU
/// runs [`parts`] through [`DeviceDycore`](crate::time_loop::DeviceDycore)).
pub fn dycore<'a>(
    fields: &'a GridFields<'a>,
    spec: &JwRunSpec,
    engine: Engine<'a>,
) -> Result<Dycore<'a>> {
    let p = parts(fields, spec, engine)?;
    Dycore::new(
        p.solver,
        Some((p.diffusion, p.diffusion_state)),
        p.state,
        spec.settings.clone(),
    )
}

/// The configuration of `spec`'s run that a checkpoint's identity records besides what
/// the loop holds ([`Dycore::checkpoint`]): a restart with another one is refused.
pub fn description(spec: &JwRunSpec) -> String {
    format!("{spec:?}")
}
