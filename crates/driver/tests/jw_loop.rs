//! The time loop on the Jablonowski–Williamson state (R2B2 global grid, 20 levels, CPU
//! backend): total dry mass is conserved to round-off, the steady state stays close to
//! steady, the loop is deterministic, and the interpreter agrees with the CPU backend.

use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::field::Field;
use foehn_driver::jw_run::{self, JwRunSpec};
use foehn_driver::time_loop::Dycore;
use foehn_grid::Location;
use foehn_icon::common::runner::{Engine, Schedule};
use foehn_icon::common::state::PrognosticState;
use foehn_icon::fields::static_fields::GridFields;
use foehn_testkit::grids;
use std::sync::OnceLock;

const NLEV: usize = 20;
/// R2B2's time step: ICON's JW setup takes 300 s at R2B4; the time step scales with the
/// edge length (4× at R2B2).
const DTIME: f64 = 1200.0;

fn spec(wave: bool) -> JwRunSpec {
    JwRunSpec::icon(NLEV, DTIME, !wave)
}

fn fields() -> &'static GridFields<'static> {
    static F: OnceLock<GridFields<'static>> = OnceLock::new();
    F.get_or_init(|| jw_run::fields(grids::global(), &spec(false)).unwrap())
}

/// A loop over the JW steady state (`wave`: the baroclinic wave) on `engine`.
fn dycore(engine: Engine<'static>, wave: bool) -> Dycore<'static> {
    jw_run::dycore(fields(), &spec(wave), engine).unwrap()
}

fn f64s(f: &Field) -> &[f64] {
    f.as_f64().expect("an f64 field")
}

/// Σ ρ·Δz·A over every cell and level, kg.
fn dry_mass(p: &PrognosticState) -> f64 {
    let fields = fields();
    let grid = fields.grid();
    let dz = fields.field("ddqz_z_full").unwrap();
    let (rho, dz) = (f64s(&p.rho), f64s(&dz));
    let area = &grid.geometry.cell_area;
    let n = grid.size(Location::Cell);
    // foehn fields are column-major: the horizontal index runs fastest.
    (0..n)
        .map(|c| {
            (0..NLEV)
                .map(|k| rho[c + n * k] * dz[c + n * k])
                .sum::<f64>()
                * area[c]
        })
        .sum()
}

fn cpu() -> &'static CpuBackend {
    static C: OnceLock<CpuBackend> = OnceLock::new();
    C.get_or_init(CpuBackend::default)
}

#[test]
fn the_steady_state_keeps_its_mass_and_stays_near_steady_over_four_steps() {
    let mut d = dycore(Engine::Cpu(cpu()), false);
    let vn0 = f64s(&d.prognostic().vn).to_vec();
    let m0 = dry_mass(d.prognostic());
    for step in 0..4 {
        let s = d.step().unwrap();
        assert_eq!((s.step, s.substeps), (step, 5));
        let m = dry_mass(d.prognostic());
        let drift = (m - m0).abs() / m0;
        eprintln!("step {step}: relative dry-mass change {drift:e}");
        assert!(drift < 1e-12, "step {step}: dry mass drifted by {drift:e}");
        for f in [&d.prognostic().vn, &d.prognostic().w, &d.prognostic().rho] {
            assert!(f64s(f).iter().all(|x| x.is_finite()), "step {step}");
        }
    }
    let dvn = f64s(&d.prognostic().vn)
        .iter()
        .zip(&vn0)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    eprintln!("steady state after 4 steps of {DTIME} s: max |vn - vn0| = {dvn:.4} m/s");
    assert!(
        dvn < 2.0,
        "the steady state's vn moved by {dvn} m/s in 4 steps"
    );
    assert_eq!(d.time(), 4.0 * DTIME);
}

#[test]
fn two_runs_are_bitwise_equal_and_the_interpreter_agrees_with_the_cpu_backend() {
    let run = |engine| {
        let mut d = dycore(engine, true);
        d.step().unwrap();
        d.prognostic().clone()
    };
    let (a, b) = (run(Engine::Cpu(cpu())), run(Engine::Cpu(cpu())));
    assert_eq!(a, b, "two CPU runs differ");
    let i = run(Engine::Interpreter);
    assert_states_close(&a, &i, 1e-11, "CPU and interpreter");
}

#[test]
fn the_optimised_and_the_unfused_programs_agree() {
    let run = |schedule| {
        let spec = JwRunSpec {
            schedule,
            ..spec(true)
        };
        let mut d = jw_run::dycore(fields(), &spec, Engine::Cpu(cpu())).unwrap();
        d.step().unwrap();
        d.step().unwrap();
        d.prognostic().clone()
    };
    // The run's default is optimised (ADR 0021).
    assert_eq!(spec(true).schedule, Schedule::Optimised);
    let (o, u) = (run(Schedule::Optimised), run(Schedule::Unfused));
    assert_states_close(&o, &u, 1e-11, "optimised and unfused");
}

/// Every prognostic field of `a` and `b` agrees to `rel` of its largest magnitude.
fn assert_states_close(a: &PrognosticState, b: &PrognosticState, rel: f64, what: &str) {
    for (name, x, y) in [
        ("vn", &a.vn, &b.vn),
        ("w", &a.w, &b.w),
        ("rho", &a.rho, &b.rho),
        ("exner", &a.exner, &b.exner),
        ("theta_v", &a.theta_v, &b.theta_v),
    ] {
        let scale = f64s(x)
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs()))
            .max(1e-30);
        let diff = f64s(x)
            .iter()
            .zip(f64s(y))
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max);
        assert!(
            diff <= rel * scale,
            "{name}: {what} differ by {diff:e} (scale {scale:e})"
        );
    }
}
