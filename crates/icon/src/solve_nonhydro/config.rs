//! The nonhydrostatic solver's configuration with ICON's defaults
//! ([`NonHydrostaticConfig`], ICON4Py `NonHydrostaticConfig`, ICON `nonhydrostatic_nml`)
//! and what is derived from it once ([`NonHydrostaticParams`], ICON4Py
//! `NonHydrostaticParams` and the constructor of `SolveNonhydro`), with the second-order
//! divergence-damping schedule of the driver ([`second_order_divdamp_factor`], ICON
//! `mo_nh_stepping`'s `update_spinup_damping`) and the damping decisions of a corrector
//! ([`DivergenceDamping`]).
//!
//! ```text
//! wgt_nnow_vel = 0.5 − veladv_offctr        wgt_nnew_vel = 0.5 + veladv_offctr      (0.25, 0.75)
//! wgt_nnew_rth = 0.5 + rhotheta_offctr      wgt_nnow_rth = 1 − wgt_nnew_rth          (0.4, 0.6)
//! enh_divdamp_fac(k) = en_smag_fac_for_zero_nshift(vct_a, divdamp_fac…fac4, divdamp_z…z4)
//! r_nsubsteps = 1/ndyn_substeps
//! divdamp_fac_o2(t) = divdamp_fac                          if divdamp_order ≠ 24
//!                   = 0                                    if not apply_extra_second_order_divdamp or t > 7200 + dt/2
//!                   = 8·divdamp_fac                        if t ≤ 1800
//!                   = 8·divdamp_fac·(7200 − t)/(7200 − 1800) if t ≤ 7200, else 0
//!   (t: simulated time at the middle of the step, (jstep − ½)·dt)
//! scal_divdamp_o2 = divdamp_fac_o2·mean_cell_area
//! apply_2nd = order = 2 or (order = 24 and scal_divdamp_o2 > 1e−6)
//! apply_4th = order = 4 or (order = 24 and divdamp_fac_o2 ≤ 4·divdamp_fac)
//! scal_divdamp(k) = −max(0, enh_divdamp_fac(k) − ¼·divdamp_fac_o2)·mean_cell_area²  (order 24)
//!                 = −enh_divdamp_fac(k)·mean_cell_area²                             (otherwise)
//! ```

use crate::diffusion::config::enhanced_smagorinsky_factor;
use crate::fields::vertical::VerticalGrid;
use std::fmt;

/// Predictor–corrector time-stepping scheme (ICON `itime_scheme`, ICON4Py
/// `TimeSteppingScheme`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeSteppingScheme {
    /// 4: velocity advection in the predictor only at the first substep, its tendency
    /// averaged with the corrector's (the only one foehn runs).
    MostEfficient = 4,
    /// 5: velocity advection in both predictor and corrector, with averaging.
    Stable = 5,
    /// 6: as 5 without averaging.
    Expensive = 6,
}

/// Horizontal advection of ρ and θv (ICON `iadv_rhotheta`, ICON4Py
/// `RhoThetaAdvectionType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RhoThetaAdvectionType {
    /// 1: simple second-order centred.
    Simple = 1,
    /// 2: Miura's second-order upwind (the only one foehn runs).
    Miura = 2,
}

/// Discretisation of the horizontal pressure gradient (ICON `igradp_method`, ICON4Py
/// `HorizontalPressureDiscretizationType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HorizontalPressureDiscretizationType {
    /// 1: conventional.
    Conventional = 1,
    /// 2: Taylor expansion.
    Taylor = 2,
    /// 3: Taylor expansion with hydrostatic correction near steep slopes (the only one
    /// foehn runs).
    TaylorHydro = 3,
    /// 4: polynomial.
    Polynomial = 4,
    /// 5: polynomial with hydrostatic correction.
    PolynomialHydro = 5,
}

/// Rayleigh damping of the upper layers (ICON `rayleigh_type`, ICON4Py `RayleighType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RayleighType {
    /// 1: classical, towards a reference state.
    Classic = 1,
    /// 2: Klemp (2008), `w` damped towards zero (the only one foehn runs).
    Klemp = 2,
}

/// Order of the divergence damping (ICON `divdamp_order`, ICON4Py
/// `DivergenceDampingOrder`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DivergenceDampingOrder {
    /// 2: second order only.
    Second = 2,
    /// 4: fourth order only.
    Fourth = 4,
    /// 24: fourth order, with second order added during the spin-up (ICON4Py's default).
    Combined = 24,
}

/// Which divergence is damped (ICON `divdamp_type`, ICON4Py `DivergenceDampingType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DivergenceDampingType {
    /// 2: the horizontal divergence.
    TwoDimensional = 2,
    /// 3: the three-dimensional divergence (horizontal plus `dw/dz`).
    ThreeDimensional = 3,
    /// 32: 3D below, 2D above the height `divdamp_trans_end`.
    Combined = 32,
}

/// A number of ICON's namelist, as ICON writes it.
pub trait IconValue {
    /// ICON's integer for the option.
    fn icon(self) -> i32;
}

macro_rules! icon_value {
    ($($t:ty),*) => {$(
        impl IconValue for $t {
            fn icon(self) -> i32 {
                self as i32
            }
        }
    )*};
}
icon_value!(
    TimeSteppingScheme,
    RhoThetaAdvectionType,
    HorizontalPressureDiscretizationType,
    RayleighType,
    DivergenceDampingOrder,
    DivergenceDampingType
);

/// Namelist parameters of the nonhydrostatic solver with ICON4Py's defaults (ICON's
/// `nonhydrostatic_nml`; `divdamp_order` 24 as ICON4Py, ICON's namelist default is 4).
#[derive(Debug, Clone, PartialEq)]
pub struct NonHydrostaticConfig {
    /// `itime_scheme` (4).
    pub itime_scheme: TimeSteppingScheme,
    /// `iadv_rhotheta` (2, Miura).
    pub iadv_rhotheta: RhoThetaAdvectionType,
    /// `igradp_method` (3, Taylor with hydrostatic correction).
    pub igradp_method: HorizontalPressureDiscretizationType,
    /// Dynamics substeps per physics step (`ndyn_substeps`, 5).
    pub ndyn_substeps: usize,
    /// `rayleigh_type` (2, Klemp).
    pub rayleigh_type: RayleighType,
    /// Rayleigh damping coefficient 1/τ₀ in 1/s (`rayleigh_coeff`, 0.05); the metric
    /// field `rayleigh_w` is built from it.
    pub rayleigh_coeff: f64,
    /// `divdamp_order` (24).
    pub divdamp_order: DivergenceDampingOrder,
    /// `divdamp_type` (3).
    pub divdamp_type: DivergenceDampingType,
    /// Fourth-order divergence-damping factor at and below `divdamp_z` (`divdamp_fac`,
    /// ICON4Py `fourth_order_divdamp_factor`, 0.0025).
    pub divdamp_fac: f64,
    /// Factor at `divdamp_z2` (`divdamp_fac2`, 0.004).
    pub divdamp_fac2: f64,
    /// Factor at `divdamp_z3` (`divdamp_fac3`, 0.004).
    pub divdamp_fac3: f64,
    /// Factor at and above `divdamp_z4` (`divdamp_fac4`, 0.004).
    pub divdamp_fac4: f64,
    /// Height (m) where the linear profile starts (`divdamp_z`, 32500).
    pub divdamp_z: f64,
    /// Height (m) where the linear profile ends and the quadratic one starts
    /// (`divdamp_z2`, 40000).
    pub divdamp_z2: f64,
    /// Height (m) of `divdamp_fac3` on the quadratic profile (`divdamp_z3`, 60000).
    pub divdamp_z3: f64,
    /// Height (m) from which `divdamp_fac4` holds (`divdamp_z4`, 80000).
    pub divdamp_z4: f64,
    /// Off-centering of ρ and θv at the interfaces in the corrector (`rhotheta_offctr`,
    /// −0.1).
    pub rhotheta_offctr: f64,
    /// Off-centering of the velocity advection in the corrector (`veladv_offctr`, 0.25).
    pub veladv_offctr: f64,
    /// Largest lateral-boundary nudging coefficient (`nudge_max_coeff` scaled by the
    /// dynamics-to-physics ratio 5: 0.1).
    pub max_nudging_coefficient: f64,
    /// Vertical nesting (`lvert_nest`, false; not supported).
    pub l_vert_nested: bool,
    /// Deep-atmosphere equations (`ldeepatmo`, false; not supported).
    pub deepatmos_mode: bool,
    /// Start from an analysis with incremental analysis update (`init_mode = 5`,
    /// false): the programs' `is_iau_active` variants are then both compiled.
    pub iau_init: bool,
    /// Extra momentum diffusion near the vertical CFL limit (`lextra_diffu`, true; false
    /// is not supported).
    pub extra_diffu: bool,
    /// Extra second-order divergence damping during the spin-up (ICON's `.NOT.
    /// ltestcase`; ICON4Py driver's `apply_extra_second_order_divdamp`, false).
    pub apply_extra_second_order_divdamp: bool,
}

impl Default for NonHydrostaticConfig {
    fn default() -> Self {
        NonHydrostaticConfig {
            itime_scheme: TimeSteppingScheme::MostEfficient,
            iadv_rhotheta: RhoThetaAdvectionType::Miura,
            igradp_method: HorizontalPressureDiscretizationType::TaylorHydro,
            ndyn_substeps: 5,
            rayleigh_type: RayleighType::Klemp,
            rayleigh_coeff: 0.05,
            divdamp_order: DivergenceDampingOrder::Combined,
            divdamp_type: DivergenceDampingType::ThreeDimensional,
            divdamp_fac: 0.0025,
            divdamp_fac2: 0.004,
            divdamp_fac3: 0.004,
            divdamp_fac4: 0.004,
            divdamp_z: 32500.0,
            divdamp_z2: 40000.0,
            divdamp_z3: 60000.0,
            divdamp_z4: 80000.0,
            rhotheta_offctr: -0.1,
            veladv_offctr: 0.25,
            max_nudging_coefficient: DYNAMICS_TO_PHYSICS_TIMESTEP_RATIO * 0.02,
            l_vert_nested: false,
            deepatmos_mode: false,
            iau_init: false,
            extra_diffu: true,
            apply_extra_second_order_divdamp: false,
        }
    }
}

/// ICON4Py's `DEFAULT_DYNAMICS_TO_PHYSICS_TIMESTEP_RATIO` (5), the scale of
/// `max_nudging_coefficient`.
pub const DYNAMICS_TO_PHYSICS_TIMESTEP_RATIO: f64 = 5.0;

/// A configuration foehn cannot run: which option, its value, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    /// The namelist option (ICON's name).
    pub option: &'static str,
    /// Its value, as given.
    pub value: String,
    /// What is supported instead.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "nonhydrostatic config: {} = {} is not supported: {}",
            self.option, self.value, self.message
        )
    }
}

impl std::error::Error for ConfigError {}

impl From<ConfigError> for foehn::error::Error {
    fn from(e: ConfigError) -> Self {
        foehn::error::Error::Field(e.to_string())
    }
}

impl NonHydrostaticConfig {
    /// Refuses what foehn's programs do not implement (ICON4Py's `_validate`, plus the
    /// checks the derived coefficients need): the first unsupported option, naming it,
    /// its value and what is supported.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let refuse = |option, value: String, message: &str| {
            Err(ConfigError {
                option,
                value,
                message: message.into(),
            })
        };
        if self.l_vert_nested {
            return refuse(
                "lvert_nest",
                "true".into(),
                "vertical nesting is not implemented",
            );
        }
        if self.deepatmos_mode {
            return refuse(
                "ldeepatmo",
                "true".into(),
                "the deep-atmosphere equations are not implemented",
            );
        }
        if self.igradp_method != HorizontalPressureDiscretizationType::TaylorHydro {
            return refuse(
                "igradp_method",
                self.igradp_method.icon().to_string(),
                "only 3 (Taylor expansion with hydrostatic correction) is implemented",
            );
        }
        if self.itime_scheme != TimeSteppingScheme::MostEfficient {
            return refuse(
                "itime_scheme",
                self.itime_scheme.icon().to_string(),
                "only 4 (velocity advection in the predictor at the first substep) is implemented",
            );
        }
        if self.iadv_rhotheta != RhoThetaAdvectionType::Miura {
            return refuse(
                "iadv_rhotheta",
                self.iadv_rhotheta.icon().to_string(),
                "only 2 (Miura's upwind scheme) is implemented",
            );
        }
        if self.divdamp_type == DivergenceDampingType::TwoDimensional {
            return refuse(
                "divdamp_type",
                "2".into(),
                "only 3 (3D divergence) and 32 are implemented",
            );
        }
        if self.rayleigh_type != RayleighType::Klemp {
            return refuse(
                "rayleigh_type",
                self.rayleigh_type.icon().to_string(),
                "only 2 (Klemp: w damped towards zero) is implemented",
            );
        }
        if !self.extra_diffu {
            return refuse(
                "lextra_diffu",
                "false".into(),
                "the velocity advection always applies the extra diffusion",
            );
        }
        if self.ndyn_substeps == 0 {
            return refuse(
                "ndyn_substeps",
                "0".into(),
                "at least one substep is needed",
            );
        }
        let z = [
            self.divdamp_z,
            self.divdamp_z2,
            self.divdamp_z3,
            self.divdamp_z4,
        ];
        if !z.windows(2).all(|w| w[0] < w[1]) {
            return refuse(
                "divdamp_z, divdamp_z2, divdamp_z3, divdamp_z4",
                format!("{z:?}"),
                "the heights of the damping profile must increase",
            );
        }
        Ok(())
    }
}

/// ICON4Py's `INITIAL_PERIOD_FOR_SECOND_ORDER_DIVDAMP`: the enhanced second-order
/// damping holds up to this simulated time (s).
pub const SPINUP_INITIAL_PERIOD: f64 = 1800.0;
/// ICON4Py's `TRANSITION_END_PERIOD_FOR_SECOND_ORDER_DIVDAMP`: the damping has decreased
/// linearly to zero at this simulated time (s).
pub const SPINUP_TRANSITION_END: f64 = 7200.0;
/// ICON4Py's `ADJUST_FACTOR_FOR_SECOND_ORDER_DIVDAMP`: the spin-up damping is this
/// multiple of `divdamp_fac`.
pub const SPINUP_ADJUST_FACTOR: f64 = 8.0;

/// The second-order divergence-damping factor of a time step (ICON's `divdamp_fac_o2`,
/// ICON4Py `second_order_divdamp_factor`) at `elapsed_time_at_step_midpoint` seconds of
/// simulated time (`(jstep − ½)·dtime`) for a step of `dtime` seconds: see the module
/// doc.
pub fn second_order_divdamp_factor(
    config: &NonHydrostaticConfig,
    elapsed_time_at_step_midpoint: f64,
    dtime: f64,
) -> f64 {
    let fac = config.divdamp_fac;
    if config.divdamp_order != DivergenceDampingOrder::Combined {
        return fac;
    }
    let t = elapsed_time_at_step_midpoint;
    if !config.apply_extra_second_order_divdamp || t > SPINUP_TRANSITION_END + 0.5 * dtime {
        return 0.0;
    }
    let enhanced = SPINUP_ADJUST_FACTOR * fac;
    if t <= SPINUP_INITIAL_PERIOD {
        enhanced
    } else if t <= SPINUP_TRANSITION_END {
        enhanced * (SPINUP_TRANSITION_END - t) / (SPINUP_TRANSITION_END - SPINUP_INITIAL_PERIOD)
    } else {
        0.0
    }
}

/// The divergence damping a corrector applies with a given `divdamp_fac_o2` (ICON4Py
/// `run_corrector_step`): the scaling of the second-order term and the two variant
/// flags of `apply_divergence_damping_and_update_vn`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DivergenceDamping {
    /// `divdamp_fac_o2` (ICON4Py `second_order_divdamp_factor`).
    pub second_order_divdamp_factor: f64,
    /// `scal_divdamp_o2 = divdamp_fac_o2·mean_cell_area` (ICON4Py
    /// `second_order_divdamp_scaling_coeff`).
    pub second_order_divdamp_scaling_coeff: f64,
    /// `apply_2nd_order_divergence_damping`.
    pub apply_2nd_order: bool,
    /// `apply_4th_order_divergence_damping`.
    pub apply_4th_order: bool,
}

/// Coefficients derived once from the configuration and the vertical grid (ICON4Py
/// `NonHydrostaticParams` and the fields `SolveNonhydro` computes at construction).
#[derive(Debug, Clone, PartialEq)]
pub struct NonHydrostaticParams {
    /// `wgt_nnow_vel = 0.5 − veladv_offctr` (ICON4Py
    /// `advection_explicit_weight_parameter`).
    pub advection_explicit_weight_parameter: f64,
    /// `wgt_nnew_vel = 0.5 + veladv_offctr` (ICON4Py
    /// `advection_implicit_weight_parameter`).
    pub advection_implicit_weight_parameter: f64,
    /// `wgt_nnow_rth = 1 − wgt_nnew_rth` (ICON4Py `rhotheta_explicit_weight_parameter`).
    pub rhotheta_explicit_weight_parameter: f64,
    /// `wgt_nnew_rth = 0.5 + rhotheta_offctr` (ICON4Py
    /// `rhotheta_implicit_weight_parameter`).
    pub rhotheta_implicit_weight_parameter: f64,
    /// `1/ndyn_substeps` (ICON4Py `r_nsubsteps`).
    pub r_nsubsteps: f64,
    /// Per level, the fourth-order damping factor profile (ICON `enh_divdamp_fac`,
    /// ICON4Py `interpolated_fourth_order_divdamp_factor`), `nlev` values.
    pub enh_divdamp_fac: Vec<f64>,
    /// The grid's mean cell area (m²), the Δx² of the damping scalings.
    pub mean_cell_area: f64,
    divdamp_order: DivergenceDampingOrder,
    divdamp_fac: f64,
}

impl NonHydrostaticParams {
    /// The coefficients of a valid `config` on `vertical` for a grid whose mean cell
    /// area is `mean_cell_area`; an invalid configuration is refused
    /// ([`NonHydrostaticConfig::validate`]).
    pub fn new(
        config: &NonHydrostaticConfig,
        vertical: &VerticalGrid,
        mean_cell_area: f64,
    ) -> Result<NonHydrostaticParams, ConfigError> {
        config.validate()?;
        let wgt_nnew_rth = 0.5 + config.rhotheta_offctr;
        let fac = [
            config.divdamp_fac,
            config.divdamp_fac2,
            config.divdamp_fac3,
            config.divdamp_fac4,
        ];
        let z = [
            config.divdamp_z,
            config.divdamp_z2,
            config.divdamp_z3,
            config.divdamp_z4,
        ];
        Ok(NonHydrostaticParams {
            advection_explicit_weight_parameter: 0.5 - config.veladv_offctr,
            advection_implicit_weight_parameter: 0.5 + config.veladv_offctr,
            rhotheta_explicit_weight_parameter: 1.0 - wgt_nnew_rth,
            rhotheta_implicit_weight_parameter: wgt_nnew_rth,
            r_nsubsteps: 1.0 / config.ndyn_substeps as f64,
            enh_divdamp_fac: enhanced_smagorinsky_factor(&vertical.vct_a, fac, z),
            mean_cell_area,
            divdamp_order: config.divdamp_order,
            divdamp_fac: config.divdamp_fac,
        })
    }

    /// The corrector's divergence damping for `divdamp_fac_o2` (see the module doc).
    pub fn divergence_damping(&self, divdamp_fac_o2: f64) -> DivergenceDamping {
        use DivergenceDampingOrder::*;
        let scal_divdamp_o2 = divdamp_fac_o2 * self.mean_cell_area;
        let order = self.divdamp_order;
        DivergenceDamping {
            second_order_divdamp_factor: divdamp_fac_o2,
            second_order_divdamp_scaling_coeff: scal_divdamp_o2,
            apply_2nd_order: order == Second || (order == Combined && scal_divdamp_o2 > 1e-6),
            apply_4th_order: order == Fourth
                || (order == Combined && divdamp_fac_o2 <= 4.0 * self.divdamp_fac),
        }
    }

    /// Per level, the fourth-order damping scaling for `divdamp_fac_o2` (ICON's
    /// `scal_divdamp`): `−max(0, enh_divdamp_fac − ¼·divdamp_fac_o2)·mean_cell_area²` for
    /// order 24, `−enh_divdamp_fac·mean_cell_area²` otherwise (what
    /// `apply_divergence_damping_and_update_vn` computes from the same inputs).
    pub fn scal_divdamp(&self, divdamp_fac_o2: f64) -> Vec<f64> {
        let area2 = self.mean_cell_area * self.mean_cell_area;
        self.enh_divdamp_fac
            .iter()
            .map(|&f| {
                let f = match self.divdamp_order {
                    DivergenceDampingOrder::Combined => (f - 0.25 * divdamp_fac_o2).max(0.0),
                    _ => f,
                };
                -f * area2
            })
            .collect()
    }
}
