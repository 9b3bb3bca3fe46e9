//! ICON's vertical grid: interface heights `vct_a` (model top to surface) and the
//! indices derived from them (ICON4Py `grid/vertical.py`).

/// Vertical grid configuration (ICON defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct VerticalConfig {
    /// Number of full levels.
    pub num_levels: usize,
    /// Model top height (m).
    pub model_top_height: f64,
    /// Thickness of the lowest layer (m).
    pub lowest_layer_thickness: f64,
    /// Stretching exponent `s`.
    pub stretch_factor: f64,
    /// Height above which coordinate surfaces are flat (m).
    pub flat_height: f64,
    /// Rayleigh damping starts at this height (m).
    pub rayleigh_damping_height: f64,
}

impl VerticalConfig {
    /// ICON's defaults with `num_levels` levels.
    pub fn new(num_levels: usize) -> VerticalConfig {
        VerticalConfig {
            num_levels,
            model_top_height: 23500.0,
            lowest_layer_thickness: 50.0,
            stretch_factor: 1.0,
            flat_height: 16000.0,
            rayleigh_damping_height: 45000.0,
        }
    }
}

/// The vertical grid: interface heights and derived level indices.
#[derive(Debug, Clone, PartialEq)]
pub struct VerticalGrid {
    /// The configuration.
    pub config: VerticalConfig,
    /// Interface heights `vct_a[k]`, `k = 0..=nlev` (model top first, 0 at the surface).
    pub vct_a: Vec<f64>,
    /// Last interface index at or above the Rayleigh damping height (0 if it is above the top).
    pub end_index_of_damping_layer: usize,
    /// Last interface index at or above the flat height (`nflatlev`).
    pub nflatlev: usize,
}

impl VerticalGrid {
    /// Builds `vct_a[k] = H·(2/π·arccos((k/N)^s))^d` with `d` chosen so the lowest layer is
    /// `lowest_layer_thickness` thick. (ICON's capping of layers thicker than the
    /// maximal layer thickness is not needed for the defaults and is not implemented.)
    pub fn new(config: VerticalConfig) -> VerticalGrid {
        let n = config.num_levels as f64;
        let h = config.model_top_height;
        let s = config.stretch_factor;
        let shape = |k: f64| 2.0 / std::f64::consts::PI * ((k / n).powf(s)).acos();
        let d = (config.lowest_layer_thickness / h).ln() / shape(n - 1.0).ln();
        let vct_a: Vec<f64> = (0..=config.num_levels)
            .map(|k| h * shape(k as f64).powf(d))
            .collect();
        let last_at_or_above = |z: f64| vct_a.iter().rposition(|&v| v >= z).unwrap_or(0);
        let end_index_of_damping_layer = if config.rayleigh_damping_height > vct_a[0] {
            0
        } else {
            last_at_or_above(config.rayleigh_damping_height)
        };
        let nflatlev = last_at_or_above(config.flat_height);
        VerticalGrid {
            config,
            vct_a,
            end_index_of_damping_layer,
            nflatlev,
        }
    }

    /// Number of full levels.
    pub fn num_levels(&self) -> usize {
        self.config.num_levels
    }
}
