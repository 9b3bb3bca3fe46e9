//! Buffers for programs' temporaries kept between calls: a time loop calls the same
//! programs every substep, and allocating their temporaries anew each time makes the
//! operating system map, fault in and clear fresh pages for every call (about a tenth of
//! a CPU substep at R2B5 × 80 before this pool). A buffer taken from the pool is
//! refilled with the temporary's poison value, so a call sees exactly what a fresh
//! allocation would give it.

use crate::ir::FieldDecl;
use crate::runtime::field::Field;
use foehn_grid::Grid;
use std::sync::Mutex;

/// Temporaries' buffers free for the next call, up to [`TempPool::MAX_BYTES`].
#[derive(Default)]
pub(crate) struct TempPool {
    free: Mutex<Vec<Field>>,
}

impl TempPool {
    /// The most the pool keeps; buffers given back beyond it are dropped.
    pub(crate) const MAX_BYTES: usize = 4 << 30;

    /// A field for temporary `decl` on `grid` with `nlev` levels, filled with its
    /// type's poison value: a free buffer of the same type and shape if there is one.
    pub(crate) fn take(&self, grid: &Grid, nlev: usize, decl: &FieldDecl) -> Field {
        let (dims, dtype) = (decl.ty.dims, decl.ty.dtype);
        let shape = Field::grid_shape(grid, nlev, dims);
        let found = {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            free.iter()
                .position(|f| f.dims() == dims && f.dtype() == dtype && f.shape() == shape)
                .map(|i| free.swap_remove(i))
        };
        match found {
            Some(mut f) => {
                f.data_mut().fill(dtype.poison());
                f
            }
            None => Field::filled(grid, nlev, dims.list(), dtype.poison()),
        }
    }

    /// Gives `fields` back for later calls (those beyond [`TempPool::MAX_BYTES`] are
    /// dropped).
    pub(crate) fn give_back(&self, fields: Vec<Field>) {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        let mut bytes: usize = free.iter().map(Field::bytes).sum();
        for f in fields {
            if bytes + f.bytes() <= Self::MAX_BYTES {
                bytes += f.bytes();
                free.push(f);
            }
        }
    }

    /// How many buffers are free (for tests).
    #[cfg(test)]
    pub(crate) fn free_count(&self) -> usize {
        self.free.lock().map(|f| f.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsl::prelude::{CELL, EDGE, K};
    use crate::ir::{DType, Dims, FieldType, Role, Scalar};
    use foehn_grid::EARTH_RADIUS;

    fn temp(dims: &[crate::ir::Dim], dtype: DType) -> FieldDecl {
        FieldDecl {
            name: "t".into(),
            ty: FieldType {
                dims: Dims::from_list(dims).unwrap(),
                dtype,
            },
            role: Role::Temp,
        }
    }

    #[test]
    fn a_buffer_given_back_is_reused_and_refilled_with_poison() {
        let grid = Grid::icosahedral(2, 0, EARTH_RADIUS).unwrap();
        let pool = TempPool::default();
        let cells = temp(&[CELL.into(), K.into()], DType::F64);
        let mut a = pool.take(&grid, 5, &cells);
        let address = a.as_f64().unwrap().as_ptr();
        a.data_mut().fill(Scalar::F64(1.5));
        pool.give_back(vec![a]);
        assert_eq!(pool.free_count(), 1);
        // Another type or shape does not take it.
        let edges = pool.take(&grid, 5, &temp(&[EDGE.into(), K.into()], DType::F64));
        let ints = pool.take(&grid, 5, &temp(&[CELL.into(), K.into()], DType::I32));
        let fewer = pool.take(&grid, 4, &cells);
        assert_eq!(pool.free_count(), 1);
        // The same type and shape does, poisoned again.
        let b = pool.take(&grid, 5, &cells);
        assert_eq!(pool.free_count(), 0);
        assert_eq!(b.as_f64().unwrap().as_ptr(), address, "the same buffer");
        let fresh = Field::filled(&grid, 5, cells.ty.dims.list(), DType::F64.poison());
        assert_eq!((b.dims(), b.shape()), (fresh.dims(), fresh.shape()));
        let bits = |f: &Field| {
            f.as_f64()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&b), bits(&fresh), "poisoned again, as a fresh buffer");
        drop((edges, ints, fewer));
    }
}
