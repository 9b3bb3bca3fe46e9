//! The velocity-advection component: over several predictor/corrector steps (the first
//! predictor not skipping, the later ones skipping, `vn` and `w` changed between steps
//! as a dycore would) every schedule on every engine agrees with the chained plain-Rust
//! references; the skip logic, the tendency slots, the max-CFL reduction (against an
//! independent computation over its domain), bad input, caller-owned views and (where a
//! device exists) the CUDA backend and its device reduction of the CFL number, on a
//! small global (R2B2, with pentagons) and a small limited-area grid with 10 levels. The
//! CUDA results equal the CPU's bit for bit (ADR 0035).

mod common;

use foehn::ir::Role;
use foehn::runtime::field::Field;
use foehn_grid::{Grid, Location, Zone};
use foehn_icon::common::state::FieldGroup;
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid};
use foehn_icon::velocity_advection::component::inputs::{random_state, DTIME};
use foehn_icon::velocity_advection::component::state::VelocityAdvectionDiagnosticState;
use foehn_icon::velocity_advection::component::steps::{self, intermediates};
use foehn_icon::velocity_advection::component::{
    max_abs_vertical_cfl, scale_factors, skip_compute_predictor_vertical_advection, Engine, Kind,
    Schedule, Statics, VelocityAdvection, VelocityAdvectionState,
};
use std::collections::BTreeSet;

const NLEV: usize = 10;
const TOL: f64 = 1e-12;
/// The CUDA engine against the CPU: no difference at all (the engines compute bit for bit
/// alike, ADR 0035; `±0` alike).
const BIT_FOR_BIT: f64 = 0.0;

/// 10 levels, terrain-following below `nflatlev = 4`, a (low) damping layer ending at
/// `nrdmax = 5`, so that the CFL levels `[max(2, nrdmax − 2), nlev − 3) = [3, 7)` have
/// levels on both sides.
fn vertical() -> VerticalGrid {
    VerticalGrid::new(VerticalConfig {
        rayleigh_damping_height: 3000.0,
        flat_height: 5000.0,
        ..VerticalConfig::new(NLEV)
    })
}

fn component<'a>(grid: &'a Grid, schedule: Schedule, engine: Engine<'a>) -> VelocityAdvection<'a> {
    VelocityAdvection::new(grid, &vertical())
        .unwrap()
        .with_schedule(schedule)
        .unwrap()
        .with_engine(engine)
}

fn initial_state(grid: &Grid) -> VelocityAdvectionState {
    random_state(grid, &vertical(), 5)
}

/// What a dycore does to the winds between the velocity-advection calls (the same on
/// every engine): `vn` and `w` scaled and shifted a little, differently per call.
fn change_winds(state: &mut VelocityAdvectionState, call: usize) {
    let a = 1.0 + 0.03 * call as f64;
    for (i, x) in state
        .prognostic
        .vn
        .as_f64_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        *x = a * *x + 0.5 * ((i + call) as f64 * 0.37).sin();
    }
    for (i, x) in state
        .prognostic
        .w
        .as_f64_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        *x = a * *x + 0.02 * ((i + 3 * call) as f64 * 0.51).cos();
    }
}

/// Three dycore steps: predictor (skip as ICON: not in the first step's first
/// substep), new winds, corrector, new winds.
fn steps(va: &mut VelocityAdvection, state: &mut VelocityAdvectionState) {
    for step in 0..3 {
        let skip = skip_compute_predictor_vertical_advection(step == 0, true);
        va.run_predictor_step(state, skip, DTIME)
            .unwrap_or_else(|e| panic!("{}: predictor {step}: {e}", va.grid().name));
        change_winds(state, 2 * step);
        va.run_corrector_step(state, DTIME)
            .unwrap_or_else(|e| panic!("{}: corrector {step}: {e}", va.grid().name));
        change_winds(state, 2 * step + 1);
    }
}

/// The work fields every schedule keeps (the others are temporaries of the linked
/// steps).
const KEPT_WORK: [&str; 4] = [
    "contravariant_correction_at_edges_on_model_levels",
    "horizontal_kinetic_energy_at_edges_on_model_levels",
    "tangential_wind_on_half_levels",
    "vertical_cfl",
];

/// The state and the kept work fields after [`steps`].
struct Outcome {
    state: VelocityAdvectionState,
    work: Vec<(String, Field)>,
}

fn run(grid: &Grid, schedule: Schedule, engine: Engine<'_>) -> Outcome {
    let mut va = component(grid, schedule, engine);
    let mut state = initial_state(grid);
    steps(&mut va, &mut state);
    let work = va.workspace();
    Outcome {
        work: KEPT_WORK
            .iter()
            .map(|n| (n.to_string(), work[n].clone()))
            .collect(),
        state,
    }
}

fn assert_fields_close(what: &str, name: &str, a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{what}: `{name}` sizes");
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        assert!(
            x.is_finite() && y.is_finite(),
            "{what}: `{name}`[{i}]: {x:e} vs {y:e}"
        );
        if x.to_bits() == y.to_bits() {
            continue;
        }
        let rel = (x - y).abs() / x.abs().max(y.abs()).max(1e-300);
        assert!(
            rel <= tol,
            "{what}: `{name}`[{i}]: {x:e} vs {y:e} (rel {rel:e})"
        );
    }
}

/// Every diagnostic field, kept work field and `max_vertical_cfl` agree to `tol`.
fn assert_close(what: &str, want: &Outcome, got: &Outcome, tol: f64) {
    for name in VelocityAdvectionDiagnosticState::NAMES {
        let (a, b) = (
            want.state.f64s(name).unwrap(),
            got.state.f64s(name).unwrap(),
        );
        assert_fields_close(what, name, a, b, tol);
    }
    for ((name, a), (_, b)) in want.work.iter().zip(&got.work) {
        assert_fields_close(what, name, a.as_f64().unwrap(), b.as_f64().unwrap(), tol);
    }
    let (a, b) = (want.state.max_vertical_cfl, got.state.max_vertical_cfl);
    assert!(
        (a - b).abs() <= tol * a.abs().max(b.abs()),
        "{what}: max_vertical_cfl {a:e} vs {b:e}"
    );
}

#[test]
fn the_vertical_grid_puts_the_statics_inside_the_column() {
    let s = Statics::new(&vertical());
    assert_eq!((s.nflatlev, s.end_index_of_damping_layer), (4, 5), "{s:?}");
}

#[test]
fn unfused_engines_agree_with_the_chained_references() {
    for grid in common::grids() {
        let want = run(grid, Schedule::Unfused, Engine::Reference);
        assert!(want.state.max_vertical_cfl > 0.65, "{}", grid.name);
        for (name, engine) in [
            ("interpreter", Engine::Interpreter),
            ("cpu", Engine::Cpu(common::cpu())),
        ] {
            let got = run(grid, Schedule::Unfused, engine);
            assert_close(
                &format!("{}: references vs unfused {name}", grid.name),
                &want,
                &got,
                TOL,
            );
        }
    }
}

#[test]
fn fused_and_optimised_schedules_agree_with_the_chained_references() {
    for grid in common::grids() {
        let want = run(grid, Schedule::Unfused, Engine::Reference);
        for (schedule, name, engine) in [
            (Schedule::Fused, "reference", Engine::Reference),
            (Schedule::Fused, "interpreter", Engine::Interpreter),
            (Schedule::Fused, "cpu", Engine::Cpu(common::cpu())),
            (Schedule::Optimised, "interpreter", Engine::Interpreter),
            (Schedule::Optimised, "cpu", Engine::Cpu(common::cpu())),
        ] {
            let got = run(grid, schedule, engine);
            assert_close(
                &format!("{}: references vs {schedule:?} {name}", grid.name),
                &want,
                &got,
                TOL,
            );
        }
    }
}

#[test]
fn the_skip_helper_is_iconss_lvn_only() {
    assert!(!skip_compute_predictor_vertical_advection(true, true));
    assert!(skip_compute_predictor_vertical_advection(true, false));
    assert!(skip_compute_predictor_vertical_advection(false, true));
    assert!(skip_compute_predictor_vertical_advection(false, false));
    let (cfl_w_limit, scalfac_exdiff) = scale_factors(10.0);
    assert_eq!(cfl_w_limit, 0.065);
    assert!((scalfac_exdiff - 0.05 / (10.0 * 0.2)).abs() < 1e-15);
}

/// The skipped predictor writes nothing of `z_vt_ie`, `z_v_grad_w` and the predictor's
/// `ddt_w_adv`; the full one does. Both write the rest.
#[test]
fn the_skipped_predictor_leaves_the_vertical_advection_alone() {
    for grid in common::grids() {
        for schedule in [Schedule::Unfused, Schedule::Fused] {
            for skip in [true, false] {
                let what = format!("{} {schedule:?} skip = {skip}", grid.name);
                let mut va = component(grid, schedule, Engine::Cpu(common::cpu()));
                let before = initial_state(grid);
                let work_before: Vec<Field> =
                    va.workspace().values().map(|f| (*f).clone()).collect();
                let mut state = before.clone();
                va.run_predictor_step(&mut state, skip, DTIME).unwrap();
                let changed = |n: &str| before.f64s(n).unwrap() != state.f64s(n).unwrap();
                let work = va.workspace();
                let names: Vec<&str> = work.keys().copied().collect();
                let work_changed = |n: &str| {
                    let i = names.iter().position(|m| *m == n).unwrap();
                    work_before[i] != *work[n]
                };
                assert_eq!(
                    changed("vertical_wind_advective_tendency_predictor"),
                    !skip,
                    "{what}"
                );
                assert_eq!(
                    work_changed("tangential_wind_on_half_levels"),
                    !skip,
                    "{what}"
                );
                if schedule == Schedule::Unfused {
                    assert_eq!(
                        work_changed("horizontal_advection_of_w_at_edges_on_half_levels"),
                        !skip,
                        "{what}"
                    );
                }
                for n in [
                    "tangential_wind",
                    "vn_on_half_levels",
                    "contravariant_correction_at_cells_on_half_levels",
                    "normal_wind_advective_tendency_predictor",
                ] {
                    assert!(changed(n), "{what}: {n}");
                }
                for n in [
                    "horizontal_kinetic_energy_at_edges_on_model_levels",
                    "contravariant_correction_at_edges_on_model_levels",
                    "vertical_cfl",
                ] {
                    assert!(work_changed(n), "{what}: {n}");
                }
            }
        }
    }
}

/// The predictor writes the predictor slots, the corrector the corrector slots; each
/// leaves the other slots bit for bit; swapping exchanges them.
#[test]
fn predictor_and_corrector_write_their_own_tendency_slots() {
    let slots = |s: &str| {
        [
            format!("vertical_wind_advective_tendency_{s}"),
            format!("normal_wind_advective_tendency_{s}"),
        ]
    };
    for grid in common::grids() {
        for schedule in [Schedule::Unfused, Schedule::Optimised] {
            let what = format!("{} {schedule:?}", grid.name);
            let mut va = component(grid, schedule, Engine::Cpu(common::cpu()));
            let before = initial_state(grid);
            let mut state = before.clone();
            va.run_predictor_step(&mut state, false, DTIME).unwrap();
            for n in slots("predictor") {
                assert_ne!(before.f64s(&n), state.f64s(&n), "{what}: predictor {n}");
            }
            for n in slots("corrector") {
                assert_eq!(before.f64s(&n), state.f64s(&n), "{what}: predictor {n}");
            }
            let after_predictor = state.clone();
            va.run_corrector_step(&mut state, DTIME).unwrap();
            for n in slots("corrector") {
                assert_ne!(
                    after_predictor.f64s(&n),
                    state.f64s(&n),
                    "{what}: corrector {n}"
                );
            }
            for n in slots("predictor") {
                assert_eq!(
                    after_predictor.f64s(&n),
                    state.f64s(&n),
                    "{what}: corrector {n}"
                );
            }
            let mut swapped = state.clone();
            swapped.diagnostic.swap_tendencies();
            for (p, c) in slots("predictor").iter().zip(slots("corrector")) {
                assert_eq!(swapped.f64s(p), state.f64s(&c), "{what}: swap {p}");
                assert_eq!(swapped.f64s(&c), state.f64s(p), "{what}: swap {c}");
            }
        }
    }
}

/// ICON's CFL number, computed here from the state: the largest
/// `|z_w_con_c|·dtime/ddqz_z_half` where `|z_w_con_c| > cfl_w_limit·ddqz_z_half`, over
/// cells `[LB4, HALO end)` and the CFL levels `[max(2, nrdmax − 2), nlev − 3)`, with
/// `z_w_con_c = w − w_concorr_c` (0 elsewhere).
fn independent_max_cfl(grid: &Grid, state: &VelocityAdvectionState) -> f64 {
    let zones = grid.zones.of(Location::Cell);
    let (lo, hi) = (
        zones.start(Zone::LateralBoundary(4)).unwrap(),
        zones.end(Zone::Halo(1)).unwrap(),
    );
    let s = Statics::new(&vertical());
    let (cfl_w_limit, _) = scale_factors(DTIME);
    let nc = grid.size(Location::Cell);
    let w = state.f64s("w").unwrap();
    let w_concorr_c = state
        .f64s("contravariant_correction_at_cells_on_half_levels")
        .unwrap();
    let dz = state.f64s("ddqz_z_half").unwrap();
    let mut max = 0.0f64;
    for k in (s.end_index_of_damping_layer - 2).max(2) as usize..NLEV - 3 {
        for c in lo..hi {
            let i = c + nc * k;
            let z = w[i] - w_concorr_c[i];
            if z.abs() > cfl_w_limit * dz[i] {
                max = max.max(z.abs() * DTIME / dz[i]);
            }
        }
    }
    max
}

#[test]
fn max_vertical_cfl_is_the_largest_cfl_number_over_its_domain() {
    for grid in common::grids() {
        for schedule in [Schedule::Unfused, Schedule::Fused] {
            let what = format!("{} {schedule:?}", grid.name);
            let mut va = component(grid, schedule, Engine::Cpu(common::cpu()));
            // Stale values outside the reduction's cells must not count.
            va.workspace_field_mut("vertical_cfl")
                .unwrap()
                .as_f64_mut()
                .unwrap()
                .fill(50.0);
            let mut state = initial_state(grid);
            assert_eq!(state.max_vertical_cfl, 0.0);
            va.run_predictor_step(&mut state, false, DTIME).unwrap();
            let predictor = independent_max_cfl(grid, &state);
            assert!(predictor > 0.85, "{what}: {predictor}");
            let rel = |a: f64, b: f64| (a - b).abs() / a.abs().max(b.abs());
            assert!(
                rel(state.max_vertical_cfl, predictor) < 1e-14,
                "{what}: predictor {} vs {predictor}",
                state.max_vertical_cfl
            );
            if grid.is_limited_area() {
                let cfl = va.workspace()["vertical_cfl"].as_f64().unwrap().to_vec();
                assert!(cfl.contains(&50.0), "{what}: no stale point outside");
            }
            // The corrector's maximum joins the running one.
            change_winds(&mut state, 1);
            va.run_corrector_step(&mut state, DTIME).unwrap();
            let corrector = independent_max_cfl(grid, &state);
            let want = predictor.max(corrector);
            assert!(
                rel(state.max_vertical_cfl, want) < 1e-14,
                "{what}: corrector {} vs {want}",
                state.max_vertical_cfl
            );
            // A larger running maximum stays.
            state.max_vertical_cfl = 7.5;
            va.run_corrector_step(&mut state, DTIME).unwrap();
            assert_eq!(state.max_vertical_cfl, 7.5, "{what}");
        }
    }
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let grid = common::grids()[0];
    // Too few levels for the programs.
    let short = VerticalGrid::new(VerticalConfig::new(3));
    let e = VelocityAdvection::new(grid, &short)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("at least 4 levels"), "{e}");
    // A state of another level count.
    let other = VerticalGrid::new(VerticalConfig::new(8));
    let mut eight = random_state(grid, &other, 1);
    for engine in [
        Engine::Interpreter,
        Engine::Cpu(common::cpu()),
        Engine::Reference,
    ] {
        let mut va = component(grid, Schedule::Unfused, engine);
        let e = va
            .run_predictor_step(&mut eight, false, DTIME)
            .unwrap_err()
            .to_string();
        assert!(e.contains("8 levels, the component 10"), "{e}");
        // One field of another level count inside a 10-level state.
        let mut state = initial_state(grid);
        let short_field = eight.field("wgtfac_c").unwrap().clone();
        state.set_field("wgtfac_c", short_field).unwrap();
        let e = va
            .run_corrector_step(&mut state, DTIME)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`wgtfac_c`"), "{e}");
        // A bad time step.
        let mut state = initial_state(grid);
        let e = va.run_corrector_step(&mut state, 0.0).unwrap_err();
        assert!(e.to_string().contains("dtime"), "{e}");
    }
    // A missing field, an unknown one.
    let mut named: std::collections::BTreeMap<String, Field> = initial_state(grid)
        .fields()
        .map(|(n, f)| (n.to_string(), f.clone()))
        .collect();
    let c_intp = named.remove("c_intp").unwrap();
    let e = VelocityAdvectionState::from_named(named.clone(), NLEV)
        .unwrap_err()
        .to_string();
    assert!(e.contains("`c_intp` is missing"), "{e}");
    named.insert("c_intp".into(), c_intp);
    named.insert("nonsense".into(), Field::placeholder());
    let e = VelocityAdvectionState::from_named(named, NLEV)
        .unwrap_err()
        .to_string();
    assert!(e.contains("`nonsense` is not a field"), "{e}");
    let mut state = initial_state(grid);
    assert!(state.set_field("nonsense", Field::placeholder()).is_err());
    // Too few views.
    let mut va = component(grid, Schedule::Unfused, Engine::Interpreter);
    let mut max = 0.0;
    let mut views = state.views_mut();
    let e = va
        .run_corrector_step_views(&mut views[1..], &mut max, DTIME)
        .unwrap_err()
        .to_string();
    assert!(e.contains("field views given"), "{e}");
}

/// The component runs on views of fields the caller owns, with the results of a typed
/// state.
#[test]
fn the_component_runs_on_caller_owned_views() {
    let grid = common::grids()[1];
    let mut want = initial_state(grid);
    let mut va = component(grid, Schedule::Unfused, Engine::Cpu(common::cpu()));
    va.run_predictor_step(&mut want, false, DTIME).unwrap();
    va.run_corrector_step(&mut want, DTIME).unwrap();
    let mut va = component(grid, Schedule::Unfused, Engine::Cpu(common::cpu()));
    let mut got = initial_state(grid);
    let mut max = 0.0;
    {
        let mut views = got.views_mut();
        va.run_predictor_step_views(&mut views, &mut max, false, DTIME)
            .unwrap();
        va.run_corrector_step_views(&mut views, &mut max, DTIME)
            .unwrap();
    }
    got.max_vertical_cfl = max;
    assert_eq!(want, got);
}

/// The linked step binds exactly the component fields the unfused calls bind, less its
/// temporaries, and declares the step's statics.
#[test]
fn linked_steps_bind_what_the_unfused_calls_bind() {
    let s = Statics::new(&vertical());
    for kind in Kind::ALL {
        let temps: BTreeSet<&str> = intermediates(kind).into_iter().collect();
        let mut fields = BTreeSet::new();
        for c in foehn_icon::common::runner::calls(&steps::all_calls(&s, kind).unwrap()) {
            let args = c.renamed.fields.iter().filter(|d| d.role != Role::Temp);
            fields.extend(
                args.map(|d| d.name.clone())
                    .filter(|n| !temps.contains(n.as_str())),
            );
        }
        let ir = steps::linked_program(&s, kind).unwrap();
        let linked: BTreeSet<String> = ir
            .fields
            .iter()
            .filter(|d| d.role != Role::Temp)
            .map(|d| d.name.clone())
            .collect();
        assert_eq!(linked, fields, "{kind:?}");
        assert_eq!(Statics::from_variant(&ir.variant).unwrap(), s);
        let temporaries: BTreeSet<&str> = ir
            .fields
            .iter()
            .filter(|d| d.role == Role::Temp)
            .map(|d| d.name.as_str())
            .collect();
        assert!(temps.is_subset(&temporaries), "{kind:?}: {temporaries:?}");
        assert!(linked.contains("vertical_cfl"), "{kind:?}");
    }
}

#[test]
fn cuda_schedules_agree_with_the_cpu() {
    let Some((_dir, cuda)) =
        foehn_testkit::gpu::cuda_backend("the CUDA velocity advection component test")
    else {
        return;
    };
    for grid in common::grids() {
        let want = run(grid, Schedule::Unfused, Engine::Cpu(common::cpu()));
        for schedule in [Schedule::Unfused, Schedule::Fused, Schedule::Optimised] {
            // Device-resident: upload once, bind once, launch per step, download at the
            // end (the winds change on the host between calls in `steps`, so this runs
            // the same sequence without the changes and compares with the CPU's).
            let what = format!("{} {schedule:?}", grid.name);
            let mut va = component(grid, schedule, Engine::Interpreter);
            // Stale values outside the reduction's cells must not count on the device.
            let stale = va.workspace_field_mut("vertical_cfl").unwrap();
            stale.as_f64_mut().unwrap().fill(50.0);
            let programs = va.cuda(&cuda).unwrap();
            let mut state = initial_state(grid);
            let mut device = programs.upload(&mut state).unwrap();
            let mut cpu = component(grid, Schedule::Unfused, Engine::Cpu(common::cpu()));
            let mut host = initial_state(grid);
            let mut max = 0.0f64;
            for kind in [
                Kind::Predictor { skip: false },
                Kind::Corrector,
                Kind::Predictor { skip: true },
                Kind::Corrector,
            ] {
                device.run(kind, DTIME).unwrap();
                cpu.run(kind, &mut host, DTIME).unwrap();
                // The device's reduction (8 bytes downloaded) is the host reduction of
                // the device's vertical_cfl, bit for bit.
                let cfl = &device.download_workspace().unwrap()["vertical_cfl"];
                max = max.max(max_abs_vertical_cfl(grid, cfl).unwrap());
                let got = device.max_vertical_cfl().unwrap();
                assert_eq!(
                    got.to_bits(),
                    max.to_bits(),
                    "{what} {kind:?}: {got:e} vs {max:e}"
                );
                if grid.is_limited_area() {
                    let stale_outside = cfl.as_f64().unwrap().contains(&50.0);
                    assert!(stale_outside, "{what}: no stale point outside");
                }
            }
            device.download(&mut state).unwrap();
            for name in VelocityAdvectionDiagnosticState::NAMES {
                assert_fields_close(
                    &format!("{} {schedule:?}: cpu vs device-resident cuda", grid.name),
                    name,
                    host.f64s(name).unwrap(),
                    state.f64s(name).unwrap(),
                    BIT_FOR_BIT,
                );
            }
            assert_eq!(
                host.max_vertical_cfl.to_bits(),
                state.max_vertical_cfl.to_bits()
            );
            // A larger maximum set by the driver stays.
            device.set_max_vertical_cfl(7.5).unwrap();
            device.run(Kind::Corrector, DTIME).unwrap();
            device.download(&mut state).unwrap();
            assert_eq!(state.max_vertical_cfl, 7.5, "{what}");
        }
        // The per-call engine (upload, launch, download in every step), with the winds
        // changed between the calls.
        let per_call = run(grid, Schedule::Fused, Engine::Cuda(&cuda));
        assert_close(
            &format!("{}: cpu vs Engine::Cuda", grid.name),
            &want,
            &per_call,
            BIT_FOR_BIT,
        );
    }
    eprintln!(
        "{}: the velocity advection component agrees with the CPU",
        cuda.gpu().name()
    );
}

/// The catalog's linked steps: the chained references agree with the interpreter and
/// the CPU backend on both grids in every variant, the optimised programs too.
#[test]
fn catalog_entries_of_the_steps_match_their_references() {
    let names = [steps::PREDICTOR_NAME, steps::CORRECTOR_NAME];
    let catalog = foehn_icon::catalog();
    for name in names {
        let entry = catalog.iter().find(|e| e.name == name).unwrap();
        common::check_entry(entry, NLEV, TOL);
        common::check_entry_optimised(entry, NLEV, TOL);
    }
}
