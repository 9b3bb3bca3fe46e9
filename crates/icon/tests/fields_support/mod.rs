//! What the field tests share: a stand-in for the interpolation fields' `geofac_n2s`
//! (until they are computed from the grid) and SLEVE heights over a topography.
#![allow(dead_code)]

use foehn_grid::{Connectivity, Grid};
use foehn_icon::fields::sleve::Heights;
use foehn_icon::fields::topography::Topography;
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid};

/// Nabla² weights `[n_cells, 4]` in C2E2CO order from the geometry:
/// `∇²ψ(c) = Σₑ l_e/(A_c d_e)·(ψ(across e) − ψ(c))` (ICON's `geofac_n2s` in exact
/// arithmetic); missing neighbours get 0.
pub fn nabla2_weights(grid: &Grid) -> Vec<f64> {
    let g = &grid.geometry;
    let c2e = grid.topology.table(Connectivity::C2E);
    let c2e2c = grid.topology.table(Connectivity::C2E2C);
    let n = grid.topology.n_cells();
    let mut w = vec![0.0; 4 * n];
    for c in 0..n {
        for j in 0..3 {
            let (Some(e), Some(_)) = (c2e.neighbor(c, j), c2e2c.neighbor(c, j)) else {
                continue;
            };
            let x = g.primal_edge_length[e] / (g.cell_area[c] * g.dual_edge_length[e]);
            w[4 * c + 1 + j] = x;
            w[4 * c] -= x;
        }
    }
    w
}

/// The vertical grid of ICON's defaults with `nlev` levels.
pub fn vertical(nlev: usize) -> VerticalGrid {
    VerticalGrid::try_new(VerticalConfig::new(nlev)).expect("ICON's defaults")
}

/// The surface of `topography` on `grid` and the SLEVE heights over it.
pub fn heights(
    grid: &Grid,
    vertical: &VerticalGrid,
    topography: Topography,
) -> (Vec<f64>, Heights) {
    let h = topography.at_cells(grid).expect("topography");
    let z = Heights::on_grid(grid, vertical, &h, &nabla2_weights(grid)).expect("SLEVE heights");
    (h, z)
}
