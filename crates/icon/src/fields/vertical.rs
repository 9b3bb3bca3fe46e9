//! ICON's vertical grid: nominal interface heights `vct_a` (model top to surface), the
//! profile `vct_b`, and the level indices derived from them (ICON4Py `grid/vertical.py`,
//! ICON `mo_init_vgrid.f90`).
//!
//! `vct_a[k] = H·(2/π·arccos((k/N)^s))^d`, `k = 0..=N`, with `d` chosen so that the
//! lowest layer is `lowest_layer_thickness` thick; where that makes layers below
//! `top_height_limit_for_maximal_layer_thickness` thicker than `maximal_layer_thickness`,
//! ICON caps them and stretches the layers above so the top stays at `H`
//! (`cap_layer_thickness` here). A lowest layer of at most 1 cm gives a uniform grid.
//! `vct_b[k] = exp(−vct_a[k]/5000 m)` (ICON's profile for initialising `w`).

use std::f64::consts::PI;
use std::fmt;

/// Vertical grid configuration with ICON's defaults (ICON4Py `VerticalGridConfig`; ICON
/// namelists `sleve_nml` and `nonhydrostatic_nml`).
#[derive(Debug, Clone, PartialEq)]
pub struct VerticalConfig {
    /// Number of full levels (ICON `num_lev`).
    pub num_levels: usize,
    /// Model top height, m (`top_height`).
    pub model_top_height: f64,
    /// Thickness of the lowest layer, m (`min_lay_thckn`); at most 0.01 m gives a
    /// uniform grid.
    pub lowest_layer_thickness: f64,
    /// Maximal layer thickness below `top_height_limit_for_maximal_layer_thickness`, m
    /// (`max_lay_thckn`); ICON applies it only when it lies between twice the lowest
    /// layer thickness and half that height limit.
    pub maximal_layer_thickness: f64,
    /// Height below which layers are at most `maximal_layer_thickness` thick, m
    /// (`htop_thcknlimit`).
    pub top_height_limit_for_maximal_layer_thickness: f64,
    /// Stretching exponent `s` of the level distribution (`stretch_fac`).
    pub stretch_factor: f64,
    /// Height above which coordinate surfaces are flat, m (`flat_height`).
    pub flat_height: f64,
    /// SLEVE decay scale of the large-scale topography, m (`decay_scale_1`).
    pub sleve_decay_scale_1: f64,
    /// SLEVE decay scale of the small-scale topography, m (`decay_scale_2`).
    pub sleve_decay_scale_2: f64,
    /// Exponent of the SLEVE decay function (`decay_exp`).
    pub sleve_decay_exponent: f64,
    /// Height where Rayleigh damping of `w` starts, m (`damp_height`).
    pub rayleigh_damping_height: f64,
    /// Height above which moist physics and the transport of cloud and precipitation
    /// are off, m (`htop_moist_proc`).
    pub htop_moist_proc: f64,
}

impl VerticalConfig {
    /// ICON's defaults with `num_levels` levels.
    pub fn new(num_levels: usize) -> VerticalConfig {
        VerticalConfig {
            num_levels,
            model_top_height: 23500.0,
            lowest_layer_thickness: 50.0,
            maximal_layer_thickness: 25000.0,
            top_height_limit_for_maximal_layer_thickness: 15000.0,
            stretch_factor: 1.0,
            flat_height: 16000.0,
            sleve_decay_scale_1: 4000.0,
            sleve_decay_scale_2: 2500.0,
            sleve_decay_exponent: 1.2,
            rayleigh_damping_height: 45000.0,
            htop_moist_proc: 22500.0,
        }
    }

    /// True when the levels follow the stretched formula (a lowest layer above 1 cm).
    pub fn is_stretched(&self) -> bool {
        self.lowest_layer_thickness > 0.01
    }

    /// Checks every option: at least one level; every number finite; top, flat height,
    /// thicknesses, stretch factor and SLEVE parameters positive; lowest layer and
    /// damping height ≥ 0; a stretched grid's lowest layer thinner than the model top.
    pub fn validate(&self) -> Result<(), VerticalGridError> {
        if self.num_levels == 0 {
            return Err(VerticalGridError::NoLevels);
        }
        let positive = [
            ("model_top_height", self.model_top_height),
            ("maximal_layer_thickness", self.maximal_layer_thickness),
            (
                "top_height_limit_for_maximal_layer_thickness",
                self.top_height_limit_for_maximal_layer_thickness,
            ),
            ("stretch_factor", self.stretch_factor),
            ("sleve_decay_scale_1", self.sleve_decay_scale_1),
            ("sleve_decay_scale_2", self.sleve_decay_scale_2),
            ("sleve_decay_exponent", self.sleve_decay_exponent),
            ("htop_moist_proc", self.htop_moist_proc),
            ("flat_height", self.flat_height),
        ];
        let non_negative = [
            ("lowest_layer_thickness", self.lowest_layer_thickness),
            ("rayleigh_damping_height", self.rayleigh_damping_height),
        ];
        let invalid = |option, value, requirement| VerticalGridError::InvalidOption {
            option,
            value,
            requirement,
        };
        for (option, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(invalid(option, value, "a finite number > 0"));
            }
        }
        for (option, value) in non_negative {
            if !(value.is_finite() && value >= 0.0) {
                return Err(invalid(option, value, "a finite number ≥ 0"));
            }
        }
        if self.is_stretched() && self.lowest_layer_thickness >= self.model_top_height {
            return Err(invalid(
                "lowest_layer_thickness",
                self.lowest_layer_thickness,
                "below model_top_height",
            ));
        }
        Ok(())
    }
}

/// Why a vertical grid cannot be built.
#[derive(Debug, Clone, PartialEq)]
pub enum VerticalGridError {
    /// `num_levels` is 0.
    NoLevels,
    /// An option outside its valid range.
    InvalidOption {
        /// The option (the [`VerticalConfig`] field name).
        option: &'static str,
        /// Its value.
        value: f64,
        /// What it must be.
        requirement: &'static str,
    },
    /// A `vct_a`/`vct_b` table of the wrong length.
    WrongLength {
        /// The table (`vct_a` or `vct_b`).
        table: &'static str,
        /// `num_levels + 1`.
        expected: usize,
        /// Its length.
        found: usize,
    },
    /// Interface heights that are not finite and strictly decreasing from a positive top
    /// to the surface at 0.
    NotMonotonic {
        /// The first interface where it fails.
        k: usize,
        /// `vct_a[k]`.
        height: f64,
    },
    /// No full level lies below `htop_moist_proc`, so `kstart_moist` does not exist.
    NoMoistLevel {
        /// The configured `htop_moist_proc`.
        htop_moist_proc: f64,
        /// The nominal height of the lowest full level.
        lowest_full_level: f64,
    },
}

impl fmt::Display for VerticalGridError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoLevels => write!(f, "the vertical grid needs at least one level"),
            Self::InvalidOption {
                option,
                value,
                requirement,
            } => write!(f, "vertical grid: {option} = {value} must be {requirement}"),
            Self::WrongLength {
                table,
                expected,
                found,
            } => write!(
                f,
                "vertical grid: {table} has {found} entries, num_levels + 1 = {expected} expected"
            ),
            Self::NotMonotonic { k, height } => write!(
                f,
                "vertical grid: vct_a[{k}] = {height} m breaks the strictly decreasing \
                 heights from a positive model top to the surface at 0 m"
            ),
            Self::NoMoistLevel {
                htop_moist_proc,
                lowest_full_level,
            } => write!(
                f,
                "vertical grid: htop_moist_proc = {htop_moist_proc} m is not above the \
                 lowest full level ({lowest_full_level} m)"
            ),
        }
    }
}

impl std::error::Error for VerticalGridError {}

/// The vertical grid: interface heights and derived level indices (ICON4Py
/// `VerticalGrid`). Indices are 0-based, level 0 at the model top.
///
/// `nflat_gradp` (the first level of the multi-level pressure gradient) depends on the
/// terrain-following heights at edges: [`super::sleve::Heights::nflat_gradp`].
#[derive(Debug, Clone, PartialEq)]
pub struct VerticalGrid {
    /// The configuration.
    pub config: VerticalConfig,
    /// Nominal interface heights `vct_a[k]`, `k = 0..=nlev` (model top first, 0 at the
    /// surface), m.
    pub vct_a: Vec<f64>,
    /// ICON's `vct_b[k] = exp(−vct_a[k]/5000 m)`, `k = 0..=nlev`.
    pub vct_b: Vec<f64>,
    /// Last interface at or above the Rayleigh damping height, 0 if that is above the
    /// top (ICON `nrdmax − 1`; ICON4Py `end_index_of_damping_layer`).
    pub end_index_of_damping_layer: usize,
    /// Last interface at or above the flat height, 0 if that is above the top: levels
    /// `0..=nflatlev` are flat (ICON `nflatlev − 1`).
    pub nflatlev: usize,
    /// First full level whose nominal height `(vct_a[k] + vct_a[k+1])/2` is below
    /// `htop_moist_proc` (ICON `kstart_moist − 1`).
    pub kstart_moist: usize,
}

impl VerticalGrid {
    /// The vertical grid of a configuration.
    ///
    /// # Panics
    /// If [`VerticalGrid::try_new`] fails. ICON's defaults ([`VerticalConfig::new`]) with
    /// one level or more never fail; use `try_new` for user-supplied options.
    pub fn new(config: VerticalConfig) -> VerticalGrid {
        match VerticalGrid::try_new(config) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }

    /// The vertical grid of a validated configuration: `vct_a` from the stretched
    /// formula (with ICON's layer-thickness capping) or uniform, `vct_b`, the indices.
    /// One level gives the single layer from the model top to the surface.
    pub fn try_new(config: VerticalConfig) -> Result<VerticalGrid, VerticalGridError> {
        config.validate()?;
        let mut vct_a = if config.num_levels == 1 {
            vec![config.model_top_height, 0.0]
        } else if config.is_stretched() {
            stretched_heights(&config)
        } else {
            uniform_heights(&config)
        };
        if config.is_stretched() && capping_applies(&config) {
            cap_layer_thickness(&mut vct_a, &config);
        }
        let vct_b = vct_a.iter().map(|z| (-z / 5000.0).exp()).collect();
        VerticalGrid::from_tables(config, vct_a, vct_b)
    }

    /// The vertical grid of given tables (ICON's `vct_a`/`vct_b` from a file or a
    /// Fortran run) and a configuration for the indices; the tables must have
    /// `num_levels + 1` entries and `vct_a` must fall strictly from a positive top to 0.
    pub fn from_tables(
        config: VerticalConfig,
        vct_a: Vec<f64>,
        vct_b: Vec<f64>,
    ) -> Result<VerticalGrid, VerticalGridError> {
        config.validate()?;
        let expected = config.num_levels + 1;
        for (table, t) in [("vct_a", &vct_a), ("vct_b", &vct_b)] {
            if t.len() != expected {
                return Err(VerticalGridError::WrongLength {
                    table,
                    expected,
                    found: t.len(),
                });
            }
        }
        check_monotonic(&vct_a)?;
        let n = config.num_levels;
        let kstart_moist = (0..n)
            .find(|&k| 0.5 * (vct_a[k] + vct_a[k + 1]) < config.htop_moist_proc)
            .ok_or(VerticalGridError::NoMoistLevel {
                htop_moist_proc: config.htop_moist_proc,
                lowest_full_level: 0.5 * (vct_a[n - 1] + vct_a[n]),
            })?;
        Ok(VerticalGrid {
            end_index_of_damping_layer: last_at_or_above(&vct_a, config.rayleigh_damping_height),
            nflatlev: last_at_or_above(&vct_a, config.flat_height),
            kstart_moist,
            config,
            vct_a,
            vct_b,
        })
    }

    /// Number of full levels.
    pub fn num_levels(&self) -> usize {
        self.config.num_levels
    }

    /// Nominal full-level heights `(vct_a[k] + vct_a[k+1])/2`, `k = 0..nlev`.
    pub fn full_level_heights(&self) -> Vec<f64> {
        self.vct_a.windows(2).map(|w| 0.5 * (w[0] + w[1])).collect()
    }
}

/// Last index with `vct_a[k] ≥ z`, 0 when `z` is above the top.
fn last_at_or_above(vct_a: &[f64], z: f64) -> usize {
    vct_a.iter().rposition(|&v| v >= z).unwrap_or(0)
}

/// Finite, strictly decreasing, positive top, surface at 0.
fn check_monotonic(vct_a: &[f64]) -> Result<(), VerticalGridError> {
    let bad = |k: usize| VerticalGridError::NotMonotonic {
        k,
        height: vct_a[k],
    };
    if !(vct_a[0].is_finite() && vct_a[0] > 0.0) {
        return Err(bad(0));
    }
    if let Some(k) = (1..vct_a.len()).find(|&k| !(vct_a[k].is_finite() && vct_a[k] < vct_a[k - 1]))
    {
        return Err(bad(k));
    }
    let last = vct_a.len() - 1;
    if vct_a[last] != 0.0 {
        return Err(bad(last));
    }
    Ok(())
}

/// `H·(2/π·arccos(k^s/N^s))^d` with `d = ln(Δz_min/H) / ln(2/π·arccos((N−1)^s/N^s))`
/// (two levels or more).
fn stretched_heights(c: &VerticalConfig) -> Vec<f64> {
    let n = c.num_levels;
    let ns = (n as f64).powf(c.stretch_factor);
    let shape = |k: usize| 2.0 / PI * ((k as f64).powf(c.stretch_factor) / ns).acos();
    let d = (c.lowest_layer_thickness / c.model_top_height).ln() / shape(n - 1).ln();
    (0..=n)
        .map(|k| c.model_top_height * shape(k).powf(d))
        .collect()
}

/// `H·(N − k)/N`.
fn uniform_heights(c: &VerticalConfig) -> Vec<f64> {
    let n = c.num_levels as f64;
    (0..=c.num_levels)
        .map(|k| c.model_top_height * (n - k as f64) / n)
        .collect()
}

/// ICON applies the capping only when `2·Δz_min < Δz_max < htop_thcknlimit/2`.
fn capping_applies(c: &VerticalConfig) -> bool {
    2.0 * c.lowest_layer_thickness < c.maximal_layer_thickness
        && c.maximal_layer_thickness < 0.5 * c.top_height_limit_for_maximal_layer_thickness
}

/// ICON's limitation of layer thickness (`mo_init_vgrid`, ICON4Py
/// `_compute_vct_a_and_vct_b`): below the height limit every layer is at most
/// `Δz_max` thick; above it the nominal thicknesses continue (shifted by the number of
/// capped levels, so there is no jump) and are stretched towards `Δz_max` by the factor
/// that keeps the top at `H`; when that factor is not 1, the stretching is smoothed
/// once more (thickness growth ≤ 2.5 % per layer).
fn cap_layer_thickness(vct_a: &mut [f64], c: &VerticalConfig) {
    let n = c.num_levels;
    let (max, limit) = (
        c.maximal_layer_thickness,
        c.top_height_limit_for_maximal_layer_thickness,
    );
    let dz: Vec<f64> = vct_a.windows(2).map(|w| w[0] - w[1]).collect();
    let Some(lowest_exceeding) = dz.iter().rposition(|&t| t > max) else {
        return; // no layer too thick: capping changes nothing
    };
    // Capped heights below the limit, shifted nominal thicknesses above it.
    let mut capped = vec![0.0; n + 1];
    let (mut lowest_unmodified, mut shift) = (0, 0);
    for k in (0..n).rev() {
        if capped[k + 1] < limit {
            capped[k] = capped[k + 1] + max.min(dz[k]);
        } else {
            if lowest_unmodified == 0 {
                lowest_unmodified = k + 1;
                shift = lowest_exceeding.saturating_sub(lowest_unmodified);
            }
            capped[k] = capped[k + 1] + dz[k + shift];
        }
    }
    let stretch = if shift == 0 {
        1.0
    } else {
        let capped_part = lowest_unmodified as f64 * max;
        (vct_a[0] - capped[lowest_unmodified] - capped_part)
            / (capped[0] - capped[lowest_unmodified] - capped_part)
    };
    for k in (0..n).rev() {
        vct_a[k] = if vct_a[k + 1] < limit {
            vct_a[k + 1] + max.min(dz[k])
        } else {
            vct_a[k + 1] + max + (dz[k + shift] - max) * stretch
        };
    }
    if stretch != 1.0 && lowest_exceeding + 4 < n {
        smooth_stretching(
            vct_a,
            &mut capped,
            lowest_exceeding,
            lowest_unmodified,
            limit,
        );
    }
}

/// The additional smoothing of the stretching above the constant-thickness layers,
/// kept only if it leaves the top where it was. `smoothed` holds the first-pass
/// heights on entry and is overwritten bottom-up.
fn smooth_stretching(
    vct_a: &mut [f64],
    smoothed: &mut [f64],
    lowest_exceeding: usize,
    lowest_unmodified: usize,
    limit: f64,
) {
    let n = vct_a.len() - 1;
    let le = lowest_exceeding;
    for k in (0..n).rev() {
        if smoothed[k + 1] < limit {
            smoothed[k] = vct_a[k];
        } else {
            let growth = 1.025 * (smoothed[le + 1] - smoothed[le + 2])
                / (smoothed[le + 2] - smoothed[le + 3])
                * (smoothed[k + 1] - smoothed[k + 2]);
            let thickness = (1.025 * (vct_a[k] - vct_a[k + 1])).min(growth);
            smoothed[k] = vct_a[k].min(smoothed[k + 1] + thickness);
        }
    }
    if smoothed[0] != vct_a[0] {
        return;
    }
    let lu = lowest_unmodified;
    vct_a[..2].copy_from_slice(&smoothed[..2]);
    if lu + 1 < n {
        vct_a[lu + 1..n].copy_from_slice(&smoothed[lu + 1..n]);
    }
    for k in 2..=lu.min(n - 1) {
        vct_a[k] = 0.5 * (smoothed[k - 1] + smoothed[k + 1]);
    }
}
