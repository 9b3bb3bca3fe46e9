//! The native CPU backend agrees with the interpreter: on random well-typed programs
//! (shifts, reductions with skip values, where, concat_where, k-shifts, scans), on the
//! three documented examples, and on run-time errors; code generation is deterministic
//! and the compiled-program cache survives corruption.

use foehn::codegen::{generate, Sizes, Target};
use foehn::dsl::prelude::*;
use foehn::ir::Schedule;
use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::field::{Args, Field};
use foehn::runtime::{interp::Interpreter, Backend};
use foehn_cache::{Cache, Origin};
use foehn_testkit::examples;
use foehn_testkit::grids::small_global;
use foehn_testkit::{random_args, random_field, GenConfig, RandomProgram, SplitMix64};
use proptest::prelude::*;

mod common;
use common::cpu;

/// Asserts every field agrees: bit-identical, or within `tol` relative for floats.
fn assert_agree(what: &str, a: &Args, b: &Args, tol: f64) {
    foehn_testkit::compare::assert_fields_agree(what, "cpu", a, b, |_| tol);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_programs_agree_with_the_interpreter(seed in any::<u64>(), g in 0usize..2) {
        let rp = RandomProgram::generate(seed, GenConfig::default());
        let ir = rp.def.specialize(&Variant::new()).unwrap();
        let grid = &foehn_testkit::grids::compiler_grids()[g];
        let args = random_args(&ir, grid, 4, seed ^ 0x5eed);
        let (mut a, mut b) = (args.clone(), args);
        let ri = Interpreter.run_ir(&ir, grid, &mut a);
        let compiled = cpu().compile(&ir, &Schedule::unfused(&ir), foehn::codegen::Sizes::of(grid, 4)).unwrap_or_else(|e| panic!("seed {seed:#x}: {e}\n{ir}"));
        let rc = cpu().run_compiled(&ir, &compiled, grid, &mut b);
        match (ri, rc) {
            (Ok(()), Ok(())) => assert_agree(&format!("seed {seed:#x}\n{ir}"), &a, &b, 1e-13),
            (Err(_), Err(_)) => {}
            (ri, rc) => panic!("seed {seed:#x}: interpreter {ri:?}, cpu {rc:?}\n{ir}\n{}", compiled.source()),
        }
    }
}

#[test]
fn examples_agree_with_the_interpreter() {
    for grid in foehn_testkit::grids::compiler_grids() {
        let mut rng = SplitMix64::new(11);
        let nlev = 7;
        let f = |rng: &mut SplitMix64, dims: Vec<Dim>| {
            random_field(rng, grid, nlev, dims, F64, 0.5, 1.5)
        };
        let cases: Vec<(ProgramDef, Args)> = vec![
            (
                examples::divergence(),
                Args::new()
                    .with_field("vn", f(&mut rng, vec![EDGE.into(), K.into()]))
                    .with_field("geofac_div", f(&mut rng, vec![CELL.into(), C2E.into()]))
                    .with_field("div", Field::zeros(grid, nlev, (CELL, K), F64)),
            ),
            (
                examples::interpolate_to_half_levels(),
                Args::new()
                    .with_field("wgtfac_c", f(&mut rng, vec![CELL.into(), KHALF.into()]))
                    .with_field("x", f(&mut rng, vec![CELL.into(), K.into()]))
                    .with_field(
                        "x_ic",
                        Field::filled(grid, nlev, (CELL, KHALF), (-3.0).into()),
                    ),
            ),
            (
                examples::tridiagonal_solve(),
                Args::new()
                    .with_field("a", f(&mut rng, vec![CELL.into(), K.into()]))
                    .with_field(
                        "b",
                        random_field(&mut rng, grid, nlev, (CELL, K), F64, 4.0, 5.0),
                    )
                    .with_field("c", f(&mut rng, vec![CELL.into(), K.into()]))
                    .with_field("d", f(&mut rng, vec![CELL.into(), K.into()]))
                    .with_field("x", Field::zeros(grid, nlev, (CELL, K), F64)),
            ),
        ];
        for (p, args) in cases {
            let (mut a, mut b) = (args.clone(), args);
            Interpreter.run(&p, &Variant::new(), grid, &mut a).unwrap();
            cpu().run(&p, &Variant::new(), grid, &mut b).unwrap();
            assert_agree(p.name(), &a, &b, 1e-13);
        }
    }
}

#[test]
fn generating_twice_gives_identical_code() {
    for seed in 0..40u64 {
        let ir = RandomProgram::generate(seed, GenConfig::default())
            .def
            .specialize(&Variant::new())
            .unwrap();
        let ir2 = RandomProgram::generate(seed, GenConfig::default())
            .def
            .specialize(&Variant::new())
            .unwrap();
        assert_eq!(
            generate(&ir, &Schedule::unfused(&ir), Target::C, Sizes::levels(4))
                .unwrap()
                .source,
            generate(&ir2, &Schedule::unfused(&ir2), Target::C, Sizes::levels(4))
                .unwrap()
                .source,
            "seed {seed}"
        );
    }
}

#[test]
fn corrupt_cache_entry_is_rebuilt_not_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let ir = examples::divergence().specialize(&Variant::new()).unwrap();
    let unfused = Schedule::unfused(&ir);
    // Compile, then unload (a library that is loaded must not be modified in place).
    let key = {
        let first = CpuBackend::new(Cache::at(dir.path()))
            .compile(&ir, &unfused, foehn::codegen::Sizes::of(small_global(), 4))
            .unwrap();
        assert_eq!(first.origin, Origin::Built);
        first.key.clone()
    };
    let artifact = Cache::at(dir.path()).artifact_path(&key);
    let len = std::fs::metadata(&artifact).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&artifact)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let again = CpuBackend::new(Cache::at(dir.path()))
        .compile(&ir, &unfused, foehn::codegen::Sizes::of(small_global(), 4))
        .unwrap();
    assert_eq!(again.origin, Origin::Rebuilt);
    assert_eq!(again.key, key);
    let hit = CpuBackend::new(Cache::at(dir.path()))
        .compile(&ir, &unfused, foehn::codegen::Sizes::of(small_global(), 4))
        .unwrap();
    assert_eq!(hit.origin, Origin::Hit);
    // And the rebuilt program runs correctly.
    let grid = &foehn_testkit::grids::compiler_grids()[0];
    let mut rng = SplitMix64::new(3);
    let args = Args::new()
        .with_field(
            "vn",
            random_field(&mut rng, grid, 3, (EDGE, K), F64, 0.5, 1.5),
        )
        .with_field(
            "geofac_div",
            random_field(&mut rng, grid, 3, (CELL, C2E), F64, 0.5, 1.5),
        )
        .with_field("div", Field::zeros(grid, 3, (CELL, K), F64));
    let (mut a, mut b) = (args.clone(), args);
    Interpreter.run_ir(&ir, grid, &mut a).unwrap();
    CpuBackend::new(Cache::at(dir.path()))
        .run_compiled(&ir, &hit, grid, &mut b)
        .unwrap();
    assert_agree("divergence", &a, &b, 0.0);
}

#[test]
fn runtime_errors_name_program_stencil_and_field() {
    let grid = &foehn_testkit::grids::compiler_grids()[0];
    // Reading the sixth edge of every vertex hits pentagons' skip values.
    let p = ProgramDef::new("pentagon_read", |b| {
        let vn = b.input("vn", (EDGE, K), F64);
        let out = b.output("out", (VERTEX, K), F64);
        b.stencil("sixth_edge", &out, vn.at(V2E, 5));
    });
    let args = Args::new()
        .with_field("vn", Field::filled(grid, 2, (EDGE, K), 1.0.into()))
        .with_field("out", Field::zeros(grid, 2, (VERTEX, K), F64));
    let err = cpu()
        .run(&p, &Variant::new(), grid, &mut args.clone())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("pentagon_read") && err.contains("sixth_edge") && err.contains("V2E"),
        "{err}"
    );
    assert!(Interpreter
        .run(&p, &Variant::new(), grid, &mut args.clone())
        .is_err());
    // Reading level k-1 at the top.
    let q = ProgramDef::new("above_top", |b| {
        let x = b.input("x", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        b.stencil("shift_up", &out, x.k_shift(-1));
    });
    let args = Args::new()
        .with_field("x", Field::filled(grid, 3, (CELL, K), 1.0.into()))
        .with_field("out", Field::zeros(grid, 3, (CELL, K), F64));
    let err = cpu()
        .run(&q, &Variant::new(), grid, &mut args.clone())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("shift_up") && err.contains("field `x`"),
        "{err}"
    );
}

/// Argument fields can be views of memory the caller owns (NumPy or Fortran arrays): the
/// CPU backend writes the caller's output in place; the interpreter (through copies)
/// gives the same; a view of the wrong size is refused, naming the argument.
#[test]
fn fields_can_be_views_of_caller_memory() {
    use foehn::runtime::field::FieldView;
    let grid = small_global();
    let nlev = 5;
    let ir = examples::divergence().specialize(&Variant::new()).unwrap();
    let args = foehn_testkit::random_args(&ir, grid, nlev, 21);
    let mut want = args.clone();
    Interpreter.run_ir(&ir, grid, &mut want).unwrap();
    let own = |n: &str| args.field(n).unwrap().as_f64().unwrap().to_vec();
    for backend in [&Interpreter as &dyn Backend, cpu() as &dyn Backend] {
        let (mut vn, mut geofac, mut div) = (own("vn"), own("geofac_div"), own("div"));
        let at = div.as_ptr();
        {
            let mut views = [
                FieldView::f64(grid, nlev, (EDGE, K), &mut vn).unwrap(),
                FieldView::f64(grid, nlev, (CELL, C2E), &mut geofac).unwrap(),
                FieldView::f64(grid, nlev, (CELL, K), &mut div).unwrap(),
            ];
            backend
                .execute_views(&ir, grid, nlev, &mut views, &[])
                .unwrap();
        }
        assert_eq!(div.as_ptr(), at, "written in place");
        foehn_testkit::compare::assert_close(
            backend.name(),
            want.field("div").unwrap().as_f64().unwrap(),
            &div,
            0.0,
        );
    }
    let (mut vn, mut geofac, mut short) = (own("vn"), own("geofac_div"), vec![0.0; 3]);
    let mut views = [
        FieldView::f64(grid, nlev, (EDGE, K), &mut vn).unwrap(),
        FieldView::f64(grid, nlev, (CELL, C2E), &mut geofac).unwrap(),
        FieldView::new(
            (CELL, K),
            vec![3, 1],
            foehn::runtime::field::SliceData::F64(&mut short),
        )
        .unwrap(),
    ];
    let e = cpu()
        .execute_views(&ir, grid, nlev, &mut views, &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("`div`") || e.contains("div"), "{e}");
}
