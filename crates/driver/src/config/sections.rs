//! The sections of a run's configuration that map onto the components' own
//! configurations: `[vertical]` ([`VerticalConfig`]), `[diffusion]` ([`DiffusionConfig`]),
//! `[nonhydrostatic]` ([`NonHydrostaticConfig`]) and `[jw]` ([`JwConfig`]). Each key is
//! the component's field of the same name; the number of levels and of substeps live in
//! `[run]` only, so that the components cannot disagree on them.

use crate::initial::jw::JwConfig;
use foehn_icon::diffusion::config::DiffusionConfig;
use foehn_icon::fields::vertical::VerticalConfig;
use foehn_icon::solve_nonhydro::config::{
    DivergenceDampingOrder, DivergenceDampingType, HorizontalPressureDiscretizationType, IconValue,
    NonHydrostaticConfig, RayleighType, RhoThetaAdvectionType, TimeSteppingScheme,
};
use serde::{Deserialize, Serialize};

/// An ICON namelist option with an integer value, read back from that integer.
pub trait FromIcon: IconValue + Sized {
    /// The option whose ICON integer is `value`, if there is one.
    fn from_icon(value: i32) -> Option<Self>;
    /// The integers ICON allows, for error messages.
    fn allowed() -> &'static [i32];
}

macro_rules! from_icon {
    ($($t:ty { $($n:literal => $v:ident),* }),* $(,)?) => {$(
        impl FromIcon for $t {
            fn from_icon(value: i32) -> Option<Self> {
                match value {
                    $($n => Some(<$t>::$v),)*
                    _ => None,
                }
            }
            fn allowed() -> &'static [i32] {
                &[$($n),*]
            }
        }
    )*};
}

from_icon!(
    TimeSteppingScheme { 4 => MostEfficient, 5 => Stable, 6 => Expensive },
    RhoThetaAdvectionType { 1 => Simple, 2 => Miura },
    HorizontalPressureDiscretizationType {
        1 => Conventional, 2 => Taylor, 3 => TaylorHydro, 4 => Polynomial, 5 => PolynomialHydro
    },
    RayleighType { 1 => Classic, 2 => Klemp },
    DivergenceDampingOrder { 2 => Second, 4 => Fourth, 24 => Combined },
    DivergenceDampingType { 2 => TwoDimensional, 3 => ThreeDimensional, 32 => Combined },
);

/// A section whose keys are fields of a component's configuration: `plain` fields are
/// copied, `icon` fields (ICON's integer options) are written as ICON's integers.
macro_rules! mapped_section {
    (
        $(#[$m:meta])* $name:ident => $target:ty {
            $($(#[$fm:meta])* $field:ident : $ty:ty,)*
        }
        icon { $($(#[$im:meta])* $ifield:ident : $ity:ty,)* }
    ) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $($(#[$fm])* pub $field: $ty,)*
            $($(#[$im])* pub $ifield: i32,)*
        }

        impl $name {
            /// The section holding `c`'s values.
            pub fn of(c: &$target) -> Self {
                $name {
                    $($field: c.$field,)*
                    $($ifield: c.$ifield.icon(),)*
                }
            }

            /// `c` with this section's values; an integer that is no ICON option is
            /// refused as `(key, value, allowed values)`.
            pub fn apply(&self, c: &mut $target) -> Result<(), (&'static str, i32, &'static [i32])> {
                $(c.$field = self.$field;)*
                $(
                    c.$ifield = <$ity>::from_icon(self.$ifield).ok_or((
                        stringify!($ifield),
                        self.$ifield,
                        <$ity as FromIcon>::allowed(),
                    ))?;
                )*
                Ok(())
            }
        }
    };
}

mapped_section!(
    /// `[vertical]`: ICON's vertical grid ([`VerticalConfig`]; `sleve_nml` and
    /// `nonhydrostatic_nml`), the number of levels being `[run] levels`.
    VerticalSection => VerticalConfig {
        /// Model top height, m (ICON `top_height`).
        model_top_height: f64,
        /// Thickness of the lowest layer, m (`min_lay_thckn`; ≤ 0.01: uniform layers).
        lowest_layer_thickness: f64,
        /// Maximal layer thickness below the next option's height, m (`max_lay_thckn`).
        maximal_layer_thickness: f64,
        /// Height below which layers are at most that thick, m (`htop_thcknlimit`).
        top_height_limit_for_maximal_layer_thickness: f64,
        /// Stretching exponent of the level distribution (`stretch_fac`).
        stretch_factor: f64,
        /// Height above which coordinate surfaces are flat, m (`flat_height`).
        flat_height: f64,
        /// SLEVE decay scale of the large-scale topography, m (`decay_scale_1`).
        sleve_decay_scale_1: f64,
        /// SLEVE decay scale of the small-scale topography, m (`decay_scale_2`).
        sleve_decay_scale_2: f64,
        /// Exponent of the SLEVE decay function (`decay_exp`).
        sleve_decay_exponent: f64,
        /// Height where Rayleigh damping of w starts, m (`damp_height`).
        rayleigh_damping_height: f64,
        /// Height above which moist physics is off, m (`htop_moist_proc`).
        htop_moist_proc: f64,
    }
    icon {}
);

mapped_section!(
    /// `[diffusion]`: ICON's horizontal diffusion ([`DiffusionConfig`], ICON
    /// `diffusion_nml`; type 5, Smagorinsky with fourth-order background).
    DiffusionSection => DiffusionConfig {
        /// Diffuse w (`lhdiff_w`).
        apply_to_vertical_wind: bool,
        /// Diffuse vn (`lhdiff_vn`).
        apply_to_horizontal_wind: bool,
        /// Diffuse θv and exner (`lhdiff_temp`).
        apply_to_temperature: bool,
        /// `itype_vn_diffu` (1).
        type_vn_diffu: i32,
        /// `itype_t_diffu` (2).
        type_t_diffu: i32,
        /// `hdiff_efdt_ratio` (e-folding time of the fourth-order diffusion in steps).
        hdiff_efdt_ratio: f64,
        /// `hdiff_w_efdt_ratio`.
        hdiff_w_efdt_ratio: f64,
        /// `hdiff_smag_fac`.
        smagorinski_scaling_factor: f64,
        /// Truly horizontal temperature diffusion over steep slopes (`l_zdiffu_t`).
        apply_zdiffusion_t: bool,
        /// `denom_diffu_v`.
        velocity_boundary_diffusion_denominator: f64,
        /// Largest lateral-boundary nudging coefficient (scaled).
        max_nudging_coefficient: f64,
        /// `itype_sher` (0, 1 or 2).
        shear_type: i32,
    }
    icon {}
);

mapped_section!(
    /// `[nonhydrostatic]`: ICON's nonhydrostatic solver ([`NonHydrostaticConfig`], ICON
    /// `nonhydrostatic_nml`); the integer options as ICON writes them.
    NonhydrostaticSection => NonHydrostaticConfig {
        /// Rayleigh damping coefficient 1/τ₀, 1/s (`rayleigh_coeff`).
        rayleigh_coeff: f64,
        /// Fourth-order divergence-damping factor (`divdamp_fac`).
        divdamp_fac: f64,
        /// `divdamp_fac2`.
        divdamp_fac2: f64,
        /// `divdamp_fac3`.
        divdamp_fac3: f64,
        /// `divdamp_fac4`.
        divdamp_fac4: f64,
        /// `divdamp_z`, m.
        divdamp_z: f64,
        /// `divdamp_z2`, m.
        divdamp_z2: f64,
        /// `divdamp_z3`, m.
        divdamp_z3: f64,
        /// `divdamp_z4`, m.
        divdamp_z4: f64,
        /// `rhotheta_offctr`.
        rhotheta_offctr: f64,
        /// `veladv_offctr`.
        veladv_offctr: f64,
        /// Largest lateral-boundary nudging coefficient (scaled `nudge_max_coeff`).
        max_nudging_coefficient: f64,
        /// `lvert_nest` (not supported).
        l_vert_nested: bool,
        /// `ldeepatmo` (not supported).
        deepatmos_mode: bool,
        /// Incremental analysis update (`init_mode = 5`).
        iau_init: bool,
        /// `lextra_diffu`.
        extra_diffu: bool,
        /// Extra second-order divergence damping in the spin-up (ICON's `.not.
        /// ltestcase`).
        apply_extra_second_order_divdamp: bool,
    }
    icon {
        /// `itime_scheme` (4).
        itime_scheme: TimeSteppingScheme,
        /// `iadv_rhotheta` (2).
        iadv_rhotheta: RhoThetaAdvectionType,
        /// `igradp_method` (3).
        igradp_method: HorizontalPressureDiscretizationType,
        /// `rayleigh_type` (2).
        rayleigh_type: RayleighType,
        /// `divdamp_order` (2, 4 or 24).
        divdamp_order: DivergenceDampingOrder,
        /// `divdamp_type` (3 or 32).
        divdamp_type: DivergenceDampingType,
    }
);

mapped_section!(
    /// `[jw]`: the Jablonowski–Williamson test ([`JwConfig`], ICON `nh_testcase_nml`);
    /// `[run] steady = true` sets the perturbation's amplitude to 0.
    JwSection => JwConfig {
        /// Surface pressure, Pa (`p_sfc`).
        p_sfc: f64,
        /// Amplitude of the zonal-wind perturbation, m/s (`jw_up`).
        baroclinic_amplitude: f64,
        /// Maximal zonal wind of the jet, m/s (`jw_u0`).
        u0: f64,
        /// Surface temperature, K (`jw_temp0`).
        temp0: f64,
        /// η of the jet's maximal wind.
        eta_0: f64,
        /// Tropopause η.
        eta_t: f64,
        /// Temperature lapse rate, K/m.
        gamma: f64,
        /// Stratospheric temperature factor, K.
        dtemp: f64,
        /// Longitude of the perturbation's centre, rad.
        lon_perturbation_center: f64,
        /// Latitude of the perturbation's centre, rad.
        lat_perturbation_center: f64,
    }
    icon {}
);

/// ICON's diffusion for the Jablonowski–Williamson test (ICON4Py's JW experiment):
/// type 5 with `hdiff_efdt_ratio` 10, `hdiff_smag_fac` 0.025, no temperature diffusion.
pub fn jw_diffusion() -> DiffusionConfig {
    DiffusionConfig {
        apply_to_temperature: false,
        hdiff_efdt_ratio: 10.0,
        smagorinski_scaling_factor: 0.025,
        apply_zdiffusion_t: false,
        ..DiffusionConfig::default()
    }
}

impl Default for VerticalSection {
    fn default() -> Self {
        VerticalSection::of(&VerticalConfig::new(1))
    }
}

impl Default for DiffusionSection {
    fn default() -> Self {
        DiffusionSection::of(&jw_diffusion())
    }
}

impl Default for NonhydrostaticSection {
    fn default() -> Self {
        NonhydrostaticSection::of(&NonHydrostaticConfig::default())
    }
}

impl Default for JwSection {
    fn default() -> Self {
        JwSection::of(&JwConfig::default())
    }
}
