//! The linker (`ir::link`): a linked sequence of programs gives the results of running
//! them one after the other (interpreter, CPU backend, optimised), on a global and a
//! limited-area grid; intermediates become temporaries, re-written intermediates get
//! fresh versions, call temporaries are renamed on clashes; errors name the calls.

use foehn::codegen::Sizes;
use foehn::dsl::prelude::*;
use foehn::ir::link::{link, LinkCall, LinkErrorKind, LinkSpec};
use foehn::ir::Schedule;
use foehn::ir::{Program, Role};
use foehn::opt::{optimise, OptOptions};
use foehn::runtime::cpu::CpuBackend;
use foehn::runtime::field::{Args, Field};
use foehn::runtime::interp::Interpreter;
use foehn_cache::Cache;
use foehn_grid::Grid;
use foehn_testkit::examples::{self, divergence_op, interpolate_to_half_levels_op};
use foehn_testkit::{
    assert_same_where_defined, deviation_then_edge_max, random_args, temporary_names,
};
use std::collections::BTreeMap;
use std::sync::OnceLock;

const NLEV: usize = 5;

/// A global grid and a limited-area grid (non-empty boundary zones).
fn grids() -> [&'static Grid; 2] {
    [
        foehn_testkit::grids::small_global(),
        foehn_testkit::grids::limited_area(),
    ]
}

fn cpu() -> &'static CpuBackend {
    static B: OnceLock<(tempfile::TempDir, CpuBackend)> = OnceLock::new();
    &B.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let b = CpuBackend::new(Cache::at(d.path()));
        (d, b)
    })
    .1
}

fn ir(def: ProgramDef) -> Program {
    def.specialize(&Variant::new())
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the calls one after the other on the interpreter over `store` (component
/// names); intermediates missing from `store` start as NaN everywhere, like the
/// interpreter's temporaries.
fn run_in_turn(
    calls: &[LinkCall<'_>],
    grid: &Grid,
    store: &mut BTreeMap<String, Field>,
    scalars: &Args,
) {
    for c in calls {
        let p = c.program;
        let component = |own: &str| {
            c.bind
                .iter()
                .find(|(from, _)| from == own)
                .map_or(own.to_string(), |(_, to)| to.clone())
        };
        let mut args = Args::new().with_nlev(NLEV);
        for d in p.fields.iter().filter(|d| d.role != Role::Temp) {
            let f = store
                .remove(&component(&d.name))
                .unwrap_or_else(|| Field::from_fn_f64(grid, NLEV, d.ty.dims.list(), |_| f64::NAN));
            args.set_field(&d.name, f);
        }
        for s in &p.scalars {
            args.set_scalar(&s.name, scalars.scalar(&component(&s.name)).unwrap());
        }
        Interpreter.run_ir(p, grid, &mut args).unwrap();
        for d in p.fields.iter().filter(|d| d.role != Role::Temp) {
            store.insert(component(&d.name), args.take_field(&d.name).unwrap());
        }
    }
}

/// The argument fields of `linked` agree bit for bit (NaN with NaN) between the linked
/// program on the interpreter and the calls run in turn; the CPU backend and the
/// optimised program on the CPU agree with the interpreter wherever it is defined.
fn check_linked(what: &str, linked: &Program, calls: &[LinkCall<'_>]) {
    let sizes = Sizes::levels(NLEV);
    let compiled = cpu()
        .compile(linked, &Schedule::unfused(linked), sizes)
        .unwrap();
    let (opt, _) = optimise(linked, &OptOptions::default());
    let compiled_opt = cpu()
        .compile(&opt, &Schedule::unfused(&opt), sizes)
        .unwrap();
    for (seed, grid) in grids().iter().enumerate() {
        let what = format!("{what} on {}", grid.name);
        let args = random_args(linked, grid, NLEV, 100 + seed as u64);
        let mut store: BTreeMap<String, Field> = args
            .fields()
            .map(|(n, f)| (n.to_string(), f.clone()))
            .collect();
        run_in_turn(calls, grid, &mut store, &args);
        let mut got = args.clone();
        Interpreter.run_ir(linked, grid, &mut got).unwrap();
        let mut defined = 0;
        for d in linked
            .fields
            .iter()
            .filter(|d| d.role.writable() && d.role != Role::Temp)
        {
            let (a, b) = (store[&d.name].data(), got.field(&d.name).unwrap().data());
            for i in 0..a.len() {
                let (x, y) = (a.get(i).as_f64(), b.get(i).as_f64());
                assert!(
                    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
                    "{what}: `{}`[{i}]: in turn {x:e}, linked {y:e}",
                    d.name
                );
                defined += usize::from(!x.is_nan());
            }
        }
        assert!(defined > 0, "{what}: nothing defined");
        let mut native = args.clone();
        cpu()
            .run_compiled(linked, &compiled, grid, &mut native)
            .unwrap();
        assert_same_where_defined(&format!("{what} (cpu)"), linked, &got, &native);
        let mut optimised = args.clone();
        cpu()
            .run_compiled(&opt, &compiled_opt, grid, &mut optimised)
            .unwrap();
        assert_same_where_defined(&format!("{what} (optimised)"), linked, &got, &optimised);
    }
}

/// `interpolate_to_half_levels` of the divergence `div` into `div_ic`.
fn interpolate_div(interp: &Program) -> LinkCall<'_> {
    LinkCall::new(interp)
        .bind("x", "div")
        .bind("x_ic", "div_ic")
}

fn roles(p: &Program) -> Vec<(&str, Role)> {
    p.fields.iter().map(|d| (d.name.as_str(), d.role)).collect()
}

/// `p` without source positions (not part of a program's meaning).
fn without_spans(p: &Program) -> Program {
    let mut p = p.clone();
    p.spans.iter_mut().for_each(|s| *s = None);
    p.stencils.iter_mut().for_each(|s| s.span = None);
    p
}

#[test]
fn divergence_then_interpolation_through_an_intermediate() {
    let div = ir(examples::divergence());
    let interp = ir(examples::interpolate_to_half_levels());
    let calls = [LinkCall::new(&div), interpolate_div(&interp)];
    let linked = link("div_ic", &calls, &LinkSpec::new().intermediate("div")).unwrap();
    assert_eq!(
        roles(&linked),
        [
            ("vn", Role::In),
            ("geofac_div", Role::In),
            ("div", Role::Temp),
            ("wgtfac_c", Role::In),
            ("div_ic", Role::Out),
        ]
    );
    check_linked("divergence → interpolation", &linked, &calls);

    // The same as the whole program written by hand with the same declaration order.
    let by_hand = ir(ProgramDef::new("div_ic", |b| {
        let vn = b.input("vn", (EDGE, K), F64);
        let geofac_div = b.input("geofac_div", (CELL, C2E), F64);
        let div = b.temporary("div", (CELL, K), F64);
        let wgtfac_c = b.input("wgtfac_c", (CELL, KHALF), F64);
        let div_ic = b.output("div_ic", (CELL, KHALF), F64);
        b.stencil("divergence", &div, divergence_op(&vn, &geofac_div))
            .horizontal(start(Zone::Interior), end(Zone::Local));
        b.stencil(
            "interpolate",
            &div_ic,
            interpolate_to_half_levels_op(&wgtfac_c, &div),
        )
        .vertical(0, nlev());
    }));
    assert_eq!(without_spans(&linked), without_spans(&by_hand));

    // Declared in a chosen order (unknown names skipped), the rest in first-use order.
    let spec = LinkSpec::new()
        .intermediate("div")
        .order(&["div_ic", "nope", "div", "wgtfac_c"]);
    let ordered = link("div_ic", &calls, &spec).unwrap();
    assert_eq!(
        roles(&ordered),
        [
            ("div_ic", Role::Out),
            ("div", Role::Temp),
            ("wgtfac_c", Role::In),
            ("vn", Role::In),
            ("geofac_div", Role::In),
        ]
    );
    check_linked("divergence → interpolation, ordered", &ordered, &calls);
}

#[test]
fn clashing_call_temporaries_and_stencil_names_are_renamed() {
    let p = ir(deviation_then_edge_max());
    let calls = [
        LinkCall::new(&p).bind("edge_max", "max_a"),
        LinkCall::new(&p)
            .bind("theta", "max_a_cells")
            .bind("edge_max", "max_b"),
    ];
    // The second call reads a cell field that no call writes: an argument.
    let linked = link("twice", &calls, &LinkSpec::new()).unwrap();
    assert_eq!(
        roles(&linked),
        [
            ("theta", Role::In),
            ("dev", Role::Temp),
            ("max_a", Role::Out),
            ("max_a_cells", Role::In),
            ("dev_2", Role::Temp),
            ("max_b", Role::Out),
        ]
    );
    let names: Vec<&str> = linked.stencils.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["deviation", "edge_max", "deviation_2", "edge_max_2"]
    );
    check_linked("deviation_then_edge_max twice", &linked, &calls);
}

/// `x = 2 x` in place.
fn double() -> ProgramDef {
    ProgramDef::new("double", |b| {
        let x = b.inout("x", (CELL, K), F64);
        b.stencil("double", &x, 2.0 * &x);
    })
}

#[test]
fn a_rewritten_intermediate_gets_a_fresh_temporary() {
    let div = ir(examples::divergence());
    let interp = ir(examples::interpolate_to_half_levels());
    let dbl = ir(double());
    let calls = [
        LinkCall::new(&div),
        // A second write before any read keeps the version.
        LinkCall::new(&div).bind("vn", "vn_first"),
        // Read and written in place: the same version.
        LinkCall::new(&dbl).bind("x", "div"),
        LinkCall::new(&interp).bind("x", "div").bind("x_ic", "a_ic"),
        // Written again after being read: a fresh version for this write and its readers.
        LinkCall::new(&div).bind("vn", "vn2"),
        LinkCall::new(&interp).bind("x", "div").bind("x_ic", "b_ic"),
        LinkCall::new(&dbl).bind("x", "div"),
        LinkCall::new(&div).bind("vn", "vn3"),
        LinkCall::new(&interp).bind("x", "div").bind("x_ic", "c_ic"),
    ];
    let spec = LinkSpec::new().intermediate("div");
    let linked = link("versions", &calls, &spec).unwrap();
    let temps = temporary_names(&linked);
    assert_eq!(temps, ["div", "div_2", "div_3"]);
    let written = |stencil: usize| {
        linked
            .field(linked.stencils[stencil].outputs[0])
            .name
            .clone()
    };
    let read = |stencil: usize| {
        let f = linked.fields_read(linked.stencils[stencil].root);
        f.into_iter()
            .map(|f| linked.field(f).name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(written(0), "div");
    assert_eq!(written(1), "div");
    assert_eq!(written(2), "div");
    assert_eq!(read(3), ["div", "wgtfac_c"]);
    assert_eq!(written(4), "div_2");
    assert_eq!(read(5), ["wgtfac_c", "div_2"]);
    assert_eq!(written(6), "div_2");
    assert_eq!(written(7), "div_3");
    check_linked("re-written intermediate", &linked, &calls);

    // Caller-chosen names for the later versions.
    let named = link(
        "versions",
        &calls,
        &spec.clone().versions("div", &["div_of_vn2"]),
    )
    .unwrap();
    let temps = temporary_names(&named);
    assert_eq!(temps, ["div", "div_of_vn2", "div_3"]);
}

#[test]
fn roles_merge_and_shared_arguments_become_one() {
    let div = ir(examples::divergence());
    let interp = ir(examples::interpolate_to_half_levels());
    // Without the intermediate, `div` is an argument written by one call and read by
    // the next: inout.
    let calls = [
        LinkCall::new(&div),
        interpolate_div(&interp),
        LinkCall::new(&div).bind("div", "div_again"),
    ];
    let linked = link("shared", &calls, &LinkSpec::new()).unwrap();
    assert_eq!(
        roles(&linked),
        [
            ("vn", Role::In),
            ("geofac_div", Role::In),
            ("div", Role::InOut),
            ("wgtfac_c", Role::In),
            ("div_ic", Role::Out),
            ("div_again", Role::Out),
        ]
    );
    // Hash-consing across calls: the third call's nodes are the first's.
    assert_eq!(linked.stencils[0].root, linked.stencils[2].root);
    check_linked("shared arguments", &linked, &calls);
}

fn flagged() -> ProgramDef {
    ProgramDef::new("flagged", |b| {
        let flag = b.static_bool("flag");
        let x = b.input("x", (CELL, K), F64);
        let y = b.output("y", (CELL, K), F64);
        b.stencil("copy", &y, if flag { 2.0 * &x } else { 1.0 * &x });
    })
    .static_bool("flag")
}

#[test]
fn errors_name_the_calls() {
    let div = ir(examples::divergence());
    let interp = ir(examples::interpolate_to_half_levels());

    // A shared name of two types.
    let calls = [
        LinkCall::new(&div),
        LinkCall::new(&interp)
            .bind("x", "vn")
            .bind("x_ic", "div_ic"),
    ];
    let e = link("bad", &calls, &LinkSpec::new()).unwrap_err();
    assert_eq!(e.kind, LinkErrorKind::TypeMismatch);
    assert!(e.message.contains("`vn`"), "{e}");
    assert!(e.message.contains("call 1 (`divergence`"), "{e}");
    assert!(
        e.message.contains("call 2 (`interpolate_to_half_levels`"),
        "{e}"
    );
    // The same for an intermediate.
    let e = link("bad", &calls, &LinkSpec::new().intermediate("vn")).unwrap_err();
    assert_eq!(e.kind, LinkErrorKind::ReadBeforeWrite, "{e}");

    // Conflicting statics, among the calls and with the spec.
    let on = flagged()
        .specialize(&Variant::new().with("flag", true))
        .unwrap();
    let off = flagged()
        .specialize(&Variant::new().with("flag", false))
        .unwrap();
    let calls = [LinkCall::new(&on), LinkCall::new(&off).bind("y", "z")];
    let e = link("bad", &calls, &LinkSpec::new()).unwrap_err();
    assert_eq!(e.kind, LinkErrorKind::Static);
    assert!(e.message.contains("static `flag` is true in call 1"), "{e}");
    assert!(e.message.contains("false in call 2"), "{e}");
    let calls = [LinkCall::new(&on), LinkCall::new(&on).bind("y", "z")];
    let linked = link("good", &calls, &LinkSpec::new().with_static("other", 3)).unwrap();
    assert_eq!(
        linked.variant,
        Variant::new().with("flag", true).with("other", 3)
    );
    let e = link("bad", &calls, &LinkSpec::new().with_static("flag", false)).unwrap_err();
    assert_eq!(e.kind, LinkErrorKind::Static, "{e}");

    // An intermediate read before it is written.
    let calls = [interpolate_div(&interp), LinkCall::new(&div)];
    let e = link("bad", &calls, &LinkSpec::new().intermediate("div")).unwrap_err();
    assert_eq!(e.kind, LinkErrorKind::ReadBeforeWrite);
    assert!(
        e.message.contains("`div`") && e.message.contains("call 1"),
        "{e}"
    );

    // Bindings of arguments the program lacks, and aliasing a written argument.
    let e = link(
        "bad",
        &[LinkCall::new(&div).bind("nope", "x")],
        &LinkSpec::new(),
    )
    .unwrap_err();
    assert_eq!(e.kind, LinkErrorKind::UnknownArgument);
    let e = link(
        "bad",
        &[LinkCall::new(&on).bind("y", "x")],
        &LinkSpec::new(),
    )
    .unwrap_err();
    assert_eq!(e.kind, LinkErrorKind::Alias);

    // A chosen version name that is a component name.
    let e = link(
        "bad",
        &[LinkCall::new(&div)],
        &LinkSpec::new().intermediate("div").versions("div", &["vn"]),
    )
    .unwrap_err();
    assert_eq!(e.kind, LinkErrorKind::Name);
    // Linking errors convert to foehn's error type.
    let e: foehn::error::Error = e.into();
    assert!(e.to_string().contains("linking"), "{e}");
}
