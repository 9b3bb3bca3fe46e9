//! The nonhydrostatic solver on the CUDA engine with its state on the device (issue 15):
//! several substeps uploaded once, run with the driver's swaps of the prognostic pair
//! and of the tendency slots done on the device (no copies), downloaded after each
//! substep for the comparison, agree with the CPU backend running the same sequence on
//! the host, on a global grid with pentagons and a limited-area grid:
//!
//! - the realistic random state (`component::inputs::random_state`, `w` beyond the CFL
//!   limit in some cells so that both reductions see it), two substeps (the first of
//!   the initial step, the last), unfused;
//! - the state from the grid's fields (`solve_nonhydro::grid_state` over the
//!   Jablonowski–Williamson surface with a perturbed prognostic state), six substeps (a
//!   whole step of five and the first of the next: every flag changes, the Rayleigh
//!   factor at the first), optimised;
//! - two time steps as the driver's loop runs them (diffusion before the first, five
//!   substeps with their swaps, diffusion on the next state, the swap) with the
//!   diffusion bound to the solver's device prognostic buffers
//!   (`DeviceSolveNonhydroState::attach_diffusion`): the whole state stays on the device;
//! - `time_step` on the CUDA engine (upload, substep, download) with a host exchange
//!   hook that sees ICON's four exchange points.
//!
//! Every field of the state and the CFL maximum are bitwise equal to the CPU's, on both
//! grids (ADR 0035; on the limited-area grid `compute_exner_from_rhotheta` diagnoses the
//! boundary's Exner pressure with foehn's own `exp` and `log`, the same bits on every
//! engine). Without a GPU the device tests skip, saying so (and fail with
//! `FOEHN_REQUIRE_GPU=1`).

mod common;

use foehn::error::Result;
use foehn::runtime::cuda::CudaBackend;
use foehn::runtime::field::FieldView;
use foehn_grid::{Grid, Location};
use foehn_icon::common::exchange::{Exchange, NoExchange};
use foehn_icon::common::state::{FieldGroup, PrognosticState};
use foehn_icon::diffusion::component::{Diffusion, DiffusionState};
use foehn_icon::diffusion::config::{DiffusionConfig, DiffusionParams};
use foehn_icon::diffusion::inputs::state as diffusion_state;
use foehn_icon::fields::static_fields::{synthetic_prognostics, GridFields};
use foehn_icon::fields::topography::{JwTopography, Topography};
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid};
use foehn_icon::solve_nonhydro::component::cuda::Parity;
use foehn_icon::solve_nonhydro::component::inputs::random_state;
use foehn_icon::solve_nonhydro::component::{
    Engine, Schedule, SolveNonhydro, SolveNonhydroState, SubstepFlags,
};
use foehn_icon::solve_nonhydro::config::{second_order_divdamp_factor, NonHydrostaticConfig};
use foehn_icon::solve_nonhydro::grid_state;
use foehn_icon::solve_nonhydro::stencils::compute_perturbed_quantities_and_interpolation as p5;

/// Field `name` of the device (`y`) equals the CPU's (`x`) bit for bit.
fn check(what: &str, name: &str, x: &[f64], y: &[f64]) {
    assert_eq!(x.len(), y.len(), "{what}: `{name}`");
    for (i, (p, q)) in x.iter().zip(y).enumerate() {
        assert!(
            p.to_bits() == q.to_bits(),
            "{what}: `{name}`[{i}] cpu {p:e} device {q:e}"
        );
    }
}
/// Substeps per step.
const SUBSTEPS: usize = 5;

/// ICON's substep flags of substep `s` of step `n`.
fn flags(n: usize, s: usize) -> SubstepFlags {
    SubstepFlags {
        at_first_substep: s == 0,
        at_last_substep: s + 1 == SUBSTEPS,
        lprep_adv: true,
        at_initial_timestep: n == 0,
        is_iau_active: false,
    }
}

/// A substep's arguments: flags, `divdamp_fac_o2`, `dtime`, and the swaps before it
/// (vertical-wind tendency, normal-wind tendency).
struct Substep {
    flags: SubstepFlags,
    divdamp_fac_o2: f64,
    dtime: f64,
    swap_w: bool,
    swap_vn: bool,
}

/// Substep `i` of a run of steps of `SUBSTEPS` substeps of `dtime`, as the driver calls
/// it (ICON4Py's driver: the tendency swaps before every substep but the first of the
/// run, resp. of the step).
fn substep(config: &NonHydrostaticConfig, i: usize, dtime: f64) -> Substep {
    let (n, s) = (i / SUBSTEPS, i % SUBSTEPS);
    let step = dtime * SUBSTEPS as f64;
    Substep {
        flags: flags(n, s),
        divdamp_fac_o2: second_order_divdamp_factor(config, (n as f64 + 0.5) * step, step),
        dtime,
        swap_w: i > 0,
        swap_vn: s != 0,
    }
}

/// Runs `substeps` on `host` with the CPU backend and on `device` (from the same state)
/// with the state on the device, comparing after each substep.
fn compare_runs(
    what: &str,
    cpu: &mut SolveNonhydro,
    device: &mut SolveNonhydro,
    cuda: &CudaBackend,
    mut host: SolveNonhydroState,
    substeps: &[Substep],
) {
    let mut dev = device.upload(cuda, &host).unwrap();
    let mut got = host.clone();
    for (i, s) in substeps.iter().enumerate() {
        if s.swap_w {
            host.diagnostic.swap_vertical_wind_tendency();
            dev.swap_vertical_wind_tendency();
        }
        if s.swap_vn {
            host.diagnostic.swap_normal_wind_tendency();
            dev.swap_normal_wind_tendency();
        }
        let args = (s.divdamp_fac_o2, s.dtime, SUBSTEPS, s.flags, 0.0);
        cpu.time_step(
            &mut host,
            args.0,
            args.1,
            args.2,
            args.3,
            args.4,
            &mut NoExchange,
        )
        .unwrap_or_else(|e| panic!("{what}: cpu substep {i}: {e}"));
        device
            .time_step_on_device(
                &mut dev,
                args.0,
                args.1,
                args.2,
                args.3,
                args.4,
                &mut NoExchange,
            )
            .unwrap_or_else(|e| panic!("{what}: device substep {i}: {e}"));
        dev.download(&mut got)
            .unwrap_or_else(|e| panic!("{what}: download after substep {i}: {e}"));
        assert_states_agree(&format!("{what} substep {i}"), &host, &got);
        host.swap_prognostic();
        dev.swap_prognostic();
    }
    // The state on the device swapped as the host's: the slots download in place.
    dev.download(&mut got).unwrap();
    assert_states_agree(&format!("{what} at the end"), &host, &got);
}

/// Every slot and the CFL maximum are bitwise equal.
fn assert_states_agree(what: &str, want: &SolveNonhydroState, got: &SolveNonhydroState) {
    for slot in SolveNonhydroState::names() {
        let (a, b) = (want.field(slot).unwrap(), got.field(slot).unwrap());
        let (Some(x), Some(y)) = (a.as_f64(), b.as_f64()) else {
            assert_eq!(a, b, "{what}: `{slot}`");
            continue;
        };
        check(what, slot, x, y);
    }
    let (a, b) = (want.max_vertical_cfl, got.max_vertical_cfl);
    check(what, "max_vertical_cfl", &[a], &[b]);
}

/// 10 levels up to 75 km with the catalog's `nflatlev`, `nrdmax` and `kstart_moist`
/// (the programs' input generators are built for them).
fn random_vertical() -> VerticalGrid {
    VerticalGrid::new(VerticalConfig {
        model_top_height: 75000.0,
        rayleigh_damping_height: 20000.0,
        flat_height: 10000.0,
        htop_moist_proc: 15000.0,
        ..VerticalConfig::new(10)
    })
}

fn solver<'g>(
    grid: &'g Grid,
    vertical: &VerticalGrid,
    nflat_gradp: usize,
    schedule: Schedule,
    engine: Engine<'g>,
) -> SolveNonhydro<'g> {
    SolveNonhydro::new(NonHydrostaticConfig::default(), grid, vertical, nflat_gradp)
        .unwrap()
        .with_schedule(schedule)
        .unwrap()
        .with_engine(engine)
}

#[test]
fn substeps_on_the_random_state_agree_with_the_cpu() {
    let Some((_dir, cuda)) =
        foehn_testkit::gpu::cuda_backend("the CUDA solve_nonhydro test on the random state")
    else {
        return;
    };
    let vertical = random_vertical();
    let nflat_gradp = p5::NFLAT_GRADP as usize;
    let config = NonHydrostaticConfig::default();
    let dtime = foehn_icon::velocity_advection::component::inputs::DTIME;
    for grid in common::grids() {
        let mut cpu = solver(
            grid,
            &vertical,
            nflat_gradp,
            Schedule::Unfused,
            Engine::Cpu(common::cpu()),
        );
        let mut device = solver(
            grid,
            &vertical,
            nflat_gradp,
            Schedule::Unfused,
            Engine::Cuda(&cuda),
        );
        let mut state = random_state(&config, cpu.statics(), grid, &vertical, 3).unwrap();
        beyond_the_cfl_limit(&mut state, dtime);
        // The first substep of the initial step, then the last one (the random fields
        // are not balanced: a third substep would leave every physical range).
        let substeps: Vec<Substep> = [0, SUBSTEPS - 1]
            .into_iter()
            .map(|i| substep(&config, i, dtime))
            .collect();
        let what = format!("{} random", grid.name);
        compare_runs(
            &what,
            &mut cpu,
            &mut device,
            &cuda,
            state.clone(),
            &substeps,
        );
        let mut first = state.clone();
        cpu.time_step(
            &mut first,
            0.0,
            dtime,
            SUBSTEPS,
            flags(0, 0),
            0.0,
            &mut NoExchange,
        )
        .unwrap();
        assert!(
            first.max_vertical_cfl > 0.65,
            "{what}: {}",
            first.max_vertical_cfl
        );

        // time_step on the CUDA engine: upload, substep, download; the host hook sees
        // ICON's exchange points.
        let s = substep(&config, 0, dtime);
        let (mut want, mut got) = (state.clone(), state);
        cpu.time_step(
            &mut want,
            s.divdamp_fac_o2,
            dtime,
            SUBSTEPS,
            s.flags,
            0.0,
            &mut NoExchange,
        )
        .unwrap();
        let mut hook = Recorder::default();
        device
            .time_step(
                &mut got,
                s.divdamp_fac_o2,
                dtime,
                SUBSTEPS,
                s.flags,
                0.0,
                &mut hook,
            )
            .unwrap();
        assert_states_agree(&format!("{what} time_step"), &want, &got);
        assert_eq!(hook.0.len(), 8, "{what}: {:?}", hook.0);
        // Host views are refused on the CUDA engine.
        let mut max = 0.0;
        let mut views = got.views_mut();
        let flags = s.flags;
        let e = device
            .time_step_views(
                &mut views,
                &mut max,
                (0.0, dtime, 5, 0.0),
                flags,
                &mut NoExchange,
            )
            .unwrap_err();
        assert!(e.to_string().contains("device state"), "{e}");
    }
}

#[test]
fn substeps_on_the_grid_state_agree_with_the_cpu() {
    let Some((_dir, cuda)) =
        foehn_testkit::gpu::cuda_backend("the CUDA solve_nonhydro test on the grid state")
    else {
        return;
    };
    let config = NonHydrostaticConfig::default();
    let dtime = 300.0 / SUBSTEPS as f64;
    for grid in common::grids() {
        let (f, state) = jw_fields(grid);
        let (v, nflat_gradp) = (&f.statics.vertical, f.statics.metrics.nflat_gradp);
        let cpu_engine = Engine::Cpu(common::cpu());
        let mut cpu = solver(grid, v, nflat_gradp, Schedule::Unfused, cpu_engine);
        let mut device = solver(
            grid,
            v,
            nflat_gradp,
            Schedule::Optimised,
            Engine::Cuda(&cuda),
        );
        let substeps: Vec<Substep> = (0..SUBSTEPS + 1)
            .map(|i| substep(&config, i, dtime))
            .collect();
        let what = format!("{} grid state", grid.name);
        compare_runs(&what, &mut cpu, &mut device, &cuda, state, &substeps);
    }
}

/// The grid's fields over the Jablonowski–Williamson surface (15 levels up to 75 km)
/// and the solver's state on them with a perturbed prognostic state.
fn jw_fields(grid: &Grid) -> (GridFields<'_>, SolveNonhydroState) {
    let vertical = VerticalConfig {
        model_top_height: 75000.0,
        rayleigh_damping_height: 50000.0,
        flat_height: 5000.0,
        htop_moist_proc: 20000.0,
        ..VerticalConfig::new(15)
    };
    let jw = Topography::JablonowskiWilliamson(JwTopography::default());
    let f = GridFields::compute(grid, vertical, &jw).unwrap();
    let mut named = synthetic_prognostics(&f, 3.0, 5);
    let prognostic = <PrognosticState as FieldGroup>::from_named(&mut named).unwrap();
    let state = grid_state(&f, &prognostic).unwrap();
    (f, state)
}

/// The diffusion on `target` (the current or the next prognostic state), through the
/// diffusion state's own prognostic slot (as the driver's time loop does).
fn diffuse_host(
    diffusion: &mut Diffusion,
    dstate: &mut DiffusionState,
    target: &mut PrognosticState,
    dtime: f64,
    initial_run: bool,
) {
    std::mem::swap(&mut dstate.prognostic, target);
    let r = diffusion.run(dstate, dtime, initial_run);
    std::mem::swap(&mut dstate.prognostic, target);
    r.unwrap();
}

#[test]
fn a_time_step_with_the_diffusion_on_the_solvers_device_buffers_agrees_with_the_cpu() {
    let Some((_dir, cuda)) =
        foehn_testkit::gpu::cuda_backend("the CUDA time step with diffusion on the device")
    else {
        return;
    };
    let nh = NonHydrostaticConfig::default();
    let dconfig = DiffusionConfig::default();
    let step = 300.0;
    let dt = step / SUBSTEPS as f64;
    for grid in common::grids() {
        let (f, state) = jw_fields(grid);
        let (v, nflat_gradp) = (&f.statics.vertical, f.statics.metrics.nflat_gradp);
        let cpu_engine = Engine::Cpu(common::cpu());
        let mut cpu = solver(grid, v, nflat_gradp, Schedule::Unfused, cpu_engine);
        let mut device = solver(grid, v, nflat_gradp, Schedule::Unfused, Engine::Cuda(&cuda));
        let params = DiffusionParams::new(&dconfig, v, false);
        let new_diffusion = || Diffusion::new(&dconfig, &params, grid, v).unwrap();
        let mut diffusion = new_diffusion().with_engine(cpu_engine);
        let on_device = new_diffusion();
        let programs = on_device.cuda(&cuda).unwrap();
        let dstate = diffusion_state::grid_state(&f, &dconfig, 0).unwrap();
        let what = format!("{} time step", grid.name);

        // The CPU: the driver's step (diffusion before the first step, the substeps
        // with their swaps, diffusion on the next state, the swap), twice.
        let (mut host, mut hd) = (state.clone(), dstate.clone());
        let mut dev = device.upload(&cuda, &state).unwrap();
        dev.attach_diffusion(&programs, &dstate, grid).unwrap();
        for n in 0..2 {
            if n == 0 {
                diffuse_host(&mut diffusion, &mut hd, &mut host.current, step, true);
                dev.diffuse(step, true, true).unwrap();
            }
            for s in 0..SUBSTEPS {
                let i = n * SUBSTEPS + s;
                let sub = substep(&nh, i, dt);
                if sub.swap_w {
                    host.diagnostic.swap_vertical_wind_tendency();
                    dev.swap_vertical_wind_tendency();
                }
                if sub.swap_vn {
                    host.diagnostic.swap_normal_wind_tendency();
                    dev.swap_normal_wind_tendency();
                }
                let a = (sub.divdamp_fac_o2, dt, SUBSTEPS, sub.flags, 0.0);
                cpu.time_step(&mut host, a.0, a.1, a.2, a.3, a.4, &mut NoExchange)
                    .unwrap();
                device
                    .time_step_on_device(&mut dev, a.0, a.1, a.2, a.3, a.4, &mut NoExchange)
                    .unwrap_or_else(|e| panic!("{what}: substep {i}: {e}"));
                if s + 1 != SUBSTEPS {
                    host.swap_prognostic();
                    dev.swap_prognostic();
                }
            }
            diffuse_host(&mut diffusion, &mut hd, &mut host.next, step, false);
            dev.diffuse(step, false, false).unwrap();
            host.swap_prognostic();
            dev.swap_prognostic();
            let mut got = state.clone();
            dev.download(&mut got).unwrap();
            assert_states_agree(&format!("{what} {n}"), &host, &got);
            let mut got_d = dstate.clone();
            dev.download_diffusion(&mut got_d).unwrap();
            for name in ["hdef_ic", "div_ic"] {
                let (a, b) = (hd.field(name).unwrap(), got_d.field(name).unwrap());
                let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
                check(&format!("{what} {n}: diffusion"), name, x, y);
            }
        }
    }
}

/// `w` at level 4 of every third cell, current and next state, ±1.3 times the vertical
/// CFL limit (`ddqz_z_half/dtime`), so that the CFL numbers exceed 0.65.
fn beyond_the_cfl_limit(state: &mut SolveNonhydroState, dtime: f64) {
    const LEVEL: usize = 4;
    let ddqz = state.metric.ddqz_z_half.clone();
    for w in [&mut state.current.w, &mut state.next.w] {
        for c in (0..w.shape()[0]).step_by(3) {
            let i = w.flat_index(c, 0, LEVEL);
            let sign = if c % 2 == 0 { 1.0 } else { -1.0 };
            let limit = ddqz.as_f64().unwrap()[ddqz.flat_index(c, 0, LEVEL)] / dtime;
            w.as_f64_mut().unwrap()[i] = sign * 1.3 * limit;
        }
    }
}

/// Records the exchange calls it gets.
#[derive(Default)]
struct Recorder(Vec<String>);

impl Exchange for Recorder {
    fn start(&mut self, location: Location, names: &[&str], _: &mut [FieldView]) -> Result<()> {
        self.0
            .push(format!("start {location:?} {}", names.join(",")));
        Ok(())
    }

    fn wait(&mut self, location: Location, names: &[&str], _: &mut [FieldView]) -> Result<()> {
        self.0
            .push(format!("wait {location:?} {}", names.join(",")));
        Ok(())
    }
}

#[test]
fn a_swap_points_each_slot_of_a_pair_at_the_other_buffer() {
    let none = Parity::default();
    assert_eq!(none.buffer("current_vn"), "current_vn");
    let swapped = Parity {
        prognostic: true,
        ..none
    };
    for (a, b) in [
        ("current_vn", "next_vn"),
        ("next_theta_v", "current_theta_v"),
    ] {
        assert_eq!(swapped.buffer(a), b);
    }
    assert_eq!(swapped.buffer("mass_flx_me"), "mass_flx_me");
    let vn = Parity {
        normal_wind_tendency: true,
        ..none
    };
    assert_eq!(
        vn.buffer("normal_wind_advective_tendency_predictor"),
        "normal_wind_advective_tendency_corrector"
    );
    assert_eq!(
        vn.buffer("vertical_wind_advective_tendency_predictor"),
        "vertical_wind_advective_tendency_predictor"
    );
    let w = Parity {
        vertical_wind_tendency: true,
        ..none
    };
    assert_eq!(
        w.buffer("vertical_wind_advective_tendency_corrector"),
        "vertical_wind_advective_tendency_predictor"
    );
    assert_eq!(w.buffer("current_w"), "current_w");
}
