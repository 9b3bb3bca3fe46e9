//! How large a grid foehn builds: at most [`max_cells`] cells (by default R2B9's
//! 20,971,520; `FOEHN_MAX_CELLS` raises or lowers it), checked before anything is
//! allocated, so an oversized request is a clear error instead of an allocation abort.

use crate::error::{GridError, Result};

/// The default largest number of cells: R2B9 (about 12 GB of grid and fields at 80
/// levels on a host).
pub const DEFAULT_MAX_CELLS: u64 = 20_971_520;

/// The environment variable that sets the largest number of cells.
pub const MAX_CELLS_ENV: &str = "FOEHN_MAX_CELLS";

/// The largest number of cells a grid may have: `FOEHN_MAX_CELLS` when set to a
/// positive integer, else [`DEFAULT_MAX_CELLS`].
pub fn max_cells() -> u64 {
    std::env::var(MAX_CELLS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(DEFAULT_MAX_CELLS)
}

/// Refuses a grid of `cells` cells (a float, so that an overflowing estimate is caught
/// too) described as `what` when it exceeds [`max_cells`] or is not a finite number.
pub fn check_cells(what: &str, cells: f64) -> Result<()> {
    let limit = max_cells();
    if !cells.is_finite() || cells > limit as f64 {
        return Err(GridError::InvalidParameters(format!(
            "{what} would have {} cells; foehn builds at most {limit} (set {MAX_CELLS_ENV} to raise the limit, if the machine has the memory)",
            if cells.is_finite() {
                format!("{cells:.0}")
            } else {
                "infinitely many".into()
            }
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversized_and_infinite_grids_are_refused_with_the_limit() {
        assert!(check_cells("r2b6", 327_680.0).is_ok());
        let e = check_cells("r2b12", 335_544_320.0).unwrap_err().to_string();
        assert!(
            e.contains("335544320 cells") && e.contains(MAX_CELLS_ENV),
            "{e}"
        );
        let e = check_cells("a torus", f64::INFINITY)
            .unwrap_err()
            .to_string();
        assert!(e.contains("infinitely many"), "{e}");
    }
}
