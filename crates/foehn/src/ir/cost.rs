//! The memory-traffic model of a program: the minimal bytes a call must move.

use super::{Node, Program, Role};
use foehn_grid::Grid;

/// Bounding union of two half-open ranges (an empty range is absorbed).
fn union(a: Option<(usize, usize)>, b: (usize, usize)) -> Option<(usize, usize)> {
    if b.1 <= b.0 {
        return a;
    }
    Some(match a {
        Some((s, e)) => (s.min(b.0), e.max(b.1)),
        None => b,
    })
}

impl Program {
    /// Minimal bytes one call moves, the denominator of every "% of peak" figure:
    /// every argument field the program reads is read once over the levels its reading
    /// stencils cover (all horizontal points: neighbour reads reach beyond the domain);
    /// every field it writes is written once over the (bounding) union of its writing
    /// stencils' domains; temporaries cost nothing (an ideal schedule keeps them in
    /// registers) and neighbour tables are not counted. Stencils whose domain is empty
    /// on `grid` count nothing; domains that cannot be resolved count as whole fields.
    pub fn minimal_bytes(&self, grid: &Grid, nlev: usize) -> u64 {
        let all: Vec<usize> = (0..self.stencils.len()).collect();
        self.traffic(&all, false, grid, nlev)
    }

    /// Minimal bytes of one kernel computing `stencils` (indices into
    /// [`Program::stencils`]): the same model as [`Program::minimal_bytes`] restricted to
    /// those stencils, with temporaries counted (between kernels they live in memory)
    /// except those a column kernel keeps in per-thread arrays
    /// ([`Program::column_locals`], as the optimised schedule does; with
    /// `OptOptions::column_locals` off they are stored and this undercounts).
    pub fn kernel_bytes(&self, stencils: &[usize], grid: &Grid, nlev: usize) -> u64 {
        self.traffic(stencils, true, grid, nlev)
    }

    fn traffic(&self, stencils: &[usize], temporaries: bool, grid: &Grid, nlev: usize) -> u64 {
        let local = self.column_locals(stencils);
        let n = self.fields.len();
        let mut read_k: Vec<Option<(usize, usize)>> = vec![None; n];
        let mut write_h: Vec<Option<(usize, usize)>> = vec![None; n];
        let mut write_k: Vec<Option<(usize, usize)>> = vec![None; n];
        let shapes: Vec<Vec<usize>> = self
            .fields
            .iter()
            .map(|d| super::layout::grid_shape(grid, nlev, d.ty.dims))
            .collect();
        let levels =
            |i: usize| crate::ir::layout::vertical_extent_of(self.fields[i].ty.dims, &shapes[i]);
        for st in stencils.iter().map(|&i| &self.stencils[i]) {
            // A stencil with an empty domain on this grid (a boundary zone of a global
            // grid, say) launches nothing and moves nothing.
            let dom = match self.active_domain(st, grid, nlev) {
                Ok(None) => continue,
                Ok(Some(d)) => Some(d),
                Err(_) => None,
            };
            for id in self.reachable(st.root) {
                if let Node::Field(f) = self.node(id) {
                    let i = f.0 as usize;
                    let k = if st.vertical.is_some() {
                        dom.map_or((0, levels(i)), |d| d.k)
                    } else {
                        (0, levels(i))
                    };
                    read_k[i] = union(read_k[i], (k.0, k.1.min(levels(i)).max(k.0)));
                }
            }
            for &o in &st.outputs {
                let i = o.0 as usize;
                let h = dom.map_or((0, shapes[i].first().copied().unwrap_or(1)), |d| d.h);
                let k = if st.vertical.is_some() {
                    dom.map_or((0, levels(i)), |d| d.k)
                } else {
                    (0, 1)
                };
                write_h[i] = union(write_h[i], h);
                write_k[i] = union(write_k[i], k);
            }
        }
        (0..n)
            .filter(|&i| temporaries || self.fields[i].role != Role::Temp)
            .filter(|&i| !local.contains(&super::FieldId(i as u32)))
            .map(|i| {
                let d = &self.fields[i];
                let elem = d.ty.dtype.size_bytes() as u64;
                let per_level: u64 = shapes[i].iter().product::<usize>() as u64 / levels(i) as u64;
                let width = d.ty.dims.local.map_or(1, |c| c.width()) as u64;
                let reads = read_k[i].map_or(0, |(s, e)| (e - s) as u64 * per_level * elem);
                let writes = match (write_h[i], write_k[i]) {
                    (Some(h), Some(k)) => (h.1 - h.0) as u64 * width * (k.1 - k.0) as u64 * elem,
                    _ => 0,
                };
                reads + writes
            })
            .sum()
    }
}
