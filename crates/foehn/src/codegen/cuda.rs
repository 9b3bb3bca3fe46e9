//! The CUDA backend: the C emitter's CUDA target compiled with NVRTC into a CUBIN for
//! the device's architecture (cached on disk), device-resident fields and neighbour
//! tables, a per-program workspace, and launches whose argument blocks are built once
//! per binding so a call only enqueues kernels.

use super::c::{generate_kernels, CProgram, Fixed, Target};
use super::{size_identity, KernelLaunch, KernelOptions, CODEGEN_VERSION};
use crate::error::{Error, Result};
use crate::field::{Args, Field, FieldData};
use crate::interp::Backend;
use crate::ir::{self, DType, Dims, Role, Scalar};
use foehn_cache::{Cache, KeyBuilder, Origin};
use foehn_gpu::{DeviceBuffer, Gpu, GpuError, Kernel, Module};
use foehn_grid::{Connectivity, Grid};
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

/// Largest block the launch model picks (threads along the horizontal dimension).
const MODEL_MAX_BLOCK: u32 = 256;
/// Smallest block the launch model picks.
const MODEL_MIN_BLOCK: u32 = 64;

fn gpu_err(program: &str) -> impl Fn(GpuError) -> Error + '_ {
    move |e| Error::Compile {
        program: program.to_string(),
        message: e.to_string(),
    }
}

/// A compiled, loaded program variant on the device.
pub struct CudaCompiled {
    _module: Module,
    kernels: Vec<Kernel>,
    code: CProgram,
    /// Cache key.
    pub key: String,
    /// Hit, built or rebuilt.
    pub origin: Origin,
    max_levels: usize,
    idx32: bool,
    /// The grid and levels the code was generated for, when sizes are fixed.
    fixed_for: Option<String>,
    /// Threads per block of each kernel chosen by the schedule (tuned), if any.
    blocks: Vec<Option<u32>>,
}

impl CudaCompiled {
    /// The generated CUDA source.
    pub fn source(&self) -> &str {
        &self.code.source
    }

    /// The generated code's kernels (members, k-block, snapshots).
    pub fn kernels(&self) -> &[super::c::CKernel] {
        &self.code.kernels
    }

    /// Registers per thread of each kernel.
    pub fn registers(&self) -> Vec<i32> {
        self.kernels
            .iter()
            .map(|k| k.registers().unwrap_or(-1))
            .collect()
    }
}

/// A field in device memory (same column-major layout as the host [`Field`]).
pub struct DeviceField {
    buf: DeviceBuffer,
    dims: Dims,
    shape: Vec<usize>,
    dtype: DType,
}

impl DeviceField {
    /// Element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    fn strides(&self) -> (usize, usize, usize) {
        crate::field::strides_of(self.dims, &self.shape)
    }

    fn levels(&self) -> usize {
        crate::field::vertical_extent_of(self.dims, &self.shape)
    }
}

/// Device-resident program arguments.
#[derive(Default)]
pub struct DeviceArgs {
    fields: BTreeMap<String, DeviceField>,
    scalars: BTreeMap<String, Scalar>,
}

/// The neighbour tables of a grid in device memory (uploaded once per grid).
pub struct DeviceGrid {
    tables: Vec<DeviceBuffer>,
}

/// The CUDA backend.
pub struct CudaBackend {
    gpu: Gpu,
    cache: Cache,
    compiled: super::Loaded<CudaCompiled>,
    grids: Mutex<BTreeMap<String, Arc<DeviceGrid>>>,
}

impl CudaBackend {
    /// Opens the first CUDA device; `Err(GpuError::NoDevice)` says why there is none.
    pub fn open(cache: Cache) -> std::result::Result<CudaBackend, GpuError> {
        Ok(CudaBackend {
            gpu: Gpu::open()?,
            cache,
            compiled: super::Loaded::default(),
            grids: Mutex::new(BTreeMap::new()),
        })
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The compiled-program cache (also holds tuning results).
    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    /// Generates CUDA for `program` (scan columns sized for `nlev` levels), compiles it with
    /// NVRTC for this device (or loads the CUBIN from the cache).
    pub fn compile(&self, program: &ir::Program, nlev: usize) -> Result<Arc<CudaCompiled>> {
        self.compile_with(program, nlev, 1, false)
    }

    /// [`CudaBackend::compile`] with `k_block` levels per thread (k-blocking) and, with
    /// `idx32`, 32-bit index arithmetic (binding then checks every field has fewer than
    /// 2³¹ elements).
    pub fn compile_with(
        &self,
        program: &ir::Program,
        nlev: usize,
        k_block: usize,
        idx32: bool,
    ) -> Result<Arc<CudaCompiled>> {
        let opts = KernelOptions {
            k_block,
            idx32,
            ..KernelOptions::default()
        };
        self.compile_for(program, nlev, &opts, None)
    }

    /// Compiles `program` with a schedule (fused kernels, per-kernel k-blocks and block
    /// sizes) and code-generation switches; with `opts.fixed_sizes`, for `grid` and
    /// `nlev` only (sizes become compile-time constants).
    pub fn compile_for(
        &self,
        program: &ir::Program,
        nlev: usize,
        opts: &KernelOptions,
        grid: Option<&Grid>,
    ) -> Result<Arc<CudaCompiled>> {
        let fail = |message: String| Error::Compile {
            program: program.name.clone(),
            message,
        };
        let has_scans = program
            .nodes
            .iter()
            .any(|n| matches!(n, ir::Node::Scan { .. }));
        let max_levels = if has_scans { nlev + 1 } else { 1 };
        let schedule = opts.schedule_for(program);
        let fixed = match (opts.fixed_sizes, grid) {
            (true, Some(grid)) => Some(Fixed { grid, nlev }),
            (true, None) => return Err(fail("fixed sizes need the grid".into())),
            (false, _) => None,
        };
        let fixed_for = fixed.map(|f| size_identity(f.grid, f.nlev));
        let alias = format!(
            "ir:{}:{max_levels}:{}:{}:{schedule:?}:{fixed_for:?}",
            program.content_hash(),
            opts.k_block,
            opts.idx32
        );
        if let Some(c) = self.compiled.get(&alias) {
            return Ok(c);
        }
        let (k_block, idx32) = (opts.k_block, opts.idx32);
        let code = generate_kernels(
            program,
            Target::Cuda {
                max_levels,
                k_block,
                idx32,
            },
            &schedule,
            fixed,
        )
        .map_err(|e| fail(e.to_string()))?;
        let arch = self.gpu.arch();
        let (maj, min) = self.gpu.nvrtc_version();
        let key = KeyBuilder::new()
            .part("codegen", CODEGEN_VERSION)
            .part("source", &code.source)
            .part("arch", &arch)
            .part("nvrtc", format!("{maj}.{min}"))
            .finish();
        // Loaded modules are per launch blocks and fixed size (whose check they keep).
        let blocks: Vec<Option<u32>> = schedule.kernels.iter().map(|k| k.block).collect();
        let loaded_key = format!("{key}:{blocks:?}:{fixed_for:?}");
        if let Some(c) = self.compiled.get(&loaded_key) {
            return Ok(c);
        }
        let description = format!("cuda {} [{}] {arch}", program.name, program.variant);
        let (path, origin) = self
            .cache
            .get_or_build(&key, &description, |artifact| {
                let cubin = foehn_gpu::compile_cubin(
                    &code.source,
                    &program.name,
                    &arch,
                    &["-default-device".into()],
                )
                .map_err(|e| e.to_string())?;
                std::fs::write(artifact, cubin).map_err(|e| e.to_string())
            })
            .map_err(|e| fail(e.to_string()))?;
        let cubin = std::fs::read(&path).map_err(|e| fail(format!("{}: {e}", path.display())))?;
        let module = self.gpu.load(cubin).map_err(gpu_err(&program.name))?;
        let kernels = code
            .kernels
            .iter()
            .map(|s| module.kernel(&s.symbol))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(gpu_err(&program.name))?;
        let c = CudaCompiled {
            _module: module,
            kernels,
            code,
            key: key.clone(),
            origin,
            max_levels,
            idx32,
            fixed_for,
            blocks,
        };
        Ok(self.compiled.insert(loaded_key, alias, c))
    }

    /// Uploads a grid's neighbour tables once; later calls reuse them.
    pub fn device_grid(&self, grid: &Grid) -> Result<Arc<DeviceGrid>> {
        let key = format!(
            "{}:{}:{}",
            grid.name,
            grid.topology.n_cells(),
            grid.topology.n_edges()
        );
        let mut grids = self.grids.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(g) = grids.get(&key) {
            return Ok(g.clone());
        }
        let tables = Connectivity::ALL
            .iter()
            .map(|&c| DeviceBuffer::from_slice(&self.gpu, grid.topology.table(c).as_slice()))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(gpu_err(&grid.name))?;
        let g = Arc::new(DeviceGrid { tables });
        grids.insert(key, g.clone());
        Ok(g)
    }

    /// Copies host arguments of `program` to the device.
    pub fn upload(&self, program: &ir::Program, args: &Args) -> Result<DeviceArgs> {
        let mut d = DeviceArgs::default();
        for decl in program.fields.iter().filter(|f| f.role != Role::Temp) {
            let f = args.field(&decl.name).expect("checked");
            let buf = match f.data() {
                FieldData::F64(v) => DeviceBuffer::from_slice(&self.gpu, v),
                FieldData::F32(v) => DeviceBuffer::from_slice(&self.gpu, v),
                FieldData::I32(v) => DeviceBuffer::from_slice(&self.gpu, v),
                FieldData::Bool(v) => DeviceBuffer::from_slice(&self.gpu, v),
            }
            .map_err(gpu_err(&program.name))?;
            d.fields.insert(
                decl.name.clone(),
                DeviceField {
                    buf,
                    dims: f.dims(),
                    shape: f.shape().to_vec(),
                    dtype: f.dtype(),
                },
            );
        }
        for s in &program.scalars {
            d.scalars.insert(
                s.name.clone(),
                args.scalar(&s.name).expect("checked").cast(s.dtype),
            );
        }
        Ok(d)
    }

    /// Copies the writable fields of `program` back into `args`.
    pub fn download(&self, program: &ir::Program, dev: &DeviceArgs, args: &mut Args) -> Result<()> {
        for decl in program
            .fields
            .iter()
            .filter(|f| f.role.writable() && f.role != Role::Temp)
        {
            let df = &dev.fields[&decl.name];
            let f = args.field_mut(&decl.name).expect("checked");
            let r = match f.data_mut() {
                FieldData::F64(v) => df.buf.download(&self.gpu, v),
                FieldData::F32(v) => df.buf.download(&self.gpu, v),
                FieldData::I32(v) => df.buf.download(&self.gpu, v),
                FieldData::Bool(v) => {
                    let mut bytes = vec![0u8; v.len()];
                    let r = df.buf.download(&self.gpu, &mut bytes);
                    v.iter_mut().zip(bytes).for_each(|(b, x)| *b = x != 0);
                    r
                }
            };
            r.map_err(gpu_err(&program.name))?;
        }
        Ok(())
    }

    /// Prepares launches of `compiled` on `grid` with device arguments: resolves domains,
    /// allocates temporaries and snapshots, and builds every kernel's argument block.
    pub fn bind<'a>(
        &'a self,
        program: &ir::Program,
        compiled: &'a CudaCompiled,
        grid: &Grid,
        nlev: usize,
        dev: &DeviceArgs,
    ) -> Result<Bound<'a>> {
        let fail = gpu_err(&program.name);
        let dgrid = self.device_grid(grid)?;
        let code = &compiled.code;
        // Temporaries live in the binding's workspace, allocated once.
        let mut temps = BTreeMap::new();
        for d in program.fields.iter().filter(|d| d.role == Role::Temp) {
            let shape = Field::grid_shape(grid, nlev, d.ty.dims);
            let bytes = shape.iter().product::<usize>() * d.ty.dtype.size_bytes();
            let buf = DeviceBuffer::alloc(&self.gpu, bytes).map_err(&fail)?;
            buf.fill_bytes(&self.gpu, 0xff).map_err(&fail)?; // NaN / -1 poison
            temps.insert(
                d.name.clone(),
                DeviceField {
                    buf,
                    dims: d.ty.dims,
                    shape,
                    dtype: d.ty.dtype,
                },
            );
        }
        let field = |name: &str| {
            dev.fields
                .get(name)
                .or_else(|| temps.get(name))
                .expect("argument or temporary")
        };
        let decls: Vec<&DeviceField> = program.fields.iter().map(|d| field(&d.name)).collect();
        if compiled.idx32 {
            if let Some(f) = decls
                .iter()
                .find(|f| f.shape.iter().product::<usize>() >= i32::MAX as usize)
            {
                return Err(Error::Runtime {
                    program: program.name.clone(),
                    stencil: "-".into(),
                    message: format!(
                        "a field of shape {:?} is too large for 32-bit indices",
                        f.shape
                    ),
                });
            }
        }
        super::check_fixed_size(program, compiled.fixed_for.as_deref(), grid, nlev)?;
        let bounds = code.resolve_bounds(program, grid, nlev)?;
        let err = DeviceBuffer::from_slice(&self.gpu, &[0i32]).map_err(&fail)?;
        let max_members = code.max_members();
        let sms = self.gpu.multiprocessors().map_err(&fail)?.max(1) as usize;
        let mut snapshots = Vec::new();
        let mut stencils = Vec::new();
        for (i, ck) in code.kernels.iter().enumerate() {
            let first = &program.stencils[ck.members[0]];
            let Some(launch) = KernelLaunch::resolve(program, &ck.members, grid, nlev)? else {
                continue;
            };
            let dom = launch.union;
            if ck.per_column && dom.k.1 - dom.k.0 > compiled.max_levels {
                return Err(program.runtime_error(
                    first,
                    format!(
                        "vertical range {} exceeds the {} levels the kernel was compiled for",
                        dom.k.1 - dom.k.0,
                        compiled.max_levels
                    ),
                ));
            }
            let mut copies = Vec::new();
            let mut rd: Vec<u64> = decls.iter().map(|f| f.buf.ptr()).collect();
            for f in &ck.snapshot {
                let src = decls[f.0 as usize];
                let snap = DeviceBuffer::alloc(&self.gpu, src.buf.bytes()).map_err(&fail)?;
                rd[f.0 as usize] = snap.ptr();
                copies.push((f.0 as usize, snapshots.len()));
                snapshots.push(snap);
            }
            // The argument block: every member 8 bytes (see `cuda_ctx` in the C emitter).
            let mut w: Vec<u64> = Vec::new();
            w.extend(&rd);
            w.extend(decls.iter().map(|f| f.buf.ptr()));
            for sel in 0..3 {
                w.extend(decls.iter().map(|f| {
                    let s = f.strides();
                    [s.0, s.1, s.2][sel] as u64
                }));
            }
            w.extend(decls.iter().map(|f| f.levels() as u64));
            if decls.is_empty() {
                w.extend([0; 6]);
            }
            w.extend(dgrid.tables.iter().map(|t| t.ptr()));
            let scalar_at = 8 * w.len();
            w.extend(
                program
                    .scalars
                    .iter()
                    .map(|s| scalar_bits(dev.scalars[&s.name])),
            );
            if program.scalars.is_empty() {
                w.push(0);
            }
            w.extend(bounds.iter().map(|&b| b as u64));
            if bounds.is_empty() {
                w.push(0);
            }
            w.push(err.ptr());
            let mut member_domains = launch.members.clone();
            member_domains.resize(4 * max_members, 0);
            w.extend(member_domains.iter().map(|&b| b as u64));
            let block: Vec<u8> = w.iter().flat_map(|v| v.to_le_bytes()).collect();
            let k_range = if first.vertical.is_some() {
                (dom.k.0 as i64, dom.k.1 as i64)
            } else {
                (0, 1)
            };
            let nh = dom.h.1 - dom.h.0;
            let gy = if ck.per_column {
                1
            } else {
                ((k_range.1 - k_range.0) as usize)
                    .div_ceil(ck.k_block)
                    .max(1)
            };
            let threads = match compiled.blocks[i] {
                Some(b) => b,
                None => model_block(&compiled.kernels[i], nh, gy, sms),
            };
            stencils.push(BoundStencil {
                kernel: i,
                block,
                scalar_at,
                range: [dom.h.0 as i64, dom.h.1 as i64, k_range.0, k_range.1],
                grid: launch_grid(
                    program,
                    first,
                    nh.div_ceil(threads as usize),
                    gy,
                    ck.k_major,
                )?,
                threads,
                copies,
            });
        }
        let key = program_key(program, "cuda");
        let metrics = (foehn_metrics::level() > 0).then(|| foehn_metrics::global().slot(&key));
        // Kernel timing events are created once per binding, not per call.
        let timer = if foehn_metrics::level() >= foehn_metrics::LEVEL_COMPUTE {
            Some(self.gpu.timer().map_err(&fail)?)
        } else {
            None
        };
        Ok(Bound {
            metrics,
            timer,
            backend: self,
            compiled,
            program: program.name.clone(),
            stencil_names: program.stencils.iter().map(|s| s.name.clone()).collect(),
            kernel_names: code
                .kernels
                .iter()
                .map(|k| program.kernel_name(&k.members))
                .collect(),
            scalar_names: program.scalars.iter().map(|s| s.name.clone()).collect(),
            field_ptrs: decls.iter().map(|f| (f.buf.ptr(), f.buf.bytes())).collect(),
            stencils,
            snapshots,
            _temps: temps,
            err,
        })
    }
}

/// The grid of blocks: `(horizontal blocks, level blocks)`, or in k-major order one
/// dimension of their product (the kernel splits it, level block fastest).
fn launch_grid(
    program: &ir::Program,
    st: &ir::Stencil,
    gx: usize,
    gy: usize,
    k_major: bool,
) -> Result<(u32, u32, u32)> {
    let too_many =
        |n: usize| program.runtime_error(st, format!("{n} blocks exceed the CUDA grid limit"));
    if k_major {
        let n = gx * gy;
        if n > i32::MAX as usize {
            return Err(too_many(n));
        }
        Ok((n as u32, 1, 1))
    } else {
        if gx > i32::MAX as usize || gy > 65535 {
            return Err(too_many(gx * gy));
        }
        Ok((gx as u32, gy as u32, 1))
    }
}

/// The launch model's block size: the occupancy calculator's choice for the kernel's
/// registers, at most [`MODEL_MAX_BLOCK`], halved while the launch would have fewer
/// than two blocks per multiprocessor (small domains, e.g. a few levels).
fn model_block(kernel: &foehn_gpu::Kernel, nh: usize, gy: usize, sms: usize) -> u32 {
    let mut b = kernel
        .occupancy_block_size(MODEL_MAX_BLOCK)
        .unwrap_or(128)
        .clamp(MODEL_MIN_BLOCK, MODEL_MAX_BLOCK);
    b -= b % 32;
    while b > MODEL_MIN_BLOCK && nh.div_ceil(b as usize) * gy < 2 * sms {
        b /= 2;
    }
    b
}

fn scalar_bits(s: Scalar) -> u64 {
    match s {
        Scalar::F64(x) => x.to_bits(),
        Scalar::F32(x) => x.to_bits() as u64,
        Scalar::I32(x) => x as u32 as u64,
        Scalar::Bool(b) => b as u64,
    }
}

struct BoundStencil {
    kernel: usize,
    block: Vec<u8>,
    scalar_at: usize,
    range: [i64; 4],
    grid: (u32, u32, u32),
    /// Threads per block.
    threads: u32,
    /// (field, snapshot) pairs copied before the launch.
    copies: Vec<(usize, usize)>,
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
    metrics: Option<foehn_metrics::ProgramSlot>,
    timer: Option<foehn_gpu::Timer>,
    backend: &'a CudaBackend,
    compiled: &'a CudaCompiled,
    program: String,
    stencil_names: Vec<String>,
    kernel_names: Vec<String>,
    scalar_names: Vec<String>,
    field_ptrs: Vec<(u64, usize)>,
    stencils: Vec<BoundStencil>,
    snapshots: Vec<DeviceBuffer>,
    _temps: BTreeMap<String, DeviceField>,
    err: DeviceBuffer,
}

impl Bound<'_> {
    /// Changes a runtime scalar for the following launches.
    pub fn set_scalar(&mut self, name: &str, value: Scalar) -> Result<()> {
        let i = self
            .scalar_names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| Error::Argument {
                program: self.program.clone(),
                arg: name.to_string(),
                message: "no such scalar".into(),
            })?;
        for st in &mut self.stencils {
            let at = st.scalar_at + 8 * i;
            st.block[at..at + 8].copy_from_slice(&scalar_bits(value).to_le_bytes());
        }
        Ok(())
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

    /// Enqueues every kernel without recording metrics (for benchmarks that time the
    /// calls themselves).
    pub fn enqueue(&mut self) -> Result<()> {
        for i in 0..self.stencils.len() {
            self.enqueue_one(i)?;
        }
        Ok(())
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
            gpu.launch(
                &self.compiled.kernels[st.kernel],
                st.grid,
                (st.threads, 1, 1),
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
            let sites = &self.compiled.code.sites;
            let msg = sites
                .get(err[0] as usize - 1)
                .cloned()
                .unwrap_or_else(|| format!("check {}", err[0]));
            let stencil = self
                .stencil_names
                .iter()
                .find(|s| msg.contains(&format!("stencil `{s}`")));
            return Err(Error::Runtime {
                program: self.program.clone(),
                stencil: stencil.cloned().unwrap_or_else(|| "-".into()),
                message: msg,
            });
        }
        Ok(())
    }
}

impl Backend for CudaBackend {
    fn name(&self) -> &str {
        "cuda"
    }

    fn execute(&self, program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
        self.run_ir(program, grid, args)
    }
}

impl CudaBackend {
    /// Runs a specialised program: upload, launch, wait, check, download.
    pub fn run_ir(&self, program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
        self.run_ir_with(program, grid, args, 1, false)
    }

    /// [`CudaBackend::run_ir`] with `k_block` levels per thread and optionally 32-bit indices.
    pub fn run_ir_with(
        &self,
        program: &ir::Program,
        grid: &Grid,
        args: &mut Args,
        k_block: usize,
        idx32: bool,
    ) -> Result<()> {
        let opts = KernelOptions {
            k_block,
            idx32,
            ..KernelOptions::default()
        };
        self.run_ir_opts(program, grid, args, &opts)
    }

    /// [`CudaBackend::run_ir`] with a schedule and code-generation options (fixed sizes
    /// are fixed for `grid` and the arguments' levels).
    pub fn run_ir_opts(
        &self,
        program: &ir::Program,
        grid: &Grid,
        args: &mut Args,
        opts: &KernelOptions,
    ) -> Result<()> {
        let nlev = args.check(program, grid)?;
        let compiled = self.compile_for(program, nlev, opts, Some(grid))?;
        let dev = self.upload(program, args)?;
        let mut bound = self.bind(program, &compiled, grid, nlev, &dev)?;
        bound.launch()?;
        bound.finish()?;
        self.download(program, &dev, args)
    }
}

/// The metrics key of a program variant: name, backend and static arguments.
pub fn program_key(program: &ir::Program, backend: &str) -> foehn_metrics::ProgramKey {
    program.variant.0.iter().fold(
        foehn_metrics::ProgramKey::new(&program.name, backend),
        |k, (n, v)| k.with_arg(n, v),
    )
}
