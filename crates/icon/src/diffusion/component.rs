//! The diffusion component (ICON4Py `Diffusion`, ICON `mo_nh_diffusion`): one diffusion
//! step as the eight programs called in ICON's order, on any engine, as one program per
//! diffusion program or as one fused program.
//!
//! ```text
//! scale_k                                   diff_multfac_smag = enh_smag_fac·dtime
//! rbf_vec_interpol_vertex(vn)               u_vert, v_vert                [exchange Vertex]
//! calculate_nabla2_and_smag_coefficients    kh_smag_e, kh_smag_ec, z_nabla2_e
//! calculate_diagnostic_quantities_for_turbulence     (shear_type ≥ 1): div_ic, hdef_ic
//!                                                                         [exchange Edge]
//! rbf_vec_interpol_vertex(z_nabla2_e)       u_vert, v_vert                [exchange Vertex]
//! apply_diffusion_to_vn                     vn                  [start exchange Edge vn]
//! copy w → w_old
//! apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence   w (dwdx, dwdy)
//!                                                                  [wait exchange Edge vn]
//! (apply_to_temperature) calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools
//!                        copy θv → θv_in; apply_diffusion_to_theta_and_exner   θv, exner
//!                                                        [exchange Cell θv, exner, w]
//! ```
//!
//! Static variants: `limited_area` from the grid (`DiffusionConfig::limited_area` is not
//! consulted), `type_shear = config.shear_type`, `nrdmax = end_index_of_damping_layer + 1`,
//! `apply_zdiffusion_t`, and whether the turbulence diagnostics (`shear_type ≥ 1`, as
//! ICON4Py) and the temperature diffusion (`apply_to_temperature`) run. As in ICON4Py,
//! `apply_to_vertical_wind` / `apply_to_horizontal_wind` are not consulted.
//!
//! Halo exchanges are no-ops (one domain): the steps list them where ICON exchanges and
//! [`crate::common::runner::exchange_with`] runs them through the
//! [`Exchange`](crate::common::exchange::Exchange) hook a decomposed run fills in.
//!
//! Engines: [`Engine::Interpreter`], [`Engine::Cpu`], [`Engine::Reference`] (the
//! programs' plain-Rust references chained), [`Engine::Cuda`] (upload, launch, download
//! per call); for device-resident steps use [`Diffusion::cuda`] (upload once, bind
//! every program once, launch per step, download at the end).

pub mod cuda;
pub mod plan;
pub mod state;
pub mod steps;

use crate::common::component::{Core, Names};
pub use crate::common::runner::{Engine, Schedule};
pub use state::DiffusionState;

use crate::common::constants::DBL_EPS;
use crate::diffusion::config::{DiffusionConfig, DiffusionParams};
use crate::diffusion::stencils::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence::TYPE_SHEAR_VALUES;
use crate::fields::vertical::VerticalGrid;
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir::{Scalar, StaticValue};
use foehn::runtime::cuda::CudaBackend;
use foehn::runtime::field::{Field, FieldView};
use foehn_grid::Grid;
use std::collections::BTreeMap;

/// The static (compile-time) choices of a diffusion step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Statics {
    /// Limited-area grid (the `limited_area` variant of `apply_diffusion_to_vn`).
    pub limited_area: bool,
    /// ICON's `itype_sher` (0, 1, 2): ≥ 1 runs the turbulence diagnostics, 2 computes
    /// the horizontal gradients of w.
    pub type_shear: i32,
    /// `end_index_of_damping_layer + 1` (the w program's `nrdmax`).
    pub nrdmax: i32,
    /// Truly horizontal temperature diffusion over steep slopes.
    pub apply_zdiffusion_t: bool,
    /// Cold pools and the θv/exner diffusion.
    pub apply_to_temperature: bool,
}

impl Statics {
    /// The choices of `config` on `grid` and `vertical`.
    pub fn new(config: &DiffusionConfig, grid: &Grid, vertical: &VerticalGrid) -> Result<Statics> {
        Statics {
            limited_area: grid.is_limited_area(),
            type_shear: config.shear_type,
            nrdmax: vertical.end_index_of_damping_layer as i32 + 1,
            apply_zdiffusion_t: config.apply_zdiffusion_t,
            apply_to_temperature: config.apply_to_temperature,
        }
        .checked()
    }

    /// These choices, if the shear type is one of ICON's (0, 1, 2).
    fn checked(self) -> Result<Statics> {
        if !TYPE_SHEAR_VALUES.contains(&self.type_shear) {
            return Err(Error::Variant {
                program: steps::STEP_NAME.into(),
                message: format!("shear_type {} is not one of 0, 1, 2", self.type_shear),
            });
        }
        Ok(self)
    }

    /// Whether `calculate_diagnostic_quantities_for_turbulence` runs (ICON4Py:
    /// `shear_type ≥ VERTICAL_HORIZONTAL_OF_HORIZONTAL_WIND`).
    pub fn turbulence_diagnostics(&self) -> bool {
        self.type_shear >= 1
    }

    /// The fused program's variant.
    pub fn variant(&self) -> Variant {
        Variant::new()
            .with("limited_area", self.limited_area)
            .with("type_shear", self.type_shear)
            .with("nrdmax", self.nrdmax)
            .with("apply_zdiffusion_t", self.apply_zdiffusion_t)
            .with("apply_to_temperature", self.apply_to_temperature)
    }

    /// The choices of a fused-program variant (the shear type checked as by
    /// [`Statics::new`]).
    pub fn from_variant(variant: &Variant) -> Result<Statics> {
        let fail = |name: &str| Error::Variant {
            program: steps::STEP_NAME.into(),
            message: format!("variant lacks static `{name}`"),
        };
        let flag = |name: &str| match variant.get(name) {
            Some(StaticValue::Bool(b)) => Ok(b),
            _ => Err(fail(name)),
        };
        let int = |name: &str| match variant.get(name) {
            Some(StaticValue::I32(i)) => Ok(i),
            _ => Err(fail(name)),
        };
        Statics {
            limited_area: flag("limited_area")?,
            type_shear: int("type_shear")?,
            nrdmax: int("nrdmax")?,
            apply_zdiffusion_t: flag("apply_zdiffusion_t")?,
            apply_to_temperature: flag("apply_to_temperature")?,
        }
        .checked()
    }
}

/// The runtime scalars of one step by the component's names: `dtime`, `smag_offset`,
/// `nudgezone_diff`, `fac_bdydiff_v`, `diff_multfac_w`, `thresh_tdiff`,
/// `smallest_vpfloat`, `rd_o_cvd`.
pub fn scalars(params: &DiffusionParams, dtime: f64) -> BTreeMap<String, Scalar> {
    SCALARS
        .iter()
        .zip(scalar_values(params, dtime))
        .map(|(n, v)| (n.to_string(), v))
        .collect()
}

/// The names of the runtime scalars of a step, in the order of [`scalar_values`].
pub const SCALARS: [&str; 8] = [
    "dtime",
    "smag_offset",
    "nudgezone_diff",
    "fac_bdydiff_v",
    "diff_multfac_w",
    "thresh_tdiff",
    "smallest_vpfloat",
    "rd_o_cvd",
];

/// The runtime scalars of one step in the order of [`SCALARS`] (what the bound steps
/// index).
pub fn scalar_values(params: &DiffusionParams, dtime: f64) -> [Scalar; 8] {
    [
        dtime,
        params.smag_offset,
        params.nudgezone_diff,
        params.fac_bdydiff_v,
        params.diff_multfac_w,
        params.thresh_tdiff,
        DBL_EPS,
        params.rd_o_cvd,
    ]
    .map(Scalar::F64)
}

/// The K fields of the params by the component's names: `enh_smag_fac`,
/// `diff_multfac_n2w` (full levels), `diff_multfac_vn`, `smag_limit` (and with
/// `initial` given, `diff_multfac_vn_initial`, `smag_limit_initial` from it).
pub fn k_fields(
    grid: &Grid,
    nlev: usize,
    params: &DiffusionParams,
    initial: Option<&DiffusionParams>,
) -> BTreeMap<String, Field> {
    let k = |v: &[f64]| Field::from_fn_f64(grid, nlev, K, |i| v[i]);
    let mut out = BTreeMap::new();
    out.insert("enh_smag_fac".into(), k(&params.enh_smag_fac));
    out.insert("diff_multfac_n2w".into(), k(&params.diff_multfac_n2w));
    out.insert("diff_multfac_vn".into(), k(&params.diff_multfac_vn));
    out.insert("smag_limit".into(), k(&params.smag_limit));
    if let Some(p) = initial {
        out.insert(
            steps::initial_name("diff_multfac_vn"),
            k(&p.diff_multfac_vn),
        );
        out.insert(steps::initial_name("smag_limit"), k(&p.smag_limit));
    }
    out
}

/// The diffusion component: configuration, derived coefficients, the compiled schedule
/// and its work fields.
pub struct Diffusion<'a> {
    config: DiffusionConfig,
    params: DiffusionParams,
    initial_params: DiffusionParams,
    statics: Statics,
    /// The slots, plan, bound steps and engine.
    core: Core<'a>,
}

/// How diffusion is named in messages.
const NAMES: Names = Names {
    what: "diffusion",
    component: "Diffusion",
    state: "DiffusionState",
};

impl<'a> Diffusion<'a> {
    /// The component for `grid` and `vertical` (unfused, on the interpreter; see
    /// [`Diffusion::with_schedule`], [`Diffusion::with_engine`]). The initial-run
    /// coefficients are derived here (`DiffusionParams::new(config, vertical, true)`).
    pub fn new(
        config: &DiffusionConfig,
        params: &DiffusionParams,
        grid: &'a Grid,
        vertical: &VerticalGrid,
    ) -> Result<Diffusion<'a>> {
        let nlev = vertical.num_levels();
        let bad = |message: String| Error::Variant {
            program: steps::STEP_NAME.into(),
            message,
        };
        if nlev < 2 {
            return Err(bad(format!(
                "diffusion needs at least 2 levels, got {nlev}"
            )));
        }
        if params.diff_multfac_vn.len() != nlev || params.enh_smag_fac.len() != nlev {
            return Err(bad(format!(
                "params have {} levels, the vertical grid {nlev}",
                params.diff_multfac_vn.len()
            )));
        }
        let statics = Statics::new(config, grid, vertical)?;
        let initial_params = DiffusionParams::new(config, vertical, true);
        let mut workspace = k_fields(grid, nlev, params, Some(&initial_params));
        for (name, dims) in steps::intermediates() {
            workspace.insert(name.to_string(), Field::zeros(grid, nlev, dims, F64));
        }
        // Slots: the state's fields (the caller's, for a step), then the work fields.
        let core = Core::new(
            NAMES,
            grid,
            nlev,
            DiffusionState::names().collect(),
            workspace.into_iter().collect(),
            &SCALARS,
            plan::plan(Schedule::Unfused, &statics)?,
        )?;
        Ok(Diffusion {
            config: config.clone(),
            params: params.clone(),
            initial_params,
            statics,
            core,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &DiffusionConfig {
        &self.config
    }

    /// The coefficients of a regular step.
    pub fn params(&self) -> &DiffusionParams {
        &self.params
    }

    /// The coefficients of the initial run.
    pub fn initial_params(&self) -> &DiffusionParams {
        &self.initial_params
    }

    /// The specialised programs of a step, in call order (one for [`Schedule::Fused`]).
    pub fn programs(&self) -> Vec<&foehn::ir::Program> {
        self.core.plan().programs(plan::kind(false))
    }

    /// The runtime scalars of a step.
    pub fn step_scalars(&self, dtime: f64, initial_run: bool) -> BTreeMap<String, Scalar> {
        scalars(self.params_for(initial_run), dtime)
    }

    pub(crate) fn params_for(&self, initial_run: bool) -> &DiffusionParams {
        if initial_run {
            &self.initial_params
        } else {
            &self.params
        }
    }

    /// One diffusion step of `dtime` seconds on `state` (ICON4Py `Diffusion.run`, or
    /// `Diffusion.initial_run` with `initial_run`: the first-step `diff_multfac_vn`,
    /// `smag_limit` and `smag_offset = 0`).
    pub fn run(&mut self, state: &mut DiffusionState, dtime: f64, initial_run: bool) -> Result<()> {
        self.core.check_levels(state.nlev())?;
        if let Engine::Cuda(cuda) = self.core.engine() {
            let programs = self.cuda(cuda)?;
            let mut device = programs.upload(state)?;
            device.run(dtime, initial_run)?;
            return device.download(state);
        }
        self.run_views(&mut state.views_mut(), dtime, initial_run)
    }

    /// [`Diffusion::run`] on fields the caller owns: `state` holds views of every field
    /// of a diffusion state in [`DiffusionState::names`] order (ICON's or NumPy's
    /// arrays in foehn's layout), updated in place on the CPU (through copies on the
    /// interpreter and the reference engine). Shapes are checked at every call; the
    /// CUDA engine runs through [`Diffusion::run`] or [`Diffusion::cuda`].
    pub fn run_views(
        &mut self,
        state: &mut [FieldView],
        dtime: f64,
        initial_run: bool,
    ) -> Result<()> {
        let scalars = scalar_values(self.params_for(initial_run), dtime);
        let kind = plan::kind(initial_run);
        self.core.run_views(kind, state, &scalars, |_, _| Ok(()))
    }

    /// Compiles the step for the GPU: see [`cuda::CudaDiffusion`].
    pub fn cuda<'b>(&'b self, cuda: &'b CudaBackend) -> Result<cuda::CudaDiffusion<'b>> {
        cuda::CudaDiffusion::new(self, cuda)
    }
}

crate::component_impl!(Diffusion, Statics);

/// A realistic time step for `grid`: 9 ms per metre of mean edge length (360 s at 40 km,
/// as ICON's R2B6 runs).
pub fn realistic_dtime(grid: &Grid) -> f64 {
    let l = &grid.geometry.primal_edge_length;
    0.009 * l.iter().sum::<f64>() / l.len().max(1) as f64
}
