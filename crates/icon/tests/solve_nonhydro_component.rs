//! The nonhydrostatic-solver component (its configuration: `solve_nonhydro_config`):
//! the step list (ICON's programs in ICON's order with the variants each combination of
//! substep flags chooses, on a global and a limited-area grid, checked against a list
//! written here from ICON4Py's `time_step`), the binding of every program to the
//! state's slots, and whole substeps on every engine and schedule agreeing with the
//! chained plain-Rust references.

mod common;

use foehn::error::Result;
use foehn::ir::Role;
use foehn::runtime::field::FieldView;
use foehn_grid::Location;
use foehn_icon::common::exchange::Exchange;
use foehn_icon::common::state::FieldGroup;
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid};
use foehn_icon::solve_nonhydro::component::inputs::random_state;
use foehn_icon::solve_nonhydro::component::plan::{call_variant, entry};
use foehn_icon::solve_nonhydro::component::state::{
    CellParams, EdgeParams, IntermediateFields, InterpolationState, MetricStateNonHydro,
};
use foehn_icon::solve_nonhydro::component::steps::{describe, step_list, Item};
use foehn_icon::solve_nonhydro::component::{
    workspace, Engine, Schedule, SolveNonhydro, SolveNonhydroState, Statics, SubstepFlags, Variants,
};
use foehn_icon::solve_nonhydro::config::{
    DivergenceDampingType, NonHydrostaticConfig, NonHydrostaticParams,
};
use foehn_icon::solve_nonhydro::stencils::compute_perturbed_quantities_and_interpolation as p5;
use foehn_icon::solve_nonhydro::stencils::vertically_implicit_solver_at_predictor_step as p9;
use foehn_testkit::compare::rel_diff;

const NLEV: usize = 10;

/// 10 levels up to 75 km whose `nflatlev` (4), `nrdmax` (3) and `kstart_moist` (4)
/// are the catalog's (the programs' input generators are built for them).
fn vertical() -> VerticalGrid {
    vertical_of(NLEV)
}

/// [`vertical`] with `nlev` levels.
fn vertical_of(nlev: usize) -> VerticalGrid {
    VerticalGrid::new(VerticalConfig {
        model_top_height: 75000.0,
        rayleigh_damping_height: 20000.0,
        flat_height: 10000.0,
        htop_moist_proc: 15000.0,
        ..VerticalConfig::new(nlev)
    })
}

/// The steps of a substep as ICON4Py's `time_step` calls them, written out here: the
/// expected [`describe`] lines for the flags, the damping choices and the grid.
fn icon_order(
    f: SubstepFlags,
    second: bool,
    fourth: bool,
    lam: bool,
    dt_changed: bool,
) -> Vec<String> {
    let b = |x: bool| if x { "true" } else { "false" };
    let mut s: Vec<String> = Vec::new();
    if f.at_first_substep {
        let skip = !(f.at_initial_timestep && f.at_first_substep);
        s.push(format!("velocity_advection predictor [skip={skip}]"));
        s.push("max_vertical_cfl".into());
    }
    s.push("compute_perturbed_quantities_and_interpolation".into());
    s.push("compute_hydrostatic_correction_term".into());
    s.push(format!(
        "compute_rho_theta_pgrad_and_update_vn [is_iau_active=false, limited_area={}]",
        b(lam)
    ));
    s.push("exchange Edge(next_vn, rho_at_edges_on_model_levels)".into());
    s.push("compute_horizontal_velocity_quantities_and_fluxes".into());
    if dt_changed {
        s.push("compute_rayleigh_damping_factor".into());
    }
    s.push(format!(
        "vertically_implicit_solver_at_predictor_step [at_first_substep={}, is_iau_active=false]",
        b(f.at_first_substep)
    ));
    if lam {
        s.push("stencils_61_62".into());
        s.push("compute_dwdz_for_divergence_damping".into());
    }
    s.push("exchange Cell(next_w, dwdz_at_cells_on_model_levels)".into());
    s.push("velocity_advection corrector".into());
    s.push("max_vertical_cfl".into());
    s.push("compute_interpolation_and_nonhydro_buoy".into());
    s.push(format!(
        "apply_divergence_damping_and_update_vn [apply_2nd_order_divergence_damping={}, apply_4th_order_divergence_damping={}, is_iau_active=false, limited_area={}]",
        b(second),
        b(fourth),
        b(lam)
    ));
    s.push("exchange Edge(next_vn)".into());
    s.push(format!(
        "compute_averaged_vn_and_fluxes [at_first_substep={}, prepare_advection={}]",
        b(f.at_first_substep),
        b(f.lprep_adv)
    ));
    s.push(format!(
        "vertically_implicit_solver_at_corrector_step [at_first_substep={}, at_last_substep={}, is_iau_active=false, lprep_adv={}]",
        b(f.at_first_substep),
        b(f.at_last_substep),
        b(f.lprep_adv)
    ));
    if lam && f.lprep_adv {
        if f.at_first_substep {
            s.push("init_cell_kdim_field_with_zero_wp".into());
        }
        s.push("update_mass_flux_weighted".into());
    }
    s.push("exchange Cell(next_rho, next_exner, next_w)".into());
    if lam {
        s.push("compute_exner_from_rhotheta".into());
    }
    s.push("update_theta_and_exner_in_halo".into());
    s
}

/// Every combination of the substep flags (IAU off), as a driver can give them.
fn all_flags() -> Vec<SubstepFlags> {
    let mut all = Vec::new();
    for bits in 0..16u32 {
        let bit = |i: u32| bits & (1 << i) != 0;
        all.push(SubstepFlags {
            at_first_substep: bit(0),
            at_last_substep: bit(1),
            lprep_adv: bit(2),
            at_initial_timestep: bit(3),
            is_iau_active: false,
        });
    }
    all
}

#[test]
fn the_step_list_is_icons_for_every_combination_of_flags() {
    let config = NonHydrostaticConfig::default();
    let [global, limited] = common::grids();
    for (grid, lam) in [(global, false), (limited, true)] {
        let solver = SolveNonhydro::new(config.clone(), grid, &vertical(), 5).unwrap();
        assert_eq!(solver.statics().limited_area, lam);
        let s = solver.statics();
        assert_eq!(
            (s.nflatlev, s.end_index_of_damping_layer, s.kstart_moist),
            (
                p5::NFLATLEV,
                p9::END_INDEX_OF_DAMPING_LAYER,
                p9::KSTART_MOIST
            )
        );
        for flags in all_flags() {
            for divdamp_fac_o2 in [0.0, 0.004, 0.02] {
                for dt_changed in [false, true] {
                    let dt = if dt_changed { 60.0 } else { 0.0 };
                    let v = solver.variants(flags, divdamp_fac_o2, dt);
                    let d = solver.params().divergence_damping(divdamp_fac_o2);
                    assert_eq!(v.recompute_rayleigh_damping_factor, dt_changed);
                    let want =
                        icon_order(flags, d.apply_2nd_order, d.apply_4th_order, lam, dt_changed);
                    assert_eq!(
                        describe(&step_list(&v)),
                        want,
                        "{flags:?}, divdamp_fac_o2 {divdamp_fac_o2}, lam {lam}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_iau_flag_and_the_3d_damping_type_reach_their_programs() {
    let config = NonHydrostaticConfig {
        iau_init: true,
        divdamp_type: DivergenceDampingType::Combined,
        ..NonHydrostaticConfig::default()
    };
    let d = NonHydrostaticParams::new(&config, &vertical(), 1e9)
        .unwrap()
        .divergence_damping(0.0);
    let flags = SubstepFlags {
        at_first_substep: false,
        at_last_substep: false,
        lprep_adv: false,
        at_initial_timestep: false,
        is_iau_active: true,
    };
    let v = Variants::new(&config, flags, &d, false, false);
    let lines = describe(&step_list(&v));
    let iau: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("is_iau_active=true"))
        .collect();
    assert_eq!(iau.len(), 4, "{lines:#?}");
    assert!(lines.iter().all(|l| !l.contains("is_iau_active=false")));
    assert!(lines.contains(&"exchange Cell(next_w, dwdz_at_cells_on_model_levels)".to_string()));
}

/// The slots of the state and the component's workspace.
fn slots() -> Vec<String> {
    SolveNonhydroState::names()
        .map(String::from)
        .chain(workspace().into_iter().map(|(n, _)| n.to_string()))
        .collect()
}

#[test]
fn every_program_in_the_catalog_binds_to_slots_of_the_state() {
    let slots = slots();
    let mut unique = slots.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), slots.len(), "slot names are unique");
    let [_, grid] = common::grids();
    let config = NonHydrostaticConfig::default();
    let statics = Statics::new(&config, grid, &vertical(), 5);
    let mut checked = 0;
    for flags in all_flags() {
        let solver = SolveNonhydro::new(config.clone(), grid, &vertical(), 5).unwrap();
        for item in step_list(&solver.variants(flags, 0.004, 60.0)) {
            let Item::Call(call) = item else { continue };
            let Some(entry) = entry(call.program) else {
                continue;
            };
            let variant = call_variant(&entry, &call.statics, &statics.values()).unwrap();
            let ir = entry.specialize(&variant).unwrap();
            for d in ir.fields.iter().filter(|d| d.role != Role::Temp) {
                let slot = call.slot(&d.name);
                assert!(
                    slots.iter().any(|s| s == slot),
                    "{}: `{}` → `{slot}` is not a slot",
                    call.program,
                    d.name
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} calls checked");
}

#[test]
fn the_intermediate_fields_are_allocated_for_the_grid() {
    let [grid, _] = common::grids();
    let z = IntermediateFields::allocate(grid, NLEV);
    assert_eq!(
        IntermediateFields::NAMES.len(),
        IntermediateFields::dims().len()
    );
    for (name, f) in IntermediateFields::NAMES.iter().zip(z.fields()) {
        assert!(f.as_f64().unwrap().iter().all(|&x| x == 0.0), "{name}");
    }
    assert_eq!(z.temporal_extrapolation_of_perturbed_exner.levels(), NLEV);
    assert_eq!(
        z.nonhydro_buoy_at_cells_on_half_levels.levels(),
        NLEV,
        "z_th_ddz_exner_c: nlev levels, as ICON4Py allocates it"
    );
    assert_eq!(
        z.rho_at_edges_on_model_levels.shape()[0],
        grid.topology.n_edges()
    );
    assert_eq!(z.rayleigh_damping_factor.levels(), NLEV);
}

/// The halo exchanges a substep asks for, in order.
#[derive(Default)]
struct Recorder(Vec<String>);

impl Exchange for Recorder {
    fn start(&mut self, location: Location, names: &[&str], _: &mut [FieldView]) -> Result<()> {
        self.0
            .push(format!("start {location:?}({})", names.join(", ")));
        Ok(())
    }

    fn wait(&mut self, location: Location, names: &[&str], _: &mut [FieldView]) -> Result<()> {
        self.0
            .push(format!("wait {location:?}({})", names.join(", ")));
        Ok(())
    }
}

/// `nflat_gradp` of the test column (the catalog's).
const NFLAT_GRADP: usize = p5::NFLAT_GRADP as usize;
/// The substep (s).
const DTIME: f64 = foehn_icon::velocity_advection::component::inputs::DTIME;

/// The first substep of the initial step, then a later and last one with `lprep_adv`
/// (the same `dtime`: no new Rayleigh factor).
fn substeps() -> [(SubstepFlags, f64); 2] {
    let first = SubstepFlags {
        at_first_substep: true,
        at_last_substep: false,
        lprep_adv: true,
        at_initial_timestep: true,
        is_iau_active: false,
    };
    let later = SubstepFlags {
        at_first_substep: false,
        at_last_substep: true,
        ..first
    };
    [(first, 0.004), (later, 0.0)]
}

#[test]
fn a_substep_agrees_on_every_engine_with_the_chained_references() {
    let [global, limited] = common::grids();
    for grid in [global, limited] {
        let new = |engine, schedule| {
            SolveNonhydro::new(
                NonHydrostaticConfig::default(),
                grid,
                &vertical(),
                NFLAT_GRADP,
            )
            .unwrap()
            .with_schedule(schedule)
            .unwrap()
            .with_engine(engine)
        };
        let cpu = Engine::Cpu(common::cpu());
        let mut solvers = [
            ("reference", new(Engine::Reference, Schedule::Unfused)),
            ("interpreter", new(Engine::Interpreter, Schedule::Unfused)),
            ("cpu", new(cpu, Schedule::Unfused)),
            (
                "interpreter optimised",
                new(Engine::Interpreter, Schedule::Optimised),
            ),
            ("cpu optimised", new(cpu, Schedule::Optimised)),
        ];
        let missing = solvers[0].1.missing_programs();
        assert!(missing.is_empty(), "not in the catalog: {missing:?}");
        let (config, statics) = (solvers[0].1.config().clone(), *solvers[0].1.statics());
        let exchanges = [
            "Edge(next_vn, rho_at_edges_on_model_levels)",
            "Cell(next_w, dwdz_at_cells_on_model_levels)",
            "Edge(next_vn)",
            "Cell(next_rho, next_exner, next_w)",
        ];
        for (step, (flags, fac)) in substeps().into_iter().enumerate() {
            // Each engine from the same random state (a substep's output is no state a
            // second substep can start from: the random fields are not balanced).
            let mut state =
                random_state(&config, &statics, grid, &vertical(), 7 + step as u64).unwrap();
            beyond_the_cfl_limit(&mut state);
            let mut after = Vec::new();
            for (name, solver) in solvers.iter_mut() {
                let mut s = state.clone();
                let mut hook = Recorder::default();
                solver
                    .time_step(&mut s, fac, DTIME, 5, flags, 0.0, &mut hook)
                    .unwrap();
                let want: Vec<String> = exchanges
                    .iter()
                    .flat_map(|x| [format!("start {x}"), format!("wait {x}")])
                    .collect();
                assert_eq!(hook.0, want, "{name}");
                after.push((*name, s));
            }
            let (_, want) = &after[0];
            for (name, got) in &after[1..] {
                let what = format!("{} {name} substep {step}", grid.name);
                for slot in SolveNonhydroState::names() {
                    let (Some(a), Some(b)) = (
                        want.field(slot).unwrap().as_f64(),
                        got.field(slot).unwrap().as_f64(),
                    ) else {
                        continue;
                    };
                    assert_close(&what, slot, a, b);
                }
                let (a, b) = (want.max_vertical_cfl, got.max_vertical_cfl);
                assert!(rel_diff(a, b) <= TOL, "{what}: max_vertical_cfl {a} vs {b}");
            }
            // The substep wrote the next state and left the current one and the
            // constant fields as they were; the CFL maximum was taken.
            for slot in SolveNonhydroState::names() {
                let constant = slot.starts_with("current_")
                    || InterpolationState::NAMES.contains(&slot)
                    || MetricStateNonHydro::NAMES.contains(&slot)
                    || EdgeParams::NAMES.contains(&slot)
                    || CellParams::NAMES.contains(&slot);
                if constant {
                    assert_eq!(want.field(slot), state.field(slot), "{slot}");
                }
            }
            assert!(want.max_vertical_cfl > 0.65, "{}", want.max_vertical_cfl);
            assert_ne!(want.next.vn, state.next.vn);
            assert_ne!(want.next.w, state.next.w);
            assert_ne!(want.next.rho, state.next.rho);
        }
    }
}

/// `w` at level `CFL_LEVEL` of every third cell, current and next state, twice the
/// vertical CFL limit up or down (`±1.3·ddqz_z_half/dtime`), so that the velocity
/// advection's CFL numbers exceed 0.65 and both reductions see them.
fn beyond_the_cfl_limit(state: &mut SolveNonhydroState) {
    const CFL_LEVEL: usize = 4;
    let ddqz = state.metric.ddqz_z_half.clone();
    for w in [&mut state.current.w, &mut state.next.w] {
        let n = w.shape()[0];
        for c in (0..n).step_by(3) {
            let i = w.flat_index(c, 0, CFL_LEVEL);
            let sign = if c % 2 == 0 { 1.0 } else { -1.0 };
            let limit = ddqz.as_f64().unwrap()[ddqz.flat_index(c, 0, CFL_LEVEL)] / DTIME;
            w.as_f64_mut().unwrap()[i] = sign * 1.3 * limit;
        }
    }
}

const TOL: f64 = 1e-12;

fn assert_close(what: &str, slot: &str, want: &[f64], got: &[f64]) {
    assert_eq!(want.len(), got.len(), "{what}: `{slot}`");
    for (i, (a, b)) in want.iter().zip(got).enumerate() {
        assert!(
            rel_diff(*a, *b) <= TOL,
            "{what}: `{slot}`[{i}] {a:e} vs {b:e}"
        );
    }
}

#[test]
fn a_substep_refuses_what_it_cannot_run() {
    let [grid, _] = common::grids();
    let config = NonHydrostaticConfig::default();
    let mut solver = SolveNonhydro::new(config.clone(), grid, &vertical(), NFLAT_GRADP).unwrap();
    let statics = *solver.statics();
    let mut state = random_state(&config, &statics, grid, &vertical(), 3).unwrap();
    let flags = substeps()[0].0;
    let mut hook = Recorder::default();
    // IAU without iau_init.
    let iau = SubstepFlags {
        is_iau_active: true,
        ..flags
    };
    let e = solver
        .time_step(&mut state.clone(), 0.0, DTIME, 5, iau, 0.0, &mut hook)
        .unwrap_err();
    assert!(e.to_string().contains("iau_init"), "{e}");
    // A state of other levels.
    let other = SolveNonhydro::new(config.clone(), grid, &vertical_of(NLEV + 2), NFLAT_GRADP);
    let e = other
        .unwrap()
        .time_step(&mut state, 0.0, DTIME, 5, flags, 0.0, &mut hook)
        .unwrap_err();
    assert!(e.to_string().contains("levels"), "{e}");
    assert!(hook.0.is_empty(), "nothing ran: {:?}", hook.0);
}

#[test]
fn the_fused_schedule_is_refused_for_now() {
    let [grid, _] = common::grids();
    let solver = SolveNonhydro::new(NonHydrostaticConfig::default(), grid, &vertical(), 5).unwrap();
    assert_eq!(solver.schedule(), Schedule::Unfused);
    let e = solver.with_schedule(Schedule::Fused).err().unwrap();
    assert!(e.to_string().contains("not linked"), "{e}");
}

#[test]
fn a_substep_runs_the_specialised_programs_in_icons_order() {
    let [global, limited] = common::grids();
    for grid in [global, limited] {
        let mut solver = SolveNonhydro::new(
            NonHydrostaticConfig::default(),
            grid,
            &vertical(),
            NFLAT_GRADP,
        )
        .unwrap();
        for flags in [substeps()[0].0, substeps()[1].0] {
            let v = solver.variants(flags, 0.004, DTIME);
            let want: Vec<String> = describe(&step_list(&v))
                .iter()
                .filter(|l| !l.starts_with("exchange") && *l != "max_vertical_cfl")
                .flat_map(|l| match l.as_str() {
                    l if l.starts_with("velocity_advection predictor") => vec![
                        "compute_diagnostics_from_normal_wind".to_string(),
                        "compute_advection_in_predictor_vertical_momentum".into(),
                        "compute_advection_in_horizontal_momentum".into(),
                    ],
                    "velocity_advection corrector" => vec![
                        "compute_advection_in_corrector_vertical_momentum".to_string(),
                        "compute_advection_in_horizontal_momentum".into(),
                    ],
                    l => vec![l.split(' ').next().unwrap().to_string()],
                })
                .collect();
            let got: Vec<String> = solver
                .programs(&v)
                .unwrap()
                .iter()
                .map(|p| p.name.clone())
                .collect();
            assert_eq!(got, want, "{} {flags:?}", grid.name);
        }
    }
}

#[test]
fn a_substep_on_caller_owned_views_is_the_substep_on_the_state() {
    let [_, grid] = common::grids();
    let config = NonHydrostaticConfig::default();
    let new = || {
        SolveNonhydro::new(config.clone(), grid, &vertical(), NFLAT_GRADP)
            .unwrap()
            .with_engine(Engine::Reference)
    };
    let statics = *new().statics();
    let state = random_state(&config, &statics, grid, &vertical(), 11).unwrap();
    let (flags, fac) = substeps()[0];
    let mut want = state.clone();
    let mut solver = new();
    assert!(
        solver
            .variants(flags, fac, DTIME)
            .recompute_rayleigh_damping_factor
    );
    let mut hook = Recorder::default();
    solver
        .time_step(&mut want, fac, DTIME, 5, flags, 0.0, &mut hook)
        .unwrap();
    // The Rayleigh factor is recomputed only when dtime changes (ICON4Py
    // `_get_rayleigh_damping_factor`).
    assert!(
        !solver
            .variants(flags, fac, DTIME)
            .recompute_rayleigh_damping_factor
    );
    assert!(
        solver
            .variants(flags, fac, 0.5 * DTIME)
            .recompute_rayleigh_damping_factor
    );
    let mut got = state;
    let mut max = got.max_vertical_cfl;
    let mut views = got.views_mut();
    new()
        .time_step_views(
            &mut views,
            &mut max,
            (fac, DTIME, 5, 0.0),
            flags,
            &mut Recorder::default(),
        )
        .unwrap();
    drop(views);
    got.max_vertical_cfl = max;
    assert_eq!(got, want);
    // A wrong number of views is refused before anything runs.
    let e = new()
        .time_step_views(
            &mut got.views_mut()[1..],
            &mut max,
            (fac, DTIME, 5, 0.0),
            flags,
            &mut Recorder::default(),
        )
        .unwrap_err();
    assert!(e.to_string().contains("field views given"), "{e}");
}

#[test]
fn an_iau_substep_agrees_with_the_chained_references() {
    let [_, grid] = common::grids();
    let config = NonHydrostaticConfig {
        iau_init: true,
        ..NonHydrostaticConfig::default()
    };
    let new = |engine| {
        SolveNonhydro::new(config.clone(), grid, &vertical(), NFLAT_GRADP)
            .unwrap()
            .with_engine(engine)
    };
    let statics = *new(Engine::Reference).statics();
    let state = random_state(&config, &statics, grid, &vertical(), 13).unwrap();
    let flags = SubstepFlags {
        is_iau_active: true,
        ..substeps()[1].0
    };
    let mut after = Vec::new();
    for engine in [Engine::Reference, Engine::Interpreter] {
        let mut s = state.clone();
        new(engine)
            .time_step(&mut s, 0.0, DTIME, 5, flags, 0.5, &mut Recorder::default())
            .unwrap();
        after.push(s);
    }
    for slot in SolveNonhydroState::names() {
        let (Some(a), Some(b)) = (
            after[0].field(slot).unwrap().as_f64(),
            after[1].field(slot).unwrap().as_f64(),
        ) else {
            continue;
        };
        assert_close("iau substep", slot, a, b);
    }
    assert_ne!(after[0].next.vn, state.next.vn);
    // The increments were added: without IAU the substep ends elsewhere.
    let mut without = state.clone();
    let off = SubstepFlags {
        is_iau_active: false,
        ..flags
    };
    new(Engine::Reference)
        .time_step(
            &mut without,
            0.0,
            DTIME,
            5,
            off,
            0.5,
            &mut Recorder::default(),
        )
        .unwrap();
    assert_ne!(without.next.vn, after[0].next.vn);
    assert_ne!(without.next.rho, after[0].next.rho);
}
