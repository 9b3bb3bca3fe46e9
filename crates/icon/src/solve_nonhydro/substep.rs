//! One whole dycore substep as one program, `dycore_substep`, as the catalog knows it:
//! the velocity advection's predictor (at the first substep) and corrector and the
//! nonhydrostatic solver's predictor, corrector and fix-ups, linked by
//! `foehn::ir::link` from the calls the component runs ([`step_list`] turned into the
//! runner's calls by [`unfused_segments`]), so the call order is written once and
//! `foehn bench`, `explain`, `exec`, `compile` and the optimiser see the substep as one
//! program.
//!
//! What the component does on the host between calls is a static or a scalar here: the
//! reductions of the vertical CFL number only feed the next step's watch mode
//! (`max_vertical_cfl`), so the linked program leaves `vertical_cfl` as the corrector
//! wrote it and takes no reduction; the divergence-damping factors are the substep's
//! scalars (`second_order_divdamp_factor`, …) and its two switches statics of
//! `apply_divergence_damping_and_update_vn`; the velocity advection's skip of the
//! vertical advection is a static of its predictor calls. Halo exchanges are the
//! caller's (one rank: none).
//!
//! Statics of a variant ([`SubstepStatics`]): `at_first_substep`, `at_last_substep`,
//! `at_initial_timestep`, `limited_area`, `is_iau_active` (the incremental analysis
//! update, with a configuration that has `iau_init`) and
//! `apply_2nd_order_divergence_damping` (a substep of the spin-up, `divdamp_fac_o2` =
//! [`SPIN_UP_DIVDAMP_FAC_O2`]: second- and fourth-order damping combined; otherwise 0,
//! fourth order only); the others are fixed to the programs' catalog values
//! ([`statics`]) and ICON's defaults ([`NonHydrostaticConfig::default`]): `lprep_adv`
//! on, the Rayleigh factor not recomputed (`dtime` as the previous substep's). The
//! catalog's variants ([`variants`]) are the first, a middle and the last substep of a
//! step after the initial one, on a global and a limited-area grid, and two global
//! substeps with IAU: a first substep of the spin-up (the variants GT4Py's programs were
//! timed in) and a middle one after it.
//!
//! The reference ([`chained_reference`]) runs the same calls with the programs'
//! plain-Rust references, one after the other.

use super::component::inputs::random_state;
use super::component::plan::unfused_segments;
use super::component::steps::{step_list, SubstepFlags, Variants};
use super::component::{workspace, SolveNonhydro, SolveNonhydroState, Statics, SCALARS};
use super::config::{IconValue, NonHydrostaticConfig};
use super::stencils::{
    compute_rho_theta_pgrad_and_update_vn as p7, vertically_implicit_solver_at_predictor_step as p9,
};
use crate::common::plan::{chain_references, link_calls};
use crate::common::runner::Step;
use crate::fields::vertical::{VerticalConfig, VerticalGrid};
use crate::velocity_advection::component::inputs::DTIME;
use foehn::error::{Error, Result};
use foehn::ir::link::{link, LinkSpec};
use foehn::ir::{self, Role, StaticValue, Variant};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::catalog::Entry;

/// Name of the substep as one program.
pub const NAME: &str = "dycore_substep";

/// Substeps in the catalog's time step (ICON's default `ndyn_substeps`).
pub const NDYN_SUBSTEPS: usize = 5;

/// The second-order divergence-damping factor of the catalog's substeps: 0, as after
/// ICON's spin-up (fourth-order damping only).
pub const DIVDAMP_FAC_O2: f64 = 0.0;

/// The second-order divergence-damping factor of a substep during the spin-up
/// (`apply_2nd_order_divergence_damping`): ICON's combined order applies both the
/// second- and the fourth-order damping at this factor (≤ 4 · `divdamp_fac`).
pub const SPIN_UP_DIVDAMP_FAC_O2: f64 = 0.008;

/// The IAU weight of the dynamics (`iau_wgt_dyn`) in a substep with IAU.
pub const IAU_WGT_DYN: f64 = 0.5;

/// The static choices of a substep that a variant names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SubstepStatics {
    /// First substep of the time step (the velocity-advection predictor runs).
    pub at_first_substep: bool,
    /// Last substep of the time step.
    pub at_last_substep: bool,
    /// First time step of the run (the predictor's vertical advection is not skipped).
    pub at_initial_timestep: bool,
    /// Limited-area grid.
    pub limited_area: bool,
    /// Incremental analysis update active (the configuration has `iau_init`).
    pub is_iau_active: bool,
    /// A substep of the spin-up: second-order divergence damping at
    /// [`SPIN_UP_DIVDAMP_FAC_O2`] besides the fourth-order one.
    pub apply_2nd_order_divergence_damping: bool,
}

impl SubstepStatics {
    /// A middle substep of a step after the initial one, on a global grid, without IAU,
    /// after the divergence-damping spin-up.
    pub const MIDDLE: SubstepStatics = SubstepStatics {
        at_first_substep: false,
        at_last_substep: false,
        at_initial_timestep: false,
        limited_area: false,
        is_iau_active: false,
        apply_2nd_order_divergence_damping: false,
    };

    /// The statics as a variant.
    pub fn variant(&self) -> Variant {
        Variant::new()
            .with("at_first_substep", self.at_first_substep)
            .with("at_last_substep", self.at_last_substep)
            .with("at_initial_timestep", self.at_initial_timestep)
            .with("limited_area", self.limited_area)
            .with("is_iau_active", self.is_iau_active)
            .with(
                "apply_2nd_order_divergence_damping",
                self.apply_2nd_order_divergence_damping,
            )
    }

    /// The statics a variant names; a missing one is an error naming it
    /// (`is_iau_active` and `apply_2nd_order_divergence_damping` are false when absent).
    pub fn from_variant(variant: &Variant) -> Result<SubstepStatics> {
        let get_or = |name: &str, absent: Option<bool>| match (variant.get(name), absent) {
            (Some(StaticValue::Bool(b)), _) => Ok(b),
            (None, Some(b)) => Ok(b),
            _ => Err(Error::Variant {
                program: NAME.into(),
                message: format!("the variant [{variant}] has no boolean static `{name}`"),
            }),
        };
        let get = |name: &str| get_or(name, None);
        Ok(SubstepStatics {
            at_first_substep: get("at_first_substep")?,
            at_last_substep: get("at_last_substep")?,
            at_initial_timestep: get("at_initial_timestep")?,
            limited_area: get("limited_area")?,
            is_iau_active: get_or("is_iau_active", Some(false))?,
            apply_2nd_order_divergence_damping: get_or(
                "apply_2nd_order_divergence_damping",
                Some(false),
            )?,
        })
    }

    /// The flags the driver gives such a substep (`lprep_adv` on).
    pub fn flags(&self) -> SubstepFlags {
        SubstepFlags {
            at_first_substep: self.at_first_substep,
            at_last_substep: self.at_last_substep,
            lprep_adv: true,
            at_initial_timestep: self.at_initial_timestep,
            is_iau_active: self.is_iau_active,
        }
    }

    /// The substep's second-order divergence-damping factor.
    pub fn divdamp_fac_o2(&self) -> f64 {
        if self.apply_2nd_order_divergence_damping {
            SPIN_UP_DIVDAMP_FAC_O2
        } else {
            DIVDAMP_FAC_O2
        }
    }

    /// The substep's IAU weight of the dynamics (0 without IAU).
    pub fn iau_wgt_dyn(&self) -> f64 {
        if self.is_iau_active {
            IAU_WGT_DYN
        } else {
            0.0
        }
    }

    /// ICON's default configuration, with `iau_init` where the substep has IAU.
    pub fn config(&self) -> NonHydrostaticConfig {
        NonHydrostaticConfig {
            iau_init: self.is_iau_active,
            ..NonHydrostaticConfig::default()
        }
    }
}

/// The solver's statics of the catalog's substep: the programs' catalog values
/// (`nflatlev` 4, `nflat_gradp` 6, `end_index_of_damping_layer` 3, `kstart_moist` 4)
/// and `config`'s choices.
pub fn statics(config: &NonHydrostaticConfig, limited_area: bool) -> Statics {
    Statics {
        nflatlev: p7::NFLATLEV,
        nflat_gradp: p7::NFLAT_GRADP,
        end_index_of_damping_layer: p9::END_INDEX_OF_DAMPING_LAYER,
        kstart_moist: p9::KSTART_MOIST,
        limited_area,
        divdamp_order: config.divdamp_order.icon(),
        divdamp_type: config.divdamp_type.icon(),
        rayleigh_type: config.rayleigh_type.icon(),
        igradp_method: config.igradp_method.icon(),
    }
}

/// The vertical grid of the catalog's substep with `nlev` levels: 75 km high, damping
/// from 20 km, flat from 10 km, moist below 15 km (with 10 levels its `nflatlev`,
/// `nrdmax` and `kstart_moist` are [`statics`]'s).
pub fn vertical(nlev: usize) -> VerticalGrid {
    VerticalGrid::new(VerticalConfig {
        model_top_height: 75000.0,
        rayleigh_damping_height: 20000.0,
        flat_height: 10000.0,
        htop_moist_proc: 15000.0,
        ..VerticalConfig::new(nlev)
    })
}

/// The calls' variants of a substep of `s` with `config` (the substep's
/// [`SubstepStatics::divdamp_fac_o2`], `dtime` unchanged).
pub fn call_variants(config: &NonHydrostaticConfig, s: &SubstepStatics) -> Result<Variants> {
    let params = super::config::NonHydrostaticParams::new(config, &vertical(10), 1.0)?;
    let damping = params.divergence_damping(s.divdamp_fac_o2());
    Ok(Variants::new(
        config,
        s.flags(),
        &damping,
        s.limited_area,
        false,
    ))
}

/// Every call of a substep of `s`, in ICON's order (the component's unfused segments,
/// joined; exchanges included, which linking skips).
pub fn calls(s: &SubstepStatics) -> Result<Vec<Step>> {
    let config = s.config();
    let v = call_variants(&config, s)?;
    let segments = unfused_segments(&statics(&config, s.limited_area), &step_list(&v))?;
    Ok(segments.into_iter().flatten().collect())
}

/// The one field only passed between the calls of a substep: the velocity advection's
/// `contravariant_corrected_w_at_cells_on_model_levels` (`z_w_con_c_full`), written by
/// each vertical-momentum program before its horizontal-momentum program reads it. The
/// solver's own fields stay arguments (some keep values between substeps, some must keep
/// their exact zeros outside their domains), as do `z_v_grad_w` (the corrector reads the
/// predictor's of the first substep) and `vertical_cfl` (the caller's CFL watch).
pub const INTERMEDIATES: [&str; 1] = ["contravariant_corrected_w_at_cells_on_model_levels"];

/// The substep of a variant, linked from [`calls`] (the solver's slots and workspace
/// arguments by their names, [`INTERMEDIATES`] temporaries) with the variant's statics.
pub fn program(variant: &Variant) -> Result<ir::Program> {
    let s = SubstepStatics::from_variant(variant)?;
    let steps = calls(&s)?;
    let mut spec = LinkSpec {
        statics: s.variant(),
        ..LinkSpec::new()
    };
    for name in INTERMEDIATES {
        spec = spec.intermediate(name);
    }
    Ok(link(NAME, &link_calls(&steps), &spec)?)
}

/// The chained references: [`calls`] of the program's variant run with the programs'
/// plain-Rust references on `args`.
pub fn chained_reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let s = SubstepStatics::from_variant(&program.variant)?;
    chain_references(program, grid, args, &calls(&s)?, workspace())
}

/// The catalog's variants: the first, a middle and the last substep of a step after
/// the initial one, each on a global and a limited-area grid; then, on a global grid
/// with IAU, a first substep of the spin-up (second-order damping too) and a middle
/// substep after it.
pub fn variants() -> Vec<Variant> {
    let mut out = Vec::new();
    let plain = SubstepStatics::MIDDLE;
    for limited_area in [false, true] {
        for (at_first_substep, at_last_substep) in [(true, false), (false, false), (false, true)] {
            let s = SubstepStatics {
                at_first_substep,
                at_last_substep,
                limited_area,
                ..plain
            };
            out.push(s.variant());
        }
    }
    for (at_first_substep, apply_2nd_order_divergence_damping) in [(true, true), (false, false)] {
        let s = SubstepStatics {
            at_first_substep,
            is_iau_active: true,
            apply_2nd_order_divergence_damping,
            ..plain
        };
        out.push(s.variant());
    }
    out
}

/// The solver a substep `s` of the catalog runs on `grid` with `nlev` levels
/// ([`SubstepStatics::config`], the [`vertical`] grid, `nflat_gradp` 6).
pub fn solver<'g>(grid: &'g Grid, nlev: usize, s: &SubstepStatics) -> Result<SolveNonhydro<'g>> {
    SolveNonhydro::new(s.config(), grid, &vertical(nlev), p7::NFLAT_GRADP as usize)
}

/// The solver's state a substep `s` of the catalog starts from on `grid` with `nlev`
/// levels: [`random_state`] (every program's input generator, the IAU increments
/// included where `s` has IAU) with `enh_divdamp_fac` as the solver sets it.
pub fn state(
    grid: &Grid,
    nlev: usize,
    s: &SubstepStatics,
    seed: u64,
) -> Result<SolveNonhydroState> {
    state_of(&solver(grid, nlev, s)?, grid, nlev, s, seed)
}

/// [`state`] for `solver` (the substep's, on `grid` with `nlev` levels).
fn state_of(
    solver: &SolveNonhydro,
    grid: &Grid,
    nlev: usize,
    s: &SubstepStatics,
    seed: u64,
) -> Result<SolveNonhydroState> {
    let config = solver.config();
    let st = statics(config, s.limited_area);
    let mut state = random_state(config, &st, grid, &vertical(nlev), seed)?;
    let enh = &solver.params().enh_divdamp_fac;
    state.intermediate.interpolated_fourth_order_divdamp_factor =
        Field::from_fn_f64(grid, nlev, foehn::dsl::prelude::K, |k| enh[k]);
    Ok(state)
}

/// Realistic inputs of a variant: the fields of [`state`], the velocity advection's
/// own work fields at zero (each is written before it is read), and the scalars of a
/// substep of [`DTIME`] s in a step of [`NDYN_SUBSTEPS`] with the variant's
/// [`SubstepStatics::divdamp_fac_o2`] and [`SubstepStatics::iau_wgt_dyn`].
///
/// # Panics
/// When ICON's default configuration or the state cannot be built on `grid`.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let s = SubstepStatics::from_variant(&program.variant).expect("a dycore_substep variant");
    // One solver for the state and the scalars (it allocates its work fields).
    let solver = solver(grid, nlev, &s).expect("ICON's default configuration");
    let state = state_of(&solver, grid, nlev, &s, seed)
        .unwrap_or_else(|e| panic!("{NAME} on {}: {e}", grid.name));
    let mut args = Args::new().with_nlev(nlev);
    for d in program.fields.iter().filter(|d| d.role != Role::Temp) {
        let field = match state.field(&d.name) {
            Some(f) => f.clone(),
            None => Field::zeros(grid, nlev, d.ty.dims.list(), d.ty.dtype),
        };
        args.set_field(&d.name, field);
    }
    let values = solver.scalar_values(s.divdamp_fac_o2(), DTIME, NDYN_SUBSTEPS, s.iau_wgt_dyn());
    for (name, value) in SCALARS.iter().zip(values) {
        if program.scalars.iter().any(|d| d.name == *name) {
            args.set_scalar(name, value);
        }
    }
    args
}

/// Catalog entry: the linked substep in its [`variants`], with the chained references.
pub fn entry() -> Entry {
    Entry::built(NAME, variants, program, inputs, chained_reference).calls_per_step(5.0)
}
