//! Every field ICON computes before a run (interpolation fields, SLEVE heights, metric
//! fields with the reference atmosphere) is the same, bit for bit, whether computed on
//! one thread or on two: on R2B2 (with its pentagons) and on the limited-area cap
//! (boundary rows, nudging zone), 10 levels over the Jablonowski–Williamson topography.

use foehn_grid::Grid;
use foehn_icon::fields::named::StaticFields;
use foehn_icon::fields::topography::{JwTopography, Topography};
use foehn_icon::fields::vertical::VerticalConfig;
use foehn_testkit::grids;

const NLEV: usize = 10;

/// Every field of `grid`, as `Debug` text (floats print as the shortest text that reads
/// back to the same bits, so equal texts are equal bits, signs of zeros included).
fn all_fields(grid: &Grid) -> String {
    let topography = Topography::JablonowskiWilliamson(JwTopography {
        u0: 35.0,
        eta_0: 0.252,
    });
    let statics =
        StaticFields::compute(grid, VerticalConfig::new(NLEV), &topography).expect("fields");
    format!("{statics:?}")
}

/// [`all_fields`] on a pool of `threads` threads.
fn on_threads(grid: &Grid, threads: usize) -> String {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
        .install(|| all_fields(grid))
}

#[test]
fn one_and_two_threads_give_the_same_bits() {
    for (name, grid) in [("r2b2", grids::global()), ("cap", grids::limited_area())] {
        let one = on_threads(grid, 1);
        let two = on_threads(grid, 2);
        assert!(one.len() > 1000, "{name}: fields are missing");
        if let Some(at) = one.bytes().zip(two.bytes()).position(|(a, b)| a != b) {
            let show = |s: &str| s[at.saturating_sub(200)..(at + 100).min(s.len())].to_string();
            panic!(
                "{name}: 1 and 2 threads differ at byte {at}:\n{}\n---\n{}",
                show(&one),
                show(&two)
            );
        }
        assert_eq!(one.len(), two.len(), "{name}: 1 and 2 threads differ");
        // A third run on two threads: no state carried between runs.
        assert!(
            on_threads(grid, 2) == two,
            "{name}: two runs on 2 threads differ"
        );
    }
}
