//! A program bound to device arguments: launches that only enqueue work, per-kernel
//! timing for the tuner, and the run-time error check.

use super::{gpu_err, CudaBackend, CudaCompiled, DeviceField};
use crate::error::{Error, Result};
use crate::ir::Scalar;
use foehn_gpu::DeviceBuffer;
use std::collections::BTreeMap;
use std::ffi::c_void;

/// One kernel launch of a binding: its argument block and launch shape.
pub(super) struct BoundStencil {
    /// Index of the kernel in the schedule.
    pub(super) kernel: usize,
    /// The `foehn_ctx` argument block.
    pub(super) block: Vec<u8>,
    /// Byte offset of the scalars in `block`.
    pub(super) scalar_at: usize,
    /// `[h0, h1, k0, k1]`: the union of the members' domains.
    pub(super) range: [i64; 4],
    /// Blocks.
    pub(super) grid: (u32, u32, u32),
    /// Threads per block.
    pub(super) threads: u32,
    /// (field, snapshot) pairs copied before the launch.
    pub(super) copies: Vec<(usize, usize)>,
    /// Dynamic shared memory per block (staged values).
    pub(super) shared: u32,
}

/// One kernel launch of a bound program.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// Index of the kernel in the schedule.
    pub kernel: usize,
    /// Its stencils' names, `+`-joined.
    pub name: String,
    /// Threads per block.
    pub threads: u32,
    /// Blocks.
    pub grid: (u32, u32, u32),
}

/// A program bound to device arguments: [`Bound::launch`] only enqueues work.
pub struct Bound<'a> {
    pub(super) metrics: Option<foehn_metrics::ProgramSlot>,
    pub(super) timer: Option<foehn_gpu::Timer>,
    pub(super) backend: &'a CudaBackend,
    pub(super) compiled: &'a CudaCompiled,
    pub(super) program: String,
    /// The NVTX range name of a call: the program and its variant.
    pub(super) range_name: String,
    pub(super) kernel_names: Vec<String>,
    pub(super) scalar_names: Vec<String>,
    pub(super) field_ptrs: Vec<(u64, usize)>,
    pub(super) stencils: Vec<BoundStencil>,
    pub(super) snapshots: Vec<DeviceBuffer>,
    pub(super) _temps: BTreeMap<String, DeviceField>,
    /// The shared work buffers its temporaries and snapshots view, held alive.
    pub(super) _pooled: Vec<std::sync::Arc<DeviceBuffer>>,
    /// Block lists and positions of staged kernels.
    pub(super) _stage_tables: Vec<DeviceBuffer>,
    pub(super) err: DeviceBuffer,
    /// The launches recorded as CUDA graphs, one per set of scalar values.
    pub(super) replays: Replays,
}

/// Launches of a binding recorded as CUDA graphs (see [`Bound::enqueue`]): one driver
/// call replays all of a program's kernels and copies, so the host time of a call does
/// not grow with its kernels. On by default; `FOEHN_CUDA_GRAPHS=0` turns it off (ADR 0011).
pub(super) struct Replays {
    /// The recordings, keyed by the scalars' bytes; a set is recorded when it comes
    /// back (ADR 0028).
    graphs: foehn_gpu::Recordings<foehn_gpu::Graph>,
    /// False when recordings are off or do not pay (one launch). On unless
    /// `FOEHN_CUDA_GRAPHS=0` or [`Bound::record_graphs`]`(false)`.
    on: bool,
}

/// Programs of fewer launches (kernels and copies) enqueue them one by one: replaying a
/// graph costs about as much as one launch.
const MIN_RECORDED_LAUNCHES: usize = 2;

/// Recordings kept per binding (a program called with a few sets of scalars, such as
/// the predictor and corrector flags), the oldest dropped first.
const MAX_RECORDINGS: usize = 4;
/// Sets of scalars remembered per binding until they come back.
const MAX_SEEN: usize = 8;

impl Replays {
    /// Recording for a binding of `stencils`, unless `FOEHN_CUDA_GRAPHS=0`.
    pub(super) fn new(stencils: &[BoundStencil]) -> Replays {
        let wanted = !matches!(std::env::var("FOEHN_CUDA_GRAPHS").as_deref(), Ok("0"));
        let mut replays = Replays {
            graphs: foehn_gpu::Recordings::new(MAX_RECORDINGS, MAX_SEEN),
            on: false,
        };
        replays.set(wanted, stencils);
        replays
    }

    /// Turns recording on (where it pays) or off, dropping the recordings.
    fn set(&mut self, on: bool, stencils: &[BoundStencil]) {
        let launches: usize = stencils.iter().map(|s| 1 + s.copies.len()).sum();
        self.on = on && launches >= MIN_RECORDED_LAUNCHES;
        self.graphs.clear();
    }
}

impl Bound<'_> {
    /// Changes a runtime scalar for the following launches.
    pub fn set_scalar(&mut self, name: &str, value: Scalar) -> Result<()> {
        let i = self.scalar_index(name)?;
        self.set_scalar_at(i, value);
        Ok(())
    }

    /// The position of the scalar `name` among the program's scalars (for
    /// [`Bound::set_scalar_at`], so a caller looks names up once).
    pub fn scalar_index(&self, name: &str) -> Result<usize> {
        self.scalar_names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| Error::Argument {
                program: self.program.clone(),
                arg: name.to_string(),
                message: "no such scalar".into(),
            })
    }

    /// Changes the `i`-th runtime scalar of the program (declaration order).
    pub fn set_scalar_at(&mut self, i: usize, value: Scalar) {
        for st in &mut self.stencils {
            let at = st.scalar_at + 8 * i;
            st.block[at..at + 8].copy_from_slice(&scalar_bits(value).to_le_bytes());
        }
    }

    /// Enqueues every stencil of the program on the stream (asynchronous). With
    /// `FOEHN_METRICS` ≥ 1 the host time of the call is recorded; with ≥ 10 also the
    /// kernel time, from CUDA events (which waits for the kernels).
    pub fn launch(&mut self) -> Result<()> {
        let Some(slot) = self.metrics.clone() else {
            return self.enqueue();
        };
        let t0 = std::time::Instant::now();
        let compute = if let Some(timer) = self.timer.take() {
            let program = self.program.clone();
            let timed = timer
                .start()
                .map_err(gpu_err(&program))
                .and_then(|_| self.enqueue())
                .and_then(|_| timer.stop().map_err(gpu_err(&program)))
                .and_then(|_| timer.seconds().map_err(gpu_err(&program)));
            self.timer = Some(timer);
            Some(timed?)
        } else {
            self.enqueue()?;
            None
        };
        slot.record(t0.elapsed().as_secs_f64(), compute);
        Ok(())
    }

    /// Records the launches as CUDA graphs and replays them (`on`), or enqueues them
    /// one by one (see [`Bound::enqueue`]).
    pub fn record_graphs(&mut self, on: bool) {
        self.replays.set(on, &self.stencils);
    }

    /// Enqueues every kernel without recording metrics (for benchmarks that time the
    /// calls themselves). With [`Bound::record_graphs`] on, a program of several launches is
    /// recorded as a CUDA graph at its second call with a set of scalar values (the first
    /// goes kernel by kernel) and replayed at the next ones.
    pub fn enqueue(&mut self) -> Result<()> {
        // Around the graph replay too, so Nsight Systems names the replayed kernels.
        let _range = foehn_metrics::nvtx::range(&self.range_name);
        if self.replays.on {
            let scalars = self.scalar_bytes();
            if let Some(graph) = self.replays.graphs.find(scalars) {
                return graph.launch().map_err(gpu_err(&self.program));
            }
            let key = scalars.to_vec();
            if self.replays.graphs.should_record(&key) {
                let backend = self.backend;
                let program = self.program.clone();
                let recorded = backend
                    .gpu
                    .record(|| self.enqueue_each(), gpu_err(&program))?;
                if let Some(graph) = recorded {
                    graph.launch().map_err(gpu_err(&program))?;
                    self.replays.graphs.push(key, graph);
                }
                return Ok(());
            }
        }
        self.enqueue_each()
    }

    /// Enqueues every kernel one by one, never recording or replaying a graph of its
    /// own and recording no metrics: for a caller recording a larger graph around the
    /// call (a stream being captured cannot begin another capture).
    pub fn enqueue_unrecorded(&mut self) -> Result<()> {
        let _range = foehn_metrics::nvtx::range(&self.range_name);
        self.enqueue_each()
    }

    /// Enqueues the kernels (and their snapshot copies) one by one.
    fn enqueue_each(&mut self) -> Result<()> {
        for i in 0..self.stencils.len() {
            self.enqueue_one(i)?;
        }
        Ok(())
    }

    /// The bytes of the runtime scalars (the same in every kernel's block).
    fn scalar_bytes(&self) -> &[u8] {
        self.stencils.first().map_or(&[], |st| {
            &st.block[st.scalar_at..st.scalar_at + 8 * self.scalar_names.len()]
        })
    }

    /// Enqueues bound kernel `i` (its snapshot copies first).
    fn enqueue_one(&mut self, i: usize) -> Result<()> {
        let gpu = &self.backend.gpu;
        let st = &mut self.stencils[i];
        for &(field, snap) in &st.copies {
            let (src, bytes) = self.field_ptrs[field];
            let dst = &self.snapshots[snap];
            // SAFETY: both allocations hold `bytes` bytes.
            unsafe { gpu.copy_raw(src, dst.ptr(), bytes) }.map_err(gpu_err(&self.program))?;
        }
        let [mut h0, mut h1, mut k0, mut k1] = st.range;
        let mut params = [
            st.block.as_mut_ptr() as *mut c_void,
            &mut h0 as *mut i64 as *mut c_void,
            &mut h1 as *mut i64 as *mut c_void,
            &mut k0 as *mut i64 as *mut c_void,
            &mut k1 as *mut i64 as *mut c_void,
        ];
        // SAFETY: the argument block matches the generated foehn_ctx layout (all
        // members 8 bytes, arrays sized for this program) and the buffers it points to
        // live as long as this binding.
        unsafe {
            gpu.launch_shared(
                &self.compiled.functions()[st.kernel],
                st.grid,
                (st.threads, 1, 1),
                st.shared,
                &mut params,
            )
        }
        .map_err(gpu_err(&self.program))
    }

    /// The launched kernels, in launch order (kernels without points are not launched).
    pub fn launches(&self) -> Vec<Launch> {
        self.stencils
            .iter()
            .map(|s| Launch {
                kernel: s.kernel,
                name: self.kernel_names[s.kernel].clone(),
                threads: s.threads,
                grid: s.grid,
            })
            .collect()
    }

    /// Median time (seconds) of each launched kernel alone over `runs` launches (after
    /// a warm-up), from CUDA events; the order of [`Bound::launches`].
    pub fn kernel_times(&mut self, runs: usize) -> Result<Vec<f64>> {
        let program = self.program.clone();
        let gpu_fail = gpu_err(&program);
        let timer = self.backend.gpu.timer().map_err(&gpu_fail)?;
        let mut out = Vec::new();
        for i in 0..self.stencils.len() {
            self.enqueue_one(i)?;
            let mut t = Vec::new();
            for _ in 0..runs.max(1) {
                timer.start().map_err(&gpu_fail)?;
                self.enqueue_one(i)?;
                timer.stop().map_err(&gpu_fail)?;
                t.push(timer.seconds().map_err(&gpu_fail)?);
            }
            t.sort_by(|a, b| a.total_cmp(b));
            out.push(t[t.len() / 2]);
        }
        Ok(out)
    }

    /// Waits for the stream and reports the first failed run-time check, if any.
    pub fn finish(&self) -> Result<()> {
        let gpu = &self.backend.gpu;
        let mut err = [0i32];
        self.err
            .download(gpu, &mut err)
            .map_err(gpu_err(&self.program))?;
        if err[0] != 0 {
            let site = self.compiled.code().sites.get(err[0] as usize - 1);
            return Err(Error::Runtime {
                program: self.program.clone(),
                stencil: site.map_or_else(|| "-".into(), |s| s.stencil.clone()),
                message: site.map_or_else(
                    || format!("run-time check {} failed", err[0]),
                    |s| s.what.clone(),
                ),
            });
        }
        Ok(())
    }
}

/// The 64-bit pattern a scalar argument is passed as (what a recorded launch holds).
pub fn scalar_bits(s: Scalar) -> u64 {
    match s {
        Scalar::F64(x) => x.to_bits(),
        Scalar::F32(x) => x.to_bits() as u64,
        Scalar::I32(x) => x as u32 as u64,
        Scalar::Bool(b) => b as u64,
    }
}
