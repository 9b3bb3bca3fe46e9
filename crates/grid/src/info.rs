//! Summary statistics of a grid (what `foehn grid info` prints).

use crate::connectivity::Connectivity as C;
use crate::grid::Grid;
use crate::Location;

/// Counts, zone ranges, edge-length and area statistics and index locality.
#[derive(Debug, Clone)]
pub struct GridInfo {
    /// (cells, edges, vertices).
    pub counts: (usize, usize, usize),
    /// min, mean, max primal edge length (m).
    pub edge_length: (f64, f64, f64),
    /// max/min cell area ratio.
    pub area_ratio: f64,
    /// Mean cell area (m²).
    pub mean_cell_area: f64,
    /// Mean index distance of neighbours (see [`locality`]).
    pub locality: f64,
}

impl GridInfo {
    /// Computes the summary.
    pub fn of(grid: &Grid) -> GridInfo {
        let g = &grid.geometry;
        let l = &g.primal_edge_length;
        let min = l.iter().copied().fold(f64::INFINITY, f64::min);
        let max = l.iter().copied().fold(0.0, f64::max);
        let mean = l.iter().sum::<f64>() / l.len() as f64;
        let amin = g.cell_area.iter().copied().fold(f64::INFINITY, f64::min);
        let amax = g.cell_area.iter().copied().fold(0.0, f64::max);
        GridInfo {
            counts: (
                grid.size(Location::Cell),
                grid.size(Location::Edge),
                grid.size(Location::Vertex),
            ),
            edge_length: (min, mean, max),
            area_ratio: amax / amin,
            mean_cell_area: g.mean_cell_area,
            locality: locality(grid),
        }
    }
}

/// Mean index distance of neighbours over all E2C, C2E and C2E2C pairs: for a row `i`
/// of a table from `n_from` points to `n_to` points and a neighbour `j`, the distance is
/// `|i·n_to/n_from − j|` (row index scaled to the neighbour's index range). A random order
/// gives about `n_to/3`; a good order gives a small constant fraction of that.
pub fn locality(grid: &Grid) -> f64 {
    let mut sum = 0.0;
    let mut n = 0u64;
    for conn in [C::E2C, C::C2E, C::C2E2C] {
        let t = grid.topology.table(conn);
        let scale = grid.size(conn.to()) as f64 / grid.size(conn.from()) as f64;
        for i in 0..t.rows() {
            for j in t.valid(i) {
                sum += (i as f64 * scale - j as f64).abs();
                n += 1;
            }
        }
    }
    sum / n.max(1) as f64
}
