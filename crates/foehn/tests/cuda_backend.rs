//! The CUDA backend: generated CUDA is valid C++ (checked with the host C++ compiler,
//! everywhere), and on a machine with a CUDA device it agrees with the interpreter on
//! random programs and the examples. Without a device those tests say so and skip.

use foehn::codegen::{generate, Sizes, Target};
use foehn::ir::{Program, Variant};
use foehn::opt::schedule::per_stencil;
use foehn::opt::{optimise_scheduled, OptOptions};
use foehn::runtime::cuda::CudaBackend;
use foehn::runtime::field::Args;
use foehn::runtime::{interp::Interpreter, Backend};
use foehn_testkit::{random_args, GenConfig, RandomProgram};
use std::process::Command;
use std::sync::OnceLock;

/// Declarations that let g++ parse CUDA device code (NVRTC provides these built in).
fn cuda_shim() -> String {
    let mut s = String::from(
        "#define __global__\n#define __maxnreg__(n)\n#define __device__\n#define __shared__\n#define __restrict__ __restrict\n\
         void __syncthreads();\n\
         void __syncwarp(unsigned mask = 0xffffffffu);\n\
         struct foehn_dim3 { unsigned x, y, z; };\nextern foehn_dim3 blockIdx, blockDim, threadIdx;\n\
         int atomicExch(int* p, int v);\nfloat __int_as_float(int x);\n\
         long long __double_as_longlong(double x);\ndouble __longlong_as_double(long long x);\n",
    );
    let unary = [
        "sqrt", "cbrt", "exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
        "tanh", "asinh", "acosh", "atanh", "floor", "ceil", "trunc", "fabs",
    ];
    for f in unary {
        s += &format!("double {f}(double);\nfloat {f}f(float);\n");
    }
    for f in ["fmin", "fmax", "pow", "fmod"] {
        s += &format!("double {f}(double, double);\nfloat {f}f(float, float);\n");
    }
    for f in ["isfinite", "isnan", "isinf"] {
        s += &format!("bool {f}(double);\nbool {f}(float);\n");
    }
    s
}

fn cxx_syntax_check(source: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.cpp");
    std::fs::write(&path, format!("{}\n{source}", cuda_shim())).unwrap();
    let out = Command::new(std::env::var("CXX").unwrap_or("c++".into()))
        .args(["-fsyntax-only", "-std=c++17", "-Wno-unused"])
        .arg(&path)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn generated_cuda_is_valid_cplusplus() {
    if Command::new("c++").arg("--version").output().is_err() {
        eprintln!("skipping: no host C++ compiler to check CUDA syntax");
        return;
    }
    let mut programs: Vec<_> = [
        foehn_testkit::examples::divergence(),
        foehn_testkit::examples::interpolate_to_half_levels(),
        foehn_testkit::examples::tridiagonal_solve(),
    ]
    .into_iter()
    .map(|p| p.specialize(&Variant::new()).unwrap())
    .collect();
    for seed in 0..12u64 {
        programs.push(random_program(seed));
    }
    for (i, ir) in programs.iter().enumerate() {
        let k_blocked = OptOptions {
            k_block: 4,
            idx32: i % 2 == 1,
            ..OptOptions::none()
        };
        let src = generate(
            ir,
            &per_stencil(ir, &k_blocked),
            Target::Cuda,
            Sizes::levels(8),
        )
        .unwrap()
        .source;
        if let Err(e) = cxx_syntax_check(&src) {
            panic!("{}: generated CUDA does not parse:\n{e}\n{src}", ir.name);
        }
        // Optimised: fused kernels, sizes fixed for a grid; and in the level-fastest
        // layout (a thread per level, a warp per column, ADR 0032).
        let optimised = OptOptions {
            k_block: 4,
            ..OptOptions::default()
        };
        let level_fastest = OptOptions {
            level_fastest: true,
            ..OptOptions::default()
        };
        let four_a_warp = OptOptions {
            warp_columns: Some(4),
            ..level_fastest.clone()
        };
        let grid = foehn_testkit::grids::compiler_grids()[i % 2];
        for (what, opts) in [
            ("optimised", optimised),
            ("level-fastest", level_fastest),
            ("level-fastest, four columns a warp", four_a_warp),
        ] {
            let (opt, schedule, _) = optimise_scheduled(ir, &opts);
            let src = generate(&opt, &schedule, Target::Cuda, Sizes::of(grid, 8))
                .unwrap()
                .source;
            if let Err(e) = cxx_syntax_check(&src) {
                panic!(
                    "{} ({what}): generated CUDA does not parse:\n{e}\n{src}",
                    ir.name
                );
            }
        }
    }
}

/// The CUDA source of `ir`, a kernel per stencil, k-blocked by 4 with 32-bit indices and
/// the other choices of `opts`, for 8 levels.
fn k_blocked_source(ir: &Program, opts: OptOptions) -> String {
    let opts = OptOptions {
        k_block: 4,
        idx32: true,
        ..opts
    };
    generate(ir, &per_stencil(ir, &opts), Target::Cuda, Sizes::levels(8))
        .unwrap()
        .source
}

/// The first kernel of `src` split at its level loop: what comes before it (the
/// preamble of hoisted loads), and the loop with what follows.
fn level_loop(src: &str) -> (String, String) {
    let kernel = &src[src.find("__global__").expect("a kernel")..];
    let at = kernel
        .find("for (foehn_idx k = kb0")
        .expect("a k-block loop");
    (kernel[..at].to_string(), kernel[at..].to_string())
}

#[test]
fn level_invariant_loads_are_hoisted_out_of_the_k_block_loop() {
    let ir = foehn_testkit::examples::divergence()
        .specialize(&Variant::new())
        .unwrap();
    let source = |hoist: bool| {
        k_blocked_source(
            &ir,
            OptOptions {
                hoist,
                ..OptOptions::none()
            },
        )
    };
    let (before, inside) = level_loop(&source(false));
    assert!(inside.contains("T_C2E["), "{inside}");
    assert!(!before.contains("T_C2E["));
    let hoisted = source(true);
    let (before, inside) = level_loop(&hoisted);
    // The neighbour row and the weights without levels are loaded before the loop;
    // inside it only the fields with levels are read.
    assert!(before.contains("T_C2E[h*3 + q0]"), "{before}");
    assert!(!inside.contains("T_C2E["), "{inside}");
    assert!(inside.contains("#pragma unroll\n"), "{inside}");
    if Command::new("c++").arg("--version").output().is_ok() {
        cxx_syntax_check(&hoisted).unwrap_or_else(|e| panic!("{e}\n{hoisted}"));
    }
}

#[test]
fn loads_only_a_data_dependent_branch_needs_stay_in_that_branch() {
    use foehn::dsl::prelude::*;
    // `div` where `vn` is positive, else `vn`: the divergence's neighbour row and
    // weights (level-invariant) are needed only inside the `where` branch.
    let ir = ProgramDef::new("branch_only_gather", |b| {
        let vn = b.input("vn", (EDGE, K), F64);
        let x = b.input("x", (CELL, K), F64);
        let geofac_div = b.input("geofac_div", (CELL, C2E), F64);
        let out = b.output("out", (CELL, K), F64);
        let div = foehn_testkit::examples::divergence_op(&vn, &geofac_div);
        b.stencil("branch", &out, where_(x.gt(0.0), &x + div, &x))
            .horizontal(start(Zone::Interior), end(Zone::Local));
    })
    .specialize(&Variant::new())
    .unwrap();
    let source = |branch_local: bool| {
        let src = k_blocked_source(
            &ir,
            OptOptions {
                hoist: true,
                branch_local,
                ..OptOptions::none()
            },
        );
        let (before, inside) = level_loop(&src);
        (before, inside, src)
    };
    let (before, inside, _) = source(false);
    assert!(before.contains("T_C2E[h*3 + q0]"), "{before}");
    assert!(!inside.contains("T_C2E["), "{inside}");
    let (before, inside, src) = source(true);
    assert!(!before.contains("T_C2E["), "{before}");
    // No hoisted row at all: nothing level-invariant is needed outside the branch.
    assert!(!before.contains("#pragma unroll\n"), "{before}");
    let branch = &inside[inside.find("if (").expect("the where branch")..];
    assert!(branch.contains("T_C2E[h*3 + "), "{inside}");
    if Command::new("c++").arg("--version").output().is_ok() {
        cxx_syntax_check(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    }
}

#[test]
fn staged_values_are_computed_in_shared_memory_before_the_consumer() {
    let ir = foehn_testkit::deviation_then_edge_max()
        .specialize(&Variant::new())
        .unwrap();
    let opts = OptOptions {
        k_block: 4,
        fixed_sizes: false,
        ..OptOptions::default()
    };
    let (opt, schedule, report) = optimise_scheduled(&ir, &opts);
    assert!(report
        .decisions
        .iter()
        .any(|d| matches!(d, foehn::opt::Decision::Staged { .. })));
    let code = generate(&opt, &schedule, Target::Cuda, Sizes::levels(8)).unwrap();
    assert_eq!(
        code.kernels[0].stage,
        Some((foehn_grid::Connectivity::E2C, 1))
    );
    let src = &code.source;
    let sync = src.find("__syncthreads();").expect("a barrier");
    let fill = src
        .find("foehn_tile[(0*4 + (k - kb0))*TM + ti] =")
        .expect("a tile fill");
    let exit = src.find("if (h >= h1) return;").expect("an exit");
    let read = src.rfind("foehn_tile[").unwrap();
    // Every thread fills before the barrier; threads beyond the domain leave after it.
    assert!(fill < sync && sync < exit && exit < read, "{src}");
    if Command::new("c++").arg("--version").output().is_ok() {
        cxx_syntax_check(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    }
}

/// Random programs per GPU test (`FOEHN_GPU_CASES`, default 64).
fn gpu_cases() -> u64 {
    std::env::var("FOEHN_GPU_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64)
}

fn cuda() -> Option<&'static CudaBackend> {
    static B: OnceLock<Option<(tempfile::TempDir, CudaBackend)>> = OnceLock::new();
    B.get_or_init(|| foehn_testkit::gpu::cuda_backend("CUDA tests"))
        .as_ref()
        .map(|(_, b)| b)
}

/// f64 fields must agree to `tol`; f32 fields to 1e-5 (CUDA's single-precision math
/// functions are within 2 ulp of glibc's, not bit-identical).
fn assert_agree(what: &str, a: &Args, b: &Args, tol: f64) {
    foehn_testkit::compare::assert_fields_agree(what, "cuda", a, b, |dtype| {
        if dtype == foehn::ir::DType::F32 {
            tol.max(1e-5)
        } else {
            tol
        }
    });
}

/// Random test-suite program `seed`, specialised.
fn random_program(seed: u64) -> Program {
    RandomProgram::generate(seed, GenConfig::default())
        .def
        .specialize(&Variant::new())
        .unwrap()
}

#[test]
fn random_programs_agree_on_the_gpu() {
    let Some(cuda) = cuda() else { return };
    let cases = gpu_cases();
    let (mut ok, mut both_err) = (0, 0);
    for seed in 0..cases {
        let ir = random_program(seed);
        for grid in foehn_testkit::grids::compiler_grids() {
            let args = random_args(&ir, grid, 4, seed ^ 0x5eed);
            let (mut a, mut b) = (args.clone(), args);
            let ri = Interpreter.run_ir(&ir, grid, &mut a);
            // Odd seeds run k-blocked (3 levels per thread, 4 levels: a partial block) with
            // 32-bit indices.
            let opts = OptOptions {
                k_block: if seed % 2 == 1 { 3 } else { 1 },
                idx32: seed % 2 == 1,
                ..OptOptions::none()
            };
            let rc = cuda.run_scheduled(&ir, &per_stencil(&ir, &opts), grid, &mut b);
            match (ri, rc) {
                (Ok(()), Ok(())) => {
                    assert_agree(&format!("seed {seed}\n{ir}"), &a, &b, 1e-12);
                    ok += 1
                }
                (Err(_), Err(_)) => both_err += 1,
                (ri, rc) => panic!("seed {seed}: interpreter {ri:?}, cuda {rc:?}\n{ir}"),
            }
        }
    }
    eprintln!(
        "{}: {ok} runs agree, {both_err} fail on both",
        cuda.gpu().name()
    );
}

#[test]
fn programs_sharing_work_buffers_agree_on_the_gpu() {
    // A backend of its own (the shared one serves parallel test threads): bindings
    // share temporaries and snapshots, so every program after the first finds another
    // program's values in them; results must not change.
    let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("CUDA tests") else {
        return;
    };
    cuda.share_work_buffers();
    let mut ok = 0;
    for seed in 0..gpu_cases().min(24) {
        let ir = random_program(seed);
        let grid = foehn_testkit::grids::compiler_grids()[seed as usize % 2];
        let args = random_args(&ir, grid, 4, seed ^ 0x5eed);
        let (mut a, mut b) = (args.clone(), args);
        let opts = OptOptions {
            k_block: 3,
            idx32: true,
            ..OptOptions::none()
        };
        if Interpreter.run_ir(&ir, grid, &mut a).is_ok() {
            cuda.run_scheduled(&ir, &per_stencil(&ir, &opts), grid, &mut b)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{ir}"));
            assert_agree(&format!("seed {seed}\n{ir}"), &a, &b, 1e-12);
            ok += 1;
        }
    }
    assert!(ok > 0, "no random program ran");
}

#[test]
fn examples_agree_on_the_gpu() {
    let Some(cuda) = cuda() else { return };
    for entry in foehn_testkit::catalog::examples() {
        for grid in foehn_testkit::grids::compiler_grids() {
            let ir = entry.specialize(&Variant::new()).unwrap();
            let args = (entry.inputs)(&ir, grid, 7, 9);
            let (mut a, mut b) = (args.clone(), args);
            Interpreter.run_ir(&ir, grid, &mut a).unwrap();
            cuda.execute(&entry.specialize(&Variant::new()).unwrap(), grid, &mut b)
                .unwrap();
            assert_agree(entry.name, &a, &b, 1e-12);
        }
    }
}

/// Agreement where the program as written defined a value (NaN there: a temporary read
/// outside its producer's points, which the optimiser may compute instead). Programs
/// with any single-precision value compare every field to 1e-4: chains of CUDA
/// single-precision functions (2 ulp each) with cancellation were measured 1.1e-5 apart
/// from glibc's (seed 31), and f64 outputs computed from f32 values one f32 ulp apart
/// (seed 44).
fn assert_agree_where_defined(ir: &Program, what: &str, want: &Args, got: &Args, tol: f64) {
    let single = ir.types.iter().any(|t| match t {
        foehn::ir::Type::Field(f) => f.dtype == foehn::ir::DType::F32,
        foehn::ir::Type::Tuple(_) => false,
    });
    for (name, fa) in want.fields() {
        let tol = if single { tol.max(1e-4) } else { tol };
        let (da, db) = (fa.data(), got.field(name).unwrap().data());
        for i in 0..da.len() {
            let (x, y) = (da.get(i).as_f64(), db.get(i).as_f64());
            assert!(
                x.is_nan()
                    || x.to_bits() == y.to_bits()
                    || (x - y).abs() <= tol * x.abs().max(y.abs()),
                "{what}: field `{name}` element {i}: interpreter {x:e}, cuda {y:e}"
            );
        }
    }
}

#[test]
fn optimised_random_programs_agree_on_the_gpu() {
    let Some(cuda) = cuda() else { return };
    let cases = gpu_cases();
    let (mut ok, mut fused) = (0, 0);
    for seed in 0..cases {
        let ir = RandomProgram::generate(
            seed,
            GenConfig {
                max_stencils: 4,
                ..GenConfig::default()
            },
        )
        .def
        .specialize(&Variant::new())
        .unwrap();
        // Seeds rotate through: every pass (hoisting included); fusion only (keeps every
        // stencil to fuse, no hoisting);
        // every pass but k-major order; every pass but 32-bit indices and fixed sizes.
        let all = OptOptions {
            k_block: 3,
            ..OptOptions::default()
        };
        let opts = match seed % 4 {
            0 => all,
            1 => OptOptions {
                fuse: true,
                fixed_sizes: true,
                k_major: true,
                k_block: 2,
                ..OptOptions::none()
            },
            2 => OptOptions {
                k_major: false,
                ..all
            },
            _ => OptOptions {
                idx32: false,
                fixed_sizes: false,
                ..all
            },
        };
        let (opt, schedule, report) = optimise_scheduled(&ir, &opts);
        fused += schedule.kernels.iter().filter(|k| k.is_fused()).count();
        for grid in foehn_testkit::grids::compiler_grids() {
            let args = random_args(&ir, grid, 4, seed ^ 0x0bad);
            let (mut a, mut b) = (args.clone(), args);
            if Interpreter.run_ir(&ir, grid, &mut a).is_err() {
                continue;
            }
            cuda.run_scheduled(&opt, &schedule, grid, &mut b)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{report}\n{ir}"));
            assert_agree_where_defined(&ir, &format!("seed {seed}\n{report}\n{ir}"), &a, &b, 1e-12);
            ok += 1;
        }
    }
    eprintln!(
        "{}: {ok} optimised runs agree ({fused} fused kernels)",
        cuda.gpu().name()
    );
}

#[test]
fn tuning_is_measured_once_persisted_and_preserves_results() {
    use foehn::codegen::c::balanced_k_block;
    let Some(cuda) = cuda() else { return };
    let grid = &foehn_testkit::grids::compiler_grids()[0];
    let entry = foehn_testkit::catalog::examples()
        .into_iter()
        .find(|e| e.name == "divergence")
        .unwrap();
    let ir = entry.specialize(&Variant::new()).unwrap();
    let args = (entry.inputs)(&ir, grid, 9, 4);
    let opts = OptOptions::default();
    let (opt, schedule, _) = optimise_scheduled(&ir, &opts);
    let case = foehn::runtime::tune::Case {
        p: &opt,
        schedule: &schedule,
        grid,
        nlev: 9,
        args: foehn::runtime::tune::Inputs::Given(&args),
    };
    let first = foehn::runtime::tune::tune(cuda, &case).unwrap();
    let again = foehn::runtime::tune::tune(cuda, &case).unwrap();
    assert_eq!(first.origin, foehn_cache::Origin::Built);
    assert_eq!(again.origin, foehn_cache::Origin::Hit);
    assert_eq!(first.kernels, again.kernels);
    let c = first.kernels[0]
        .clone()
        .expect("the divergence kernel has points");
    // The k-block recorded is the one the kernel carried out: a candidate evened out
    // over the 9 levels (8 becomes two blocks of 5), not the candidate itself
    // (asserting a candidate failed on the H100 whenever 8, 16 or 32 won).
    let carried_out = foehn::runtime::tune::K_BLOCKS.map(|k| balanced_k_block(k, 9));
    assert!(
        carried_out.contains(&c.k_block) && foehn::runtime::tune::BLOCKS.contains(&c.block),
        "{c:?}"
    );
    // Both were measured; whether tuning pays is a benchmark's question (`foehn bench
    // --schedule tuned`): on this small grid the kernel runs for microseconds, and a
    // timing bound here failed on the H100 by noise alone.
    assert!(c.ms > 0.0 && c.default_ms > 0.0, "{c:?}");
    let tuned = foehn::runtime::tune::apply(&opt, &schedule, &first);
    let (mut a, mut b) = (args.clone(), args);
    Interpreter.run_ir(&ir, grid, &mut a).unwrap();
    cuda.run_scheduled(&opt, &tuned, grid, &mut b).unwrap();
    assert_agree("tuned divergence", &a, &b, 1e-12);
}

/// Device fields can be borrowed views of memory the caller owns (an OpenACC array, a
/// CuPy buffer): the program reads and writes it in place, and dropping foehn's
/// arguments and bindings leaves the caller's memory alive.
#[test]
fn device_fields_can_be_borrowed_views_of_caller_memory() {
    let Some(cuda) = cuda() else { return };
    let grid = foehn_testkit::grids::small_global();
    let nlev = 6;
    let ir = foehn_testkit::examples::divergence()
        .specialize(&Variant::new())
        .unwrap();
    let args = random_args(&ir, grid, nlev, 9);
    let mut want = args.clone();
    Interpreter.run_ir(&ir, grid, &mut want).unwrap();
    // The caller's own device memory, filled by the caller.
    let owned: Vec<(String, foehn_gpu::DeviceBuffer)> = ["vn", "geofac_div", "div"]
        .iter()
        .map(|n| {
            let data = args.field(n).unwrap().as_f64().unwrap();
            let buf = foehn_gpu::DeviceBuffer::from_slice(cuda.gpu(), data).unwrap();
            (n.to_string(), buf)
        })
        .collect();
    {
        let mut dev = foehn::runtime::cuda::DeviceArgs::default();
        for (n, buf) in &owned {
            // SAFETY: the buffers outlive `dev` and the binding below.
            unsafe { dev.borrow_field(&ir, n, buf.ptr(), buf.bytes(), grid, nlev) }.unwrap();
        }
        // A wrong size is refused with the argument's name.
        let e = unsafe { dev.borrow_field(&ir, "div", owned[2].1.ptr(), 8, grid, nlev) }
            .unwrap_err()
            .to_string();
        assert!(e.contains("div") && e.contains("bytes"), "{e}");
        let schedule = foehn::ir::Schedule::unfused(&ir);
        let compiled = cuda.compile(&ir, &schedule, Sizes::of(grid, nlev)).unwrap();
        let mut bound = cuda.bind(&ir, &compiled, grid, nlev, &dev).unwrap();
        bound.launch().unwrap();
        bound.finish().unwrap();
    }
    // The result is in the caller's buffer, which is still alive.
    let mut got = vec![0.0f64; want.field("div").unwrap().as_f64().unwrap().len()];
    owned[2].1.download(cuda.gpu(), &mut got).unwrap();
    foehn_testkit::compare::assert_close(
        "borrowed div",
        want.field("div").unwrap().as_f64().unwrap(),
        &got,
        1e-12,
    );
}

#[test]
fn k_blocks_are_evened_out_over_the_kernels_levels() {
    use foehn::codegen::c::balanced_k_block;
    // 35 levels, plan 16: three blocks of 12 (36 slots) instead of 16 + 16 + 3 (48).
    assert_eq!(balanced_k_block(16, 35), 12);
    assert_eq!(balanced_k_block(16, 80), 16);
    assert_eq!(balanced_k_block(16, 120), 15);
    assert_eq!(balanced_k_block(8, 35), 7);
    assert_eq!(balanced_k_block(16, 5), 5);
    assert_eq!(balanced_k_block(1, 35), 1);
    assert_eq!(balanced_k_block(16, 0), 16);
    for levels in 1..200 {
        for kb in [2, 4, 8, 16, 32] {
            let b = balanced_k_block(kb, levels);
            assert!(b <= kb && b >= 1);
            // As many blocks as the plan's k-block needs, never more idle slots.
            assert_eq!(levels.div_ceil(b), levels.div_ceil(kb));
            assert!(levels.div_ceil(b) * b <= levels.div_ceil(kb) * kb);
        }
    }
    // The generator applies it: a divergence over 35 levels with a plan of 16 walks 12.
    let ir = foehn_testkit::examples::divergence()
        .specialize(&Variant::new())
        .unwrap();
    let opts = OptOptions {
        k_block: 16,
        ..OptOptions::none()
    };
    let grid = foehn_testkit::grids::compiler_grids()[0];
    let code = generate(
        &ir,
        &per_stencil(&ir, &opts),
        Target::Cuda,
        Sizes::of(grid, 35),
    )
    .unwrap();
    assert!(
        code.kernels.iter().all(|k| k.k_block == 12),
        "{:?}",
        code.kernels.iter().map(|k| k.k_block).collect::<Vec<_>>()
    );
    assert!(
        code.source.contains("(foehn_idx)KB * 12;"),
        "{}",
        code.source
    );
}
