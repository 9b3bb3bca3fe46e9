//! Prints the regularity of grids given by name: edge lengths, the spread of cell areas
//! and the largest area ratio of two neighbouring cells, with the build time.
//!
//! `cargo run --release -p foehn-grid --example grid_quality -- r2b4 r2b4:spring`

use foehn_grid::{Connectivity as C, GridSpec};

fn main() {
    for name in std::env::args().skip(1) {
        let t0 = std::time::Instant::now();
        let grid = match GridSpec::parse(&name).and_then(|s| s.build()) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("{name}: {e}");
                std::process::exit(1);
            }
        };
        let secs = t0.elapsed().as_secs_f64();
        let g = &grid.geometry;
        let stats = |v: &[f64]| {
            let (lo, hi) = v.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
            (lo, v.iter().sum::<f64>() / v.len() as f64, hi)
        };
        let (lmin, lmean, lmax) = stats(&g.primal_edge_length);
        let (amin, _, amax) = stats(&g.cell_area);
        let (dmin, _, dmax) = stats(&g.dual_area);
        let e2c = grid.topology.table(C::E2C);
        let neighbour = (0..grid.topology.n_edges())
            .filter_map(|e| Some((e2c.neighbor(e, 0)?, e2c.neighbor(e, 1)?)))
            .map(|(a, b)| {
                let (x, y) = (g.cell_area[a], g.cell_area[b]);
                x.max(y) / x.min(y)
            })
            .fold(0.0, f64::max);
        println!(
            "{}: edge min/mean/max {:.2}/{:.2}/{:.2} km (max/min {:.4}); cell area max/min \
             {:.4}; dual area max/min {:.4}; neighbour cell area ratio {:.4}; built in {:.2} s",
            grid.name,
            lmin / 1e3,
            lmean / 1e3,
            lmax / 1e3,
            lmax / lmin,
            amax / amin,
            dmax / dmin,
            neighbour,
            secs
        );
    }
}
