//! Plain-Rust references of the solver's programs, written from the math: one module per
//! program, and the loops they share.

pub mod apply_divergence_damping_and_update_vn;
pub mod compute_averaged_vn_and_fluxes;
pub mod compute_dwdz_for_divergence_damping;
pub mod compute_exner_from_rhotheta;
pub mod compute_horizontal_velocity_quantities_and_fluxes;
pub mod compute_hydrostatic_correction_term;
pub mod compute_interpolation_and_nonhydro_buoy;
pub mod compute_perturbed_quantities_and_interpolation;
pub mod compute_rayleigh_damping_factor;
pub mod compute_rho_theta_pgrad_and_update_vn;
pub mod implicit_solver;
pub mod init_cell_kdim_field_with_zero_wp;
pub mod stencils_61_62;
pub mod update_mass_flux_weighted;
pub mod update_theta_and_exner_in_halo;
pub mod vertically_implicit_solver_at_corrector_step;
pub mod vertically_implicit_solver_at_predictor_step;

use foehn::error::Result;
use foehn::runtime::field::access::f64s;
use foehn::runtime::field::Args;
use foehn_grid::{Grid, Location, Zone};

/// Cells `[start(from), end(to))` of `grid`.
pub fn cells(grid: &Grid, from: Zone, to: Zone) -> Result<(usize, usize)> {
    let zones = grid.zones.of(Location::Cell);
    Ok((zones.start(from)?, zones.end(to)?))
}

/// Edges `[start(from), end(to))` of `grid`.
pub fn edges(grid: &Grid, from: Zone, to: Zone) -> Result<(usize, usize)> {
    let zones = grid.zones.of(Location::Edge);
    Ok((zones.start(from)?, zones.end(to)?))
}

/// The lateral-boundary cells `[LATERAL_BOUNDARY, LATERAL_BOUNDARY_LEVEL_4 end)`.
pub fn lateral_boundary_cells(grid: &Grid) -> Result<(usize, usize)> {
    cells(grid, Zone::LateralBoundary(1), Zone::LateralBoundary(4))
}

/// The number of levels of the `(Cell, K…)` field `name` (`nlev` for full levels,
/// `nlev + 1` for half levels).
pub fn cell_levels(grid: &Grid, args: &Args, name: &str) -> Result<usize> {
    Ok(f64s(args, name)?.len() / grid.size(Location::Cell))
}

/// Calls `f(c, i)` with the cell `c` and the flat index `i = c + n_cells·k` of every
/// point of cells `[c0, c1)` × levels `[k0, k1)`.
pub fn for_each_cell_point(
    grid: &Grid,
    (c0, c1): (usize, usize),
    (k0, k1): (usize, usize),
    mut f: impl FnMut(usize, usize),
) {
    let nc = grid.size(Location::Cell);
    for k in k0..k1 {
        for c in c0..c1 {
            f(c, c + nc * k);
        }
    }
}
