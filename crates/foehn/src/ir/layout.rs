//! The memory layout of a field: its shape on a grid and levels, and its strides. The
//! code generators bake it into generated code, the runtime allocates by it and the
//! cost model counts bytes with it, so it lives here, below all three.
//!
//! Layout: horizontal index fastest, then the local (neighbour) dimension, then levels.

use super::{DType, Dims, FieldType};
use foehn_grid::Grid;

/// The shape of a field with `dims` on `grid` with `nlev` full levels (half-level
/// fields have `nlev + 1`), one extent per present dimension in canonical order.
pub fn grid_shape(grid: &Grid, nlev: usize, dims: Dims) -> Vec<usize> {
    let h = dims.horizontal.map_or(0, |l| grid.size(l));
    FieldType::new(dims, DType::F64).shape(h, nlev)
}

/// Element strides `(horizontal, local, vertical)` of the column-major layout of an array
/// with `dims` and `shape` (0 for absent dimensions): host fields and device fields alike.
pub fn strides_of(dims: Dims, shape: &[usize]) -> (usize, usize, usize) {
    let n_h = if dims.horizontal.is_some() {
        shape[0]
    } else {
        1
    };
    let w = dims.local.map_or(1, |c| c.width());
    (
        dims.horizontal.map_or(0, |_| 1),
        if dims.local.is_some() { n_h } else { 0 },
        if dims.vertical.is_some() { n_h * w } else { 0 },
    )
}

/// Element strides `(horizontal, local, vertical)` of the level-fastest layout: levels
/// fastest, then the local dimension, then the horizontal (a point's column is
/// contiguous). Arrays without levels keep [`strides_of`]. The device layout of a
/// schedule with `level_fastest` (an experiment, ADR 0027).
pub fn strides_level_fastest(dims: Dims, shape: &[usize]) -> (usize, usize, usize) {
    if dims.vertical.is_none() {
        return strides_of(dims, shape);
    }
    let nk = vertical_extent_of(dims, shape);
    let w = dims.local.map_or(1, |c| c.width());
    (
        dims.horizontal.map_or(0, |_| nk * w),
        if dims.local.is_some() { nk } else { 0 },
        1,
    )
}

/// Number of levels of an array with `dims` and `shape` (1 without a vertical dimension).
pub fn vertical_extent_of(dims: Dims, shape: &[usize]) -> usize {
    if dims.vertical.is_some() {
        *shape.last().expect("vertical extent")
    } else {
        1
    }
}

/// Whether every field of `p` on `grid` with `nlev` levels has fewer than 2³¹ elements,
/// so 32-bit index arithmetic is exact (the optimiser's `idx32` option is meant to be
/// turned off where this is false).
pub fn indices_fit(p: &super::Program, grid: &Grid, nlev: usize) -> bool {
    p.fields
        .iter()
        .all(|d| grid_shape(grid, nlev, d.ty.dims).iter().product::<usize>() < i32::MAX as usize)
}
