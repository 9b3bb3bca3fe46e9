//! The memory-traffic model of a program: the minimal bytes a call must move.

use super::{Program, Role};
use crate::field::Field;
use foehn_grid::Grid;

impl Program {
    /// Minimal bytes one call moves: every argument field read once (inputs and in/out
    /// fields) and written once (outputs and in/out fields), at its full size;
    /// temporaries cost nothing (an ideal schedule keeps them in registers) and neighbour
    /// tables are not counted. This is the denominator of every "% of peak" figure.
    pub fn minimal_bytes(&self, grid: &Grid, nlev: usize) -> u64 {
        self.fields
            .iter()
            .map(|d| {
                let elems: usize = Field::grid_shape(grid, nlev, d.ty.dims).iter().product();
                let bytes = (elems * d.ty.dtype.size_bytes()) as u64;
                match d.role {
                    Role::In | Role::Out => bytes,
                    Role::InOut => 2 * bytes,
                    Role::Temp => 0,
                }
            })
            .sum()
    }
}
