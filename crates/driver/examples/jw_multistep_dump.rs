//! Runs foehn's Jablonowski–Williamson steady state on R2B4 × 35 levels on the CPU, set
//! up as `tests/jw_datatest.rs` sets it up (ICON4Py's standalone driver: 300 s, 5
//! substeps, no diffusion before the loop), and writes every point of the five
//! prognostic fields after the requested steps, for comparing several steps with
//! ICON4Py (`scripts/datatest/icon4py_jw_reference.py --steps N --at … --full FILE`;
//! `scripts/datatest/compare_multistep.py` compares the two). With `--wave` it runs the
//! baroclinic wave instead (the perturbation on, `u_p` = 1 m/s at 20°E, 40°N: the
//! initial state of `foehn run jw` without `--steady`; ICON4Py's side is the reference
//! script's `--wave`).
//!
//! ```text
//! cargo run --release -p foehn-driver --example jw_multistep_dump -- \
//!     --at 1,2,3,12,288 --out /tmp/foehn_jw [--wave]
//! ```
//!
//! writes `/tmp/foehn_jw/foehn_step<N>.npz` (and `foehn_step0.npz`, the initial state)
//! with `vn` [edges, 35], `w` [cells, 36], `rho`, `exner`, `theta_v` [cells, 35] and
//! `info` = [step, simulated time s, substeps of the last step, its largest vertical CFL
//! number, the largest vertical CFL number of all steps so far].

use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::field::npy::{save_npz, Array};
use foehn::runtime::field::FieldData;
use foehn_driver::jw_run::{self, JwRunSpec};
use foehn_grid::{Grid, EARTH_RADIUS};
use foehn_icon::common::runner::Engine;
use foehn_icon::common::state::{FieldGroup, PrognosticState};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The command line: the steps after which to write the state, the folder and whether
/// to run the baroclinic wave rather than the steady state.
struct Args {
    at: Vec<u64>,
    out: PathBuf,
    wave: bool,
}

fn usage() -> String {
    "usage: jw_multistep_dump --at N1,N2,… --out DIR [--wave]".into()
}

fn parse_args() -> Result<Args, String> {
    let mut at = None;
    let mut out = None;
    let mut wave = false;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        if a == "--wave" {
            wave = true;
            continue;
        }
        let value = it
            .next()
            .ok_or_else(|| format!("{a} needs a value; {}", usage()))?;
        match a.as_str() {
            "--at" => {
                let steps = value
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .parse::<u64>()
                            .map_err(|e| format!("--at: `{s}` is not a step number ({e})"))
                    })
                    .collect::<Result<Vec<u64>, String>>()?;
                at = Some(steps);
            }
            "--out" => out = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown argument {a}; {}", usage())),
        }
    }
    let mut at = at.ok_or_else(usage)?;
    at.sort_unstable();
    at.dedup();
    Ok(Args {
        at,
        out: out.ok_or_else(usage)?,
        wave,
    })
}

/// Writes `state` with `info` to `dir/foehn_step<step>.npz`.
fn write(dir: &Path, step: u64, state: &PrognosticState, info: [f64; 5]) -> Result<(), String> {
    let mut arrays: Vec<(String, Array)> = PrognosticState::NAMES
        .iter()
        .zip(state.fields())
        .map(|(n, f)| (n.to_string(), f.to_array()))
        .collect();
    arrays.push((
        "info".into(),
        Array {
            shape: vec![info.len()],
            data: FieldData::F64(info.to_vec()),
            file_dtype: None,
        },
    ));
    let path = dir.join(format!("foehn_step{step}.npz"));
    save_npz(&path, arrays.iter().map(|(n, a)| (n.as_str(), a)))
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn run(args: &Args) -> Result<(), String> {
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let grid = Grid::icosahedral(2, 4, EARTH_RADIUS).map_err(|e| format!("R2B4: {e}"))?;
    let mut spec = JwRunSpec::icon(35, 300.0, !args.wave);
    spec.settings.diffuse_before_loop = false;
    let fields = jw_run::fields(&grid, &spec).map_err(|e| e.to_string())?;
    let cpu = CpuBackend::default();
    let mut dycore =
        jw_run::dycore(&fields, &spec, Engine::Cpu(&cpu)).map_err(|e| e.to_string())?;
    let mut max_cfl = 0.0f64;
    if args.at.first() == Some(&0) {
        write(&args.out, 0, dycore.prognostic(), [0.0; 5])?;
    }
    let last = args.at.last().copied().unwrap_or(0);
    let start = Instant::now();
    for step in 1..=last {
        let s = dycore.step().map_err(|e| format!("step {step}: {e}"))?;
        let (last_cfl, substeps) = (s.max_vertical_cfl, s.substeps);
        max_cfl = max_cfl.max(last_cfl);
        if args.at.contains(&step) {
            let info = [step as f64, s.time, substeps as f64, last_cfl, max_cfl];
            write(&args.out, step, dycore.prognostic(), info)?;
            eprintln!(
                "step {step}: t = {} s, {substeps} substeps, vertical CFL {last_cfl:.3e} \
                 (largest so far {max_cfl:.3e}); {:.1} s",
                s.time,
                start.elapsed().as_secs_f64()
            );
        }
    }
    Ok(())
}

fn main() {
    if let Err(e) = parse_args().and_then(|a| run(&a)) {
        eprintln!("jw_multistep_dump: {e}");
        std::process::exit(2);
    }
}
