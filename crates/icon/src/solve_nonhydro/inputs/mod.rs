//! Realistic random inputs of the solver's programs, one module per program of
//! [`stencils`](crate::solve_nonhydro::stencils): each `inputs` starts from
//! [`random_args`](foehn_testkit::random_args) and replaces the fields and scalars by
//! values of ICON's signs and sizes. The profiles below are shared by several programs.

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
pub mod init_cell_kdim_field_with_zero_wp;
pub mod stencils_61_62;
pub mod update_mass_flux_weighted;
pub mod update_theta_and_exner_in_halo;
pub mod vertically_implicit_solver_at_corrector_step;
pub mod vertically_implicit_solver_at_predictor_step;

use foehn::dsl::prelude::*;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::SplitMix64;

/// A `(Cell, levels)` field going linearly from `bottom` at the lowest level to `top` at
/// level 0 (the model top), each value times `1 ± noise` (uniform).
pub fn cell_profile(
    rng: &mut SplitMix64,
    grid: &Grid,
    nlev: usize,
    levels: VKind,
    (top, bottom): (f64, f64),
    noise: f64,
) -> Field {
    let nc = grid.size(Location::Cell);
    let n = match levels {
        VKind::Full => nlev,
        VKind::Half => nlev + 1,
    };
    Field::from_fn_f64(grid, nlev, (CELL, levels), |i| {
        let height = (n - 1 - i / nc) as f64 / (n.max(2) - 1) as f64;
        (bottom + (top - bottom) * height) * (1.0 + rng.range_f64(-noise, noise))
    })
}

/// Density ρ, kg/m³: 0.1 at the model top to 1.25 at the ground, ± 3 %.
pub fn density(rng: &mut SplitMix64, grid: &Grid, nlev: usize, levels: VKind) -> Field {
    cell_profile(rng, grid, nlev, levels, (0.1, 1.25), 0.03)
}

/// Virtual potential temperature θv, K: 330 at the model top to 255 at the ground, ± 1 %.
pub fn virtual_potential_temperature(
    rng: &mut SplitMix64,
    grid: &Grid,
    nlev: usize,
    levels: VKind,
) -> Field {
    cell_profile(rng, grid, nlev, levels, (330.0, 255.0), 0.01)
}

/// Exner pressure: 0.3 at the model top to 1.0 at the ground, ± 2 %.
pub fn exner_pressure(rng: &mut SplitMix64, grid: &Grid, nlev: usize) -> Field {
    cell_profile(rng, grid, nlev, K, (0.3, 1.0), 0.02)
}

/// A field of values uniform in `±[lo, hi)` with a random sign, a tenth of them ten
/// times larger (never zero): vertical winds ±(0.01..1) m/s with some ±10 m/s.
pub fn signed_with_outliers(
    rng: &mut SplitMix64,
    grid: &Grid,
    nlev: usize,
    dims: (Location, VKind),
    (lo, hi): (f64, f64),
) -> Field {
    Field::from_fn_f64(grid, nlev, dims, |_| {
        let scale = if rng.chance(0.1) { 10.0 } else { 1.0 };
        let x = scale * rng.range_f64(lo, hi);
        if rng.chance(0.5) {
            x
        } else {
            -x
        }
    })
}

/// Sets the scalar `dtime` to a dynamics substep of ICON's range, 5–60 s.
pub fn set_substep_dtime(rng: &mut SplitMix64, args: &mut Args) {
    args.set_scalar("dtime", rng.range_f64(5.0, 60.0));
}

/// `field` with each value times `1 ± spread` (uniform): a state at time level new
/// close to the one at time level now.
pub fn near(rng: &mut SplitMix64, field: &Field, spread: f64) -> Field {
    let mut out = field.clone();
    for x in out.as_f64_mut().expect("an f64 field") {
        *x *= 1.0 + rng.range_f64(-spread, spread);
    }
    out
}

/// `wgtfac_c` (Cell, KHALF) for the cells' layer thicknesses `dz[c + n_cells·k]`: at
/// interface `k` of `[1, nlev)` the weight of the layer below, `dz(k−1)/(dz(k−1) +
/// dz(k))` (about ½); ICON's unused top and surface values random in [0.4, 0.6).
pub fn interpolation_weights(rng: &mut SplitMix64, grid: &Grid, nlev: usize, dz: &[f64]) -> Field {
    let nc = grid.size(Location::Cell);
    Field::from_fn_f64(grid, nlev, (CELL, KHALF), |i| {
        let (c, k) = (i % nc, i / nc);
        if k == 0 || k == nlev {
            rng.range_f64(0.4, 0.6)
        } else {
            let (up, down) = (dz[c + nc * (k - 1)], dz[c + nc * k]);
            up / (up + down)
        }
    })
}

/// The `(Cell, K)` field `cells` carried to the edges, `(Edge, K)`: the mean of an
/// edge's two cells (its one cell on an outer boundary edge), each value times `1 ±
/// 0.2 %` (uniform), as ICON's upwinded edge values of ρ and θv lie near their cells'.
pub fn cells_to_edges(rng: &mut SplitMix64, grid: &Grid, nlev: usize, cells: &Field) -> Field {
    let data = cells.as_f64().expect("an f64 field");
    let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
    let e2c = grid.topology.table(foehn_grid::Connectivity::E2C);
    Field::from_fn_f64(grid, nlev, (EDGE, K), |i| {
        let (e, k) = (i % ne, i / ne);
        let values: Vec<f64> = (0..2)
            .filter_map(|j| e2c.neighbor(e, j))
            .map(|c| data[c + nc * k])
            .collect();
        values.iter().sum::<f64>() / values.len() as f64 * (1.0 + rng.range_f64(-0.002, 0.002))
    })
}

/// Sets in `args` every field of `program` that the inputs of one of `donors` hold (the
/// programs whose parts `program` repeats, each in its first variant with seed `seed`;
/// the first donor holding a name gives it): realistic inputs shared without repeating
/// their generators.
pub fn take_from_donors(
    args: &mut Args,
    program: &foehn::ir::Program,
    donors: &[foehn_testkit::catalog::Entry],
    (grid, nlev, seed): (&Grid, usize, u64),
) {
    let given: Vec<Args> = donors
        .iter()
        .map(|donor| {
            let variant = donor.variants().expect("donor variants").remove(0);
            let ir = donor.specialize(&variant).expect("donor program");
            (donor.inputs)(&ir, grid, nlev, seed)
        })
        .collect();
    for decl in &program.fields {
        if let Some(field) = given.iter().find_map(|g| g.field(&decl.name)) {
            args.set_field(&decl.name, field.clone());
        }
    }
}
