//! Doubly periodic planar grids of equilateral triangles (ICON4Py's torus grids).

use crate::error::{GridError, Result};
use crate::space::Vec3;

/// Layout of a torus grid: `nx` vertices per row, `ny` rows (even), edge length `dx`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TorusLayout {
    /// Vertices per row.
    pub nx: usize,
    /// Vertex rows (even, so the pattern repeats).
    pub ny: usize,
    /// Edge length (m).
    pub dx: f64,
}

impl TorusLayout {
    /// The layout closest to `length × height` metres with edges of `resolution` metres:
    /// `nx = round(length/dx)`, `ny = round(height/(dx·√3/2))` rounded up to even.
    pub fn for_extent(length: f64, height: f64, resolution: f64) -> Result<TorusLayout> {
        if !(length.is_finite() && height.is_finite() && resolution.is_finite()) {
            return Err(GridError::InvalidParameters(format!(
                "torus {length} m × {height} m with {resolution} m edges: sizes must be finite numbers"
            )));
        }
        if !(resolution > 0.0 && length >= 3.0 * resolution && height >= 2.0 * resolution) {
            return Err(GridError::InvalidParameters(format!(
                "torus {length} m × {height} m with {resolution} m edges: need at least 3 edges across and 2 rows"
            )));
        }
        let rows = height / (resolution * 3f64.sqrt() / 2.0);
        crate::limits::check_cells(
            &format!("torus {length} m × {height} m with {resolution} m edges"),
            2.0 * (length / resolution).round() * (rows.round() + 1.0),
        )?;
        let nx = (length / resolution).round() as usize;
        let mut ny = (height / (resolution * 3f64.sqrt() / 2.0)).round() as usize;
        ny += ny % 2;
        Ok(TorusLayout {
            nx,
            ny: ny.max(2),
            dx: resolution,
        })
    }

    /// Row spacing (m).
    pub fn dy(&self) -> f64 {
        self.dx * 3f64.sqrt() / 2.0
    }

    /// Periods (length, height) in metres.
    pub fn extent(&self) -> (f64, f64) {
        (self.nx as f64 * self.dx, self.ny as f64 * self.dy())
    }
}

/// Vertex positions and counter-clockwise cells of a torus grid, row by row.
pub fn torus_mesh(t: &TorusLayout) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let (nx, ny) = (t.nx, t.ny);
    let id = |i: usize, j: usize| ((j % ny) * nx + (i % nx)) as u32;
    let verts = (0..ny)
        .flat_map(|j| {
            (0..nx).map(move |i| {
                let shift = if j % 2 == 1 { 0.5 } else { 0.0 };
                [(i as f64 + shift) * t.dx, j as f64 * t.dy(), 0.0]
            })
        })
        .collect();
    let mut cells = Vec::with_capacity(2 * nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            if j % 2 == 0 {
                cells.push([id(i, j), id(i + 1, j), id(i, j + 1)]);
                cells.push([id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)]);
            } else {
                cells.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                cells.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
    }
    (verts, cells)
}
