//! `nudgecoeff_e` (Edge; ICON4Py `compute_nudgecoeffs`): the lateral-boundary nudging
//! coefficient of an edge from its boundary row `r = refin_ctrl`,
//!
//! `nudgecoeff_e = max_nudging_coefficient · exp(−(r − r₀) / (2 · nudge_efold_width))`
//!
//! for `0 < r ≤ 2·nudge_zone_width + r₀ − 3`, else 0, with `r₀ = 10` the first edge row
//! that is nudged (ICON's `grf_nudge_start_e`: 8 boundary rows + 2 nudging rows). As in
//! ICON4Py it is computed from the second nudging row of edges on, so it is 0 in the
//! lateral boundary zone, in the interior (`refin_ctrl` 0) and on global grids.

use super::{zone_start, InterpolationConfig, InterpolationError};
use foehn_grid::{Grid, Location, Zone};
use rayon::prelude::*;

/// `nudgecoeff_e` (Edge).
pub fn nudgecoeff_e(
    grid: &Grid,
    config: &InterpolationConfig,
) -> Result<Vec<f64>, InterpolationError> {
    let nudge_start = i32::from(Zone::boundary_rows(Location::Edge))
        + i32::from(Zone::nudging_rows(Location::Edge));
    let start = zone_start(grid, Location::Edge, Zone::Nudging(2), "nudgecoeff_e")?;
    let last_row = 2 * config.nudge_zone_width + nudge_start - 3;
    let refin = grid.zones.edge.refin_ctrl();
    Ok(refin
        .par_iter()
        .enumerate()
        .map(|(e, &r)| {
            if e >= start && r > 0 && r <= last_row {
                config.max_nudging_coefficient
                    * (-f64::from(r - nudge_start) / (2.0 * config.nudge_efold_width)).exp()
            } else {
                0.0
            }
        })
        .collect())
}
