//! The diagnostics scientists look at, computed from a prognostic state in plain Rust
//! (ICON's `diagnose_pres_temp`, `rbf_vec_interpol_cell`, `rot_vertex` and
//! `verts2cells_scalar`; ICON4Py's `diagnose_pressure`, `diagnose_temperature`,
//! `diagnose_surface_pressure`, `edge_2_cell_vector_rbf_interpolation`):
//!
//! ```text
//! p    = p0ref · π^(cpd/rd)                         (Cell, K)   pressure, Pa
//! T    = θv · π                                      (Cell, K)   temperature (dry: Tv = T), K
//! u    = Σ_j rbf_vec_coeff_c1[c,j] · vn[C2E2C2E[c,j]] (Cell, K) eastward wind, m/s
//! v    = Σ_j rbf_vec_coeff_c2[c,j] · vn[C2E2C2E[c,j]] (Cell, K) northward wind, m/s
//! ζ_v  = Σ_j geofac_rot[v,j] · vn[V2E[v,j]]           (Vertex, K) relative vorticity, 1/s
//! ζ_c  = Σ_j verts_aw_cells[c,j] · ζ_v[C2V[c,j]]     (Cell, K)
//! ```
//!
//! with `verts_aw_cells[c,j] = cells_aw_verts[v,i]·dual_area[v]/cell_area[c]` for
//! `v = C2V[c,j]` and `c = V2C[v,i]` (the area of the cell inside the vertex's dual
//! cell over the cell's area, as ICON defines both weights), normalised to sum 1.
//! The surface pressure is [`crate::diagnostics::surface_pressure`] (ICON's hydrostatic
//! integration from the third-lowest level). A field on pressure levels is interpolated
//! linearly in `ln p` between the two full levels bracketing the pressure.
//!
//! Missing values are NaN: `u`, `v` outside the RBF coefficients' domain (the cells
//! from the second lateral boundary row to the end of the local cells), vorticity at
//! the vertices outside that range of vertices and at the cells touching one, and a
//! pressure level above the top full level or below the lowest one (below ground).

use foehn_grid::{Connectivity, Grid, Location, Zone};
use foehn_icon::common::constants::{CPD, P0REF, RD};
use foehn_icon::fields::interpolation::SparseField;
use foehn_icon::fields::Columns;
use rayon::prelude::*;

/// Pressure `p0ref·π^(cpd/rd)`, Pa, of every cell and level.
pub fn pressure(exner: &Columns) -> Columns {
    map_columns(exner, |pi| P0REF * pi.powf(CPD / RD))
}

/// Temperature `θv·π`, K (dry air: the virtual temperature); `None` when the shapes
/// differ.
pub fn temperature(exner: &Columns, theta_v: &Columns) -> Option<Columns> {
    same_shape(exner, theta_v)?;
    Columns::from_vec(
        exner.len(),
        exner.levels(),
        exner
            .as_slice()
            .iter()
            .zip(theta_v.as_slice())
            .map(|(pi, th)| pi * th)
            .collect(),
    )
}

fn map_columns(c: &Columns, f: impl Fn(f64) -> f64) -> Columns {
    let data = c.as_slice().iter().map(|&x| f(x)).collect();
    Columns::from_vec(c.len(), c.levels(), data).expect("same shape")
}

fn same_shape(a: &Columns, b: &Columns) -> Option<()> {
    (a.len() == b.len() && a.levels() == b.levels()).then_some(())
}

/// `[start of the second lateral boundary row, end of the local points)` of `loc`
/// (the whole grid on a global grid).
fn inner_range(grid: &Grid, loc: Location) -> (usize, usize) {
    let zones = grid.zones.of(loc);
    let start = zones.start(Zone::LateralBoundary(2)).unwrap_or(0);
    let end = zones.end(Zone::Local).unwrap_or(grid.size(loc));
    (start, end.max(start))
}

/// `n` columns of `nlev` values, column `i` from `f(i, column)` where `inside(i)`, NaN
/// elsewhere.
fn columns_where(
    n: usize,
    nlev: usize,
    inside: impl Fn(usize) -> bool + Sync,
    f: impl Fn(usize, &mut [f64]) + Sync,
) -> Columns {
    let mut data = vec![f64::NAN; n * nlev];
    // Columns are independent (each written by its own closure call): in parallel.
    data.par_chunks_mut(nlev.max(1))
        .enumerate()
        .take(n)
        .filter(|(i, _)| inside(*i))
        .for_each(|(i, col)| {
            col.fill(0.0);
            f(i, col);
        });
    Columns::from_vec(n, nlev, data).expect("n columns")
}

/// `out[k] += Σ_j w[j]·src[table[p, j]][k]` over the valid neighbours.
fn accumulate(out: &mut [f64], weights: &[f64], neighbours: &[i32], src: &Columns) {
    for (&w, &nb) in weights.iter().zip(neighbours) {
        if nb >= 0 {
            for (o, x) in out.iter_mut().zip(src.column(nb as usize)) {
                *o += w * x;
            }
        }
    }
}

/// Eastward and northward wind at cell centres, m/s, from the normal wind `vn`
/// (`[n_edges, nlev]`) by the RBF reconstruction with `rbf_vec_coeff_c1/c2`; NaN
/// outside the cells the coefficients cover. `None` when `vn` is not on the grid's edges.
pub fn cell_wind(
    grid: &Grid,
    rbf_c1: &SparseField,
    rbf_c2: &SparseField,
    vn: &Columns,
) -> Option<(Columns, Columns)> {
    let n = grid.size(Location::Cell);
    if vn.len() != grid.size(Location::Edge) || rbf_c1.len() != n || rbf_c2.len() != n {
        return None;
    }
    let table = grid.topology.table(Connectivity::C2E2C2E);
    let (start, end) = inner_range(grid, Location::Cell);
    let inside = |c: usize| (start..end).contains(&c);
    let component = |coeff: &SparseField| {
        columns_where(n, vn.levels(), inside, |c, col| {
            accumulate(col, coeff.row(c), table.row(c), vn)
        })
    };
    Some((component(rbf_c1), component(rbf_c2)))
}

/// Relative vorticity at vertices, 1/s, the discrete curl of `vn` with `geofac_rot`;
/// NaN outside `[second boundary row, end of local vertices)`.
pub fn vertex_vorticity(grid: &Grid, geofac_rot: &SparseField, vn: &Columns) -> Option<Columns> {
    let n = grid.size(Location::Vertex);
    if vn.len() != grid.size(Location::Edge) || geofac_rot.len() != n {
        return None;
    }
    let table = grid.topology.table(Connectivity::V2E);
    let (start, end) = inner_range(grid, Location::Vertex);
    Some(columns_where(
        n,
        vn.levels(),
        |v| (start..end).contains(&v),
        |v, col| accumulate(col, geofac_rot.row(v), table.row(v), vn),
    ))
}

/// ICON's `verts_aw_cells` (Cell, C2V) from `cells_aw_verts` (Vertex, V2C) and the
/// grid's dual and cell areas, each row normalised to sum 1 (see the
/// [module documentation](self)).
pub fn verts_aw_cells(grid: &Grid, cells_aw_verts: &SparseField) -> Vec<[f64; 3]> {
    let (c2v, v2c) = (
        grid.topology.table(Connectivity::C2V),
        grid.topology.table(Connectivity::V2C),
    );
    let g = &grid.geometry;
    (0..grid.size(Location::Cell))
        .map(|c| {
            let mut w = [0.0; 3];
            for (j, wj) in w.iter_mut().enumerate() {
                let Some(v) = c2v.neighbor(c, j) else {
                    continue;
                };
                if let Some(i) = (0..v2c.width()).find(|&i| v2c.neighbor(v, i) == Some(c)) {
                    *wj = cells_aw_verts.get(v, i) * g.dual_area[v] / g.cell_area[c];
                }
            }
            let sum: f64 = w.iter().sum();
            if sum > 0.0 {
                w.iter_mut().for_each(|x| *x /= sum);
            }
            w
        })
        .collect()
}

/// Relative vorticity at cells, 1/s: the vertex vorticity averaged with
/// [`verts_aw_cells`]; NaN where a vertex's is missing.
pub fn cell_vorticity(grid: &Grid, weights: &[[f64; 3]], vor_v: &Columns) -> Option<Columns> {
    let n = grid.size(Location::Cell);
    if weights.len() != n || vor_v.len() != grid.size(Location::Vertex) {
        return None;
    }
    let c2v = grid.topology.table(Connectivity::C2V);
    let nlev = vor_v.levels();
    let inside = |c: usize| {
        (0..3).all(|j| {
            c2v.neighbor(c, j)
                .is_some_and(|v| vor_v.column(v).iter().all(|x| !x.is_nan()))
        })
    };
    Some(columns_where(n, nlev, inside, |c, col| {
        accumulate(col, &weights[c], c2v.row(c), vor_v)
    }))
}

/// The value of one column `field` (level 0 at the top) at the pressure `target`, Pa,
/// linearly interpolated in `ln p` between the two levels of `pressure` that bracket
/// it; NaN when `target` is above the top level or below the lowest one.
pub fn column_at_pressure(field: &[f64], pressure: &[f64], target: f64) -> f64 {
    let ln_t = target.ln();
    for k in 0..pressure.len().saturating_sub(1) {
        let (p0, p1) = (pressure[k], pressure[k + 1]);
        if p0 <= target && target <= p1 {
            if p1 == p0 {
                return field[k];
            }
            let a = (ln_t - p0.ln()) / (p1.ln() - p0.ln());
            return field[k] + a * (field[k + 1] - field[k]);
        }
    }
    if pressure.len() == 1 && pressure[0] == target {
        return field[0];
    }
    f64::NAN
}

/// A cell field on pressure levels: `[n_cells, targets.len()]`, column `c` holding
/// [`column_at_pressure`] of each target (Pa). `None` when the shapes differ.
pub fn at_pressure_levels(field: &Columns, pressure: &Columns, targets: &[f64]) -> Option<Columns> {
    same_shape(field, pressure)?;
    let data = (0..field.len())
        .flat_map(|c| {
            targets
                .iter()
                .map(move |&t| column_at_pressure(field.column(c), pressure.column(c), t))
        })
        .collect();
    Columns::from_vec(field.len(), targets.len(), data)
}
