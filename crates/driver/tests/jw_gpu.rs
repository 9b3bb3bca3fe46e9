//! The Jablonowski–Williamson run on the GPU against the same run on the CPU (issue 16,
//! "agreement across engines"): R2B2 global grid with pentagons, 20 levels, the
//! baroclinic wave, three time steps of five substeps each with diffusion, the whole
//! state on the device ([`DeviceDycore`]) against the host loop ([`Dycore`]) on the CPU
//! backend.
//!
//! - After every step each prognostic field is **bitwise** equal to the CPU run's. Both
//!   engines compile the same IR in the same operation order, neither contracts `a·b + c`
//!   into a fused multiply-add (NVRTC `--fmad=false`, the C compiler
//!   `-ffp-contract=off`), division and square root are correctly rounded on both,
//!   `exp` and `log` are foehn's own and no program calls a math-library function, and
//!   no reduction depends on the order of its terms (the CFL maximum is a maximum; ADR
//!   0035). A failure names the field, the largest difference and where it is.
//!   At scale: the checkpoints of a 1-day R2B4 × 35 run and of 96 R2B5 × 35 steps on
//!   both engines are byte-identical, every slot
//!   (`bench/results/2026-11-25-h100-session19/call4-engines.log`).
//! - Two device runs are bitwise equal, and so is a third that enqueues every substep
//!   program by program instead of replaying its CUDA graph (ADR 0028; from the second
//!   step on the substeps' kinds, parities and scalars repeat, so the default run replays
//!   recordings).
//! - A run whose programs are tuned first (`--schedule tuned`) is bitwise equal to the
//!   untuned device run: tuning changes launch parameters and code shape, not the
//!   arithmetic. It tuned the solver's, velocity advection's and the diffusion's
//!   programs.
//!
//! Without a GPU the tests skip, saying so (`FOEHN_REQUIRE_GPU=1` makes that a failure).

use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::cuda::CudaBackend;
use foehn::runtime::field::Field;
use foehn_driver::jw_run::{self, JwRunSpec};
use foehn_driver::time_loop::{DeviceDycore, Dycore};
use foehn_icon::common::runner::Engine;
use foehn_icon::common::state::PrognosticState;
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::solve_nonhydro::component::SolveNonhydroState;
use foehn_testkit::grids;

const NLEV: usize = 20;
/// R2B2's time step (ICON's 300 s at R2B4, doubled per coarsening).
const DTIME: f64 = 1200.0;
/// Steps compared.
const STEPS: usize = 3;

fn spec() -> JwRunSpec {
    JwRunSpec::icon(NLEV, DTIME, false)
}

fn f64s(f: &Field) -> &[f64] {
    f.as_f64().expect("an f64 field")
}

fn named(p: &PrognosticState) -> [(&'static str, &Field); 5] {
    [
        ("vn", &p.vn),
        ("w", &p.w),
        ("rho", &p.rho),
        ("exner", &p.exner),
        ("theta_v", &p.theta_v),
    ]
}

/// Every prognostic field of `got` equals `want`'s bit for bit (`what` names the
/// comparison); a failure names the field, its largest difference relative to the
/// field's largest magnitude, and the first point that differs.
fn assert_bitwise(want: &PrognosticState, got: &PrognosticState, what: &str) {
    for ((name, w), (_, g)) in named(want).into_iter().zip(named(got)) {
        let (w, g) = (f64s(w), f64s(g));
        let Some(first) = w
            .iter()
            .zip(g)
            .position(|(a, b)| a.to_bits() != b.to_bits())
        else {
            continue;
        };
        let scale = w.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let worst = w
            .iter()
            .zip(g)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f64, f64::max);
        panic!(
            "{what}: {name} is not bitwise equal: largest difference {:e} of its largest \
             magnitude; first at flat index {first} ({:e} against {:e})",
            worst / scale,
            w[first],
            g[first]
        );
    }
}

/// The prognostic state after each of [`STEPS`] steps on the device, substeps recorded
/// as CUDA graphs where `graphs` says so.
fn device_run(fields: &GridFields, cuda: &CudaBackend, graphs: bool) -> Vec<PrognosticState> {
    let spec = spec();
    let parts = jw_run::parts(fields, &spec, Engine::Cuda(cuda)).unwrap();
    let diffusion = parts.diffusion.cuda(cuda).unwrap();
    let mut host: SolveNonhydroState = parts.state.clone();
    // What output and the series download: the current state alone, into a copy that
    // still holds the initial state.
    let mut current_only: SolveNonhydroState = parts.state.clone();
    let mut d = DeviceDycore::new(
        parts.solver,
        cuda,
        Some((&diffusion, &parts.diffusion_state)),
        &parts.state,
        spec.settings.clone(),
    )
    .unwrap()
    .record_substeps(graphs);
    let states = (0..STEPS)
        .map(|_| {
            d.step().unwrap();
            d.download(&mut host).unwrap();
            d.download_current(&mut current_only).unwrap();
            assert_bitwise(
                &host.current,
                &current_only.current,
                "download_current against download",
            );
            host.current.clone()
        })
        .collect();
    let (recorded, replayed) = d.device_state().substep_graphs();
    eprintln!("substeps recorded as CUDA graphs: {recorded}, replayed: {replayed}");
    if graphs {
        assert!(
            recorded > 0 && replayed > 0,
            "{recorded} recorded, {replayed} replayed"
        );
    } else {
        assert_eq!((recorded, replayed), (0, 0));
    }
    states
}

#[test]
fn the_gpu_run_equals_the_cpu_run_and_repeats_bitwise() {
    let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("the JW run on the GPU") else {
        return;
    };
    let fields = jw_run::fields(grids::global(), &spec()).unwrap();
    let cpu = CpuBackend::default();
    let mut host: Dycore = jw_run::dycore(&fields, &spec(), Engine::Cpu(&cpu)).unwrap();
    let device = device_run(&fields, &cuda, true);
    for (step, gpu) in device.iter().enumerate() {
        host.step().unwrap();
        assert_bitwise(
            host.prognostic(),
            gpu,
            &format!("step {step}, gpu against cpu"),
        );
    }
    let again = device_run(&fields, &cuda, true);
    let unrecorded = device_run(&fields, &cuda, false);
    for (step, ((a, b), c)) in device.iter().zip(&again).zip(&unrecorded).enumerate() {
        assert_bitwise(a, b, &format!("step {step}, two device runs"));
        assert_bitwise(
            a,
            c,
            &format!("step {step}, replayed substeps against substeps program by program"),
        );
    }
}

#[test]
fn a_tuned_run_equals_the_untuned_one_and_tunes_every_component() {
    let what = "the tuned JW run on the GPU";
    let Some((_dir, plain)) = foehn_testkit::gpu::cuda_backend(what) else {
        return;
    };
    let Some((dir, tuned)) = foehn_testkit::gpu::cuda_backend(what) else {
        return;
    };
    tuned.tune_programs(foehn_icon::catalog::tuning_inputs);
    let fields = jw_run::fields(grids::global(), &spec()).unwrap();
    let want = device_run(&fields, &plain, true);
    let got = device_run(&fields, &tuned, true);
    for (step, (w, g)) in want.iter().zip(&got).enumerate() {
        assert_bitwise(w, g, &format!("step {step}, tuned against untuned"));
    }
    let tunings: Vec<String> = foehn_cache::Cache::at(dir.path())
        .list()
        .unwrap()
        .into_iter()
        .filter_map(|e| e.meta.map(|m| m.description))
        .filter(|d| d.starts_with("tuning "))
        .collect();
    for program in [
        "diffusion_step",
        "compute_advection_in_horizontal_momentum",
        "compute_rho_theta_pgrad_and_update_vn",
        "vertically_implicit_solver_at_corrector_step",
    ] {
        assert!(
            tunings
                .iter()
                .any(|d| d.starts_with(&format!("tuning {program} "))),
            "no tuning of `{program}` among {tunings:#?}"
        );
    }
}
