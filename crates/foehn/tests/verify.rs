//! `ir::verify`: every example and random program satisfies the IR invariants before
//! and after optimising; hand-broken programs fail with the expected kind of error.

use foehn::ir::{
    nlev, verify, BinaryOp, DType, ExprId, FieldId, Node, Program, Role, Type, Variant,
    VerifyErrorKind as K,
};
use foehn::opt::{optimise, optimise_scheduled, OptOptions};
use foehn_testkit::{GenConfig, RandomProgram};

fn option_sets() -> Vec<OptOptions> {
    vec![
        OptOptions::default(),
        OptOptions::none(),
        OptOptions {
            max_inline_cost: usize::MAX,
            inline_load_factor: 64,
            ..OptOptions::default()
        },
        OptOptions {
            stage: false,
            ..OptOptions::default()
        },
    ]
}

/// `ir` verifies, and so does every optimised form of it.
fn verifies_optimised(what: &str, ir: &Program) {
    verify(ir).unwrap_or_else(|e| panic!("{what}: {e}\n{ir}"));
    for opts in option_sets() {
        let (opt, schedule, _) = optimise_scheduled(ir, &opts);
        verify(&opt).unwrap_or_else(|e| panic!("{what} optimised ({opts:?}): {e}\n{opt}"));
        schedule.validate(&opt).unwrap();
    }
}

#[test]
fn every_example_verifies_before_and_after_optimising() {
    let mut n = 0;
    for entry in foehn_testkit::catalog::examples() {
        for variant in entry.variants().unwrap() {
            let ir = entry.specialize(&variant).unwrap();
            verifies_optimised(&format!("{} [{variant}]", entry.name), &ir);
            n += 1;
        }
    }
    let ir = foehn_testkit::deviation_then_edge_max()
        .specialize(&Variant::new())
        .unwrap();
    verifies_optimised("deviation_then_edge_max", &ir);
    assert!(n >= 3, "only {n} example variants");
}

#[test]
fn random_programs_verify_before_and_after_optimising() {
    for seed in 0..120u64 {
        let ir = RandomProgram::generate(seed, GenConfig::default())
            .def
            .specialize(&Variant::new())
            .unwrap();
        verifies_optimised(&format!("seed {seed}"), &ir);
    }
}

fn divergence() -> Program {
    foehn_testkit::examples::divergence()
        .specialize(&Variant::new())
        .unwrap()
}

fn tridiagonal() -> Program {
    foehn_testkit::examples::tridiagonal_solve()
        .specialize(&Variant::new())
        .unwrap()
}

fn kind_of(p: &Program) -> K {
    verify(p).expect_err("the broken program verifies").kind
}

#[test]
fn a_child_after_its_parent_is_rejected() {
    let mut p = divergence();
    let last = ExprId(p.nodes.len() as u32 - 1);
    let (i, _) = p
        .nodes
        .iter()
        .enumerate()
        .find(|(_, n)| matches!(n, Node::Shift(..)))
        .unwrap();
    let Node::Shift(c, _) = p.nodes[i] else {
        unreachable!()
    };
    p.nodes[i] = Node::Shift(c, last);
    let e = verify(&p).unwrap_err();
    assert_eq!(e.kind, K::ChildOrder, "{e}");
    assert_eq!(e.node, Some(ExprId(i as u32)));
    // The message names program and node.
    let text = e.to_string();
    assert!(text.contains("program `divergence`"), "{text}");
    assert!(text.contains(&format!("node %{i}")), "{text}");
}

#[test]
fn a_wrong_type_is_rejected() {
    let mut p = divergence();
    let i = p
        .nodes
        .iter()
        .position(|n| matches!(n, Node::Binary(BinaryOp::Mul, ..)))
        .unwrap();
    let Type::Field(mut t) = p.types[i].clone() else {
        unreachable!()
    };
    t.dtype = DType::F32;
    p.types[i] = Type::Field(t);
    let e = verify(&p).unwrap_err();
    assert_eq!(e.kind, K::Type, "{e}");
    assert_eq!(e.node, Some(ExprId(i as u32)));
    assert_eq!(e.stencil.as_deref(), Some(p.stencils[0].name.as_str()));
}

#[test]
fn a_reduction_that_keeps_its_local_dimension_is_rejected() {
    let mut p = divergence();
    let i = p
        .nodes
        .iter()
        .position(|n| matches!(n, Node::Reduce(..)))
        .unwrap();
    let child = p.nodes[i].children()[0];
    p.types[i] = p.types[child.index()].clone();
    assert_eq!(kind_of(&p), K::Type);
}

#[test]
fn a_carry_outside_its_scan_is_rejected() {
    let mut p = tridiagonal();
    let carry = ExprId(
        p.nodes
            .iter()
            .position(|n| matches!(n, Node::Carry { .. }))
            .unwrap() as u32,
    );
    let root = p.stencils[0].root;
    assert_eq!(
        p.ty(carry).field().unwrap().dtype,
        p.ty(root).field().unwrap().dtype
    );
    // root + carry: well typed, but the carry is read outside every scan body.
    let ty = p.ty(root).clone();
    let new_root = p.push(Node::Binary(BinaryOp::Add, root, carry), ty, None);
    p.stencils[0].root = new_root;
    let e = verify(&p).unwrap_err();
    assert_eq!(e.kind, K::Scan, "{e}");
    assert_eq!(e.node, Some(carry));
    assert_eq!(e.stencil.as_deref(), Some("solve"));
}

#[test]
fn an_output_to_an_input_field_is_rejected() {
    let mut p = divergence();
    let out = p.stencils[0].outputs[0];
    p.fields[out.0 as usize].role = Role::In;
    assert_eq!(kind_of(&p), K::Output);
    // Writing an input field of another type is rejected too.
    let mut p = divergence();
    p.stencils[0].outputs = vec![p.field_id("vn").unwrap()];
    assert_eq!(kind_of(&p), K::Output);
}

#[test]
fn an_out_of_range_field_id_is_rejected() {
    let mut p = divergence();
    let i = p
        .nodes
        .iter()
        .position(|n| matches!(n, Node::Field(_)))
        .unwrap();
    p.nodes[i] = Node::Field(FieldId(99));
    assert_eq!(kind_of(&p), K::FieldOutOfRange);
    let mut p = divergence();
    p.stencils[0].outputs = vec![FieldId(7)];
    assert_eq!(kind_of(&p), K::FieldOutOfRange);
}

#[test]
fn arrays_of_different_lengths_are_rejected() {
    let mut p = divergence();
    p.spans.pop();
    assert_eq!(kind_of(&p), K::ArrayLengths);
}

#[test]
fn a_root_out_of_range_is_rejected() {
    let mut p = divergence();
    p.stencils[0].root = ExprId(p.nodes.len() as u32);
    assert_eq!(kind_of(&p), K::RootOutOfRange);
}

#[test]
fn an_ill_formed_domain_is_rejected() {
    let mut p = divergence();
    p.stencils[0].domain.horizontal.1 = nlev();
    assert_eq!(kind_of(&p), K::Domain);
}

#[test]
#[should_panic(expected = "optimiser pass `input` left invalid IR")]
fn the_optimiser_names_the_pass_that_saw_invalid_ir() {
    let mut p = divergence();
    p.spans.pop();
    let _ = optimise(&p, &OptOptions::default());
}

#[test]
fn a_temporary_with_more_dims_than_its_value_is_inlined_into_valid_ir() {
    use foehn::dsl::prelude::*;
    // `t` is stored on levels but its value does not vary along them: inlined, its
    // consumers' nodes keep the types they had with `t` (more dims than the value).
    let def = ProgramDef::new("flat_temporary", |b| {
        let x = b.input("x", CELL, F64);
        let y = b.input("y", (CELL, K), F64);
        let t = b.temporary("t", (CELL, K), F64);
        let u = b.temporary("u", (CELL, K), F64);
        let o1 = b.output("o1", (CELL, K), F64);
        let o2 = b.output("o2", (CELL, K), F64);
        let o3 = b.output("o3", (EDGE, K), F64);
        b.stencil("t", &t, &x * 2.0);
        b.stencil("u", &u, &x + 1.0);
        b.stencil("scale", &o1, &t * 3.0);
        b.stencil("shifted", &o2, u.k_shift(-1) + &y)
            .vertical(1, nlev());
        b.stencil("edges", &o3, t.at(E2C, 0) - t.at(E2C, 1));
    });
    let ir = def.specialize(&Variant::new()).unwrap();
    verifies_optimised("flat_temporary", &ir);
    let (opt, report) = optimise(&ir, &OptOptions::default());
    assert_eq!(opt.stencils.len(), 3, "{report:?}\n{opt}");
    // The same results as the program as written.
    let grid = foehn_grid::Grid::torus(10000.0, 10000.0, 1000.0).unwrap();
    let args = foehn_testkit::random_args(&ir, &grid, 4, 3);
    let (mut want, mut got) = (args.clone(), args);
    foehn::runtime::interp::Interpreter
        .run_ir(&ir, &grid, &mut want)
        .unwrap();
    foehn::runtime::interp::Interpreter
        .run_ir(&opt, &grid, &mut got)
        .unwrap();
    foehn_testkit::assert_same_where_defined("flat_temporary", &ir, &want, &got);
}
