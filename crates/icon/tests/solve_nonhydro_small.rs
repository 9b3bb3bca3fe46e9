//! solve_nonhydro, the small limited-area and halo programs (P14): `stencils_61_62`,
//! `compute_dwdz_for_divergence_damping`, `init_cell_kdim_field_with_zero_wp`,
//! `update_mass_flux_weighted`, `compute_exner_from_rhotheta`,
//! `update_theta_and_exner_in_halo` and `compute_rayleigh_damping_factor`: DSL
//! (interpreter, native CPU backend as written and optimised) against the plain-Rust
//! references on both test grids, ICON4Py's argument lists, the output domains (written
//! exactly there: the lateral-boundary cells of the limited area, nothing on the global
//! grid) and both sides of every `where`.

mod common;

use common::{arguments, assert_written_exactly, data, zone_range};
use foehn::runtime::field::Args;
use foehn_grid::{Grid, Location, Zone};
use foehn_icon::solve_nonhydro::entry;
use foehn_testkit::catalog::Entry;

const NLEV: usize = 10;
const TOL: f64 = 1e-12;

/// Reference, interpreter and CPU backend (unfused and optimised) agree on both grids.
fn check(entry: &Entry) {
    common::check_entry(entry, NLEV, TOL);
    common::check_entry_optimised(entry, NLEV, TOL);
}

/// The program's arguments (fields with their dimensions, then scalars) are `want`, and
/// it has one variant; ICON calls it `calls` times per step.
fn assert_arguments(entry: &Entry, want: &[&str], calls: f64) {
    let variants = entry.variants().unwrap();
    assert_eq!(variants.len(), 1, "{}: one variant", entry.name);
    assert_eq!(arguments(&entry.specialize(&variants[0]).unwrap()), want);
    assert_eq!(entry.calls_per_step, Some(calls), "{}", entry.name);
}

/// The lateral-boundary cells `[LATERAL_BOUNDARY, LATERAL_BOUNDARY_LEVEL_4 end)`.
fn boundary_cells(grid: &Grid) -> (usize, usize) {
    zone_range(
        grid,
        Location::Cell,
        Zone::LateralBoundary(1),
        Zone::LateralBoundary(4),
    )
}

/// Runs the entry's one variant in the interpreter on `grid`; returns (before, after).
fn run(entry: &Entry, grid: &Grid) -> (Args, Args) {
    let variant = entry.variants().unwrap().remove(0);
    common::run_with(entry, &variant, grid, NLEV, |_| {})
}

/// A limited-area program writes each `(output, levels)` exactly on those levels of the
/// lateral-boundary cells of the limited-area grid, and nothing on the global grid
/// (whose boundary zones are empty).
fn assert_writes_boundary_cells(entry: &Entry, outputs: &[(&str, (usize, usize))]) {
    let [global, lam] = common::grids();
    assert_eq!(boundary_cells(global), (0, 0), "no boundary on R2B2");
    let (before, after) = run(entry, global);
    for (name, _) in outputs {
        assert_eq!(data(&before, name), data(&after, name), "{name} on R2B2");
    }
    let cells = boundary_cells(lam);
    assert!(cells.0 == 0 && cells.1 > 0, "boundary rows on the cap");
    let (before, after) = run(entry, lam);
    for &(name, levels) in outputs {
        assert_written_exactly(&before, &after, name, cells, levels);
    }
}

// ---------------------------------------------------------------------------------------
// stencils_61_62

#[test]
fn stencils_61_62_match_reference() {
    check(&entry::stencils_61_62());
}

#[test]
fn stencils_61_62_declare_icon4py_arguments() {
    let want = [
        "rho_now [Cell, K]",
        "grf_tend_rho [Cell, K]",
        "theta_v_now [Cell, K]",
        "grf_tend_thv [Cell, K]",
        "w_now [Cell, KHalf]",
        "grf_tend_w [Cell, KHalf]",
        "rho_new [Cell, K]",
        "exner_new [Cell, K]",
        "w_new [Cell, KHalf]",
        "dtime",
    ];
    assert_arguments(&entry::stencils_61_62(), &want, 5.0);
}

#[test]
fn stencils_61_62_write_exactly_the_boundary_cells() {
    // ρ and θv on full levels, w on every interface, the surface one included.
    assert_writes_boundary_cells(
        &entry::stencils_61_62(),
        &[
            ("rho_new", (0, NLEV)),
            ("exner_new", (0, NLEV)),
            ("w_new", (0, NLEV + 1)),
        ],
    );
}

#[test]
fn stencils_61_62_store_theta_v_in_the_exner_buffer() {
    let lam = common::grids()[1];
    let (_, after) = run(&entry::stencils_61_62(), lam);
    let nc = lam.size(Location::Cell);
    let (c0, c1) = boundary_cells(lam);
    let exner_new = data(&after, "exner_new");
    for k in 0..NLEV {
        for c in c0..c1 {
            let theta_v = exner_new[c + nc * k];
            assert!(
                (240.0..340.0).contains(&theta_v),
                "θv {theta_v} at {c}, {k}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// compute_dwdz_for_divergence_damping

#[test]
fn dwdz_for_divergence_damping_matches_reference() {
    check(&entry::compute_dwdz_for_divergence_damping());
}

#[test]
fn dwdz_for_divergence_damping_declares_icon4py_arguments() {
    let want = [
        "inv_ddqz_z_full [Cell, K]",
        "w [Cell, KHalf]",
        "w_concorr_c [Cell, KHalf]",
        "z_dwdz_dd [Cell, K]",
    ];
    assert_arguments(&entry::compute_dwdz_for_divergence_damping(), &want, 5.0);
}

#[test]
fn dwdz_for_divergence_damping_writes_exactly_the_boundary_cells() {
    assert_writes_boundary_cells(
        &entry::compute_dwdz_for_divergence_damping(),
        &[("z_dwdz_dd", (0, NLEV))],
    );
}

// ---------------------------------------------------------------------------------------
// init_cell_kdim_field_with_zero_wp and update_mass_flux_weighted

#[test]
fn init_cell_kdim_field_with_zero_wp_matches_reference() {
    check(&entry::init_cell_kdim_field_with_zero_wp());
}

#[test]
fn init_cell_kdim_field_with_zero_wp_declares_icon4py_arguments() {
    let want = ["field_with_zero_wp [Cell, KHalf]"];
    assert_arguments(&entry::init_cell_kdim_field_with_zero_wp(), &want, 1.0);
}

#[test]
fn init_cell_kdim_field_with_zero_wp_zeroes_exactly_the_boundary_cells() {
    let e = entry::init_cell_kdim_field_with_zero_wp();
    let name = "field_with_zero_wp";
    assert_writes_boundary_cells(&e, &[(name, (0, NLEV + 1))]);
    let lam = common::grids()[1];
    let (_, after) = run(&e, lam);
    let (c0, c1) = boundary_cells(lam);
    let nc = lam.size(Location::Cell);
    for k in 0..=NLEV {
        assert!(data(&after, name)[c0 + nc * k..c1 + nc * k]
            .iter()
            .all(|&x| x == 0.0));
    }
}

#[test]
fn update_mass_flux_weighted_matches_reference() {
    check(&entry::update_mass_flux_weighted());
}

#[test]
fn update_mass_flux_weighted_declares_icon4py_arguments() {
    let want = [
        "rho_ic [Cell, KHalf]",
        "vwind_expl_wgt [Cell]",
        "vwind_impl_wgt [Cell]",
        "w_now [Cell, KHalf]",
        "w_new [Cell, KHalf]",
        "w_concorr_c [Cell, KHalf]",
        "mass_flx_ic [Cell, KHalf]",
        "r_nsubsteps",
    ];
    assert_arguments(&entry::update_mass_flux_weighted(), &want, 5.0);
}

#[test]
fn update_mass_flux_weighted_writes_exactly_the_boundary_cells() {
    // Interfaces [1, nlev): the model top and the surface keep their values.
    assert_writes_boundary_cells(
        &entry::update_mass_flux_weighted(),
        &[("mass_flx_ic", (1, NLEV))],
    );
}

// ---------------------------------------------------------------------------------------
// compute_exner_from_rhotheta

#[test]
fn exner_from_rhotheta_matches_reference() {
    check(&entry::compute_exner_from_rhotheta());
}

#[test]
fn exner_from_rhotheta_declares_icon4py_arguments() {
    let want = [
        "rho [Cell, K]",
        "theta_v [Cell, K]",
        "exner [Cell, K]",
        "rd_o_cvd",
        "rd_o_p0ref",
    ];
    assert_arguments(&entry::compute_exner_from_rhotheta(), &want, 5.0);
}

#[test]
fn exner_from_rhotheta_writes_exactly_the_boundary_cells() {
    let e = entry::compute_exner_from_rhotheta();
    assert_writes_boundary_cells(&e, &[("theta_v", (0, NLEV)), ("exner", (0, NLEV))]);
    // θv is the stored one, the Exner pressure a physical one.
    let lam = common::grids()[1];
    let (before, after) = run(&e, lam);
    let (c0, c1) = boundary_cells(lam);
    let nc = lam.size(Location::Cell);
    for k in 0..NLEV {
        for i in (c0..c1).map(|c| c + nc * k) {
            assert_eq!(data(&after, "theta_v")[i], data(&before, "exner")[i]);
            let exner = data(&after, "exner")[i];
            assert!((0.3..1.1).contains(&exner), "Exner {exner} at {i}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// update_theta_and_exner_in_halo

#[test]
fn theta_and_exner_in_halo_matches_reference() {
    // ICON's domain [HALO, END) is empty on both grids (one process, no halo): the
    // entry as ICON calls it, then the same program on every cell.
    for grid in common::grids() {
        let halo = zone_range(grid, Location::Cell, Zone::Halo(1), Zone::End);
        assert_eq!(halo.0, halo.1, "{}: no halo cells", grid.name);
    }
    check(&entry::update_theta_and_exner_in_halo());
    check(&entry::update_theta_and_exner_in_halo_on_all_cells());
}

#[test]
fn theta_and_exner_in_halo_declares_icon4py_arguments() {
    let want = [
        "mask_prog_halo_c [Cell]",
        "rho_now [Cell, K]",
        "rho_new [Cell, K]",
        "theta_v_now [Cell, K]",
        "theta_v_new [Cell, K]",
        "exner_new [Cell, K]",
        "exner_now [Cell, K]",
    ];
    assert_arguments(&entry::update_theta_and_exner_in_halo(), &want, 5.0);
}

#[test]
fn theta_and_exner_in_halo_writes_nothing_without_halo() {
    for grid in common::grids() {
        let (before, after) = run(&entry::update_theta_and_exner_in_halo(), grid);
        for name in ["theta_v_new", "exner_new"] {
            assert_eq!(data(&before, name), data(&after, name), "{name}");
        }
    }
}

#[test]
fn theta_and_exner_take_both_sides_of_the_mask() {
    // On every cell: θv everywhere; the Exner pressure only at the boundary cells
    // (mask false), where the stored θv moves to theta_v_new.
    let e = entry::update_theta_and_exner_in_halo_on_all_cells();
    for grid in common::grids() {
        let (before, after) = run(&e, grid);
        let nc = grid.size(Location::Cell);
        assert_written_exactly(&before, &after, "theta_v_new", (0, nc), (0, NLEV));
        let mask = before
            .field("mask_prog_halo_c")
            .and_then(|f| f.as_bool())
            .unwrap();
        assert!(mask.iter().any(|&m| m) && mask.iter().any(|&m| !m));
        let (exner_before, exner_after) = (data(&before, "exner_new"), data(&after, "exner_new"));
        let theta_v_new = data(&after, "theta_v_new");
        for k in 0..NLEV {
            for (c, &prognostic) in mask.iter().enumerate() {
                let i = c + nc * k;
                if prognostic {
                    assert_eq!(exner_after[i], exner_before[i]);
                    let theta_v = theta_v_new[i];
                    assert!((230.0..360.0).contains(&theta_v), "θv {theta_v}");
                } else {
                    assert_ne!(exner_after[i], exner_before[i]);
                    assert_eq!(theta_v_new[i], exner_before[i]);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// compute_rayleigh_damping_factor

#[test]
fn rayleigh_damping_factor_matches_reference() {
    check(&entry::compute_rayleigh_damping_factor());
}

#[test]
fn rayleigh_damping_factor_declares_icon4py_arguments() {
    let want = ["rayleigh_w [KHalf]", "rayleigh_damping_factor [K]", "dtime"];
    assert_arguments(&entry::compute_rayleigh_damping_factor(), &want, 0.0);
}

#[test]
fn rayleigh_damping_factor_writes_every_level_and_damps() {
    let e = entry::compute_rayleigh_damping_factor();
    for grid in common::grids() {
        let (before, after) = run(&e, grid);
        let name = "rayleigh_damping_factor";
        let factor = data(&after, name);
        assert_eq!(factor.len(), NLEV);
        assert!(factor.iter().zip(data(&before, name)).all(|(a, b)| a != b));
        // Strongest damping at the model top, weakening downwards.
        assert!(factor.iter().all(|&f| 0.0 < f && f < 1.0));
        assert!(factor.windows(2).all(|f| f[0] < f[1]));
    }
}
