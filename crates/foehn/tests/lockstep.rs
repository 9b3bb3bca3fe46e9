//! Lockstep column kernels (ADR 0025): the members of a column kernel walk the levels
//! together, an ascending loop up to the scan's forward sweep, a descending one from its
//! back substitution, each member lagging the loop by its skew. The skews follow from the
//! members' level offsets (reads ahead of a producer, a later writer of what an earlier
//! member reads ahead or behind); the CPU backend runs the same order as the GPU, so the
//! interpreter (the program as written) checks it on every compiler grid.

use foehn::codegen::{generate, Sizes, Target};
use foehn::dsl::prelude::*;
use foehn::ir::Program;
use foehn::opt::lockstep::{plan, Part};
use foehn::opt::{optimise_scheduled, Decision, OptOptions};

mod common;
use common::assert_cpu_agrees;

/// How `after` reads the solution `s`.
#[derive(Clone, Copy, PartialEq)]
enum Read {
    /// At `k − 1`, `k` and `k + 1`.
    Around,
    /// At a data-dependent level.
    DataDependent,
}

/// `produce` → `a`; `ahead` reads `a` one level down and `z` one level up; `overwrite`
/// then writes `z`; `solve` a forward sweep over `c` (reading `a` one level down) and a
/// back substitution into `s`; `after` reads `s` around its level; `rescale` then
/// rewrites `s` from itself and `out`.
fn program(read: Read) -> Program {
    ProgramDef::new("lockstep", move |b| {
        let x = b.input("x", (CELL, K), F64);
        let y = b.input("y", (CELL, K), F64);
        let w = b.input("w", (CELL, C2E2CO), F64);
        let koff = b.input("koff", (CELL, K), I32);
        let z = b.inout("z", (CELL, K), F64);
        let a = b.temporary("a", (CELL, K), F64);
        let c = b.temporary("c", (CELL, K), F64);
        let s = b.output("s", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        let last = || index(K).lt(nlev() - 1);
        let top = || index(K).lt(1);
        b.stencil(
            "produce",
            &a,
            (y.shift(C2E2CO) * &w).sum_over(C2E2CO) + &x * &x * 0.5,
        );
        b.stencil(
            "ahead",
            &c,
            concat_where(last(), (a.k_shift(1) - &a) / (&a * &a + 1.0), &a * 0.25)
                + concat_where(top(), 0.0, z.k_shift(-1) * 0.125),
        );
        b.stencil("overwrite", &z, &a * 3.0 - &x);
        let [cp, dp] = scan(K, FORWARD, (0.0, 0.0), |prev| {
            let m = 1.0 / (2.0 + &c * &c + &prev[0] * 0.1);
            let rhs = concat_where(last(), a.k_shift(1), &a);
            (&m * 0.5, (rhs - &prev[1]) * &m)
        })
        .split();
        b.stencil(
            "solve",
            &s,
            scan(K, BACKWARD, 0.0, |below| &dp + &below[0] * &cp),
        );
        let around = match read {
            Read::Around => {
                concat_where(last(), s.k_shift(1), 0.0)
                    + concat_where(top(), 0.0, s.k_shift(-1) * 0.5)
            }
            Read::DataDependent => s.k_offset(&koff),
        };
        b.stencil(
            "after",
            &out,
            &s + around + concat_where(last(), x.k_shift(1), 0.0) * 0.01,
        );
        b.stencil(
            "rescale",
            &s,
            &s * 0.5 + &out + concat_where(top(), 0.0, x.k_shift(-1)) * 0.001,
        );
    })
    .specialize(&Variant::new())
    .unwrap()
}

/// Column kernels in lockstep, the temporaries stored (no inlining: every member stays).
fn lockstep() -> OptOptions {
    OptOptions {
        inline: false,
        specialise_regions: false,
        columns: true,
        lockstep: true,
        ..OptOptions::default()
    }
}

#[test]
fn skews_follow_the_level_offsets_between_members() {
    let p = program(Read::Around);
    let members: Vec<_> = p.stencils.iter().collect();
    let l = plan(&p, &members).unwrap();
    let name = |e: &foehn::opt::lockstep::Entry| members[e.member].name.as_str();
    let up: Vec<(&str, i32)> = l.ascending.iter().map(|e| (name(e), e.skew)).collect();
    // `ahead` reads `a` one level down: lag 1. `overwrite` writes `z`, which `ahead` reads
    // one level up at lag 1: lag 2, or it would overwrite `z` before `ahead` reads it.
    // The forward sweep reads `c` at its level (lag 1) and `a` one level down (lag 1).
    assert_eq!(
        up,
        [("produce", 0), ("ahead", 1), ("overwrite", 2), ("solve", 1)]
    );
    assert!(matches!(l.ascending[3].part, Part::ForwardStep(_)));
    let down: Vec<(&str, i32)> = l.descending.iter().map(|e| (name(e), e.skew)).collect();
    // Going down, `after` reads `s` one level down (not yet substituted): lag 1;
    // `rescale` rewrites `s`, which `after` reads one level up at lag 1: lag 2.
    assert_eq!(down, [("solve", 0), ("after", 1), ("rescale", 2)]);
    assert!(matches!(l.descending[0].part, Part::StepAndOutputs(_)));
}

#[test]
fn lockstep_kernels_compute_what_the_program_says_on_every_grid() {
    let p = program(Read::Around);
    let (opt, schedule, report) = optimise_scheduled(&p, &lockstep());
    assert_eq!(schedule.kernels.len(), 1, "{report}");
    assert!(schedule.kernels[0].lockstep.is_some(), "{report}");
    assert!(
        report
            .decisions
            .iter()
            .any(|d| matches!(d, Decision::Lockstep { .. })),
        "{report}"
    );
    assert_cpu_agrees("lockstep", &p, &[(&opt, &schedule)], 9, 0x10c);
    // With the other passes at their defaults (temporaries inlined where they would be).
    let opts = OptOptions {
        columns: true,
        lockstep: true,
        ..OptOptions::default()
    };
    let (opt, schedule, report) = optimise_scheduled(&p, &opts);
    assert!(
        schedule.kernels.iter().any(|k| k.lockstep.is_some()),
        "{report}"
    );
    assert_cpu_agrees(
        "lockstep, default passes",
        &p,
        &[(&opt, &schedule)],
        9,
        0x10d,
    );
    // Domains read at run time (sizes not fixed at compile time).
    let opts = OptOptions {
        fixed_sizes: false,
        ..lockstep()
    };
    let (opt, schedule, _) = optimise_scheduled(&p, &opts);
    assert!(schedule.kernels[0].lockstep.is_some());
    assert_cpu_agrees(
        "lockstep, sizes at run time",
        &p,
        &[(&opt, &schedule)],
        9,
        0x10e,
    );
    let opts = OptOptions {
        level_windows: false,
        ..lockstep()
    };
    let (opt, schedule, _) = optimise_scheduled(&p, &opts);
    assert!(!schedule.kernels[0].level_windows);
    assert_cpu_agrees(
        "lockstep without windows",
        &p,
        &[(&opt, &schedule)],
        9,
        0x10f,
    );
}

/// The CUDA and C sources of the windowed lockstep program, with or without
/// prefetching windows, and the index of its input `x`.
fn windowed_sources(prefetch: bool) -> (String, String, usize) {
    let p = program(Read::Around);
    let opts = OptOptions {
        level_prefetch: prefetch,
        ..lockstep()
    };
    let (opt, schedule, _) = optimise_scheduled(&p, &opts);
    assert!(schedule.kernels[0].level_windows);
    assert_eq!(schedule.kernels[0].level_prefetch, prefetch);
    let grid = &foehn_testkit::grids::compiler_grids()[0];
    let gen = |target| {
        generate(&opt, &schedule, target, Sizes::of(grid, 9))
            .unwrap()
            .source
    };
    let x = opt.fields.iter().position(|d| d.name == "x").unwrap();
    (gen(Target::Cuda), gen(Target::C), x)
}

#[test]
fn inputs_read_at_several_levels_are_held_in_level_windows() {
    let (src, c, x) = windowed_sources(false);
    // Going up, `produce` reads `x` at the loop's level and `overwrite` (lag 2) two
    // levels behind: a window of three, loaded at the top and shifted at the end.
    assert!(src.contains(&format!("W{x}_2 = ((i + 0) >= ")), "{src}");
    assert!(src.contains(&format!("W{x}_0 = W{x}_1;")), "{src}");
    // Going down, `after` (lag 1) reads it one level below and `rescale` (lag 2) one
    // above: levels i + 2 and i + 1.
    assert!(src.contains(&format!("W{x}_0 = ((i + 1) >= ")), "{src}");
    assert!(src.contains(&format!("W{x}_1 = W{x}_0;")), "{src}");
    // In C, the points of a block walk the levels together: a window element per point.
    assert!(c.contains(&format!("double W{x}_0[32];")), "{c}");
    assert!(
        c.contains(&format!("W{x}_0[h - hb] = W{x}_1[h - hb];")),
        "{c}"
    );
}

#[test]
fn prefetching_windows_load_one_level_ahead_on_the_gpu() {
    let (src, c, x) = windowed_sources(true);
    // Going up `x` is read at i and i - 2: the window reaches i + 1, which each
    // iteration loads for the next.
    assert!(src.contains(&format!("W{x}_3 = ((i + 1) >= ")), "{src}");
    assert!(src.contains(&format!("W{x}_2 = W{x}_3;")), "{src}");
    // Going down it is read at i + 1 and i + 2: the window reaches i.
    assert!(src.contains(&format!("W{x}_0 = ((i + 0) >= ")), "{src}");
    // The C target keeps the windows as they were.
    assert!(!c.contains(&format!("W{x}_3")));
}

#[test]
fn a_read_at_a_data_dependent_level_keeps_the_members_in_order() {
    let p = program(Read::DataDependent);
    let (_, schedule, report) = optimise_scheduled(&p, &lockstep());
    assert!(
        schedule.kernels.iter().all(|k| k.lockstep.is_none()),
        "{report}"
    );
    let refused = report.decisions.iter().any(|d| {
        matches!(d, Decision::LockstepRefused { reason, .. }
            if reason.to_string().contains("`s`") && reason.to_string().contains("data-dependent"))
    });
    assert!(refused, "{report}");
}

#[test]
fn a_register_cap_reaches_the_lockstep_kernels_signature_on_the_gpu_only() {
    let p = program(Read::Around);
    let grid = &foehn_testkit::grids::compiler_grids()[0];
    let source = |opts: &OptOptions, target| {
        let (opt, schedule, _) = optimise_scheduled(&p, opts);
        generate(&opt, &schedule, target, Sizes::of(grid, 9))
            .unwrap()
            .source
    };
    let capped = OptOptions {
        lockstep_registers: Some(64),
        ..lockstep()
    };
    assert!(
        source(&capped, Target::Cuda).contains("__global__ void __maxnreg__(64) foehn_kernel_0(")
    );
    assert!(!source(&capped, Target::C).contains("__maxnreg__"));
    // By default lockstep kernels hold at most 96 registers on the GPU (ADR 0031).
    assert!(source(&lockstep(), Target::Cuda).contains("__maxnreg__(96) foehn_kernel_0("));
    let uncapped = OptOptions {
        lockstep_registers: None,
        ..lockstep()
    };
    assert!(!source(&uncapped, Target::Cuda).contains("__maxnreg__"));
    let unrolled = OptOptions {
        lockstep_unroll: Some(2),
        ..lockstep()
    };
    let cuda = source(&unrolled, Target::Cuda);
    assert_eq!(cuda.matches("#pragma unroll 2").count(), 2, "{cuda}");
    assert!(!source(&unrolled, Target::C).contains("#pragma unroll"));
    // A cap on every kernel reaches the lockstep kernel unless its own cap is set.
    let every = OptOptions {
        kernel_registers: Some(48),
        ..uncapped
    };
    assert!(source(&every, Target::Cuda).contains("__maxnreg__(48) foehn_kernel_0("));
    let both = OptOptions {
        lockstep_registers: Some(64),
        ..every
    };
    assert!(source(&both, Target::Cuda).contains("__maxnreg__(64) foehn_kernel_0("));
}

#[test]
fn generated_lockstep_code_is_deterministic_and_has_two_level_loops() {
    let p = program(Read::Around);
    let (opt, schedule, _) = optimise_scheduled(&p, &lockstep());
    let grid = &foehn_testkit::grids::compiler_grids()[0];
    for target in [Target::C, Target::Cuda] {
        let gen = || {
            generate(&opt, &schedule, target, Sizes::of(grid, 9))
                .unwrap()
                .source
        };
        let src = gen();
        assert_eq!(src, gen());
        assert_eq!(src.matches("; ++i) {").count(), 1, "{src}");
        assert_eq!(src.matches("; --i) {").count(), 1, "{src}");
        assert!(src.contains("const foehn_idx k = i - 2;"), "{src}");
        assert!(src.contains("const foehn_idx k = i + 2;"), "{src}");
    }
}

#[test]
fn lockstep_kernels_agree_with_the_interpreter_on_the_gpu() {
    let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("CUDA lockstep kernels") else {
        return;
    };
    let p = program(Read::Around);
    let (opt, schedule, _) = optimise_scheduled(&p, &lockstep());
    let run = (&opt, &schedule);
    foehn_testkit::gpu::assert_gpu_agrees("lockstep on the GPU", &cuda, &p, run, 9, 0x10e);
    let prefetch = OptOptions {
        level_prefetch: true,
        ..lockstep()
    };
    let (opt, schedule, _) = optimise_scheduled(&p, &prefetch);
    let run = (&opt, &schedule);
    foehn_testkit::gpu::assert_gpu_agrees(
        "prefetching windows on the GPU",
        &cuda,
        &p,
        run,
        9,
        0x10f,
    );
}

/// A pointwise coefficient `beta` and a tridiagonal-like solve reading it at two levels
/// in its forward sweep, its result used three times.
fn solve_with_coefficient() -> Program {
    ProgramDef::new("coefficient", |b| {
        let x = b.input("x", (CELL, K), F64);
        let y = b.input("y", (CELL, K), F64);
        let beta = b.temporary("beta", (CELL, K), F64);
        let s = b.output("s", (CELL, K), F64);
        b.stencil(
            "coefficient",
            &beta,
            (&x * &y + &x * &x * 0.5 - &y) / (&x * &x + 2.0),
        );
        let above = concat_where(index(K).lt(1), 0.0, beta.k_shift(-1));
        let [cp, dp] = scan(K, FORWARD, (0.0, 0.0), |prev| {
            let m = 1.0 / (&beta + 3.0 + &prev[0] * &above);
            (&m * 0.5, (&x - &prev[1] * &beta) * &m)
        })
        .split();
        let sol = scan(K, BACKWARD, 0.0, |below| &dp + &below[0] * &cp);
        b.stencil(
            "solve",
            &s,
            concat_where(index(K).lt(1), &sol * 2.0, &sol + &sol * 0.5),
        );
    })
    .specialize(&Variant::new())
    .unwrap()
}

/// Whether the report inlines temporary `t` into stencil `into`.
fn inlined(report: &foehn::opt::OptReport, t: &str, into_stencil: &str) -> bool {
    report.decisions.iter().any(|d| {
        matches!(d, Decision::Inlined { temporary, into, .. } if temporary == t && into == into_stencil)
    })
}

#[test]
fn a_scan_member_in_lockstep_recomputes_a_coefficient_it_reads_at_two_levels() {
    let p = solve_with_coefficient();
    // Counted per path through the scans' carries, recomputing `beta` looks costly.
    let opts = OptOptions {
        lockstep: false,
        ..OptOptions::default()
    };
    let (_, _, report) = optimise_scheduled(&p, &opts);
    assert!(!inlined(&report, "beta", "solve"), "{report}");
    // In lockstep the scan member reads `beta` at two levels per step: inlined.
    let opts = OptOptions {
        columns: true,
        lockstep: true,
        ..OptOptions::default()
    };
    let (opt, schedule, report) = optimise_scheduled(&p, &opts);
    assert!(inlined(&report, "beta", "solve"), "{report}");
    assert_cpu_agrees(
        "coefficient in lockstep",
        &p,
        &[(&opt, &schedule)],
        9,
        0x110,
    );
}

#[test]
fn the_columns_written_going_up_and_read_going_down_are_counted_as_traffic() {
    let p = program(Read::Around);
    let (opt, schedule, _) = optimise_scheduled(&p, &lockstep());
    let grid = &foehn_testkit::grids::compiler_grids()[0];
    let k = &schedule.kernels[0];
    let locals: Vec<&str> = k
        .locals
        .iter()
        .map(|f| opt.field(*f).name.as_str())
        .collect();
    assert_eq!(locals, ["a", "c"]);
    // Per point of `solve` (every cell, 9 levels): the forward sweep's two columns and
    // the two local temporaries, each written once and read once, 8 bytes a value.
    let points = (grid.topology.n_cells() * 9) as u64;
    assert_eq!(
        foehn::opt::lockstep::column_bytes(&opt, k, grid, 9),
        2 * points * 8 * 4
    );
    // `x` is read going up (`produce`, `overwrite`) and again going down (`after`,
    // `rescale`): once more over all its cells and levels. `w` has no levels, `y` and `z`
    // are read going up only, `s` and `out` are written going down.
    assert_eq!(
        foehn::opt::lockstep::descending_rereads(&opt, k, grid, 9),
        points * 8
    );
}

/// `explicit` (nine loads a point) before a solve, read only by `after`, after the scan.
fn explicit_term_after_the_scan() -> Program {
    ProgramDef::new("after_scan", |b| {
        let x = b.input("x", (CELL, K), F64);
        let y = b.input("y", (CELL, K), F64);
        let w = b.input("w", (CELL, C2E2CO), F64);
        let e = b.temporary("explicit", (CELL, K), F64);
        let s = b.output("s", (CELL, K), F64);
        let out = b.output("out", (CELL, K), F64);
        b.stencil(
            "explicit",
            &e,
            (y.shift(C2E2CO) * &w).sum_over(C2E2CO) + &x * 0.5,
        );
        let [cp, dp] = scan(K, FORWARD, (0.0, 0.0), |prev| {
            let m = 1.0 / (&x * &x + 3.0 + &prev[0] * 0.5);
            (&m * 0.5, (&y - &prev[1]) * &m)
        })
        .split();
        b.stencil(
            "solve",
            &s,
            scan(K, BACKWARD, 0.0, |below| &dp + &below[0] * &cp),
        );
        b.stencil("after", &out, &s * &e + &x);
    })
    .specialize(&Variant::new())
    .unwrap()
}

#[test]
fn a_temporary_read_only_after_the_scan_is_recomputed_there_not_kept_in_a_column() {
    let p = explicit_term_after_the_scan();
    // Without the rule the load factor keeps it: a per-thread column of the kernel.
    let opts = OptOptions {
        recompute_after_scan: false,
        ..OptOptions::default()
    };
    let (kept, kept_schedule, report) = optimise_scheduled(&p, &opts);
    assert!(!inlined(&report, "explicit", "after"), "{report}");
    let locals: Vec<&str> = kept_schedule
        .kernels
        .iter()
        .flat_map(|k| &k.locals)
        .map(|f| kept.field(*f).name.as_str())
        .collect();
    assert_eq!(locals, ["explicit"]);
    // By default it is recomputed after the scan, and the report says why.
    let (opt, schedule, report) = optimise_scheduled(&p, &OptOptions::default());
    assert!(
        report.decisions.iter().any(|d| matches!(d,
            Decision::Inlined { temporary, into, after_scan: true, .. } if temporary == "explicit" && into == "after")),
        "{report}"
    );
    assert!(report
        .to_string()
        .contains("recomputed there instead of kept in a column array"));
    assert!(schedule.kernels.iter().all(|k| k.locals.is_empty()));
    assert_cpu_agrees(
        "a temporary after the scan, kept and recomputed",
        &p,
        &[(&kept, &kept_schedule), (&opt, &schedule)],
        9,
        0x111,
    );
}

/// The lockstep options in the level-fastest layout (ADR 0032).
fn level_fastest() -> OptOptions {
    OptOptions {
        level_fastest: true,
        ..lockstep()
    }
}

#[test]
fn level_fastest_column_kernels_run_a_warp_per_column_with_staged_scan_parts() {
    let grid = &foehn_testkit::grids::compiler_grids()[0];
    for p in [program(Read::Around), solve_with_coefficient()] {
        let (opt, schedule, _) = optimise_scheduled(&p, &level_fastest());
        let gen = |target| generate(&opt, &schedule, target, Sizes::of(grid, 9)).unwrap();
        let cuda = gen(Target::Cuda);
        assert_eq!(cuda.source, gen(Target::Cuda).source, "deterministic");
        let column = cuda
            .kernels
            .iter()
            .find(|k| k.per_column)
            .expect("a column kernel");
        assert_eq!(column.warps, Some(4), "{}", cuda.source);
        let src = &cuda.source;
        assert!(src.contains("const unsigned int lane = T % 32;"), "{src}");
        assert!(
            src.contains("k = ck0 + (foehn_idx)lane; k < ck1; k += 32"),
            "{src}"
        );
        assert!(src.contains("__shared__ double COL"), "{src}");
        assert!(src.contains("if (lane == 0) {"), "{src}");
        // The carry-free parts of the forward sweep are computed by all lanes first.
        assert!(src.contains("kc = ck0 + (foehn_idx)lane"), "{src}");
        assert!(src.contains("__shared__ double STG"), "{src}");
        assert!(src.matches("__syncwarp();").count() >= 2, "{src}");
        // The CPU code and the default layout keep a thread (a loop) per column.
        let c = gen(Target::C);
        assert!(c.kernels.iter().all(|k| k.warps.is_none()) && !c.source.contains("lane"));
        let (opt, schedule, _) = optimise_scheduled(&p, &lockstep());
        let default = generate(&opt, &schedule, Target::Cuda, Sizes::of(grid, 9)).unwrap();
        assert!(default.kernels.iter().all(|k| k.warps.is_none()));
        // The lockstep unroll factor reaches the lane-0 scan loops (an ablation).
        let unrolled = OptOptions {
            lockstep_unroll: Some(4),
            ..level_fastest()
        };
        let (opt, schedule, _) = optimise_scheduled(&p, &unrolled);
        let src = generate(&opt, &schedule, Target::Cuda, Sizes::of(grid, 9))
            .unwrap()
            .source;
        let lines: Vec<&str> = src.lines().map(str::trim).collect();
        let sweeps: Vec<usize> = (1..lines.len())
            .filter(|&i| {
                lines[i].starts_with("for (foehn_idx kc = ck") && !lines[i].contains("lane")
            })
            .collect();
        assert!(sweeps.len() >= 2, "{src}");
        assert!(
            sweeps.iter().all(|&i| lines[i - 1] == "#pragma unroll 4"),
            "{src}"
        );
        // Four columns a warp: eight lanes each, synchronised among themselves.
        let (opt, schedule, _) = optimise_scheduled(&p, &warp_columns(4));
        let four = generate(&opt, &schedule, Target::Cuda, Sizes::of(grid, 9)).unwrap();
        let column = four.kernels.iter().find(|k| k.per_column).unwrap();
        assert_eq!((column.warps, column.lanes), (Some(4), 8));
        let src = &four.source;
        assert!(src.contains("const unsigned int lane = T % 8;"), "{src}");
        assert!(src.contains("enum { FOEHN_COLUMNS = 16 };"), "{src}");
        assert!(
            src.contains("= 0xffu << ((threadIdx.x & 31u) & ~7u);"),
            "{src}"
        );
        assert!(src.contains("__syncwarp(FOEHN_COLUMN_LANES);"), "{src}");
        assert!(!src.contains("__syncwarp();"), "{src}");
        assert!(src.contains("k < ck1; k += 8"), "{src}");
    }
}

/// The level-fastest options with `n` columns in each warp of a column kernel.
fn warp_columns(n: u32) -> OptOptions {
    OptOptions {
        warp_columns: Some(n),
        ..level_fastest()
    }
}

#[test]
fn warp_per_column_kernels_agree_with_the_interpreter_on_the_gpu() {
    let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("CUDA warp-per-column kernels")
    else {
        return;
    };
    // (Random inputs give `Read::DataDependent` offsets outside the levels: not run.)
    let cases = [
        ("warp per column", program(Read::Around)),
        (
            "warp per column, solve with a coefficient",
            solve_with_coefficient(),
        ),
    ];
    // One column a warp, four (eight lanes each), and 32 (a lane each); the grids'
    // column counts leave the last warp partly empty.
    let runs = cases
        .into_iter()
        .flat_map(|(what, p)| [1, 4, 32].map(|n| (format!("{what}, {n} a warp"), p.clone(), n)));
    for (what, p, n) in runs {
        let what = what.as_str();
        let (opt, schedule, _) = optimise_scheduled(&p, &warp_columns(n));
        assert!(schedule.level_fastest);
        for (g, grid) in foehn_testkit::grids::compiler_grids().iter().enumerate() {
            let args = foehn_testkit::random_args(&p, grid, 9, 0x3a0 + g as u64);
            let mut want = args.clone();
            foehn::runtime::interp::Interpreter
                .run_ir(&p, grid, &mut want)
                .unwrap();
            let mut got = args;
            got.fields_mut()
                .for_each(|f| f.relayout_level_fastest(true));
            cuda.run_scheduled(&opt, &schedule, grid, &mut got).unwrap();
            got.fields_mut()
                .for_each(|f| f.relayout_level_fastest(false));
            foehn_testkit::assert_same_where_defined(what, &p, &want, &got);
        }
    }
}
