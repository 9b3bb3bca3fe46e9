//! Conversions between the fields module's row-major columns ([`Columns`], ICON4Py's
//! `[n, levels]`: one column contiguous, what column-wise computations such as the
//! Newton iteration and the hydrostatic adjustment walk) and foehn [`Field`]s
//! (column-major: horizontal index fastest, [`Field::flat_index`]).

use foehn::dsl::prelude::*;
use foehn::runtime::field::Field;
use foehn_grid::Grid;
use foehn_icon::fields::Columns;
use rayon::prelude::*;

/// Levels one task of [`field_from_columns`]'s transpose writes.
const LEVELS_PER_TASK: usize = 4;
/// Columns one task of [`columns_of`]'s transpose fills.
const COLUMNS_PER_TASK: usize = 256;

/// The foehn field over `(loc, vertical)` of `grid` with `nlev` full levels whose value
/// at point `h`, level `k` is `columns.get(h, k)`; `None` when the columns do not have the
/// field's number of points or levels.
pub fn field_from_columns(
    grid: &Grid,
    nlev: usize,
    loc: Location,
    vertical: VKind,
    columns: &Columns,
) -> Option<Field> {
    let mut field = Field::zeros(grid, nlev, (loc, vertical), F64);
    let (n, levels) = (field.shape()[0], field.levels());
    if columns.len() != n || columns.levels() != levels {
        return None;
    }
    let data = field.as_f64_mut()?;
    if data.is_empty() {
        return Some(field);
    }
    // A transpose on all threads: each task writes a few whole levels (rows of `n`)
    // while reading each column's values for them from one cache line.
    data.par_chunks_mut(n * LEVELS_PER_TASK)
        .enumerate()
        .for_each(|(b, rows)| {
            let k0 = b * LEVELS_PER_TASK;
            for (h, col) in columns.columns().enumerate() {
                for (j, &x) in col[k0..].iter().take(rows.len() / n).enumerate() {
                    rows[h + n * j] = x;
                }
            }
        });
    Some(field)
}

/// The columns of a horizontal × vertical `f64` field (`None` for other fields).
pub fn columns_of(field: &Field) -> Option<Columns> {
    let data = field.as_f64()?;
    let dims = field.dims();
    if dims.horizontal.is_none() || dims.local.is_some() || dims.vertical.is_none() {
        return None;
    }
    let (n, levels) = (field.shape()[0], field.levels());
    let mut rows = vec![0.0; n * levels];
    // The inverse transpose: each task fills a block of whole columns, reading each
    // level's values for them contiguously.
    rows.par_chunks_mut(levels.max(1) * COLUMNS_PER_TASK)
        .enumerate()
        .for_each(|(b, block)| {
            let h0 = b * COLUMNS_PER_TASK;
            for k in 0..levels {
                let level = &data[h0 + n * k..][..block.len() / levels.max(1)];
                for (j, &x) in level.iter().enumerate() {
                    block[j * levels + k] = x;
                }
            }
        });
    Columns::from_vec(n, levels, rows)
}

/// Wraps row-major data of `n` columns of `levels` values (a bug when the length is not
/// `n·levels`).
pub(crate) fn columns(n: usize, levels: usize, data: Vec<f64>) -> Columns {
    Columns::from_vec(n, levels, data).expect("row-major data of n columns")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both transposes on sizes that are not multiples of their task blocks, against
    /// the definition: a field's value at point `h`, level `k` is the columns' `(h, k)`.
    #[test]
    fn the_parallel_transposes_invert_each_other_and_keep_every_value_in_place() {
        let grid = Grid::icosahedral(2, 2, foehn_grid::EARTH_RADIUS).expect("an R2B2 grid");
        for (loc, vertical, nlev) in [(CELL, K, 7), (EDGE, K, 1), (CELL, KHALF, 10)] {
            let n = grid.size(loc);
            let levels = nlev + usize::from(vertical == KHALF);
            let cols = Columns::from_fn(n, levels, |h, k| (h * 1000 + k) as f64 + 0.5);
            let field = field_from_columns(&grid, nlev, loc, vertical, &cols).unwrap();
            for (h, k) in [
                (0, 0),
                (n - 1, levels - 1),
                (n / 2, levels / 2),
                (257 % n, 3 % levels),
            ] {
                assert_eq!(
                    field.as_f64().unwrap()[field.flat_index(h, 0, k)],
                    cols.get(h, k)
                );
            }
            assert_eq!(columns_of(&field).unwrap().as_slice(), cols.as_slice());
        }
    }
}
