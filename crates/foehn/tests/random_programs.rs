//! Every generated program type-checks, prints and hashes deterministically, and the
//! interpreter runs it deterministically (bit-identical outputs twice).

use foehn::ir::{Role, Variant};
use foehn::runtime::field::Args;
use foehn::runtime::interp::Interpreter;
use foehn_testkit::{random_args, GenConfig, RandomProgram};
use proptest::prelude::*;

fn bits(args: &Args) -> Vec<(String, Vec<u64>)> {
    args.fields()
        .map(|(n, f)| {
            let d = f.data();
            (
                n.to_string(),
                (0..d.len()).map(|i| d.get(i).as_f64().to_bits()).collect(),
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_check_and_run_deterministically(seed in any::<u64>(), g in 0usize..2) {
        let rp = RandomProgram::generate(seed, GenConfig::default());
        let ir = rp.def.specialize(&Variant::new()).unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        let again = rp.def.specialize(&Variant::new()).unwrap();
        prop_assert_eq!(ir.to_string(), again.to_string());
        prop_assert_eq!(ir.content_hash(), again.content_hash());
        prop_assert!(ir.fields.iter().any(|f| f.role == Role::Out || f.role == Role::Temp));

        let grid = &foehn_testkit::grids::compiler_grids()[g];
        let nlev = 4;
        let args = random_args(&ir, grid, nlev, seed ^ 0x5eed);
        let (mut a1, mut a2) = (args.clone(), args);
        Interpreter.run_ir(&ir, grid, &mut a1).unwrap_or_else(|e| panic!("seed {seed:#x}: {e}\n{ir}"));
        Interpreter.run_ir(&ir, grid, &mut a2).unwrap();
        prop_assert_eq!(bits(&a1), bits(&a2));
    }
}

/// The generator covers every construct the backends must handle.
#[test]
fn generator_covers_the_language() {
    use foehn::ir::Node;
    use std::collections::BTreeSet;
    let mut seen = BTreeSet::new();
    let mut sizes = vec![];
    for seed in 0..300u64 {
        let ir = RandomProgram::generate(seed, GenConfig::default())
            .def
            .specialize(&Variant::new())
            .unwrap();
        sizes.push(ir.nodes.len());
        for n in &ir.nodes {
            let name = match n {
                Node::Shift(..) => "shift",
                Node::Neighbor(..) => "neighbor",
                Node::Reduce(op, c, _) => {
                    seen.insert(format!("{op:?}"));
                    if c.from() == foehn_grid::Location::Vertex {
                        seen.insert("reduce_with_skips".to_string());
                    }
                    "reduce"
                }
                Node::KShift(..) => "kshift",
                Node::KOffset(..) => "koffset",
                Node::ConcatWhere(r, ..) => {
                    for iv in &r.intervals {
                        seen.insert(format!(
                            "region_{}",
                            matches!(iv.dim, foehn::ir::IndexDim::H(_))
                        ));
                    }
                    "concat_where"
                }
                Node::Where(..) => "where",
                Node::Scan { .. } => "scan",
                Node::VCast(..) => "vcast",
                Node::Cast(..) => "cast",
                Node::Tuple(..) => "tuple",
                Node::Broadcast(..) => "broadcast",
                _ => continue,
            };
            seen.insert(name.to_string());
        }
        if ir.fields.iter().any(|f| f.role == Role::Temp) {
            seen.insert("temporary".into());
        }
    }
    for want in [
        "shift",
        "neighbor",
        "reduce",
        "Sum",
        "Max",
        "Min",
        "reduce_with_skips",
        "kshift",
        "koffset",
        "concat_where",
        "region_true",
        "region_false",
        "where",
        "scan",
        "vcast",
        "cast",
        "tuple",
        "broadcast",
        "temporary",
    ] {
        assert!(
            seen.contains(want),
            "generator never produced {want}: {seen:?}"
        );
    }
    let mean = sizes.iter().sum::<usize>() as f64 / sizes.len() as f64;
    assert!(mean > 15.0, "programs are too small (mean {mean} nodes)");
}
