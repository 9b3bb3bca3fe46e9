//! Checkpoint/restart of the time loop on the Jablonowski–Williamson wave (R2B2 global
//! grid, few levels): a run stopped halfway, written to a file and continued by a fresh
//! loop ends bit for bit where the uninterrupted run ends — prognostic state, every
//! carried field, the work fields and the clock — with the CFL watch mode engaged (`w`
//! jolted beyond the CFL limit over the first steps, a low CFL threshold: the substep
//! count grows, and falls again after the checkpoint) on the CPU, and on the GPU when there is one
//! (skipped otherwise, saying so; `FOEHN_REQUIRE_GPU=1` makes the skip a failure). A
//! checkpoint of another grid or configuration, and a truncated, damaged or foreign
//! file, are refused with errors naming the file and what is wrong.

use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::cuda::CudaBackend;
use foehn_driver::checkpoint::Checkpoint;
use foehn_driver::jw_run::{self, JwRunSpec};
use foehn_driver::time_loop::{DeviceDycore, Dycore, StepSummary};
use foehn_icon::common::runner::Engine;
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::solve_nonhydro::component::SolveNonhydroState;
use foehn_testkit::grids;
use std::path::Path;
use std::sync::OnceLock;

const NLEV: usize = 12;
/// Steps after which the state is jolted again ([`steps`]).
const JOLTED: u64 = STEPS / 2;
/// R2B2's time step (ICON's 300 s at R2B4, 4× the edge length).
const DTIME: f64 = 1200.0;
/// Steps of the uninterrupted run; the restart is at half.
const STEPS: u64 = 6;
/// A vertical CFL threshold low enough that the jolt ([`jolt`]) starts the CFL watch
/// mode and raises the substep count for some steps (ICON's is 0.85).
const VCFL_THRESHOLD: f64 = 0.3;

fn spec() -> JwRunSpec {
    let mut s = JwRunSpec::icon(NLEV, DTIME, false);
    s.settings.vcfl_threshold = VCFL_THRESHOLD;
    s
}

fn fields() -> &'static GridFields<'static> {
    static F: OnceLock<GridFields<'static>> = OnceLock::new();
    F.get_or_init(|| jw_run::fields(grids::global(), &spec()).unwrap())
}

fn cpu() -> &'static CpuBackend {
    static C: OnceLock<CpuBackend> = OnceLock::new();
    C.get_or_init(CpuBackend::default)
}

fn description() -> String {
    jw_run::description(&spec())
}

/// `w` at level 4 of every seventh cell, current and next state, ±1.3 times the
/// vertical CFL limit of a substep (`ddqz_z_half/dt`): the velocity advection's CFL
/// numbers, 0 while `w` keeps below it (ICON computes them only where it clips), exceed
/// the threshold.
fn jolt(state: &mut SolveNonhydroState) {
    const LEVEL: usize = 4;
    let dt = DTIME / 5.0;
    let ddqz = state.metric.ddqz_z_half.clone();
    let ddqz = |c| ddqz.as_f64().unwrap()[ddqz.flat_index(c, 0, LEVEL)];
    for w in [&mut state.current.w, &mut state.next.w] {
        for c in (0..w.shape()[0]).step_by(7) {
            let i = w.flat_index(c, 0, LEVEL);
            let sign = if c % 2 == 0 { 1.0 } else { -1.0 };
            w.as_f64_mut().unwrap()[i] = sign * 1.3 * ddqz(c) / dt;
        }
    }
}

/// A loop from the jolted JW wave on the CPU backend.
fn dycore() -> Dycore<'static> {
    let spec = spec();
    let mut p = jw_run::parts(fields(), &spec, Engine::Cpu(cpu())).unwrap();
    jolt(&mut p.state);
    let diffusion = Some((p.diffusion, p.diffusion_state));
    Dycore::new(p.solver, diffusion, p.state, spec.settings).unwrap()
}

/// Steps of the loop `d` while fewer than `n` are done, jolting the state after each of
/// the first [`JOLTED`] steps (so the CFL numbers stay high and the substeps grow).
fn steps(d: &mut Dycore, n: u64) -> Vec<StepSummary> {
    let mut out = Vec::new();
    while d.clock().steps_done() < n {
        out.push(d.step().unwrap());
        if d.clock().steps_done() <= JOLTED {
            jolt(d.state_mut());
        }
    }
    out
}

/// The step summaries, with the CFL number's bits.
fn bits(s: &[StepSummary]) -> Vec<(u64, u64, usize, u64)> {
    s.iter()
        .map(|s| {
            (
                s.step,
                s.time.to_bits(),
                s.substeps,
                s.max_vertical_cfl.to_bits(),
            )
        })
        .collect()
}

/// The uninterrupted run: its checkpoint at the end and its step summaries (computed
/// once per test process).
fn straight() -> &'static (Checkpoint, Vec<StepSummary>) {
    static S: OnceLock<(Checkpoint, Vec<StepSummary>)> = OnceLock::new();
    S.get_or_init(|| {
        let mut d = dycore();
        let s = steps(&mut d, STEPS);
        (d.checkpoint(&description()), s)
    })
}

fn largest_abs(c: &Checkpoint, name: &str) -> f64 {
    let f = c.fields.iter().find(|f| f.name == name).expect(name);
    match &f.data {
        foehn::runtime::field::FieldData::F64(v) => v.iter().fold(0.0f64, |m, x| m.max(x.abs())),
        _ => panic!("{name} is not f64"),
    }
}

#[test]
fn a_restart_from_a_file_continues_bit_for_bit_with_the_cfl_watch_mode_engaged() {
    let (want, want_steps) = straight();
    let substeps: Vec<usize> = want_steps.iter().map(|s| s.substeps).collect();
    eprintln!(
        "substeps {substeps:?}, CFL {:?}",
        want_steps
            .iter()
            .map(|s| s.max_vertical_cfl)
            .collect::<Vec<_>>()
    );
    assert!(
        substeps.iter().any(|&n| n > 5),
        "the watch mode never raised the substeps: {substeps:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("jw.ckpt");
    let mut first = dycore();
    let first_steps = steps(&mut first, STEPS / 2);
    let saved = first.checkpoint(&description());
    assert!(
        saved.clock.cfl_watch_active && saved.clock.ndyn_substeps_var > 5,
        "the checkpoint should be taken inside the watch mode: {:?}",
        saved.clock
    );
    saved.write(&path).unwrap();
    drop(first);

    let read = Checkpoint::read(&path).unwrap();
    assert_eq!(read.first_difference(&saved), None, "the file reads back");
    let mut second = dycore();
    second.restore(read, &description()).unwrap();
    assert_eq!(second.clock().steps_done(), STEPS / 2);
    let second_steps = steps(&mut second, STEPS);
    let got = second.checkpoint(&description());

    let all: Vec<StepSummary> = first_steps.into_iter().chain(second_steps).collect();
    assert_eq!(bits(&all), bits(want_steps), "step summaries");
    assert_eq!(got.first_difference(want), None, "restart vs straight run");
    // The run moved: the wave has vertical motion and the carried tendencies are set.
    assert!(largest_abs(want, "current_w") > 1e-4);
    assert!(largest_abs(want, "normal_wind_advective_tendency_corrector") > 1e-6);
    assert!(largest_abs(want, "mass_flux_at_edges_on_model_levels") > 1.0);
}

#[test]
fn a_checkpoint_before_the_first_step_restarts_with_the_initial_diffusion() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t0.ckpt");
    dycore().checkpoint(&description()).write(&path).unwrap();
    let mut d = dycore();
    d.restore(Checkpoint::read(&path).unwrap(), &description())
        .unwrap();
    let s = steps(&mut d, 2);
    assert_eq!(bits(&s), bits(&straight().1[..2]));
}

/// The error of restoring `c` into a loop of `spec` on `fields`.
fn refusal(c: Checkpoint, fields: &'static GridFields<'static>, spec: &JwRunSpec) -> String {
    let mut d = jw_run::dycore(fields, spec, Engine::Cpu(cpu())).unwrap();
    d.restore(c, &jw_run::description(spec))
        .unwrap_err()
        .to_string()
}

#[test]
fn a_checkpoint_of_another_grid_levels_or_configuration_is_refused_saying_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r2b1.ckpt");
    let r2b1: &'static GridFields<'static> = Box::leak(Box::new(
        jw_run::fields(grids::small_global(), &spec()).unwrap(),
    ));
    let other = jw_run::dycore(r2b1, &spec(), Engine::Cpu(cpu())).unwrap();
    other.checkpoint(&description()).write(&path).unwrap();
    let e = refusal(Checkpoint::read(&path).unwrap(), fields(), &spec());
    let name = &grids::small_global().name;
    for part in [
        &path.display().to_string(),
        "written on grid",
        name,
        "this run is on",
    ] {
        assert!(e.contains(part), "`{part}` missing from: {e}");
    }

    let saved = || Checkpoint::read(&path).unwrap();
    let mut shallower = spec();
    shallower.vertical = foehn_icon::fields::vertical::VerticalConfig::new(NLEV - 2);
    let r2b1_shallow: &'static GridFields<'static> = Box::leak(Box::new(
        jw_run::fields(grids::small_global(), &shallower).unwrap(),
    ));
    let e = refusal(saved(), r2b1_shallow, &shallower);
    assert!(e.contains(&format!("× {NLEV} levels")), "{e}");
    assert!(e.contains(&format!("× {} levels", NLEV - 2)), "{e}");

    let mut shorter = spec();
    shorter.settings.dtime = DTIME / 2.0;
    let e = refusal(saved(), r2b1, &shorter);
    assert!(
        e.contains("time-loop settings differs") && e.contains("600"),
        "{e}"
    );

    let mut diffusion = spec();
    diffusion.diffusion.smagorinski_scaling_factor *= 2.0;
    let e = refusal(saved(), r2b1, &diffusion);
    assert!(e.contains("run configuration differs"), "{e}");

    // The same spec on the same grid is accepted.
    let mut d = jw_run::dycore(r2b1, &spec(), Engine::Cpu(cpu())).unwrap();
    d.restore(saved(), &description()).unwrap();
}

fn read_err(path: &Path) -> String {
    Checkpoint::read(path).unwrap_err().to_string()
}

#[test]
fn truncated_damaged_and_foreign_files_are_refused_and_foreign_files_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("jw.ckpt");
    let c = dycore().checkpoint(&description());
    c.write(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let shown = path.display().to_string();

    let cut = dir.path().join("cut.ckpt");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = read_err(&cut);
    assert!(e.contains("cut.ckpt") && e.contains("truncated"), "{e}");

    let mut damaged = bytes.clone();
    let i = bytes.len() - 1000;
    damaged[i] ^= 0x10;
    std::fs::write(&path, &damaged).unwrap();
    let e = read_err(&path);
    assert!(e.contains(&shown) && e.contains("checksum"), "{e}");

    // A checkpoint is replaced; another file is left alone.
    c.write(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "my notes").unwrap();
    let e = read_err(&notes);
    assert!(
        e.contains("notes.txt") && e.contains("not a foehn checkpoint"),
        "{e}"
    );
    let e = c.write(&notes).unwrap_err().to_string();
    assert!(
        e.contains("not a foehn checkpoint") && e.contains("not overwriting"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes");
    let e = read_err(&dir.path().join("missing.ckpt"));
    assert!(
        e.contains("missing.ckpt") && e.contains("cannot open"),
        "{e}"
    );
}

/// `n` steps on the GPU from the JW state or from `from`; the checkpoint at the end.
fn device_run(cuda: &CudaBackend, from: Option<Checkpoint>, n: u64) -> Checkpoint {
    let spec = spec();
    let p = jw_run::parts(fields(), &spec, Engine::Cuda(cuda)).unwrap();
    let diffusion = p.diffusion.cuda(cuda).unwrap();
    let mut host = p.state.clone();
    jolt(&mut host);
    let attached = Some((&diffusion, &p.diffusion_state));
    let settings = spec.settings.clone();
    let mut d = match from {
        Some(c) => DeviceDycore::resume(
            p.solver,
            cuda,
            attached,
            &mut host,
            settings,
            c,
            &description(),
        ),
        None => DeviceDycore::new(p.solver, cuda, attached, &host, settings),
    }
    .unwrap();
    for _ in 0..n {
        d.step().unwrap();
    }
    d.checkpoint(&mut host, &description()).unwrap()
}

#[test]
fn on_the_gpu_a_restart_from_a_file_continues_bit_for_bit() {
    let Some((_cache, cuda)) = foehn_testkit::gpu::cuda_backend("the GPU restart test") else {
        return;
    };
    let want = device_run(&cuda, None, STEPS);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gpu.ckpt");
    // The jolt starts the watch mode in the first step (the device loop is not jolted
    // again: it leaves the mode after the second).
    let early = device_run(&cuda, None, 1);
    assert!(early.clock.cfl_watch_active, "{:?}", early.clock);
    early.write(&path).unwrap();
    let got = device_run(&cuda, Some(Checkpoint::read(&path).unwrap()), STEPS - 1);
    assert_eq!(
        got.first_difference(&want),
        None,
        "GPU restart vs straight run"
    );
    assert!(largest_abs(&want, "current_w") > 1e-4);
    assert!(want.clock.ndyn_substeps_var >= 5 && want.clock.steps_done == STEPS);
}

/// The engines compute bit for bit alike (`jw_gpu.rs`), so a checkpoint is not tied to
/// the engine that wrote it: a CPU run's checkpoint continued on the GPU, and a GPU run's
/// continued on the CPU, both end bitwise equal to the uninterrupted GPU run, every slot.
#[test]
fn on_the_gpu_a_checkpoint_of_either_engine_continues_on_the_other_bit_for_bit() {
    let Some((_cache, cuda)) = foehn_testkit::gpu::cuda_backend("the cross-engine restart test")
    else {
        return;
    };
    let want = device_run(&cuda, None, STEPS);
    let dir = tempfile::tempdir().unwrap();

    // One CPU step from the same jolted state, then the rest on the GPU.
    let mut cpu_run = dycore();
    cpu_run.step().unwrap();
    let path = dir.path().join("cpu.ckpt");
    cpu_run.checkpoint(&description()).write(&path).unwrap();
    let got = device_run(&cuda, Some(Checkpoint::read(&path).unwrap()), STEPS - 1);
    assert_eq!(
        got.first_difference(&want),
        None,
        "CPU checkpoint continued on the GPU vs the GPU's straight run"
    );

    // One GPU step, then the rest on the CPU.
    let path = dir.path().join("gpu.ckpt");
    device_run(&cuda, None, 1).write(&path).unwrap();
    let mut second = dycore();
    second
        .restore(Checkpoint::read(&path).unwrap(), &description())
        .unwrap();
    while second.clock().steps_done() < STEPS {
        second.step().unwrap();
    }
    assert_eq!(
        second.checkpoint(&description()).first_difference(&want),
        None,
        "GPU checkpoint continued on the CPU vs the GPU's straight run"
    );
    assert!(largest_abs(&want, "current_w") > 1e-4);
}
