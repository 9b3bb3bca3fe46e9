//! Prints a generated random program: `cargo run --example random_program -- SEED`.
use foehn::ir::Variant;
use foehn_testkit::{GenConfig, RandomProgram};

fn main() {
    let seed = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    let ir = RandomProgram::generate(seed, GenConfig::default())
        .def
        .specialize(&Variant::new())
        .unwrap();
    print!("{ir}");
}
