//! Prints the generated C of the documented examples: `cargo run --example show_c`.
use foehn::codegen::c::generate;
use foehn::ir::Variant;
use foehn_testkit::examples;

fn main() {
    for p in [
        examples::divergence(),
        examples::interpolate_to_half_levels(),
        examples::tridiagonal_solve(),
    ] {
        let ir = p.specialize(&Variant::new()).expect("valid example");
        println!("{}", generate(&ir).expect("supported").source);
    }
}
