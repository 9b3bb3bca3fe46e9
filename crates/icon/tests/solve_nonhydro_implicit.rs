//! solve_nonhydro, the vertically implicit solvers: the predictor's
//! `vertically_implicit_solver_at_predictor_step` (P9 of `icon-dycore-reference.md` §3.3,
//! every variant of `is_iau_active` × `divdamp_type` 2/3/32 × `at_first_substep`) and the
//! corrector's `vertically_implicit_solver_at_corrector_step` (P10, every variant of
//! `lprep_adv` × `is_iau_active` × `at_first_substep` × `at_last_substep`): DSL
//! (interpreter, native CPU backend as written and optimised) against the plain-Rust
//! reference on both test grids, ICON4Py's argument lists, the output domains (written
//! exactly there, untouched elsewhere), `rayleigh_type` other than Klemp refused, and the
//! physics: the new `w` solves the tridiagonal system, and a hydrostatically balanced
//! column at rest stays at rest.

mod common;
mod solve_nonhydro_support;

use common::{assert_written_exactly, data, zone_range};
use foehn::ir::Variant;
use foehn::runtime::field::{Args, Field};
use foehn_grid::{Grid, Location, Zone};
use foehn_icon::solve_nonhydro::entry;
use foehn_icon::solve_nonhydro::references::implicit_solver::{
    tridiagonal_system, w_explicit_term, Fields, Setup,
};
use foehn_icon::solve_nonhydro::stencils::vertically_implicit_solver_at_predictor_step as p9;
use foehn_testkit::catalog::Entry;
use solve_nonhydro_support::{assert_arguments, check, NLEV};

/// The solver's cells `[NUDGING, LOCAL end)`.
fn solver_cells(grid: &Grid) -> (usize, usize) {
    zone_range(grid, Location::Cell, Zone::Nudging(1), Zone::Local)
}

#[test]
fn predictor_solver_matches_reference() {
    check(&entry::vertically_implicit_solver_at_predictor_step());
}

/// Both solvers, every variant, with the column kernels in lockstep (ADR 0025): one
/// kernel per solver whose members walk the levels together, against the reference.
#[test]
fn solvers_in_lockstep_column_kernels_match_reference() {
    let opts = foehn::opt::OptOptions {
        columns: true,
        lockstep: true,
        ..foehn::opt::OptOptions::default()
    };
    for entry in [
        entry::vertically_implicit_solver_at_predictor_step(),
        entry::vertically_implicit_solver_at_corrector_step(),
    ] {
        for variant in entry.variants().unwrap() {
            let ir = entry.specialize(&variant).unwrap();
            let (_, schedule, report) = foehn::opt::optimise_scheduled(&ir, &opts);
            assert!(
                schedule.kernels.iter().any(|k| k.lockstep.is_some()),
                "{} [{variant}]: {report}",
                entry.name
            );
        }
        common::check_entry_with(&entry, NLEV, solve_nonhydro_support::TOL, &opts);
    }
}

#[test]
fn predictor_solver_declares_icon4py_arguments() {
    let want = [
        "contravariant_correction_at_cells_on_half_levels [Cell, KHalf]",
        "next_w [Cell, KHalf]",
        "next_rho [Cell, K]",
        "next_exner [Cell, K]",
        "next_theta_v [Cell, K]",
        "dwdz_at_cells_on_model_levels [Cell, K]",
        "exner_dynamical_increment [Cell, K]",
        "geofac_div [Cell, C2E]",
        "mass_flux_at_edges_on_model_levels [Edge, K]",
        "theta_v_flux_at_edges_on_model_levels [Edge, K]",
        "predictor_vertical_wind_advective_tendency [Cell, KHalf]",
        "nonhydro_buoy_at_cells_on_half_levels [Cell, K]",
        "rho_at_cells_on_half_levels [Cell, KHalf]",
        "contravariant_correction_at_edges_on_model_levels [Edge, K]",
        "exner_w_explicit_weight_parameter [Cell]",
        "current_exner [Cell, K]",
        "current_rho [Cell, K]",
        "current_theta_v [Cell, K]",
        "current_w [Cell, KHalf]",
        "inv_ddqz_z_full [Cell, K]",
        "exner_w_implicit_weight_parameter [Cell]",
        "theta_v_at_cells_on_half_levels [Cell, KHalf]",
        "perturbed_exner_at_cells_on_model_levels [Cell, K]",
        "exner_tendency_due_to_slow_physics [Cell, K]",
        "rho_iau_increment [Cell, K]",
        "exner_iau_increment [Cell, K]",
        "ddqz_z_half [Cell, KHalf]",
        "rayleigh_damping_factor [K]",
        "reference_exner_at_cells_on_model_levels [Cell, K]",
        "e_bln_c_s [Cell, C2E]",
        "wgtfac_c [Cell, KHalf]",
        "wgtfacq_c [Cell, K]",
        "iau_wgt_dyn",
        "dtime",
    ];
    let entry = entry::vertically_implicit_solver_at_predictor_step();
    assert_arguments(&entry, &want, 12, 5.0);
}

#[test]
fn predictor_solver_writes_exactly_its_domains_in_every_variant() {
    let entry = entry::vertically_implicit_solver_at_predictor_step();
    let lam = common::grids()[1];
    assert!(
        solver_cells(lam).0 > 0,
        "the cap's boundary cells lie outside"
    );
    let (flat, moist) = (
        p9::FLAT_LEVEL_INDEX_PLUS1 as usize,
        p9::KSTART_MOIST as usize,
    );
    for grid in common::grids() {
        let cells = solver_cells(grid);
        let concorr = zone_range(
            grid,
            Location::Cell,
            Zone::LateralBoundary(3),
            Zone::Halo(1),
        );
        for variant in entry.variants().unwrap() {
            let (before, after) = common::run_with(&entry, &variant, grid, NLEV, |_| {});
            let w_concorr_c = "contravariant_correction_at_cells_on_half_levels";
            assert_written_exactly(&before, &after, w_concorr_c, concorr, (flat, NLEV + 1));
            assert_written_exactly(&before, &after, "next_w", cells, (0, NLEV + 1));
            assert!(data(&after, "next_w")[cells.0..cells.1]
                .iter()
                .all(|&w| w == 0.0));
            for name in ["next_rho", "next_exner", "next_theta_v"] {
                assert_written_exactly(&before, &after, name, cells, (0, NLEV));
            }
            let is = |name: &str, value: Variant| variant.get(name) == value.get(name);
            let dwdz = "dwdz_at_cells_on_model_levels";
            if is("divdamp_type", Variant::new().with("divdamp_type", 2)) {
                assert_eq!(data(&before, dwdz), data(&after, dwdz));
            } else {
                assert_written_exactly(&before, &after, dwdz, cells, (0, NLEV));
            }
            let incr = "exner_dynamical_increment";
            if variant.get("at_first_substep") == Some(true.into()) {
                assert_written_exactly(&before, &after, incr, cells, (moist, NLEV));
            } else {
                assert_eq!(data(&before, incr), data(&after, incr));
            }
        }
    }
}

/// Refuses a `rayleigh_type` other than 2 (Klemp) when specialising.
fn assert_refuses_other_rayleigh_types(entry: &Entry) {
    let mut variant = entry.variants().unwrap().remove(0);
    for rayleigh_type in [0, 1, 3] {
        variant = variant.with("rayleigh_type", rayleigh_type);
        let err = entry.specialize(&variant).unwrap_err().to_string();
        assert!(err.contains("rayleigh_type"), "{err}");
    }
}

#[test]
fn predictor_solver_supports_only_klemp_rayleigh_damping() {
    assert_refuses_other_rayleigh_types(&entry::vertically_implicit_solver_at_predictor_step());
}

/// Runs the first variant of `entry` with Rayleigh damping switched off (factor 1) and
/// checks that the new `w` satisfies the reference's tridiagonal system on every column
/// of the solver to 1e-12 relative (to the largest term of each row), with `ddt_w_adv(i)`
/// giving the advective tendency applied at half-level point `i`.
fn assert_w_solves_the_system(entry: &Entry, ddt_w_adv: fn(&Args, usize) -> f64) {
    let variant = entry.variants().unwrap().remove(0);
    let ir = entry.specialize(&variant).unwrap();
    for grid in common::grids() {
        let (_, after) = common::run_with(entry, &variant, grid, NLEV, |args| {
            let ones = Field::from_fn_f64(grid, NLEV, foehn::dsl::prelude::K, |_| 1.0);
            args.set_field("rayleigh_damping_factor", ones);
        });
        let setup = Setup::of(&ir, &after).unwrap();
        let f = Fields::read(&after).unwrap();
        let nc = grid.size(Location::Cell);
        let w = data(&after, "next_w");
        let (c0, c1) = solver_cells(grid);
        let mut worst = 0.0f64;
        for c in c0..c1 {
            let w_expl = w_explicit_term(grid, &f, c, &setup, |i| ddt_w_adv(&after, i));
            let sys = tridiagonal_system(grid, &f, c, &w_expl, &setup).unwrap();
            for k in 1..NLEV {
                let terms = [
                    sys.a[k] * w[c + nc * (k - 1)],
                    sys.b[k] * w[c + nc * k],
                    sys.c[k] * w[c + nc * (k + 1)],
                    -sys.d[k],
                ];
                let scale = terms.iter().fold(0.0f64, |m, t| m.max(t.abs()));
                worst = worst.max(terms.iter().sum::<f64>().abs() / scale);
            }
            assert_eq!(w[c], 0.0, "w at the model top");
        }
        assert!(
            worst < 1e-12,
            "{} on {}: residual {worst:e}",
            entry.name,
            grid.name
        );
    }
}

#[test]
fn predictor_solver_w_solves_the_tridiagonal_system() {
    assert_w_solves_the_system(
        &entry::vertically_implicit_solver_at_predictor_step(),
        |args, i| data(args, "predictor_vertical_wind_advective_tendency")[i],
    );
}

/// Sets a hydrostatically balanced column at rest: `w_now`, `w_concorr_c` and its edge
/// source, the fluxes, the tendencies and the IAU increments zero, `exner_pr = 0`,
/// `exner_ref_mc = exner_now` and no buoyancy term (`z_th_ddz_exner_c = 0`).
fn set_column_at_rest(args: &mut Args) {
    let names: Vec<String> = args.fields().map(|(n, _)| n.to_string()).collect();
    for name in &names {
        let zero = [
            "current_w",
            "contravariant_correction_at_cells_on_half_levels",
            "contravariant_correction_at_edges_on_model_levels",
            "mass_flux_at_edges_on_model_levels",
            "theta_v_flux_at_edges_on_model_levels",
            "predictor_vertical_wind_advective_tendency",
            "corrector_vertical_wind_advective_tendency",
            "nonhydro_buoy_at_cells_on_half_levels",
            "perturbed_exner_at_cells_on_model_levels",
            "exner_tendency_due_to_slow_physics",
            "rho_iau_increment",
            "exner_iau_increment",
        ];
        if zero.contains(&name.as_str()) {
            let mut field = args.field(name).unwrap().clone();
            field.as_f64_mut().unwrap().fill(0.0);
            args.set_field(name, field);
        }
    }
    let exner = args.field("current_exner").unwrap().clone();
    args.set_field("reference_exner_at_cells_on_model_levels", exner);
}

/// In every variant of `entry`, a balanced column at rest keeps `w = 0` and its ρ, Exner
/// pressure and θv (to 1e-14 relative).
fn assert_rest_is_kept(entry: &Entry) {
    for grid in common::grids() {
        let nc = grid.size(Location::Cell);
        let (c0, c1) = solver_cells(grid);
        for variant in entry.variants().unwrap() {
            let (_, after) = common::run_with(entry, &variant, grid, NLEV, set_column_at_rest);
            let w = data(&after, "next_w");
            for k in 0..=NLEV {
                assert!(
                    w[c0 + nc * k..c1 + nc * k].iter().all(|&x| x == 0.0),
                    "w at {k}"
                );
            }
            for (new, now) in [
                ("next_rho", "current_rho"),
                ("next_exner", "current_exner"),
                ("next_theta_v", "current_theta_v"),
            ] {
                let (new, now) = (data(&after, new), data(&after, now));
                for k in 0..NLEV {
                    for c in c0..c1 {
                        let i = c + nc * k;
                        let rel = (new[i] - now[i]).abs() / now[i].abs();
                        assert!(rel < 1e-14, "[{variant}] on {}: {i}: {rel:e}", grid.name);
                    }
                }
            }
        }
    }
}

#[test]
fn predictor_solver_keeps_a_balanced_column_at_rest() {
    assert_rest_is_kept(&entry::vertically_implicit_solver_at_predictor_step());
}

#[test]
fn corrector_solver_matches_reference() {
    check(&entry::vertically_implicit_solver_at_corrector_step());
}

#[test]
fn corrector_solver_declares_icon4py_arguments() {
    let want = [
        "next_w [Cell, KHalf]",
        "next_rho [Cell, K]",
        "next_exner [Cell, K]",
        "next_theta_v [Cell, K]",
        "dynamical_vertical_mass_flux_at_cells_on_half_levels [Cell, KHalf]",
        "dynamical_vertical_volumetric_flux_at_cells_on_half_levels [Cell, KHalf]",
        "exner_dynamical_increment [Cell, K]",
        "geofac_div [Cell, C2E]",
        "mass_flux_at_edges_on_model_levels [Edge, K]",
        "theta_v_flux_at_edges_on_model_levels [Edge, K]",
        "predictor_vertical_wind_advective_tendency [Cell, KHalf]",
        "corrector_vertical_wind_advective_tendency [Cell, KHalf]",
        "nonhydro_buoy_at_cells_on_half_levels [Cell, K]",
        "rho_at_cells_on_half_levels [Cell, KHalf]",
        "contravariant_correction_at_cells_on_half_levels [Cell, KHalf]",
        "exner_w_explicit_weight_parameter [Cell]",
        "current_exner [Cell, K]",
        "current_rho [Cell, K]",
        "current_theta_v [Cell, K]",
        "current_w [Cell, KHalf]",
        "inv_ddqz_z_full [Cell, K]",
        "exner_w_implicit_weight_parameter [Cell]",
        "theta_v_at_cells_on_half_levels [Cell, KHalf]",
        "perturbed_exner_at_cells_on_model_levels [Cell, K]",
        "exner_tendency_due_to_slow_physics [Cell, K]",
        "rho_iau_increment [Cell, K]",
        "exner_iau_increment [Cell, K]",
        "ddqz_z_half [Cell, KHalf]",
        "rayleigh_damping_factor [K]",
        "reference_exner_at_cells_on_model_levels [Cell, K]",
        "advection_explicit_weight_parameter",
        "advection_implicit_weight_parameter",
        "r_nsubsteps",
        "ndyn_substeps_var",
        "iau_wgt_dyn",
        "dtime",
    ];
    let entry = entry::vertically_implicit_solver_at_corrector_step();
    assert_arguments(&entry, &want, 16, 5.0);
}

#[test]
fn corrector_solver_writes_exactly_its_domains_in_every_variant() {
    let entry = entry::vertically_implicit_solver_at_corrector_step();
    let moist = p9::KSTART_MOIST as usize;
    for grid in common::grids() {
        let cells = solver_cells(grid);
        for variant in entry.variants().unwrap() {
            let set = |name: &str| variant.get(name) == Some(true.into());
            let (before, after) = common::run_with(&entry, &variant, grid, NLEV, |_| {});
            let w_concorr_c = "contravariant_correction_at_cells_on_half_levels";
            assert_eq!(data(&before, w_concorr_c), data(&after, w_concorr_c));
            assert_written_exactly(&before, &after, "next_w", cells, (0, NLEV + 1));
            for name in ["next_rho", "next_exner", "next_theta_v"] {
                assert_written_exactly(&before, &after, name, cells, (0, NLEV));
            }
            for name in [
                "dynamical_vertical_mass_flux_at_cells_on_half_levels",
                "dynamical_vertical_volumetric_flux_at_cells_on_half_levels",
            ] {
                match (set("lprep_adv"), set("at_first_substep")) {
                    (false, _) => assert_eq!(data(&before, name), data(&after, name)),
                    (true, first) => {
                        let top = if first { 0 } else { 1 };
                        assert_written_exactly(&before, &after, name, cells, (top, NLEV));
                    }
                }
            }
            let incr = "exner_dynamical_increment";
            if set("at_last_substep") {
                assert_written_exactly(&before, &after, incr, cells, (moist, NLEV));
            } else {
                assert_eq!(data(&before, incr), data(&after, incr));
            }
        }
    }
}

#[test]
fn corrector_solver_supports_only_klemp_rayleigh_damping() {
    assert_refuses_other_rayleigh_types(&entry::vertically_implicit_solver_at_corrector_step());
}

#[test]
fn corrector_solver_w_solves_the_tridiagonal_system() {
    assert_w_solves_the_system(
        &entry::vertically_implicit_solver_at_corrector_step(),
        |args, i| {
            let scalar = |name: &str| args.scalar(name).unwrap().as_f64();
            scalar("advection_explicit_weight_parameter")
                * data(args, "predictor_vertical_wind_advective_tendency")[i]
                + scalar("advection_implicit_weight_parameter")
                    * data(args, "corrector_vertical_wind_advective_tendency")[i]
        },
    );
}

#[test]
fn corrector_solver_keeps_a_balanced_column_at_rest() {
    assert_rest_is_kept(&entry::vertically_implicit_solver_at_corrector_step());
}

#[test]
fn corrector_solver_accumulates_the_tracer_fluxes_over_the_substeps() {
    // Two substeps with the same state: the first starts the sums, the second adds the
    // same r_nsubsteps·(mass flux) again, so after it they are twice the first's.
    let entry = entry::vertically_implicit_solver_at_corrector_step();
    let pick = |first: bool| {
        let chosen = Variant::new()
            .with("lprep_adv", true)
            .with("is_iau_active", false)
            .with("at_first_substep", first)
            .with("at_last_substep", false);
        entry.variants_with(&chosen).unwrap().remove(0)
    };
    let names = [
        "dynamical_vertical_mass_flux_at_cells_on_half_levels",
        "dynamical_vertical_volumetric_flux_at_cells_on_half_levels",
    ];
    for grid in common::grids() {
        let nc = grid.size(Location::Cell);
        let (c0, c1) = solver_cells(grid);
        let (_, once) = common::run_with(&entry, &pick(true), grid, NLEV, |_| {});
        let (_, twice) = common::run_with(&entry, &pick(false), grid, NLEV, |args| {
            for name in names {
                args.set_field(name, once.field(name).unwrap().clone());
            }
        });
        for name in names {
            let (a, b) = (data(&once, name), data(&twice, name));
            for k in 0..NLEV {
                for c in c0..c1 {
                    let i = c + nc * k;
                    let want = 2.0 * a[i];
                    assert!((b[i] - want).abs() <= 1e-14 * want.abs(), "{name} {i}");
                }
            }
        }
    }
}
