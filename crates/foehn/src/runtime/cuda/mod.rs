//! The CUDA backend: the C emitter's CUDA target compiled with NVRTC into a CUBIN for
//! the device's architecture (cached on disk), device-resident fields and neighbour
//! tables, a per-program workspace, and launches whose argument blocks are built once
//! per binding so a call only enqueues kernels.

use crate::codegen::{generate, scan_levels, CProgram, Sizes, Target, CODEGEN_VERSION};
use crate::error::{Error, Result};
use crate::ir::{self, DType, Dims, Role, Scalar, Schedule};
use crate::runtime::field::{Args, Field, FieldData};
use crate::runtime::Backend;
use foehn_cache::{Cache, KeyBuilder, Origin};
use foehn_gpu::{DeviceBuffer, Gpu, GpuError, Kernel, Module};
use foehn_grid::{Connectivity, Grid};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

mod bind;
mod bound;

pub use bound::{scalar_bits, Bound, Launch};

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

/// Generated code loaded on the device: one per source, shared by schedules that
/// differ only in launch parameters (the tuner binds many of them).
struct LoadedModule {
    _module: Module,
    kernels: Vec<Kernel>,
    code: CProgram,
    key: String,
    origin: Origin,
}

/// A compiled, loaded program variant on the device, with its launch parameters.
pub struct CudaCompiled {
    module: Arc<LoadedModule>,
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
    /// This variant's region bounds (`ctx->bounds`): the module's code may be shared
    /// with a variant whose bounds differ.
    bounds: Vec<(ir::IndexDim, ir::Bound)>,
}

impl CudaCompiled {
    /// The generated CUDA source.
    pub fn source(&self) -> &str {
        &self.module.code.source
    }

    /// The generated code's kernels (members, k-block, snapshots).
    pub fn kernels(&self) -> &[crate::codegen::c::CKernel] {
        &self.module.code.kernels
    }

    /// The generated code and where its functions are described.
    fn code(&self) -> &CProgram {
        &self.module.code
    }

    /// The loaded kernel functions, in schedule order.
    fn functions(&self) -> &[Kernel] {
        &self.module.kernels
    }

    /// Registers per thread of each kernel.
    pub fn registers(&self) -> Vec<i32> {
        self.functions()
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
        crate::ir::layout::strides_of(self.dims, &self.shape)
    }

    fn levels(&self) -> usize {
        crate::ir::layout::vertical_extent_of(self.dims, &self.shape)
    }
}

/// Device-resident program arguments.
#[derive(Default)]
pub struct DeviceArgs {
    fields: BTreeMap<String, DeviceField>,
    scalars: BTreeMap<String, Scalar>,
}

impl DeviceArgs {
    /// Adds the field argument `name` of `program` as a borrowed view of device memory
    /// the caller owns (`bytes` bytes at `ptr`, in foehn's column-major layout for
    /// `grid` with `nlev` levels): programs read and write it in place, nothing is
    /// copied, and foehn never frees it. Errors name the argument when `program` has no
    /// such field or `bytes` does not match its shape.
    ///
    /// # Safety
    /// As [`DeviceBuffer::borrowed`]: the memory stays valid while these arguments and
    /// every binding made from them are used.
    pub unsafe fn borrow_field(
        &mut self,
        program: &ir::Program,
        name: &str,
        ptr: foehn_gpu::DevicePtr,
        bytes: usize,
        grid: &Grid,
        nlev: usize,
    ) -> Result<()> {
        let err = |message: String| Error::Argument {
            program: program.name.clone(),
            arg: name.to_string(),
            message,
        };
        let decl = program
            .fields
            .iter()
            .find(|d| d.name == name && d.role != Role::Temp)
            .ok_or_else(|| err("not a field argument of the program".into()))?;
        let shape = Field::grid_shape(grid, nlev, decl.ty.dims);
        let want = shape.iter().product::<usize>() * decl.ty.dtype.size_bytes();
        if bytes != want {
            return Err(err(format!(
                "a borrowed device field of {bytes} bytes, but {} on {} with {nlev} levels needs {want}",
                decl.ty, grid.name
            )));
        }
        self.fields.insert(
            name.to_string(),
            DeviceField {
                buf: DeviceBuffer::borrowed(ptr, bytes),
                dims: decl.ty.dims,
                shape,
                dtype: decl.ty.dtype,
            },
        );
        Ok(())
    }

    /// Sets the scalar argument `name`.
    pub fn set_scalar(&mut self, name: &str, value: Scalar) {
        self.scalars.insert(name.to_string(), value);
    }
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
    modules: super::Loaded<LoadedModule>,
    grids: Mutex<BTreeMap<String, Arc<DeviceGrid>>>,
    /// Work buffers (temporaries, snapshots) bindings share, by (bytes, ordinal among
    /// the binding's work buffers of that size); `None`: each binding owns its own.
    shared_work: Mutex<Option<WorkPool>>,
    /// Where callers that compile programs for a run get the inputs to tune them on
    /// ([`CudaBackend::tune_programs`]); `None`: they do not tune.
    tuning_inputs: OnceLock<InputsProvider>,
}

/// Realistic host inputs of a program (under its own argument names) on a grid with
/// `nlev` levels, for tuning it (`runtime::tune`); `None` where there are none. A run
/// that tunes its programs ([`CudaBackend::tune_programs`]) gets them from whoever knows
/// the programs (the dycore catalog).
pub type InputsProvider = fn(&ir::Program, &Grid, usize) -> Option<Args>;

/// Shared work buffers by (bytes, ordinal among a binding's work buffers of that size).
type WorkPool = BTreeMap<(usize, usize), Arc<DeviceBuffer>>;

impl CudaBackend {
    /// Opens the first CUDA device; `Err(GpuError::NoDevice)` says why there is none.
    pub fn open(cache: Cache) -> std::result::Result<CudaBackend, GpuError> {
        Ok(CudaBackend {
            gpu: Gpu::open()?,
            cache,
            compiled: super::Loaded::default(),
            modules: super::Loaded::default(),
            grids: Mutex::new(BTreeMap::new()),
            shared_work: Mutex::new(None),
            tuning_inputs: OnceLock::new(),
        })
    }

    /// From now on, callers that compile programs for a run (the dycore components) tune
    /// each program first ([`crate::runtime::tune`]: measured once on this device and
    /// grid, then reused from the cache), on the inputs `inputs` gives. The backend only
    /// records the choice; its own `compile` is unchanged. A second call keeps the first
    /// provider.
    pub fn tune_programs(&self, inputs: InputsProvider) {
        let _ = self.tuning_inputs.set(inputs);
    }

    /// The inputs provider of [`CudaBackend::tune_programs`], if programs are tuned.
    pub fn tuning_inputs(&self) -> Option<InputsProvider> {
        self.tuning_inputs.get().copied()
    }

    /// From now on, bindings share their work buffers (temporaries and snapshots): the
    /// device memory they take is the largest binding's, not the sum over bindings. Only
    /// for callers that run one bound program at a time (a time loop): two programs
    /// enqueued at once would overwrite each other's temporaries. A temporary is written
    /// before it is read within a call, so sharing does not change results.
    pub fn share_work_buffers(&self) {
        let mut shared = self.shared_work.lock().expect("work buffers");
        shared.get_or_insert_with(BTreeMap::new);
    }

    /// A work buffer of `bytes` bytes for a binding: its own, or with
    /// [`CudaBackend::share_work_buffers`] the shared one for `(bytes, ordinal)` (the
    /// binding's `ordinal`-th work buffer of that size), which `keep` then holds alive.
    /// New buffers are filled with `0xff` (NaN / −1) so that a read before any write
    /// shows.
    fn work_buffer(
        &self,
        bytes: usize,
        ordinals: &mut BTreeMap<usize, usize>,
        keep: &mut Vec<Arc<DeviceBuffer>>,
    ) -> std::result::Result<DeviceBuffer, GpuError> {
        let fresh = |gpu: &Gpu| -> std::result::Result<DeviceBuffer, GpuError> {
            let buf = DeviceBuffer::alloc(gpu, bytes)?;
            buf.fill_bytes(gpu, 0xff)?;
            Ok(buf)
        };
        let mut shared = self.shared_work.lock().expect("work buffers");
        let Some(pool) = shared.as_mut() else {
            return fresh(&self.gpu);
        };
        let ordinal = ordinals.entry(bytes).or_insert(0);
        let key = (bytes, *ordinal);
        *ordinal += 1;
        let buf = match pool.get(&key) {
            Some(b) => b.clone(),
            None => {
                let b = Arc::new(fresh(&self.gpu)?);
                pool.insert(key, b.clone());
                b
            }
        };
        keep.push(buf.clone());
        // SAFETY: `keep` (the binding's) and the pool hold the allocation alive for as
        // long as the binding uses this view.
        Ok(unsafe { DeviceBuffer::borrowed(buf.ptr(), bytes) })
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The compiled-program cache (also holds tuning results).
    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    /// Generates the CUDA of `program` as `schedule` says (scan columns sized for `nlev`
    /// levels; with the schedule's fixed sizes, for `grid` and `nlev` only), compiles it
    /// with NVRTC for this device (or loads the CUBIN from the cache) and loads it.
    pub fn compile(
        &self,
        program: &ir::Program,
        schedule: &Schedule,
        sizes: Sizes,
    ) -> Result<Arc<CudaCompiled>> {
        let fail = |message: String| Error::Compile {
            program: program.name.clone(),
            message,
        };
        let fixed_for = super::fixed_for(schedule, sizes);
        let max_levels = scan_levels(program, sizes.nlev);
        let alias = format!(
            "ir:{}:{max_levels}:{schedule:?}:{fixed_for:?}",
            program.content_hash(),
        );
        if let Some(c) = self.compiled.get(&alias) {
            return Ok(c);
        }
        let idx32 = schedule.idx32;
        let code =
            generate(program, schedule, Target::Cuda, sizes).map_err(|e| fail(e.to_string()))?;
        let arch = self.gpu.arch();
        let (maj, min) = self.gpu.nvrtc_version();
        let key = KeyBuilder::new()
            .part("codegen", CODEGEN_VERSION)
            .part("source", &code.source)
            .part("arch", &arch)
            .part("nvrtc", format!("{maj}.{min}"))
            .finish();
        let module = match self.modules.get(&key) {
            Some(m) => m,
            None => {
                let m = self.load(program, &code, &key)?;
                self.modules.insert(key.clone(), key, m)
            }
        };
        let c = CudaCompiled {
            key: module.key.clone(),
            origin: module.origin,
            module,
            max_levels,
            idx32,
            fixed_for,
            blocks: schedule.kernels.iter().map(|k| k.block).collect(),
            bounds: code.bounds.clone(),
        };
        Ok(self.compiled.insert(alias.clone(), alias, c))
    }

    /// Compiles `code` with NVRTC (or takes the CUBIN from the disk cache) and loads it.
    fn load(&self, program: &ir::Program, code: &CProgram, key: &str) -> Result<LoadedModule> {
        let fail = |message: String| Error::Compile {
            program: program.name.clone(),
            message,
        };
        let arch = self.gpu.arch();
        let description = format!("cuda {} [{}] {arch}", program.name, program.variant);
        let (path, origin) = self
            .cache
            .get_or_build(key, &description, |artifact| {
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
        Ok(LoadedModule {
            _module: module,
            kernels,
            code: code.clone(),
            key: key.to_string(),
            origin,
        })
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
    /// Runs a specialised program as written (one kernel per stencil): upload,
    /// launch, wait, check, download.
    pub fn run_ir(&self, program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
        self.run_scheduled(program, &Schedule::unfused(program), grid, args)
    }

    /// [`CudaBackend::run_ir`] with a schedule (fixed sizes are fixed for `grid` and the
    /// arguments' levels).
    pub fn run_scheduled(
        &self,
        program: &ir::Program,
        schedule: &Schedule,
        grid: &Grid,
        args: &mut Args,
    ) -> Result<()> {
        let nlev = args.check(program, grid)?;
        let compiled = self.compile(program, schedule, Sizes::of(grid, nlev))?;
        let dev = self.upload(program, args)?;
        let mut bound = self.bind(program, &compiled, grid, nlev, &dev)?;
        bound.launch()?;
        bound.finish()?;
        self.download(program, &dev, args)
    }
}
