//! The diffusion step linked from the unfused calls (`plan::linked_program`, through
//! `foehn::ir::link`) against the hand-written `fused::program()`: for every statics
//! combination of the fused-program tests, the same results on the interpreter and the
//! CPU backend on a global and a limited-area grid, and the same program up to argument
//! order (the differences are listed by `structural_differences`).

mod common;

use foehn::codegen::{Sizes, Target};
use foehn::ir::link::link;
use foehn::ir::{FieldId, Node, Program, Role, ScalarId, Schedule};
use foehn::runtime::field::Args;
use foehn::runtime::interp::Interpreter;
use foehn_icon::diffusion::component::plan::{self, link_calls, link_spec, linked_program};
use foehn_icon::diffusion::component::{fused, Statics};
use std::collections::BTreeMap;

const NLEV: usize = 10;

/// The combinations of `fused_program_binds_what_the_unfused_programs_bind` (`nrdmax`
/// 4) and the catalog entry's (ICON's defaults with `nrdmax` 8).
fn all_statics() -> Vec<Statics> {
    let mut out = vec![];
    for limited_area in [false, true] {
        for type_shear in [0, 1, 2] {
            for apply_zdiffusion_t in [false, true] {
                for apply_to_temperature in [false, true] {
                    out.push(Statics {
                        limited_area,
                        type_shear,
                        nrdmax: 4,
                        apply_zdiffusion_t,
                        apply_to_temperature,
                    });
                }
            }
        }
        out.push(Statics {
            limited_area,
            type_shear: 0,
            nrdmax: 8,
            apply_zdiffusion_t: true,
            apply_to_temperature: true,
        });
    }
    out
}

fn programs(s: &Statics) -> (Program, Program) {
    let linked = linked_program(s, false).unwrap_or_else(|e| panic!("{s:?}: {e}"));
    let fused = fused::program()
        .specialize(&s.variant())
        .unwrap_or_else(|e| panic!("{s:?}: {e}"));
    (linked, fused)
}

/// How two programs that compute the same differ in presentation.
#[derive(Debug, Default, PartialEq, Eq)]
struct Differences {
    /// Argument fields in the linked order where it differs from the fused order.
    argument_order: Option<(Vec<String>, Vec<String>)>,
    /// Scalars likewise.
    scalar_order: Option<(Vec<String>, Vec<String>)>,
    /// Temporaries (linked, fused) where the lists differ (order or names).
    temporaries: Option<(Vec<String>, Vec<String>)>,
    /// Stencils named differently (linked, fused), by position.
    stencil_names: Vec<(String, String)>,
}

fn names(p: &Program, temps: bool) -> Vec<String> {
    p.fields
        .iter()
        .filter(|d| (d.role == Role::Temp) == temps)
        .map(|d| d.name.clone())
        .collect()
}

/// Asserts that `linked` is `fused` up to the numbering of fields and scalars (matched
/// by name): the same declarations (types and roles) and variant, the same node arena
/// node for node (types included), the same stencils (outputs, domains, roots) in the
/// same order; returns what differs in presentation.
fn structural_differences(what: &str, linked: &Program, fused: &Program) -> Differences {
    assert_eq!(linked.name, fused.name, "{what}");
    assert_eq!(linked.variant, fused.variant, "{what}");
    let decls = |p: &Program| -> BTreeMap<String, _> {
        p.fields
            .iter()
            .filter(|d| d.role != Role::Temp)
            .map(|d| (d.name.clone(), (d.ty, d.role)))
            .collect()
    };
    assert_eq!(decls(linked), decls(fused), "{what}: argument fields");
    let scalars = |p: &Program| -> BTreeMap<String, _> {
        p.scalars
            .iter()
            .map(|s| (s.name.clone(), s.dtype))
            .collect()
    };
    assert_eq!(scalars(linked), scalars(fused), "{what}: scalars");
    let temps = |p: &Program| -> BTreeMap<String, _> {
        p.fields
            .iter()
            .filter(|d| d.role == Role::Temp)
            .map(|d| (d.name.clone(), d.ty))
            .collect()
    };
    assert_eq!(temps(linked), temps(fused), "{what}: temporaries");

    let field = |i: FieldId| fused.field_id(&linked.field(i).name).expect("same names");
    let scalar = |i: ScalarId| {
        let name = &linked.scalars[i.0 as usize].name;
        let j = fused.scalars.iter().position(|s| &s.name == name);
        ScalarId(j.expect("same names") as u32)
    };
    assert_eq!(linked.nodes.len(), fused.nodes.len(), "{what}: arena sizes");
    for (i, n) in linked.nodes.iter().enumerate() {
        let mapped = match n {
            Node::Field(f) => Node::Field(field(*f)),
            Node::Scalar(s) => Node::Scalar(scalar(*s)),
            other => other.clone(),
        };
        assert_eq!(mapped, fused.nodes[i], "{what}: node {i}");
        assert_eq!(linked.types[i], fused.types[i], "{what}: type of node {i}");
    }
    assert_eq!(linked.stencils.len(), fused.stencils.len(), "{what}");
    let mut d = Differences::default();
    for (a, b) in linked.stencils.iter().zip(&fused.stencils) {
        let outputs: Vec<FieldId> = a.outputs.iter().map(|&f| field(f)).collect();
        assert_eq!(outputs, b.outputs, "{what}: stencil `{}`", a.name);
        assert_eq!(a.root, b.root, "{what}: stencil `{}`", a.name);
        assert_eq!(
            (&a.domain, a.location, a.vertical),
            (&b.domain, b.location, b.vertical),
            "{what}: stencil `{}`",
            a.name
        );
        if a.name != b.name {
            d.stencil_names.push((a.name.clone(), b.name.clone()));
        }
    }
    let differ = |a: Vec<String>, b: Vec<String>| (a != b).then_some((a, b));
    d.argument_order = differ(names(linked, false), names(fused, false));
    d.temporaries = differ(names(linked, true), names(fused, true));
    let scalar_names = |p: &Program| p.scalars.iter().map(|s| s.name.clone()).collect();
    d.scalar_order = differ(scalar_names(linked), scalar_names(fused));
    d
}

#[test]
fn linked_step_is_the_fused_program_up_to_argument_order() {
    for s in all_statics() {
        let (linked, fused) = programs(&s);
        let d = structural_differences(&format!("{s:?}"), &linked, &fused);
        // Only presentation differs: declaration order and the second rbf stencil's name.
        assert_eq!(
            d.stencil_names,
            [(
                "rbf_vec_interpol_vertex_2".to_string(),
                "rbf_vec_interpol_vertex_of_nabla2".to_string()
            )],
            "{s:?}"
        );
        eprintln!("{s:?}:\n{d:#?}");
        // The optimiser treats both alike.
        let opts = foehn::opt::OptOptions::default();
        let (lo, _) = foehn::opt::optimise(&linked, &opts);
        let (fo, _) = foehn::opt::optimise(&fused, &opts);
        structural_differences(&format!("{s:?} optimised"), &lo, &fo);
    }
}

#[test]
fn linked_step_binds_the_initial_run_coefficients() {
    let s = all_statics()[0];
    let regular = linked_program(&s, false).unwrap();
    let initial = linked_program(&s, true).unwrap();
    for name in ["diff_multfac_vn", "smag_limit"] {
        let initial_name = plan::initial_name(name);
        assert!(regular.field_id(name).is_some(), "{name}");
        assert!(regular.field_id(&initial_name).is_none(), "{name}");
        assert!(initial.field_id(name).is_none(), "{name}");
        assert!(initial.field_id(&initial_name).is_some(), "{name}");
    }
}

/// Every writable argument of `fused` agrees bit for bit between `want` and `got`.
fn assert_identical(what: &str, fused: &Program, want: &Args, got: &Args) {
    for d in fused
        .fields
        .iter()
        .filter(|d| d.role.writable() && d.role != Role::Temp)
    {
        let (a, b) = (
            want.field(&d.name).unwrap().data(),
            got.field(&d.name).unwrap().data(),
        );
        for i in 0..a.len() {
            let (x, y) = (a.get(i).as_f64(), b.get(i).as_f64());
            assert!(
                x.to_bits() == y.to_bits(),
                "{what}: `{}`[{i}]: fused {x:e}, linked {y:e}",
                d.name
            );
        }
    }
}

#[test]
fn linked_step_gives_the_fused_results_on_the_interpreter_and_the_cpu() {
    let cpu = common::cpu();
    for s in all_statics() {
        let (linked, fused) = programs(&s);
        let bin = |p: &Program| {
            cpu.compile(p, &Schedule::unfused(p), Sizes::levels(NLEV))
                .unwrap()
        };
        let (linked_bin, fused_bin) = (bin(&linked), bin(&fused));
        for grid in common::grids() {
            let what = format!("{s:?} on {}", grid.name);
            let args = fused::inputs(&fused, grid, NLEV, 5);
            let run = |p: &Program| {
                let mut a = args.clone();
                Interpreter
                    .run_ir(p, grid, &mut a)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                a
            };
            let (want, got) = (run(&fused), run(&linked));
            assert_ne!(want.field("vn"), args.field("vn"), "{what}: vn unchanged");
            assert_identical(&format!("{what} (interpreter)"), &fused, &want, &got);
            let native = |p: &Program, bin| {
                let mut a = args.clone();
                cpu.run_compiled(p, bin, grid, &mut a).unwrap();
                a
            };
            let (want_cpu, got_cpu) = (native(&fused, &fused_bin), native(&linked, &linked_bin));
            assert_identical(&format!("{what} (cpu)"), &fused, &want_cpu, &got_cpu);
            common::assert_outputs_agree(
                &format!("{what} (interpreter vs cpu)"),
                &fused,
                &want,
                &got_cpu,
                1e-12,
            );
        }
    }
}

/// `p` without source positions (not part of a program's meaning).
fn without_spans(p: &Program) -> Program {
    let mut p = p.clone();
    p.spans.iter_mut().for_each(|s| *s = None);
    p.stencils.iter_mut().for_each(|s| s.span = None);
    p
}

/// The C source the CPU backend generates for `p` (default schedule).
fn c_source(p: &Program) -> String {
    foehn::codegen::generate(p, &Schedule::unfused(p), Target::C, Sizes::levels(NLEV))
        .unwrap()
        .source
}

/// Linked with the fused program's declaration order (`LinkSpec::order`), the step is
/// `fused::program()` but for the name of the second rbf stencil, and the CPU backend
/// generates the same C source for both but for the comment naming that stencil.
#[test]
fn linked_in_the_fused_order_generates_the_fused_code() {
    for s in all_statics() {
        let fused = programs(&s).1;
        let steps = plan::unfused_steps(&s, false).unwrap();
        let order: Vec<&str> = fused
            .fields
            .iter()
            .map(|d| d.name.as_str())
            .chain(fused.scalars.iter().map(|x| x.name.as_str()))
            .collect();
        let spec = link_spec(&s).order(&order);
        let mut linked = link(fused::NAME, &link_calls(&steps), &spec).unwrap();
        let c_linked = c_source(&linked);
        let c_fused = c_source(&fused);
        let renamed = linked
            .stencils
            .iter_mut()
            .find(|st| st.name == "rbf_vec_interpol_vertex_2")
            .expect("the second rbf stencil");
        renamed.name = "rbf_vec_interpol_vertex_of_nabla2".into();
        assert_eq!(without_spans(&linked), without_spans(&fused), "{s:?}");
        // The C sources differ only in the kernel comment naming the stencil.
        let differing: Vec<(&str, &str)> = c_linked
            .lines()
            .zip(c_fused.lines())
            .filter(|(a, b)| a != b)
            .collect();
        assert_eq!(c_linked.lines().count(), c_fused.lines().count(), "{s:?}");
        assert!(
            differing.len() == 1
                && differing[0].0.ends_with(": rbf_vec_interpol_vertex_2 */")
                && differing[0]
                    .1
                    .ends_with(": rbf_vec_interpol_vertex_of_nabla2 */"),
            "{s:?}: {differing:?}"
        );
        assert_eq!(
            c_source(&linked),
            c_fused,
            "{s:?}: C source after the rename"
        );
    }
}
