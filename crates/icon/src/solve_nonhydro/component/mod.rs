//! The nonhydrostatic-solver component (ICON4Py `SolveNonhydro`, ICON
//! `mo_solve_nonhydro::solve_nh`): a substep (`time_step`) as the programs of the
//! catalog called in ICON's order ([`steps::step_list`]), with the velocity advection's
//! calls and its CFL reductions, the halo exchanges through an
//! [`Exchange`](crate::common::exchange::Exchange) hook, on the interpreter, the CPU
//! backend or the chained plain-Rust references, or on a CUDA device with the state
//! kept there for the whole run ([`cuda`]: upload once, substeps and swaps on the
//! device, download on request).
//!
//! ```text
//! time_step(state, divdamp_fac_o2, dtime, ndyn_substeps_var, flags, iau_wgt_dyn):
//!   predictor: velocity advection predictor (first substep; skip unless first substep of
//!              the initial step) · compute_perturbed_quantities_and_interpolation ·
//!              compute_hydrostatic_correction_term · compute_rho_theta_pgrad_and_update_vn ·
//!              exchange Edge(vn, z_rho_e) · compute_horizontal_velocity_quantities_and_fluxes ·
//!              compute_rayleigh_damping_factor (dtime changed) ·
//!              vertically_implicit_solver_at_predictor_step · stencils_61_62 (LAM) ·
//!              compute_dwdz_for_divergence_damping (LAM) · exchange Cell(w, z_dwdz_dd)
//!   corrector: velocity advection corrector · compute_interpolation_and_nonhydro_buoy ·
//!              apply_divergence_damping_and_update_vn · exchange Edge(vn) ·
//!              compute_averaged_vn_and_fluxes · vertically_implicit_solver_at_corrector_step ·
//!              init_cell_kdim_field_with_zero_wp, update_mass_flux_weighted (LAM, lprep_adv) ·
//!              exchange Cell(rho, exner, w)
//!   fix-ups:   compute_exner_from_rhotheta (LAM) · update_theta_and_exner_in_halo
//! ```
//!
//! The substep's flags become the programs' variants once ([`steps::Variants`]); each
//! distinct choice is a kind of the component's plan, bound to the state's slots when
//! first run (the common layer's [`Core::add_kind`]). Program arguments are bound to
//! the slots of [`SolveNonhydroState`] by ICON4Py's keyword arguments
//! ([`steps::bindings`]); the velocity advection's own work fields (`z_v_grad_w`,
//! `z_w_con_c_full`, `vcfl`) are the component's workspace. `z_hydro_corr` is one
//! (Edge, K) slot: `compute_hydrostatic_correction_term` writes its level `nlev − 1`,
//! which `compute_rho_theta_pgrad_and_update_vn` reads from every level (ADR 0014).
//!
//! Schedules: [`Schedule::Unfused`] (one program per call) and [`Schedule::Optimised`]
//! (every call optimised on its own by foehn's optimiser). The substep's calls link into
//! one program ([`crate::solve_nonhydro::substep`], the catalog's `dycore_substep`), but
//! the component does not run it: [`Schedule::Fused`] is refused for now (it would need
//! the predictor's `vertical_cfl` under a name of its own for the two CFL reductions, and
//! the linked substep optimised as a whole measured no faster on the H100 than every call
//! optimised on its own, ADR 0021).

pub mod cuda;
pub mod inputs;
pub mod plan;
pub mod state;
pub mod steps;

use super::config::{IconValue, NonHydrostaticConfig, NonHydrostaticParams};
use crate::common::component::{Core, Names};
use crate::common::constants::{CPD, DBL_EPS, GRAV, P0REF, RD, RD_O_CVD};
use crate::common::exchange::Exchange as HaloExchange;
use crate::common::plan::Plan;
use crate::common::runner::optimised;
pub use crate::common::runner::{Engine, Schedule};
use crate::fields::vertical::VerticalGrid;
use crate::velocity_advection::component::{self as va, max_abs_vertical_cfl};
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir::Scalar;
use foehn::runtime::field::{Field, FieldData, FieldView};
use foehn_grid::Grid;
pub use state::SolveNonhydroState;
use std::collections::HashMap;
pub use steps::{SubstepFlags, Variants};

/// The grid's, vertical grid's and configuration's static choices of the programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Statics {
    /// ICON `nflatlev`.
    pub nflatlev: i32,
    /// ICON `nflat_gradp` (from the metric fields).
    pub nflat_gradp: i32,
    /// ICON `nrdmax` (ICON4Py `end_index_of_damping_layer`).
    pub end_index_of_damping_layer: i32,
    /// ICON `kstart_moist`.
    pub kstart_moist: i32,
    /// Limited-area grid.
    pub limited_area: bool,
    /// `divdamp_order`.
    pub divdamp_order: i32,
    /// `divdamp_type`.
    pub divdamp_type: i32,
    /// `rayleigh_type`.
    pub rayleigh_type: i32,
    /// `igradp_method`.
    pub igradp_method: i32,
}

impl Statics {
    /// The choices of `config` on `grid` and `vertical` with the metric fields'
    /// `nflat_gradp`.
    pub fn new(
        config: &NonHydrostaticConfig,
        grid: &Grid,
        vertical: &VerticalGrid,
        nflat_gradp: usize,
    ) -> Statics {
        Statics {
            nflatlev: vertical.nflatlev as i32,
            nflat_gradp: nflat_gradp as i32,
            end_index_of_damping_layer: vertical.end_index_of_damping_layer as i32,
            kstart_moist: vertical.kstart_moist as i32,
            limited_area: grid.is_limited_area(),
            divdamp_order: config.divdamp_order.icon(),
            divdamp_type: config.divdamp_type.icon(),
            rayleigh_type: config.rayleigh_type.icon(),
            igradp_method: config.igradp_method.icon(),
        }
    }

    /// Every static value the solver knows, by ICON4Py's names (a program takes those
    /// it declares).
    pub fn values(&self) -> Variant {
        Variant::new()
            .with("nflatlev", self.nflatlev)
            .with("nflat_gradp", self.nflat_gradp)
            .with(
                "end_index_of_damping_layer",
                self.end_index_of_damping_layer,
            )
            .with("kstart_moist", self.kstart_moist)
            .with("flat_level_index_plus1", self.nflatlev + 1)
            .with("limited_area", self.limited_area)
            .with("divdamp_order", self.divdamp_order)
            .with("divdamp_type", self.divdamp_type)
            .with("rayleigh_type", self.rayleigh_type)
            .with("igradp_method", self.igradp_method)
    }

    /// The velocity advection's statics.
    pub fn velocity_advection(&self) -> va::Statics {
        va::Statics {
            nflatlev: self.nflatlev,
            end_index_of_damping_layer: self.end_index_of_damping_layer,
        }
    }
}

/// The names of a substep's runtime scalars, in the order of [`SolveNonhydro::scalar_values`].
pub const SCALARS: [&str; 23] = [
    "dtime",
    "iau_wgt_dyn",
    "r_nsubsteps",
    "ndyn_substeps_var",
    "second_order_divdamp_factor",
    "second_order_divdamp_scaling_coeff",
    "advection_explicit_weight_parameter",
    "advection_implicit_weight_parameter",
    "rhotheta_explicit_weight_parameter",
    "rhotheta_implicit_weight_parameter",
    "mean_cell_area",
    "max_nudging_coefficient",
    "dbl_eps",
    "cfl_w_limit",
    "scalfac_exdiff",
    "grav_o_cpd",
    "rd_o_cvd",
    "cvd_o_rd",
    "rd_o_p0ref",
    "cpd",
    "rd",
    "cvd",
    "p0ref",
];

/// How the solver is named in messages.
const NAMES: Names = Names {
    what: "solve_nonhydro",
    component: "SolveNonhydro",
    state: "SolveNonhydroState",
};

/// The nonhydrostatic solver: configuration, derived parameters, statics, the kinds
/// of substep run so far and the engine.
pub struct SolveNonhydro<'a> {
    config: NonHydrostaticConfig,
    params: NonHydrostaticParams,
    statics: Statics,
    core: Core<'a>,
    schedule: Schedule,
    /// The kind (plan index) of each substep variant run so far.
    kinds: HashMap<Variants, usize>,
    /// The `dtime` of the previous substep (ICON4Py `_dtime_previous_substep`).
    dtime_previous_substep: f64,
    /// The position of `vertical_cfl` among the work fields.
    cfl_at: usize,
    /// The slot of `enh_divdamp_fac`, and its values (K), written into it every substep.
    enh_at: usize,
    enh_divdamp_fac: Field,
}

impl<'a> SolveNonhydro<'a> {
    /// The solver of `config` (validated) for `grid`, `vertical` and the metric
    /// fields' `nflat_gradp`, unfused, on the interpreter.
    pub fn new(
        config: NonHydrostaticConfig,
        grid: &'a Grid,
        vertical: &VerticalGrid,
        nflat_gradp: usize,
    ) -> Result<SolveNonhydro<'a>> {
        let params = NonHydrostaticParams::new(&config, vertical, grid.geometry.mean_cell_area)?;
        let nlev = vertical.num_levels();
        let statics = Statics::new(&config, grid, vertical, nflat_gradp);
        let work = workspace()
            .into_iter()
            .map(|(n, dims)| (n.to_string(), Field::zeros(grid, nlev, dims, F64)))
            .collect();
        let plan = empty_plan(Schedule::Unfused)?;
        let core = Core::new(
            NAMES,
            grid,
            nlev,
            SolveNonhydroState::names().collect(),
            work,
            &SCALARS,
            plan,
        )?;
        let cfl_at = core.work_index("vertical_cfl").expect("a work field");
        let enh_at = SolveNonhydroState::names()
            .position(|n| n == "interpolated_fourth_order_divdamp_factor")
            .expect("a slot");
        let enh_divdamp_fac = Field::new(
            foehn::ir::Dims::from_list(&[K.into()]).map_err(Error::Field)?,
            vec![nlev],
            FieldData::F64(params.enh_divdamp_fac.clone()),
        )?;
        Ok(SolveNonhydro {
            config,
            params,
            statics,
            core,
            schedule: Schedule::Unfused,
            kinds: HashMap::new(),
            dtime_previous_substep: 0.0,
            cfl_at,
            enh_at,
            enh_divdamp_fac,
        })
    }

    /// Selects the schedule: [`Schedule::Unfused`] or [`Schedule::Optimised`] (see the
    /// module doc); [`Schedule::Fused`] is refused.
    pub fn with_schedule(mut self, schedule: Schedule) -> Result<SolveNonhydro<'a>> {
        if schedule == Schedule::Fused {
            return Err(Error::Variant {
                program: "solve_nonhydro".into(),
                message: "the substep is not linked into one program yet: Schedule::Unfused \
                          or Schedule::Optimised"
                    .into(),
            });
        }
        self.schedule = schedule;
        self.kinds.clear();
        self.core.set_plan(empty_plan(schedule)?)?;
        Ok(self)
    }

    /// The schedule.
    pub fn schedule(&self) -> Schedule {
        self.schedule
    }

    /// Selects the engine (interpreter, CPU, reference, or CUDA: see [`cuda`] for the
    /// state kept on the device).
    pub fn with_engine(mut self, engine: Engine<'a>) -> SolveNonhydro<'a> {
        self.core.set_engine(engine);
        self
    }

    /// The grid.
    pub fn grid(&self) -> &'a Grid {
        self.core.grid()
    }

    /// The configuration.
    pub fn config(&self) -> &NonHydrostaticConfig {
        &self.config
    }

    /// The derived parameters.
    pub fn params(&self) -> &NonHydrostaticParams {
        &self.params
    }

    /// The static choices.
    pub fn statics(&self) -> &Statics {
        &self.statics
    }

    /// The variants of a substep with `flags`, `divdamp_fac_o2` and `dtime`
    /// (the Rayleigh factor is recomputed when `dtime` differs from the previous
    /// substep's).
    pub fn variants(&self, flags: SubstepFlags, divdamp_fac_o2: f64, dtime: f64) -> Variants {
        let damping = self.params.divergence_damping(divdamp_fac_o2);
        Variants::new(
            &self.config,
            flags,
            &damping,
            self.statics.limited_area,
            dtime != self.dtime_previous_substep,
        )
    }

    /// The programs of the step list not yet in the catalog (a substep refuses to run
    /// while there are any).
    pub fn missing_programs(&self) -> Vec<&'static str> {
        let flags = SubstepFlags {
            at_first_substep: true,
            at_last_substep: true,
            lprep_adv: true,
            at_initial_timestep: true,
            is_iau_active: false,
        };
        plan::missing_programs(&steps::step_list(&self.variants(flags, 0.0, 1.0)))
    }

    /// The specialised programs of a substep of `variants`, in call order (built and
    /// bound if not yet).
    pub fn programs(&mut self, variants: &Variants) -> Result<Vec<&foehn::ir::Program>> {
        let kind = self.kind(variants)?;
        Ok(self.core.plan().programs(kind))
    }

    fn kind(&mut self, variants: &Variants) -> Result<usize> {
        if let Some(k) = self.kinds.get(variants) {
            return Ok(*k);
        }
        let items = steps::step_list(variants);
        let missing = plan::missing_programs(&items);
        if !missing.is_empty() {
            return Err(Error::Variant {
                program: "solve_nonhydro".into(),
                message: format!("programs not in the catalog yet: {}", missing.join(", ")),
            });
        }
        let mut segments = plan::unfused_segments(&self.statics, &items)?;
        if self.schedule == Schedule::Optimised {
            for segment in segments.iter_mut() {
                *segment = std::mem::take(segment).into_iter().map(optimised).collect();
            }
        }
        let k = self.core.add_kind(segments)?;
        self.kinds.insert(*variants, k);
        Ok(k)
    }

    /// The runtime scalars of a substep, in [`SCALARS`] order.
    pub fn scalar_values(
        &self,
        divdamp_fac_o2: f64,
        dtime: f64,
        ndyn_substeps_var: usize,
        iau_wgt_dyn: f64,
    ) -> Vec<Scalar> {
        let p = &self.params;
        let damping = p.divergence_damping(divdamp_fac_o2);
        let (cfl_w_limit, scalfac_exdiff) = va::scale_factors(dtime);
        let cvd = CPD - RD;
        [
            dtime,
            iau_wgt_dyn,
            1.0 / ndyn_substeps_var as f64,
            ndyn_substeps_var as f64,
            damping.second_order_divdamp_factor,
            damping.second_order_divdamp_scaling_coeff,
            p.advection_explicit_weight_parameter,
            p.advection_implicit_weight_parameter,
            p.rhotheta_explicit_weight_parameter,
            p.rhotheta_implicit_weight_parameter,
            p.mean_cell_area,
            self.config.max_nudging_coefficient,
            DBL_EPS,
            cfl_w_limit,
            scalfac_exdiff,
            GRAV / CPD,
            RD_O_CVD,
            cvd / RD,
            RD / P0REF,
            CPD,
            RD,
            cvd,
            P0REF,
        ]
        .map(Scalar::F64)
        .to_vec()
    }

    /// One substep of `dtime` seconds (ICON4Py `SolveNonhydro.time_step`): the
    /// predictor, the corrector and the fix-ups on `state` (its `next` written), with
    /// the second-order divergence damping `divdamp_fac_o2`
    /// ([`second_order_divdamp_factor`](super::config::second_order_divdamp_factor)),
    /// `ndyn_substeps_var` substeps in the step, the substep's `flags`, the IAU weight,
    /// and the halo exchanges through `exchange`. `max_vertical_cfl` takes the maximum
    /// of the velocity advection's CFL numbers.
    #[allow(clippy::too_many_arguments)]
    pub fn time_step(
        &mut self,
        state: &mut SolveNonhydroState,
        divdamp_fac_o2: f64,
        dtime: f64,
        ndyn_substeps_var: usize,
        flags: SubstepFlags,
        iau_wgt_dyn: f64,
        exchange: &mut dyn HaloExchange,
    ) -> Result<()> {
        self.core.check_levels(state.nlev())?;
        let scalars = (divdamp_fac_o2, dtime, ndyn_substeps_var, iau_wgt_dyn);
        if let Engine::Cuda(cuda) = self.core.engine() {
            return self.time_step_through_device(cuda, state, scalars, flags, exchange);
        }
        let mut max = state.max_vertical_cfl;
        let mut views = state.views_mut();
        self.time_step_views(&mut views, &mut max, scalars, flags, exchange)?;
        drop(views);
        state.max_vertical_cfl = max;
        Ok(())
    }

    /// [`SolveNonhydro::time_step`] on fields the caller owns: `state` holds views of
    /// every slot in [`SolveNonhydroState::names`] order (placeholders where no program
    /// of the substep binds one), updated in place; `max_vertical_cfl` is the running
    /// CFL maximum; `(divdamp_fac_o2, dtime, ndyn_substeps_var, iau_wgt_dyn)` as there.
    pub fn time_step_views(
        &mut self,
        state: &mut [FieldView],
        max_vertical_cfl: &mut f64,
        (divdamp_fac_o2, dtime, ndyn_substeps_var, iau_wgt_dyn): (f64, f64, usize, f64),
        flags: SubstepFlags,
        exchange: &mut dyn HaloExchange,
    ) -> Result<()> {
        if let Engine::Cuda(_) = self.core.engine() {
            return Err(Error::Variant {
                program: "solve_nonhydro".into(),
                message: "the CUDA engine runs a SolveNonhydroState (time_step) or a \
                          device state (upload, time_step_on_device), not host views"
                    .into(),
            });
        }
        self.check_flags(flags)?;
        let variants = self.variants(flags, divdamp_fac_o2, dtime);
        let kind = self.kind(&variants)?;
        let slots = SolveNonhydroState::names().count();
        if state.len() != slots {
            return Err(Error::Field(format!(
                "solve_nonhydro: {} field views given, a SolveNonhydroState has {slots}",
                state.len()
            )));
        }
        state[self.enh_at].copy_from(&self.enh_divdamp_fac)?;
        let scalars = self.scalar_values(divdamp_fac_o2, dtime, ndyn_substeps_var, iau_wgt_dyn);
        let (grid, cfl_at) = (self.core.grid(), self.cfl_at);
        let reduce_first = variants.velocity_advection_predictor.is_some();
        let reduce = |segment: usize, work: &[Field]| {
            if segment > 0 || reduce_first {
                let cfl = max_abs_vertical_cfl(grid, &work[cfl_at])?;
                *max_vertical_cfl = max_vertical_cfl.max(cfl);
            }
            Ok(())
        };
        self.core
            .run_views_with(kind, state, &scalars, exchange, reduce)?;
        self.dtime_previous_substep = dtime;
        Ok(())
    }
}

impl SolveNonhydro<'_> {
    /// The component's own work fields by name ([`workspace`]): what a checkpoint saves
    /// besides the state.
    pub fn workspace(&self) -> std::collections::BTreeMap<&str, &Field> {
        self.core.workspace()
    }

    /// A work field by name, mutably (a restart restores it; a device state uploads
    /// the host's work fields).
    pub fn workspace_field_mut(&mut self, name: &str) -> Option<&mut Field> {
        self.core.workspace_field_mut(name)
    }

    /// The `dtime` of the previous substep (0 before the first): a substep of another
    /// `dtime` recomputes the Rayleigh damping factor.
    pub fn dtime_previous_substep(&self) -> f64 {
        self.dtime_previous_substep
    }

    /// Sets the `dtime` of the previous substep (a restart continues with its run's).
    pub fn set_dtime_previous_substep(&mut self, dtime: f64) {
        self.dtime_previous_substep = dtime;
    }

    /// The flags are ones the configuration can run (`is_iau_active` needs `iau_init`).
    fn check_flags(&self, flags: SubstepFlags) -> Result<()> {
        if flags.is_iau_active && !self.config.iau_init {
            return Err(Error::Variant {
                program: "solve_nonhydro".into(),
                message: "is_iau_active needs a configuration with iau_init".into(),
            });
        }
        Ok(())
    }
}

/// A plan of no kinds yet: the component adds a kind per substep variant when it first
/// runs one ([`Core::add_kind`]).
fn empty_plan(schedule: Schedule) -> Result<Plan> {
    Plan::new(
        schedule,
        0,
        steps::SEGMENTS,
        |_| unreachable!(),
        |_| unreachable!(),
    )
}

/// The component's own work fields: the velocity advection's `z_v_grad_w`,
/// `z_w_con_c_full` and `vertical_cfl` (its other work fields are the solver's
/// intermediate fields).
pub fn workspace() -> Vec<(&'static str, Vec<Dim>)> {
    let shared = [
        "contravariant_correction_at_edges_on_model_levels",
        "horizontal_kinetic_energy_at_edges_on_model_levels",
        "tangential_wind_on_half_levels",
    ];
    va::steps::work_fields()
        .into_iter()
        .filter(|(n, _)| !shared.contains(n))
        .collect()
}
