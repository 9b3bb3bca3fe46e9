//! Benchmark driver behind `foehn bench`: realistic random inputs, poisoned outputs that
//! must be fully written, verification against the reference, warm-up, and the median
//! of repeated calls, reported as `foehn_metrics::BenchResult`s.
//!
//! The inputs are each catalog program's own generator's ([`INPUTS`]): random
//! coefficients of the right sign and size, not the fields `foehn run` computes from the
//! grid.

use foehn::codegen::Sizes;
use foehn::error::{Error, Result};
use foehn::ir::layout::indices_fit;
use foehn::ir::{self, DType, Role, Schedule, Variant};
use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::field::{Args, Field};
use foehn::runtime::interp::Interpreter;
use foehn_grid::Grid;
use foehn_metrics::BenchResult;
use foehn_testkit::catalog::Entry;
use foehn_testkit::compare::max_rel_diff;
use rayon::prelude::*;
use std::time::Instant;

/// What the benchmarks run on, as `foehn bench` prints it with every report.
pub const INPUTS: &str = "inputs: each program's realistic random inputs (random \
    interpolation and metric coefficients of the right sign and size, the grid's \
    geometry), not the coefficients computed from the grid";

/// Where a program runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// The reference interpreter.
    Interp,
    /// Generated C on all cores.
    Cpu,
    /// The hand-written plain-Rust reference (rayon), where the catalog has one.
    Reference,
}

impl Engine {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Interp => "interp",
            Engine::Cpu => "cpu",
            Engine::Reference => "rust-reference",
        }
    }
}

/// Benchmark settings.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    /// Timed calls (the median is reported); at least 20 for reports.
    pub runs: usize,
    /// Compare outputs with the reference (or the interpreter) first.
    pub verify: bool,
    /// Relative tolerance of the verification.
    pub tolerance: f64,
    /// Seed of the random inputs.
    pub seed: u64,
    /// `None`: the program as written ("unfused": one loop nest per stencil);
    /// `Some`: after the optimiser with these options ("optimised").
    pub opt: Option<foehn::opt::OptOptions>,
    /// Autotune launch parameters (block size, k-block) per kernel on the device first
    /// (results persisted in the cache; later runs reuse them).
    pub tune: bool,
    /// What differs from the default optimiser (passes left off, `+`-joined, or an
    /// inliner setting), appended to the schedule label of ablations.
    pub ablation: String,
}

impl BenchConfig {
    /// The schedule label of the reports.
    pub fn schedule(&self) -> String {
        let base = match (&self.opt, self.tune) {
            (None, _) => return "unfused".into(),
            (Some(_), false) => "optimised",
            (Some(_), true) => "tuned",
        };
        if self.ablation.is_empty() {
            base.into()
        } else {
            format!("{base}-{}", self.ablation)
        }
    }

    /// The program to run: as written, or optimised. Verification always uses the
    /// program as written (and its reference), so the optimiser is checked too.
    /// 32-bit indices only where every field on `grid` with `nlev` levels fits them.
    fn prepare(&self, written: ir::Program, grid: &Grid, nlev: usize) -> (ir::Program, Schedule) {
        match &self.opt {
            Some(o) => optimise_for_grid(&written, o, grid, nlev),
            None => {
                let s = Schedule::unfused(&written);
                (written, s)
            }
        }
    }
}

/// The optimised program and its kernels for a run on `grid` with `nlev` levels:
/// `opts`, with 32-bit indices only where every field fits them.
pub(crate) fn optimise_for_grid(
    written: &ir::Program,
    opts: &foehn::opt::OptOptions,
    grid: &Grid,
    nlev: usize,
) -> (ir::Program, Schedule) {
    let opts = foehn::opt::OptOptions {
        idx32: opts.idx32 && indices_fit(written, grid, nlev),
        ..opts.clone()
    };
    let (p, schedule, _) = foehn::opt::optimise_scheduled(written, &opts);
    (p, schedule)
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            runs: 20,
            verify: true,
            tolerance: 1e-12,
            seed: 42,
            opt: None,
            tune: false,
            ablation: String::new(),
        }
    }
}

/// Random inputs ([`INPUTS`]) with every pure output poisoned.
pub fn prepare_args(entry: &Entry, ir: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = (entry.inputs)(ir, grid, nlev, seed);
    for d in ir.fields.iter().filter(|d| d.role == Role::Out) {
        args.set_field(
            &d.name,
            Field::filled(grid, nlev, d.ty.dims.list(), d.ty.dtype.poison()),
        );
    }
    args
}

/// Checks that every point of every stencil's domain of a pure output was written.
pub fn check_written(ir: &ir::Program, grid: &Grid, nlev: usize, args: &Args) -> Result<()> {
    for st in &ir.stencils {
        let dom = ir.resolve_domain(st, grid, nlev)?;
        for &o in &st.outputs {
            let d = ir.field(o);
            if d.role != Role::Out || d.ty.dtype == DType::Bool {
                continue;
            }
            let f = args.field(&d.name).expect("output present");
            let (k0, k1) = if d.ty.dims.vertical.is_some() {
                dom.k
            } else {
                (0, 1)
            };
            for k in k0..k1 {
                for h in dom.h.0..dom.h.1 {
                    let v = f.data().get(f.flat_index(h, 0, k));
                    if v == d.ty.dtype.poison() || v.as_f64().is_nan() {
                        return Err(Error::Runtime {
                            program: ir.name.clone(),
                            stencil: st.name.clone(),
                            message: format!(
                                "output `{}` not written at point {h}, level {k}",
                                d.name
                            ),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// Where and at what size a benchmark runs.
pub struct BenchSetup<'a> {
    /// The grid.
    pub grid: &'a Grid,
    /// Full levels.
    pub nlev: usize,
    /// The device's measured copy bandwidth (GB/s) that "% of peak" refers to.
    pub peak_gbs: f64,
    /// The CPU backend (compiled-program cache).
    pub cpu: &'a CpuBackend,
    /// The last program variant's inputs, kept for its next schedule.
    pub inputs: InputCache,
}

/// The inputs of the program variant benchmarked last, kept while later schedules of the
/// same variant run: making realistic inputs for a whole substep takes minutes, copying
/// them seconds. Off (nothing kept, no extra copy in memory) when each variant runs once.
pub struct InputCache {
    keep: bool,
    last: std::cell::RefCell<Option<(String, Args)>>,
}

impl InputCache {
    /// A cache that keeps inputs when `keep` (several schedules or engines per variant).
    pub fn new(keep: bool) -> InputCache {
        InputCache {
            keep,
            last: Default::default(),
        }
    }

    /// The inputs of `ir` (the variant of `entry`) for `seed`: the kept ones when they
    /// are of the same program variant and seed, else freshly made (and kept).
    fn args(&self, entry: &Entry, ir: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
        let key = format!("{} [{}] seed {seed}", ir.name, ir.variant);
        if let Some((k, args)) = self.last.borrow().as_ref() {
            if *k == key {
                return args.clone();
            }
        }
        let args = prepare_args(entry, ir, grid, nlev, seed);
        if self.keep {
            // The previous variant's inputs go before this one's copy is made.
            self.last.take();
            self.last.replace(Some((key, args.clone())));
        }
        args
    }
}

/// Benchmarks one program variant on one engine.
pub fn bench_cpu_side(
    entry: &Entry,
    variant: &Variant,
    engine: Engine,
    setup: &BenchSetup,
    cfg: &BenchConfig,
) -> Result<BenchResult> {
    let (grid, nlev, cpu, peak_gbs) = (setup.grid, setup.nlev, setup.cpu, setup.peak_gbs);
    let ir = entry.specialize(variant)?;
    let (run, schedule) = cfg.prepare(ir.clone(), grid, nlev);
    let compiled = if engine == Engine::Cpu {
        Some(cpu.compile(&run, &schedule, Sizes::of(grid, nlev))?)
    } else {
        None
    };
    let reference = entry.reference;
    if engine == Engine::Reference && reference.is_none() {
        return Err(Error::Variant {
            program: ir.name.clone(),
            message: "has no plain-Rust reference".into(),
        });
    }
    let call = |args: &mut Args| -> Result<()> {
        match engine {
            Engine::Interp => Interpreter.run_ir(&run, grid, args),
            Engine::Cpu => cpu.run_compiled(&run, compiled.as_ref().expect("compiled"), grid, args),
            Engine::Reference => (reference.expect("checked"))(&ir, grid, args),
        }
    };
    let mut args = setup.inputs.args(entry, &ir, grid, nlev, cfg.seed);
    // The reference's copy of the inputs, only when verifying (a copy of every argument
    // field: gigabytes at R2B6).
    let pristine = cfg.verify.then(|| args.clone());
    call(&mut args)?; // warm-up (and first-touch)
    check_written(&ir, grid, nlev, &args)?;
    let (mut verified, mut mismatch) = (false, None);
    if let Some(mut want) = pristine {
        match reference {
            Some(r) if engine != Engine::Reference => r(&ir, grid, &mut want)?,
            _ => Interpreter.run_ir(&ir, grid, &mut want)?,
        }
        mismatch = mismatch_of(&ir, &want, &args, cfg.tolerance);
        verified = mismatch.is_none();
    }
    let mut samples = Vec::with_capacity(cfg.runs);
    for _ in 0..cfg.runs.max(1) {
        let t = Instant::now();
        call(&mut args)?;
        samples.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let bytes = ir.minimal_bytes(grid, nlev);
    let mut r = BenchResult::new(
        &ir.name,
        &variant.to_string(),
        &cfg.schedule(),
        engine.name(),
    )
    .timed(samples, 0.0, bytes, peak_gbs);
    r.verified = verified;
    r.mismatch = mismatch;
    r.calls_per_step = entry.calls_per_step;
    r.schedule_bytes = Some(schedule_bytes(&run, &schedule, grid, nlev));
    Ok(r)
}

/// The verification's finding where the written arguments of `ir` in `got` differ from
/// `want` by more than `tolerance` (relative): the worst field and its difference.
fn mismatch_of(ir: &foehn::ir::Program, want: &Args, got: &Args, tolerance: f64) -> Option<String> {
    let (field, rel) = max_rel_diff(ir, want, got);
    (rel > tolerance).then(|| format!("`{field}` differs by {rel:e} (relative) from the reference"))
}

/// The bytes the kernels of `schedule` move by the cost model
/// (`foehn::opt::lockstep::modelled_bytes`).
fn schedule_bytes(run: &ir::Program, schedule: &Schedule, grid: &Grid, nlev: usize) -> u64 {
    schedule
        .kernels
        .iter()
        .map(|k| foehn::opt::lockstep::modelled_bytes(run, k, grid, nlev))
        .sum()
}

/// Host memory copy bandwidth (GB/s, bytes read + written) with all cores: the CPU peak.
pub fn cpu_copy_bandwidth() -> f64 {
    let n = 32 << 20; // 256 MiB of f64 per buffer
    let src: Vec<f64> = (0..n).into_par_iter().map(|i| i as f64).collect();
    let mut dst = vec![0.0f64; n];
    let mut times = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        dst.par_chunks_mut(1 << 16)
            .zip(src.par_chunks(1 << 16))
            .for_each(|(d, s)| d.copy_from_slice(s));
        times.push(t.elapsed().as_secs_f64());
    }
    std::hint::black_box(&dst);
    times.sort_by(|a, b| a.total_cmp(b));
    2.0 * (n * 8) as f64 / times[times.len() / 2] / 1e9
}

/// Benchmarks one program variant on the GPU: kernel time from CUDA events around each
/// call (all kernels of the program), host time of the enqueue, verification against
/// the reference (or the interpreter) on the host.
pub fn bench_cuda(
    entry: &Entry,
    variant: &Variant,
    setup: &BenchSetup,
    cuda: &foehn::runtime::cuda::CudaBackend,
    cfg: &BenchConfig,
) -> Result<BenchResult> {
    let (grid, nlev, peak_gbs) = (setup.grid, setup.nlev, setup.peak_gbs);
    let ir = entry.specialize(variant)?;
    let gpu_fail = |e: foehn_gpu::GpuError| Error::Runtime {
        program: ir.name.clone(),
        stencil: "-".into(),
        message: e.to_string(),
    };
    let (run, mut schedule) = cfg.prepare(ir.clone(), grid, nlev);
    let mut args = setup.inputs.args(entry, &ir, grid, nlev, cfg.seed);
    args.check(&ir, grid)?;
    if cfg.tune {
        let case = foehn::runtime::tune::Case {
            p: &run,
            schedule: &schedule,
            grid,
            nlev,
            args: foehn::runtime::tune::Inputs::Given(&args),
        };
        schedule = foehn::runtime::tune::tuned(cuda, &case)?;
    }
    let compiled = cuda.compile(&run, &schedule, Sizes::of(grid, nlev))?;
    let pristine = cfg.verify.then(|| args.clone());
    // The level-fastest experiment lays device fields out with columns contiguous: the
    // host fields go up and come back reordered (ADR 0027).
    let relayout = |args: &mut Args, to: bool| {
        if schedule.level_fastest {
            args.fields_mut().for_each(|f| f.relayout_level_fastest(to));
        }
    };
    relayout(&mut args, true);
    let dev = cuda.upload(&run, &args)?;
    let mut bound = cuda.bind(&run, &compiled, grid, nlev, &dev)?;
    bound.launch()?;
    bound.finish()?;
    cuda.download(&run, &dev, &mut args)?;
    relayout(&mut args, false);
    check_written(&ir, grid, nlev, &args)?;
    let (mut verified, mut mismatch) = (false, None);
    if let Some(mut want) = pristine {
        match entry.reference {
            Some(r) => r(&ir, grid, &mut want)?,
            None => Interpreter.run_ir(&ir, grid, &mut want)?,
        }
        mismatch = mismatch_of(&ir, &want, &args, cfg.tolerance);
        verified = mismatch.is_none();
    }
    let timer = cuda.gpu().timer().map_err(gpu_fail)?;
    let (mut kernel_ms, mut host_us) = (Vec::new(), Vec::new());
    for _ in 0..cfg.runs.max(1) {
        timer.start().map_err(gpu_fail)?;
        let t = Instant::now();
        bound.enqueue()?;
        host_us.push(t.elapsed().as_secs_f64() * 1e6);
        timer.stop().map_err(gpu_fail)?;
        kernel_ms.push(timer.seconds().map_err(gpu_fail)? * 1e3);
    }
    bound.finish()?;
    host_us.sort_by(|a, b| a.total_cmp(b));
    let bytes = ir.minimal_bytes(grid, nlev);
    let mut r = BenchResult::new(&ir.name, &variant.to_string(), &cfg.schedule(), "cuda").timed(
        kernel_ms,
        host_us[host_us.len() / 2],
        bytes,
        peak_gbs,
    );
    r.verified = verified;
    r.mismatch = mismatch;
    r.calls_per_step = entry.calls_per_step;
    r.schedule_bytes = Some(schedule_bytes(&run, &schedule, grid, nlev));
    r.registers = compiled.registers();
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_inputs_are_those_of_the_same_variant_and_seed() {
        let entry = &foehn_testkit::catalog::examples()[0];
        let variant = entry.variants().unwrap().remove(0);
        let ir = entry.specialize(&variant).unwrap();
        let grid = foehn_testkit::grids::compiler_grids()[0];
        // Outputs are poisoned with NaN, so inputs compare by their printed values.
        let fresh = |seed| format!("{:?}", prepare_args(entry, &ir, grid, 4, seed));
        let made = |c: &InputCache, seed| format!("{:?}", c.args(entry, &ir, grid, 4, seed));
        let cache = InputCache::new(true);
        assert_eq!(made(&cache, 7), fresh(7));
        // Kept: the second schedule of the variant gets the same inputs.
        assert!(cache.last.borrow().is_some());
        assert_eq!(made(&cache, 7), fresh(7));
        // Another seed makes other inputs.
        let other = made(&cache, 8);
        assert_eq!(other, fresh(8));
        assert_ne!(other, fresh(7));
        // With one schedule nothing is kept.
        let off = InputCache::new(false);
        assert_eq!(made(&off, 7), fresh(7));
        assert!(off.last.borrow().is_none());
    }
}
