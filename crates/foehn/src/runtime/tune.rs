//! Autotuning of GPU launch parameters: for every kernel of a schedule, the k-block
//! (levels a thread walks, compiled in), the unroll factor of that loop (registers
//! against memory-level parallelism), the block order (k-major or h-major) and the
//! block size (threads per block) are
//! measured on the device over a small candidate set, and the fastest pair is kept.
//! Then, on top of that choice, the kernel's code options are flipped one at a time
//! ([`Flag`]: branch-local loads, hoisting, prefetching level windows, the lockstep
//! register cap, a register cap elsewhere, what slot selection hoists) and a flip is
//! kept where it makes the kernel at least 1 % faster (flips apply in order, a later cap
//! replacing an earlier one): which of them pays depends on the data (how often a
//! `where` branch is taken) and the variant, so it is measured, not modelled. The first
//! stage's distinct sources are compiled in parallel before any candidate is timed, so
//! tuning a large program (`dycore_substep`) costs a few rounds of compilation, not one
//! per candidate.
//! Results are persisted in the compiled-program cache, keyed by program (IR content
//! hash), schedule, code-generation options, grid size and device, so later runs — and
//! other processes — reuse them without measuring again.
//!
//! Without tuning the launch model picks the block size (`codegen::cuda`) and the
//! optimiser's k-block applies.

use crate::error::{Error, Result};
use crate::ir::{KernelPlan, Program, Schedule, SelectHoist};
use crate::opt::schedule::set_launch;
use crate::runtime::cuda::CudaBackend;
pub use crate::runtime::cuda::InputsProvider;
use crate::runtime::field::Args;
use foehn_cache::{KeyBuilder, Origin};
use foehn_grid::Grid;
use rayon::prelude::*;

/// k-blocks tried (kernels that cannot be k-blocked ignore them).
pub const K_BLOCKS: [usize; 6] = [1, 2, 4, 8, 16, 32];
/// Unroll factors of the k-block loop tried (with k-blocks above 1).
pub const UNROLLS: [u32; 2] = [1, 4];
/// Block sizes tried.
pub const BLOCKS: [u32; 4] = [64, 128, 256, 512];
/// Timed launches per candidate and kernel (median taken).
const RUNS: usize = 7;
/// Timed launches per measurement of the second stage: more than [`RUNS`], so that a
/// gain of [`FLIP_GAIN`] stands out of the noise.
const FLIP_RUNS: usize = 21;
/// Version of the tuning procedure and file format (part of the cache key).
const TUNE_VERSION: &str = "foehn-tune-5";
/// A flipped code option is kept only when the kernel gets at least this much faster
/// (relative), so measurement noise does not churn the choice.
const FLIP_GAIN: f64 = 0.01;

/// A per-kernel code option the tuner flips (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Flag {
    /// Loads first needed inside a data-dependent branch stay in it
    /// ([`KernelPlan::branch_local`]; only with hoisting).
    BranchLocal,
    /// Level-invariant loads before the level loop ([`KernelPlan::hoist`]).
    Hoist,
    /// Lockstep level windows loaded one level ahead ([`KernelPlan::level_prefetch`];
    /// only for lockstep kernels with windows).
    Prefetch,
    /// The lockstep kernels' register cap ([`KernelPlan::max_registers`]) lifted (only
    /// where one is set).
    RegisterCap,
    /// A cap of 64 registers a thread on a kernel that is not a lockstep one (more
    /// warps resident, against spills).
    Cap64,
    /// A cap of 80 registers a thread, likewise.
    Cap80,
    /// Under slot selection, only both slots' indices hoisted, not their values
    /// ([`KernelPlan::select_hoist`], ADR 0024): fewer registers for the level loop.
    SelectHoistIndices,
}

/// The flags, in the order they are tried.
pub const FLAGS: [Flag; 7] = [
    Flag::BranchLocal,
    Flag::Hoist,
    Flag::Prefetch,
    Flag::RegisterCap,
    Flag::Cap64,
    Flag::Cap80,
    Flag::SelectHoistIndices,
];

impl Flag {
    /// Flips the option in `kp`; false where it does not apply to the kernel.
    fn flip(self, kp: &mut KernelPlan) -> bool {
        match self {
            Flag::BranchLocal if kp.hoist => kp.branch_local = !kp.branch_local,
            Flag::Hoist if kp.lockstep.is_none() => kp.hoist = !kp.hoist,
            Flag::Prefetch if kp.lockstep.is_some() && kp.level_windows => {
                kp.level_prefetch = !kp.level_prefetch
            }
            Flag::RegisterCap if kp.lockstep.is_some() && kp.max_registers.is_some() => {
                kp.max_registers = None
            }
            Flag::Cap64 if kp.lockstep.is_none() => kp.max_registers = Some(64),
            Flag::Cap80 if kp.lockstep.is_none() => kp.max_registers = Some(80),
            Flag::SelectHoistIndices
                if kp.slot_select && kp.select_hoist == SelectHoist::IndicesAndValues =>
            {
                kp.select_hoist = SelectHoist::Indices
            }
            _ => return false,
        }
        true
    }

    /// Its name in the tuning file and the tuner's report.
    fn name(self) -> &'static str {
        match self {
            Flag::BranchLocal => "branchlocal",
            Flag::Hoist => "hoist",
            Flag::Prefetch => "prefetch",
            Flag::RegisterCap => "regcap",
            Flag::Cap64 => "cap64",
            Flag::Cap80 => "cap80",
            Flag::SelectHoistIndices => "selecthoistindices",
        }
    }
}

/// The choice for one kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelChoice {
    /// Levels per thread.
    pub k_block: usize,
    /// Unroll factor of the k-block loop.
    pub unroll: u32,
    /// k-major block order.
    pub k_major: bool,
    /// Threads per block.
    pub block: u32,
    /// The code options flipped from the schedule's (in [`FLAGS`] order).
    pub flipped: Vec<Flag>,
    /// Measured median time of the choice (ms).
    pub ms: f64,
    /// Measured median time with the untuned defaults (ms).
    pub default_ms: f64,
}

/// What tuning chose, per kernel of the schedule, and whether it was measured now.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuning {
    /// One entry per kernel (kernels with no points: `None`).
    pub kernels: Vec<Option<KernelChoice>>,
    /// Cache hit (reused) or measured now.
    pub origin: Origin,
}

impl Tuning {
    /// Whether it was measured now (not reused from the cache).
    pub fn measured_now(&self) -> bool {
        self.origin != Origin::Hit
    }

    /// The kernels' summed times untuned and tuned, in ms.
    pub fn total_ms(&self) -> (f64, f64) {
        self.kernels
            .iter()
            .flatten()
            .fold((0.0, 0.0), |(d, t), c| (d + c.default_ms, t + c.ms))
    }
}

fn tune_err(p: &Program, message: String) -> Error {
    Error::Compile {
        program: p.name.clone(),
        message: format!("tuning: {message}"),
    }
}

/// The host fields a tuning measures on.
#[derive(Clone, Copy)]
pub enum Inputs<'a> {
    /// These fields.
    Given(&'a Args),
    /// Fields made by this function, called only when the tuning is measured (not when
    /// it is reused from the cache): realistic inputs on a large grid take seconds.
    Made(&'a (dyn Fn() -> Args + Sync)),
}

/// What one tuning run measures: a program's resolved schedule on a grid with `nlev`
/// levels, run on host fields `args` (uploaded once when measuring).
pub struct Case<'a> {
    /// The (optimised) program.
    pub p: &'a Program,
    /// Its resolved schedule.
    pub schedule: &'a Schedule,
    /// The grid measured on.
    pub grid: &'a Grid,
    /// Levels.
    pub nlev: usize,
    /// Host fields.
    pub args: Inputs<'a>,
}

/// What every measurement of one tuning run shares.
struct Bench<'a> {
    cuda: &'a CudaBackend,
    case: &'a Case<'a>,
    dev: &'a crate::runtime::cuda::DeviceArgs,
}

/// One kernel's time under a candidate, with the k-block and block order applied.
#[derive(Clone, Copy)]
struct Measured {
    ms: f64,
    k_block: usize,
    k_major: bool,
}

/// One point of the search space (`None`: the untuned default).
#[derive(Clone, Copy)]
struct Candidate {
    k_block: Option<usize>,
    unroll: Option<u32>,
    k_major: Option<bool>,
    block: Option<u32>,
}

impl Candidate {
    /// The untuned defaults.
    const DEFAULT: Candidate = Candidate {
        k_block: None,
        unroll: None,
        k_major: None,
        block: None,
    };

    /// `schedule` with every kernel launched as this candidate says.
    fn schedule(self, p: &Program, schedule: &Schedule) -> Schedule {
        let mut s = schedule.clone();
        for kp in &mut s.kernels {
            let (k_block, unroll, k_major) = (
                self.k_block.unwrap_or(kp.k_block),
                self.unroll.unwrap_or(kp.unroll),
                self.k_major.unwrap_or(kp.k_major),
            );
            set_launch(p, kp, k_block, self.block, unroll, k_major);
        }
        s
    }
}

/// The first stage's search space, in the order measured: block order, k-block, unroll,
/// block size (the defaults first, for reference).
fn candidates() -> Vec<Candidate> {
    let mut out = vec![Candidate::DEFAULT];
    for km in [false, true] {
        for k in K_BLOCKS {
            // Unrolling a loop of one level changes nothing: one candidate.
            let unrolls: &[u32] = if k == 1 { &[1] } else { &UNROLLS };
            for &u in unrolls {
                for b in BLOCKS {
                    out.push(Candidate {
                        k_block: Some(k),
                        unroll: Some(u),
                        k_major: Some(km),
                        block: Some(b),
                    });
                }
            }
        }
    }
    out
}

/// Times every kernel of `s` (the case's schedule with other choices); one entry per
/// kernel.
fn measure_schedule(b: &Bench, s: &Schedule, runs: usize) -> Result<Vec<Option<Measured>>> {
    let Bench { cuda, case, dev } = *b;
    let (p, schedule, grid, nlev) = (case.p, case.schedule, case.grid, case.nlev);
    let compiled = cuda.compile(p, s, crate::codegen::Sizes::of(grid, nlev))?;
    let mut bound = cuda.bind(p, &compiled, grid, nlev, dev)?;
    let times = bound.kernel_times(runs)?;
    bound.finish()?;
    let mut out = vec![None; schedule.kernels.len()];
    for (launch, t) in bound.launches().into_iter().zip(times) {
        // What the generator applied (kernels that cannot be k-blocked run k_block 1).
        let k = &compiled.kernels()[launch.kernel];
        out[launch.kernel] = Some(Measured {
            ms: t * 1e3,
            k_block: k.k_block,
            k_major: k.k_major,
        });
    }
    Ok(out)
}

/// Measures the candidates and picks, per kernel, the fastest (k-block, unroll, block).
/// Their sources are compiled first, in parallel, then the candidates are timed one after
/// another.
fn search(cuda: &CudaBackend, case: &Case) -> Result<Vec<Option<KernelChoice>>> {
    let sizes = crate::codegen::Sizes::of(case.grid, case.nlev);
    let cands: Vec<(Candidate, Schedule)> = candidates()
        .into_iter()
        .map(|c| (c, c.schedule(case.p, case.schedule)))
        .collect();
    // One compilation per source: the block size is a launch parameter, not compiled
    // in, so the candidates differing only in it share one (and compiling them side by
    // side would build the same module several times over).
    cands
        .par_iter()
        .filter(|(c, _)| c.block.is_none() || c.block == Some(BLOCKS[0]))
        .try_for_each(|(_, s)| cuda.compile(case.p, s, sizes).map(|_| ()))?;
    let made;
    let args = match case.args {
        Inputs::Given(args) => args,
        Inputs::Made(make) => {
            made = make();
            &made
        }
    };
    let dev = cuda.upload(case.p, args)?;
    let bench = Bench {
        cuda,
        case,
        dev: &dev,
    };
    let default = measure_schedule(&bench, &cands[0].1, RUNS)?;
    let mut best: Vec<Option<KernelChoice>> = default
        .iter()
        .map(|t| {
            t.map(|m| KernelChoice {
                k_block: 0,
                unroll: 0,
                k_major: false,
                block: 0,
                flipped: Vec::new(),
                ms: f64::INFINITY,
                default_ms: m.ms,
            })
        })
        .collect();
    for (cand, s) in &cands[1..] {
        let (u, b) = (cand.unroll.unwrap_or(1), cand.block.unwrap_or(0));
        let times = measure_schedule(&bench, s, RUNS)?;
        for (slot, t) in best.iter_mut().zip(times) {
            if let (Some(c), Some(m)) = (slot.as_mut(), t) {
                // Strictly faster wins: ties keep the earlier candidate.
                if m.ms < c.ms {
                    (c.k_block, c.unroll, c.k_major, c.block, c.ms) =
                        (m.k_block, u, m.k_major, b, m.ms);
                }
            }
        }
    }
    flip_flags(&bench, &mut best)?;
    Ok(best)
}

/// The second stage: the choices so far timed again with [`FLIP_RUNS`] launches, then
/// each [`Flag`] flipped, in turn, for every kernel it applies to on top of them; a
/// kernel keeps a flip that makes it at least [`FLIP_GAIN`] faster.
fn flip_flags(bench: &Bench, best: &mut [Option<KernelChoice>]) -> Result<()> {
    let p = bench.case.p;
    let mut current = apply_choices(p, bench.case.schedule, best);
    // The baseline, timed as the flips will be: the first stage's times are minima over
    // many candidates, biased low against a single measurement.
    let base = measure_schedule(bench, &current, FLIP_RUNS)?;
    for (slot, t) in best.iter_mut().zip(base) {
        if let (Some(c), Some(m)) = (slot.as_mut(), t) {
            c.ms = m.ms;
        }
    }
    for flag in FLAGS {
        let mut trial = current.clone();
        let flipped: Vec<bool> = trial.kernels.iter_mut().map(|kp| flag.flip(kp)).collect();
        if !flipped.contains(&true) {
            continue;
        }
        let times = measure_schedule(bench, &trial, FLIP_RUNS)?;
        for (i, t) in times.into_iter().enumerate() {
            if let (true, Some(c), Some(m)) = (flipped[i], best[i].as_mut(), t) {
                if m.ms < c.ms * (1.0 - FLIP_GAIN) {
                    c.ms = m.ms;
                    c.flipped.push(flag);
                    current.kernels[i] = trial.kernels[i].clone();
                }
            }
        }
    }
    Ok(())
}

fn encode(kernels: &[Option<KernelChoice>]) -> String {
    let mut s = String::from("# kernel k_block unroll k_major block ms default_ms flipped\n");
    for (i, c) in kernels.iter().enumerate() {
        match c {
            Some(c) => {
                let flipped: Vec<&str> = c.flipped.iter().map(|f| f.name()).collect();
                s.push_str(&format!(
                    "{i} {} {} {} {} {:e} {:e} {}\n",
                    c.k_block,
                    c.unroll,
                    c.k_major,
                    c.block,
                    c.ms,
                    c.default_ms,
                    if flipped.is_empty() {
                        "-".to_string()
                    } else {
                        flipped.join(",")
                    }
                ))
            }
            None => s.push_str(&format!("{i} - - - - - - -\n")),
        }
    }
    s
}

fn decode(text: &str, n: usize) -> std::result::Result<Vec<Option<KernelChoice>>, String> {
    let mut out = vec![None; n];
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("malformed tuning line `{line}`");
        let i: usize = w.first().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
        if i >= n || w.len() != 8 {
            return Err(bad());
        }
        if w[1] == "-" {
            continue;
        }
        let flipped = match w[7] {
            "-" => Vec::new(),
            list => list
                .split(',')
                .map(|name| FLAGS.into_iter().find(|f| f.name() == name).ok_or_else(bad))
                .collect::<std::result::Result<_, _>>()?,
        };
        out[i] = Some(KernelChoice {
            k_block: w[1].parse().map_err(|_| bad())?,
            unroll: w[2].parse().map_err(|_| bad())?,
            k_major: w[3].parse().map_err(|_| bad())?,
            block: w[4].parse().map_err(|_| bad())?,
            flipped,
            ms: w[5].parse().map_err(|_| bad())?,
            default_ms: w[6].parse().map_err(|_| bad())?,
        });
    }
    Ok(out)
}

/// The cache key of `case`'s tuning: program, schedule, code generator, grid size and
/// device (not the inputs).
fn key(cuda: &CudaBackend, case: &Case) -> String {
    let gpu = cuda.gpu();
    KeyBuilder::new()
        .part("tune", TUNE_VERSION)
        .part("codegen", crate::codegen::CODEGEN_VERSION)
        .part("program", case.p.content_hash().to_string())
        .part("schedule", format!("{:?}", case.schedule))
        .part("size", crate::codegen::size_identity(case.grid, case.nlev))
        .part("device", format!("{} {}", gpu.name(), gpu.arch()))
        .finish()
}

/// Whether `case` was tuned before on this device (the tuning is persisted and
/// [`tune`] reuses it without measuring).
pub fn is_cached(cuda: &CudaBackend, case: &Case) -> bool {
    cuda.cache().contains(&key(cuda, case))
}

/// Tunes (or loads the persisted tuning of) `case.p` from its resolved schedule on
/// `case.grid`/`case.nlev`, measuring with `case.args` (host fields, uploaded once).
pub fn tune(cuda: &CudaBackend, case: &Case) -> Result<Tuning> {
    let (p, schedule) = (case.p, case.schedule);
    let gpu = cuda.gpu();
    let key = key(cuda, case);
    let description = format!("tuning {} [{}] on {}", p.name, p.variant, gpu.name());
    let (path, origin) = cuda
        .cache()
        .get_or_build(&key, &description, |artifact| {
            let found = search(cuda, case).map_err(|e| e.to_string())?;
            std::fs::write(artifact, encode(&found)).map_err(|e| e.to_string())
        })
        .map_err(|e| tune_err(p, e.to_string()))?;
    let text = std::fs::read_to_string(&path)
        .map_err(|e| tune_err(p, format!("{}: {e}", path.display())))?;
    let kernels = decode(&text, schedule.kernels.len()).map_err(|m| tune_err(p, m))?;
    Ok(Tuning { kernels, origin })
}

/// `schedule` with the tuned k-block, unroll, block order, block size and flipped code
/// options of each kernel (as far as the kernel can carry them out).
pub fn apply(p: &Program, schedule: &Schedule, tuning: &Tuning) -> Schedule {
    apply_choices(p, schedule, &tuning.kernels)
}

fn apply_choices(p: &Program, schedule: &Schedule, choices: &[Option<KernelChoice>]) -> Schedule {
    let mut tuned = schedule.clone();
    for (kp, c) in tuned.kernels.iter_mut().zip(choices) {
        if let Some(c) = c {
            set_launch(p, kp, c.k_block, Some(c.block), c.unroll, c.k_major);
            for f in &c.flipped {
                f.flip(kp);
            }
        }
    }
    tuned
}

/// Tunes and applies; prints a line per kernel to stderr (choice, time, gain).
pub fn tuned(cuda: &CudaBackend, case: &Case) -> Result<Schedule> {
    let (p, schedule) = (case.p, case.schedule);
    let t = tune(cuda, case)?;
    let names = schedule.describe(p);
    let how = match t.origin {
        Origin::Hit => "reused from the cache",
        _ => "measured now",
    };
    eprintln!("tuning of {} [{}] ({how}):", p.name, p.variant);
    for (name, c) in names.iter().zip(&t.kernels) {
        if let Some(c) = c {
            let flipped: String = c
                .flipped
                .iter()
                .map(|f| format!(", {} flipped", f.name()))
                .collect();
            eprintln!(
                "  {name}: k_block {} unroll {} {} block {}{flipped} — {:.4} ms (defaults {:.4} ms, {:.2}x)",
                c.k_block,
                c.unroll,
                if c.k_major { "k-major" } else { "h-major" },
                c.block,
                c.ms,
                c.default_ms,
                c.default_ms / c.ms
            );
        }
    }
    Ok(apply(p, schedule, &t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuning_file_round_trips_and_rejects_garbage() {
        let choice = |flipped| KernelChoice {
            k_block: 4,
            unroll: 1,
            k_major: true,
            block: 256,
            flipped,
            ms: 0.125,
            default_ms: 0.25,
        };
        let k = vec![
            Some(choice(Vec::new())),
            None,
            Some(choice(vec![Flag::BranchLocal, Flag::RegisterCap])),
        ];
        assert_eq!(decode(&encode(&k), 3).unwrap(), k);
        assert!(decode("0 4 1 true 256 x 1 -", 1).is_err());
        assert!(decode("3 4 1 true 256 1 1 -", 1).is_err());
        assert!(decode("0 4 1 256 1 1 -", 1).is_err());
        assert!(decode("0 4 1 true 256 1 1 sideways", 1).is_err());
        // A file of the previous version (no flags column) is refused, not misread.
        assert!(decode("0 4 1 true 256 1 1", 1).is_err());
    }

    #[test]
    fn a_flag_flips_only_where_it_applies_and_twice_restores_the_plan() {
        let mut kp = KernelPlan {
            stencils: vec![0],
            k_block: 16,
            block: None,
            unroll: 1,
            k_major: true,
            hoist: true,
            branch_local: true,
            slot_select: false,
            select_hoist: crate::ir::SelectHoist::Nothing,
            stage: false,
            snapshots: Default::default(),
            locals: Default::default(),
            lockstep: None,
            level_windows: false,
            level_prefetch: false,
            max_registers: Some(96),
            lockstep_unroll: None,
            warp_columns: None,
        };
        let before = kp.clone();
        assert!(Flag::BranchLocal.flip(&mut kp) && !kp.branch_local);
        assert!(Flag::BranchLocal.flip(&mut kp));
        assert_eq!(kp, before);
        // Not a lockstep kernel: no prefetch, no cap to lift.
        assert!(!Flag::Prefetch.flip(&mut kp) && !Flag::RegisterCap.flip(&mut kp));
        assert!(Flag::Hoist.flip(&mut kp) && !kp.hoist);
        // Without hoisting, branch-local loads mean nothing.
        assert!(!Flag::BranchLocal.flip(&mut kp));
        // Register caps on a kernel that is not a lockstep one: the later one stands.
        assert!(Flag::Cap64.flip(&mut kp) && Flag::Cap80.flip(&mut kp));
        assert_eq!(kp.max_registers, Some(80));
        // Slot selection's hoisting narrows only where slots are selected.
        kp.select_hoist = crate::ir::SelectHoist::IndicesAndValues;
        assert!(!Flag::SelectHoistIndices.flip(&mut kp));
        kp.slot_select = true;
        assert!(Flag::SelectHoistIndices.flip(&mut kp));
        assert_eq!(kp.select_hoist, crate::ir::SelectHoist::Indices);
        assert!(!Flag::SelectHoistIndices.flip(&mut kp));
    }
}
