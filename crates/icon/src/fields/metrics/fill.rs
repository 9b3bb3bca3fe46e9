//! Filling several column fields in one parallel pass over the horizontal points, so
//! that each point's neighbours are looked up once and its columns are walked as
//! slices (the fields are the same, value by value, as filling them one at a time).

use crate::fields::Columns;
use rayon::prelude::*;

/// Points per parallel task.
const BLOCK: usize = 256;

/// `N` fields of `n` columns, field `j` with `levels[j]` values per column, filled in
/// parallel point by point: `f(i, cols)` writes column `i` of every field (`cols[j]`,
/// zeros on entry).
pub(crate) fn fill_columns<const N: usize>(
    n: usize,
    levels: [usize; N],
    f: impl Fn(usize, &mut [&mut [f64]; N]) + Sync,
) -> [Columns; N] {
    let mut data: [Vec<f64>; N] = std::array::from_fn(|j| zeros(n * levels[j]));
    for_each_point(n, &mut data, &levels, &f);
    let mut data = data.into_iter();
    std::array::from_fn(|j| Columns {
        n,
        levels: levels[j],
        data: data.next().unwrap_or_default(),
    })
}

/// Calls `f(i, cols)` for every point `i < n` in parallel, `cols[j]` the `i`-th run of
/// `levels[j]` values of `data[j]`; `T` is any plain value (f64, bool, i32).
pub(crate) fn for_each_point<T: Send, const N: usize>(
    n: usize,
    data: &mut [Vec<T>; N],
    levels: &[usize; N],
    f: &(impl Fn(usize, &mut [&mut [T]; N]) + Sync),
) {
    if n == 0 {
        return;
    }
    let blocks = n.div_ceil(BLOCK);
    let mut chunks: Vec<Vec<&mut [T]>> = (0..blocks).map(|_| Vec::with_capacity(N)).collect();
    for (d, &l) in data.iter_mut().zip(levels) {
        debug_assert_eq!(d.len(), n * l);
        if l == 0 {
            chunks.iter_mut().for_each(|c| c.push(&mut []));
        } else {
            for (c, s) in chunks.iter_mut().zip(d.chunks_mut(BLOCK * l)) {
                c.push(s);
            }
        }
    }
    chunks
        .into_par_iter()
        .enumerate()
        .for_each(|(b, mut block)| {
            let rows = BLOCK.min(n - b * BLOCK);
            for r in 0..rows {
                let mut parts = block.iter_mut().zip(levels);
                let mut cols: [&mut [T]; N] = std::array::from_fn(|_| {
                    let (s, &l) = parts.next().expect("one slice per field");
                    &mut s[r * l..(r + 1) * l]
                });
                f(b * BLOCK + r, &mut cols);
            }
        });
}

/// The weighted sum `Σⱼ weights[j]·cols[j][k]` over the present columns (the
/// neighbours of a point), in their order.
#[inline]
pub(crate) fn weighted_sum(cols: &[Option<&[f64]>], weights: &[f64], k: usize) -> f64 {
    cols.iter()
        .zip(weights)
        .filter_map(|(c, &w)| c.map(|c| w * c[k]))
        .sum()
}

/// `n` zeros (`0.0`, `0`, `false`) of a field about to be filled: allocated zeroed
/// and left untouched, so that its pages are first written (and faulted in) by the
/// threads that fill them.
pub(crate) fn zeros<T: Clone + Default>(n: usize) -> Vec<T> {
    vec![T::default(); n]
}
