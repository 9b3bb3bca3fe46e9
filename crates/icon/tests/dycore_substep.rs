//! The whole dycore substep as one program (`dycore_substep`, linked from the
//! component's calls): for every catalog variant (first, middle and last substep; global
//! and limited area; with IAU, in and after the divergence-damping spin-up) it agrees with the chained plain-Rust references on its grid (a
//! global grid with pentagons, a limited-area grid) in the interpreter and on the CPU
//! backend, unfused and optimised, and with the component's own `time_step` on the same
//! inputs.

mod common;

use foehn::ir::{Role, Variant};
use foehn::opt::OptOptions;
use foehn::runtime::interp::Interpreter;
use foehn_grid::Grid;
use foehn_icon::common::exchange::NoExchange;
use foehn_icon::common::runner::calls;
use foehn_icon::solve_nonhydro::component::{Engine, SolveNonhydroState};
use foehn_icon::solve_nonhydro::substep::{self, SubstepStatics};
use foehn_icon::velocity_advection::component::inputs::DTIME;
use foehn_testkit::compare::rel_diff;

const NLEV: usize = 10;
const TOL: f64 = 1e-12;

/// Each catalog variant with the grid it is made for.
fn variants_on_their_grids() -> Vec<(Variant, &'static Grid)> {
    let [global, limited] = common::grids();
    substep::variants()
        .into_iter()
        .map(|v| {
            let lam = SubstepStatics::from_variant(&v).unwrap().limited_area;
            (v, if lam { limited } else { global })
        })
        .collect()
}

#[test]
fn the_catalog_has_the_three_substeps_on_both_grids_and_two_with_iau() {
    let entry = foehn_icon::catalog::catalog()
        .into_iter()
        .find(|e| e.name == substep::NAME)
        .expect("dycore_substep in the catalog");
    let statics: Vec<_> = entry
        .variants()
        .unwrap()
        .iter()
        .map(|v| SubstepStatics::from_variant(v).unwrap())
        .collect();
    let plain = SubstepStatics::MIDDLE;
    for limited_area in [false, true] {
        for (first, last) in [(true, false), (false, false), (false, true)] {
            assert!(statics.contains(&SubstepStatics {
                at_first_substep: first,
                at_last_substep: last,
                limited_area,
                ..plain
            }));
        }
    }
    for (first, second_order) in [(true, true), (false, false)] {
        assert!(statics.contains(&SubstepStatics {
            at_first_substep: first,
            is_iau_active: true,
            apply_2nd_order_divergence_damping: second_order,
            ..plain
        }));
    }
    assert_eq!(statics.len(), 8);
}

#[test]
fn iau_and_the_spin_up_reach_the_programs_they_switch() {
    // IAU: every solver program with an `is_iau_active` variant is called in it, on
    // random increments (not zeros); the spin-up: the divergence damping in its
    // second-order variant.
    let entry = substep::entry();
    for (v, grid) in variants_on_their_grids() {
        let s = SubstepStatics::from_variant(&v).unwrap();
        if s.is_iau_active {
            let ir = entry.specialize(&v).unwrap();
            let args = (entry.inputs)(&ir, grid, NLEV, 3);
            for name in ["normal_wind_iau_increment", "rho_iau_increment"] {
                let f = args.field(name).unwrap().as_f64().unwrap();
                assert!(
                    f.iter().filter(|x| **x != 0.0).count() > f.len() / 2,
                    "[{v}] {name}"
                );
            }
        }
        let steps = substep::calls(&s).unwrap();
        let static_of = |program: &str, name: &str| {
            calls(&steps)
                .find(|c| c.ir.name == program)
                .unwrap_or_else(|| panic!("[{v}]: no call of {program}"))
                .ir
                .variant
                .get(name)
        };
        for program in [
            "compute_rho_theta_pgrad_and_update_vn",
            "vertically_implicit_solver_at_corrector_step",
            "apply_divergence_damping_and_update_vn",
        ] {
            assert_eq!(
                static_of(program, "is_iau_active"),
                Some(s.is_iau_active.into()),
                "[{v}] {program}"
            );
        }
        assert_eq!(
            static_of(
                "apply_divergence_damping_and_update_vn",
                "apply_2nd_order_divergence_damping"
            ),
            Some(s.apply_2nd_order_divergence_damping.into()),
            "[{v}]"
        );
    }
}

#[test]
fn the_linked_substep_runs_the_velocity_advection_only_where_icon_does() {
    // The predictor's velocity advection only at the first substep (writing the
    // predictor's vn tendency, else only read); the corrector's every substep; the
    // limited-area programs only there; every stencil of the calls, in call order.
    for (v, _) in variants_on_their_grids() {
        let s = SubstepStatics::from_variant(&v).unwrap();
        let p = substep::program(&v).unwrap();
        let steps = substep::calls(&s).unwrap();
        let programs: Vec<&str> = calls(&steps).map(|c| c.ir.name.as_str()).collect();
        let has = |name: &str| programs.contains(&name);
        assert_eq!(
            has("compute_diagnostics_from_normal_wind"),
            s.at_first_substep,
            "[{v}]"
        );
        assert_eq!(
            p.field_id("normal_wind_advective_tendency_predictor")
                .map(|id| p.fields[id.0 as usize].role != Role::In),
            Some(s.at_first_substep),
            "[{v}]"
        );
        assert!(has("compute_advection_in_corrector_vertical_momentum"));
        assert_eq!(has("compute_exner_from_rhotheta"), s.limited_area, "[{v}]");
        assert_eq!(has("stencils_61_62"), s.limited_area, "[{v}]");
        let of_calls: Vec<&str> = calls(&steps)
            .flat_map(|c| c.ir.stencils.iter().map(|st| st.name.as_str()))
            .collect();
        assert_eq!(p.stencils.len(), of_calls.len(), "[{v}]");
        let temps = foehn_testkit::temporary_names(&p);
        for name in substep::INTERMEDIATES {
            assert!(temps.contains(&name), "[{v}]: `{name}` a temporary");
        }
        for (st, name) in p.stencils.iter().zip(&of_calls) {
            assert!(st.name.starts_with(name), "[{v}]: {} vs {name}", st.name);
        }
    }
}

#[test]
fn the_linked_substep_agrees_with_the_chained_references() {
    let entry = substep::entry();
    for (v, grid) in variants_on_their_grids() {
        common::check_variant(&entry, &v, grid, NLEV, TOL);
    }
}

#[test]
fn the_optimised_substep_agrees_with_the_chained_references() {
    let entry = substep::entry();
    for (v, grid) in variants_on_their_grids() {
        common::check_variant_optimised(&entry, &v, grid, NLEV, TOL, &OptOptions::default());
    }
}

#[test]
fn the_substep_with_lockstep_solver_kernels_agrees_with_the_chained_references() {
    let entry = substep::entry();
    let opts = OptOptions {
        columns: true,
        lockstep: true,
        ..OptOptions::default()
    };
    for (v, grid) in variants_on_their_grids() {
        let ir = entry.specialize(&v).unwrap();
        let (_, schedule, report) = foehn::opt::optimise_scheduled(&ir, &opts);
        // Both solvers' column kernels walk their levels in lockstep.
        let lockstep = schedule
            .kernels
            .iter()
            .filter(|k| k.lockstep.is_some())
            .count();
        assert_eq!(lockstep, 2, "[{v}]: {report}");
        common::check_variant_optimised(&entry, &v, grid, NLEV, TOL, &opts);
    }
}

#[test]
fn the_linked_substep_agrees_with_the_components_time_step() {
    let entry = substep::entry();
    for (v, grid) in variants_on_their_grids() {
        let s = SubstepStatics::from_variant(&v).unwrap();
        let ir = entry.specialize(&v).unwrap();
        let args = (entry.inputs)(&ir, grid, NLEV, 3);
        let mut solver = substep::solver(grid, NLEV, &s)
            .unwrap()
            .with_engine(Engine::Interpreter);
        assert_eq!(
            *solver.statics(),
            substep::statics(solver.config(), s.limited_area),
            "the component's statics are the entry's"
        );
        let state = substep::state(grid, NLEV, &s, 3).unwrap();
        let run = |solver: &mut foehn_icon::solve_nonhydro::component::SolveNonhydro,
                   state: &mut SolveNonhydroState| {
            solver
                .time_step(
                    state,
                    s.divdamp_fac_o2(),
                    DTIME,
                    substep::NDYN_SUBSTEPS,
                    s.flags(),
                    s.iau_wgt_dyn(),
                    &mut NoExchange,
                )
                .unwrap()
        };
        // A first substep of the same dtime, so this one keeps the Rayleigh factor.
        run(&mut solver, &mut state.clone());
        let mut by_component = state.clone();
        run(&mut solver, &mut by_component);
        let mut linked = args.clone();
        Interpreter.run_ir(&ir, grid, &mut linked).unwrap();
        let mut compared = 0;
        for d in ir.fields.iter().filter(|d| d.role.writable()) {
            let Some(want) = by_component.field(&d.name) else {
                continue; // the component's own workspace
            };
            let got = linked.field(&d.name).unwrap();
            let (a, b) = (want.as_f64().unwrap(), got.as_f64().unwrap());
            assert_eq!(a.len(), b.len(), "[{v}] `{}`", d.name);
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert!(
                    rel_diff(*x, *y) <= TOL,
                    "[{v}] on {}: `{}`[{i}] component {x:e}, linked {y:e}",
                    grid.name,
                    d.name
                );
            }
            compared += 1;
        }
        assert!(compared > 20, "[{v}]: {compared} outputs compared");
        assert_ne!(by_component.next.vn, state.next.vn, "[{v}]");
        assert_ne!(by_component.next.w, state.next.w, "[{v}]");
    }
}
