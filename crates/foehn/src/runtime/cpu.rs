//! The native CPU backend: generated C, compiled by the system C compiler into a shared
//! library (cached on disk), loaded with `libloading`, and run in parallel over
//! horizontal chunks with rayon. See `docs/adr/0003-native-cpu-backend.md`.

use crate::codegen::{generate, CProgram, Sizes, Target, CODEGEN_VERSION};
use crate::error::{Error, Result};
use crate::ir::{self, Scalar, Schedule};
use crate::runtime::field::{check_positional, Args, Field, FieldData, FieldView};
use crate::runtime::Backend;
use foehn_cache::{Cache, KeyBuilder, Origin};
use foehn_grid::{Connectivity, Grid};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, OnceLock};

/// Flags every program is compiled with: optimised, no FMA contraction, no fast-math and no
/// compile-time evaluation of libm functions, so results match the interpreter.
const CFLAGS: &[&str] = &[
    "-std=c11",
    "-O3",
    "-march=native",
    "-ffp-contract=off",
    "-fno-math-errno",
    "-fPIC",
    "-shared",
    // Transcendental functions always come from libm, as in the interpreter: GCC would
    // otherwise fold calls with constant arguments at compile time, correctly rounded,
    // which can differ from libm by an ulp.
    "-fno-builtin-exp",
    "-fno-builtin-expf",
    "-fno-builtin-log",
    "-fno-builtin-logf",
    "-fno-builtin-sin",
    "-fno-builtin-sinf",
    "-fno-builtin-cos",
    "-fno-builtin-cosf",
    "-fno-builtin-tan",
    "-fno-builtin-tanf",
    "-fno-builtin-asin",
    "-fno-builtin-asinf",
    "-fno-builtin-acos",
    "-fno-builtin-acosf",
    "-fno-builtin-atan",
    "-fno-builtin-atanf",
    "-fno-builtin-sinh",
    "-fno-builtin-sinhf",
    "-fno-builtin-cosh",
    "-fno-builtin-coshf",
    "-fno-builtin-tanh",
    "-fno-builtin-tanhf",
    "-fno-builtin-asinh",
    "-fno-builtin-asinhf",
    "-fno-builtin-acosh",
    "-fno-builtin-acoshf",
    "-fno-builtin-atanh",
    "-fno-builtin-atanhf",
    "-fno-builtin-pow",
    "-fno-builtin-powf",
    "-fno-builtin-cbrt",
    "-fno-builtin-cbrtf",
    "-fno-builtin-fmod",
    "-fno-builtin-fmodf",
];

/// Horizontal points per parallel task.
const CHUNK: usize = 2048;

#[repr(C)]
#[derive(Clone, Copy)]
union CScalar {
    f64: f64,
    f32: f32,
    i32: i32,
    b: u8,
}

/// Mirror of `foehn_ctx` in the generated C.
#[repr(C)]
struct Ctx {
    rd: *const *const c_void,
    wr: *const *mut c_void,
    sh: *const i64,
    sj: *const i64,
    sk: *const i64,
    nk: *const i64,
    tab: *const *const i32,
    sc: *const CScalar,
    bounds: *const i64,
    err: *mut i32,
    dom: *const i64,
}

// SAFETY: the context only points at buffers that outlive the parallel loop; the
// stencil functions write disjoint horizontal ranges and the error word atomically.
unsafe impl Send for Ctx {}
unsafe impl Sync for Ctx {}

type StencilFn = unsafe extern "C" fn(*const Ctx, i64, i64, i64, i64);

/// A compiled, loaded program variant.
pub struct CompiledProgram {
    _lib: libloading::Library,
    fns: Vec<StencilFn>,
    code: CProgram,
    /// The grid and levels the code was generated for, when sizes are fixed.
    fixed_for: Option<String>,
    /// The cache key (content hash of source, flags, compiler and code generator).
    pub key: String,
    /// Whether it came from the cache, was built, or was rebuilt after corruption.
    pub origin: Origin,
}

impl CompiledProgram {
    /// The generated C source.
    pub fn source(&self) -> &str {
        &self.code.source
    }
}

/// The C compiler: its command and identity (first line of `--version` and target).
struct Toolchain {
    cc: String,
    identity: String,
}

fn toolchain() -> std::result::Result<&'static Toolchain, String> {
    static TC: OnceLock<std::result::Result<Toolchain, String>> = OnceLock::new();
    TC.get_or_init(|| {
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
        let out = |arg: &str| {
            Command::new(&cc)
                .arg(arg)
                .output()
                .map_err(|e| {
                    format!("cannot run the C compiler `{cc}` ({e}); install gcc or set CC")
                })
                .map(|o| {
                    String::from_utf8_lossy(&o.stdout)
                        .lines()
                        .next()
                        .unwrap_or("")
                        .to_string()
                })
        };
        let identity = format!("{} | {}", out("--version")?, out("-dumpmachine")?);
        Ok(Toolchain { cc, identity })
    })
    .as_ref()
    .map_err(|e| e.clone())
}

/// The native CPU backend.
pub struct CpuBackend {
    cache: Cache,
    loaded: super::Loaded<CompiledProgram>,
    temps: super::temp_pool::TempPool,
}

impl Default for CpuBackend {
    fn default() -> Self {
        Self::new(Cache::from_env())
    }
}

impl CpuBackend {
    /// A backend using the given compiled-program cache.
    pub fn new(cache: Cache) -> CpuBackend {
        CpuBackend {
            cache,
            loaded: super::Loaded::default(),
            temps: Default::default(),
        }
    }

    /// Generates the C of `program` as `schedule` says, compiles it (or fetches the
    /// library from the cache) and loads it, for `grid` with `nlev` levels (the sizes
    /// matter only when the schedule fixes them; the compiled program then refuses
    /// other grids and levels).
    pub fn compile(
        &self,
        program: &ir::Program,
        schedule: &Schedule,
        sizes: Sizes,
    ) -> Result<Arc<CompiledProgram>> {
        let fail = |message: String| Error::Compile {
            program: program.name.clone(),
            message,
        };
        let fixed_for = super::fixed_for(schedule, sizes);
        // A program already loaded in this process is found by its IR's content hash,
        // schedule and sizes, without generating its source again.
        let alias = format!("ir:{}:{:?}:{fixed_for:?}", program.content_hash(), schedule);
        if let Some(p) = self.loaded.get(&alias) {
            return Ok(p);
        }
        let code =
            generate(program, schedule, Target::C, sizes).map_err(|e| fail(e.to_string()))?;
        let tc = toolchain().map_err(fail)?;
        let key = KeyBuilder::new()
            .part("codegen", CODEGEN_VERSION)
            .part("source", &code.source)
            .part("compiler", &tc.identity)
            .part("flags", CFLAGS.join(" "))
            .finish();
        // The same library may serve several fixed sizes, and variants whose region
        // bounds (read at run time from `ctx->bounds`) differ; each keeps its size check
        // and its own bounds.
        let loaded_key = format!("{key}:{fixed_for:?}:{:?}", code.bounds);
        if let Some(p) = self.loaded.get(&loaded_key) {
            return Ok(p);
        }
        let description = format!("cpu {} [{}]", program.name, program.variant);
        let (path, origin) = self
            .cache
            .get_or_build(&key, &description, |artifact| {
                build_library(tc, &code.source, artifact)
            })
            .map_err(|e| fail(e.to_string()))?;
        // SAFETY: the library is our own generated code, verified against its checksum.
        let lib = unsafe { libloading::Library::new(&path) }
            .map_err(|e| fail(format!("loading {}: {e}", path.display())))?;
        let mut fns = Vec::new();
        for st in &code.kernels {
            // SAFETY: every kernel symbol has the StencilFn signature (see codegen::c).
            let f: libloading::Symbol<StencilFn> = unsafe { lib.get(st.symbol.as_bytes()) }
                .map_err(|e| fail(format!("symbol {}: {e}", st.symbol)))?;
            fns.push(*f);
        }
        let compiled = CompiledProgram {
            _lib: lib,
            fns,
            code,
            fixed_for,
            key: key.clone(),
            origin,
        };
        Ok(self.loaded.insert(loaded_key, alias, compiled))
    }

    /// Runs a compiled program variant in place on argument fields that are views of
    /// memory the caller owns (the program's non-temporary fields, in declaration
    /// order), checked first; temporaries are taken from the backend's pool of buffers
    /// (filled with their poison value as fresh ones would be) and given back after.
    pub fn run_compiled_views(
        &self,
        program: &ir::Program,
        compiled: &CompiledProgram,
        grid: &Grid,
        nlev: usize,
        args: &mut [FieldView],
        scalars: &[Scalar],
    ) -> Result<()> {
        check_positional(program, grid, nlev, args, scalars)?;
        let mut temps: Vec<Field> = program
            .fields
            .iter()
            .filter(|d| d.role == ir::Role::Temp)
            .map(|d| self.temps.take(grid, nlev, d))
            .collect();
        let (mut arg_views, mut temp_views) = (args.iter_mut(), temps.iter_mut());
        let mut views: Vec<FieldView> = program
            .fields
            .iter()
            .map(|d| match d.role {
                ir::Role::Temp => temp_views.next().expect("counted").view_mut(),
                _ => arg_views.next().expect("counted").reborrow(),
            })
            .collect();
        let t0 = std::time::Instant::now();
        let r = execute(program, compiled, grid, nlev, &mut views, scalars);
        record_call(program, t0, r.is_ok());
        drop(views);
        self.temps.give_back(temps);
        r
    }

    /// Runs a compiled program variant on `grid` with `args` (shapes checked first).
    /// With `FOEHN_METRICS` ≥ 1 the call time is recorded (as compute time too at ≥ 10:
    /// the whole call runs on the host).
    pub fn run_compiled(
        &self,
        program: &ir::Program,
        compiled: &CompiledProgram,
        grid: &Grid,
        args: &mut Args,
    ) -> Result<()> {
        let t0 = std::time::Instant::now();
        let r = args.with_program_fields(program, grid, |fields, nlev, scalars| {
            let mut views: Vec<FieldView> = fields.iter_mut().map(Field::view_mut).collect();
            execute(program, compiled, grid, nlev, &mut views, scalars)
        });
        record_call(program, t0, r.is_ok());
        r
    }
}

/// Records a call of `program` that started at `t0` in the metrics registry (when
/// `FOEHN_METRICS` is on and the call succeeded); on the CPU the kernel time is the
/// host time.
fn record_call(program: &ir::Program, t0: std::time::Instant, ok: bool) {
    if ok && foehn_metrics::level() > 0 {
        let t = t0.elapsed().as_secs_f64();
        let compute = (foehn_metrics::level() >= foehn_metrics::LEVEL_COMPUTE).then_some(t);
        foehn_metrics::record(&super::program_key(program, "cpu"), t, compute);
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &str {
        "cpu"
    }

    fn execute(&self, program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
        let nlev = args.check(program, grid)?;
        let compiled = self.compile(program, &Schedule::unfused(program), Sizes::of(grid, nlev))?;
        self.run_compiled(program, &compiled, grid, args)
    }

    fn execute_views(
        &self,
        program: &ir::Program,
        grid: &Grid,
        nlev: usize,
        args: &mut [FieldView],
        scalars: &[Scalar],
    ) -> Result<()> {
        let compiled = self.compile(program, &Schedule::unfused(program), Sizes::of(grid, nlev))?;
        self.run_compiled_views(program, &compiled, grid, nlev, args, scalars)
    }
}

fn build_library(tc: &Toolchain, source: &str, artifact: &Path) -> std::result::Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let src = dir.path().join("program.c");
    std::fs::write(&src, source).map_err(|e| e.to_string())?;
    let out = Command::new(&tc.cc)
        .args(CFLAGS)
        .arg("-o")
        .arg(artifact)
        .arg(&src)
        .arg("-lm")
        .output()
        .map_err(|e| format!("cannot run `{}`: {e}", tc.cc))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        let said = said.trim();
        return Err(if said.is_empty() {
            format!(
                "the C compiler `{}` failed ({}) and printed nothing; is CC set to a working \
                 C compiler (e.g. gcc or clang)?",
                tc.cc, out.status
            )
        } else {
            format!(
                "the C compiler `{}` failed ({}):\n{said}",
                tc.cc, out.status
            )
        });
    }
    Ok(())
}

fn data_ptr(f: &mut Field) -> *mut c_void {
    match f.data_mut() {
        FieldData::F64(v) => v.as_mut_ptr() as *mut c_void,
        FieldData::F32(v) => v.as_mut_ptr() as *mut c_void,
        FieldData::I32(v) => v.as_mut_ptr() as *mut c_void,
        FieldData::Bool(v) => v.as_mut_ptr() as *mut c_void,
    }
}

fn execute(
    program: &ir::Program,
    compiled: &CompiledProgram,
    grid: &Grid,
    nlev: usize,
    fields: &mut [FieldView],
    scalar_args: &[Scalar],
) -> Result<()> {
    let code = &compiled.code;
    let strides: Vec<(usize, usize, usize)> = fields.iter().map(|f| f.strides()).collect();
    let sh: Vec<i64> = strides.iter().map(|s| s.0 as i64).collect();
    let sj: Vec<i64> = strides.iter().map(|s| s.1 as i64).collect();
    let sk: Vec<i64> = strides.iter().map(|s| s.2 as i64).collect();
    let nk: Vec<i64> = fields.iter().map(|f| f.vertical_extent() as i64).collect();
    let tables: Vec<*const i32> = Connectivity::ALL
        .iter()
        .map(|&c| grid.topology.table(c).as_slice().as_ptr())
        .collect();
    let scalars: Vec<CScalar> = program
        .scalars
        .iter()
        .zip(scalar_args)
        .map(|(s, v)| match v.cast(s.dtype) {
            Scalar::F64(x) => CScalar { f64: x },
            Scalar::F32(x) => CScalar { f32: x },
            Scalar::I32(x) => CScalar { i32: x },
            Scalar::Bool(b) => CScalar { b: b as u8 },
        })
        .collect();
    let bounds = code.resolve_bounds(program, grid, nlev)?;
    super::check_fixed_size(program, compiled.fixed_for.as_deref(), grid, nlev)?;
    let mut err = 0i32;
    for (i, kernel) in code.kernels.iter().enumerate() {
        let Some(launch) = super::KernelLaunch::resolve(program, &kernel.members, grid, nlev)?
        else {
            continue;
        };
        let dom = launch.union;
        // Outputs that a member also reads are read from a snapshot taken now.
        let snapshots: BTreeMap<u32, Field> = kernel
            .snapshot
            .iter()
            .map(|f| (f.0, fields[f.0 as usize].to_field()))
            .collect();
        let mut snap_ptrs: BTreeMap<u32, *const c_void> = BTreeMap::new();
        let mut snapshots = snapshots;
        for (id, f) in snapshots.iter_mut() {
            snap_ptrs.insert(*id, data_ptr(f) as *const c_void);
        }
        let wr: Vec<*mut c_void> = fields.iter_mut().map(FieldView::as_mut_ptr).collect();
        let rd: Vec<*const c_void> = wr
            .iter()
            .enumerate()
            .map(|(j, &p)| {
                snap_ptrs
                    .get(&(j as u32))
                    .copied()
                    .unwrap_or(p as *const c_void)
            })
            .collect();
        let ctx = Ctx {
            rd: rd.as_ptr(),
            wr: wr.as_ptr(),
            sh: sh.as_ptr(),
            sj: sj.as_ptr(),
            sk: sk.as_ptr(),
            nk: nk.as_ptr(),
            tab: tables.as_ptr(),
            sc: scalars.as_ptr(),
            bounds: bounds.as_ptr(),
            err: &mut err,
            dom: launch.members.as_ptr(),
        };
        let f = compiled.fns[i];
        let (k0, k1) = (dom.k.0 as i64, dom.k.1 as i64);
        let chunks: Vec<(usize, usize)> = (dom.h.0..dom.h.1)
            .step_by(CHUNK)
            .map(|s| (s, (s + CHUNK).min(dom.h.1)))
            .collect();
        let ctx_ref = &ctx;
        chunks.par_iter().for_each(|&(a, b)| {
            // SAFETY: ctx points at live buffers of the right types and sizes (shapes were
            // checked); chunks write disjoint horizontal ranges.
            unsafe { f(ctx_ref as *const Ctx, a as i64, b as i64, k0, k1) };
        });
        drop(snapshots);
        if err != 0 {
            let site = code.sites.get(err as usize - 1);
            let stencil = kernel
                .members
                .iter()
                .map(|&m| &program.stencils[m])
                .find(|st| site.is_some_and(|s| s.stencil == st.name))
                .unwrap_or(&program.stencils[kernel.members[0]]);
            let what = site.map_or_else(
                || format!("run-time check {err} failed"),
                |s| s.what.clone(),
            );
            return Err(program.runtime_error(stencil, what));
        }
    }
    Ok(())
}
