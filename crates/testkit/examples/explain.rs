//! Prints the IR of the example programs (what `foehn explain` will show).
use foehn::ir::Variant;
use foehn_testkit::examples;

fn main() {
    for p in [
        examples::divergence(),
        examples::interpolate_to_half_levels(),
        examples::tridiagonal_solve(),
    ] {
        let ir = p
            .specialize(&Variant::new())
            .expect("example programs check");
        println!("{ir}hash {}\n", ir.content_hash());
    }
}
