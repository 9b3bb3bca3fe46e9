//! Conversions between the fields module's row-major columns ([`Columns`], ICON4Py's
//! `[n, levels]`: one column contiguous, what column-wise computations such as the
//! Newton iteration and the hydrostatic adjustment walk) and foehn [`Field`]s
//! (column-major: horizontal index fastest, [`Field::flat_index`]).

use foehn::dsl::prelude::*;
use foehn::runtime::field::Field;
use foehn_grid::Grid;
use foehn_icon::fields::Columns;

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
    for (h, col) in columns.columns().enumerate() {
        for (k, &x) in col.iter().enumerate() {
            data[h + n * k] = x;
        }
    }
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
    let rows = (0..n)
        .flat_map(|h| (0..levels).map(move |k| data[h + n * k]))
        .collect();
    Columns::from_vec(n, levels, rows)
}

/// Wraps row-major data of `n` columns of `levels` values (a bug when the length is not
/// `n·levels`).
pub(crate) fn columns(n: usize, levels: usize, data: Vec<f64>) -> Columns {
    Columns::from_vec(n, levels, data).expect("row-major data of n columns")
}
