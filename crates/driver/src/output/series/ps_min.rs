//! The minimum of the surface pressure and where it lies: the lowest cell, refined by a
//! least-squares quadratic fitted to the cell and its two rings of edge neighbours in the
//! gnomonic plane tangent at the cell.

use super::lsq::NormalEquations;
use super::zonal::angle;
use foehn_grid::{Connectivity, Grid, Location};

/// The surface-pressure minimum of one state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PsMinimum {
    /// The lowest cell.
    pub cell: usize,
    /// Its surface pressure, Pa.
    pub value: f64,
    /// The minimum of the fitted quadratic, Pa (`value` where the fit is not used).
    pub fitted: f64,
    /// Longitude of the minimum, degrees east in `[0, 360)`.
    pub lon: f64,
    /// Latitude of the minimum, degrees north.
    pub lat: f64,
    /// True when the location is the fitted quadratic's minimum (a positive-definite
    /// fit whose minimum lies within one grid spacing of the cell and is not above the
    /// cell's value), false when it is the cell centre.
    pub refined: bool,
}

/// The minimum of the cell field `ps` (Pa) over the cells of `grid` whose centre lies in
/// `region` (a test on latitude °N and longitude °E); `None` when `ps` is not a cell
/// field of the grid or has no finite value there.
pub fn ps_minimum(grid: &Grid, ps: &[f64], region: impl Fn(f64, f64) -> bool) -> Option<PsMinimum> {
    if ps.len() != grid.size(Location::Cell) {
        return None;
    }
    let g = &grid.geometry;
    let cell = (0..ps.len())
        .filter(|&c| {
            ps[c].is_finite() && region(g.cell_lat[c].to_degrees(), g.cell_lon[c].to_degrees())
        })
        .min_by(|&a, &b| ps[a].total_cmp(&ps[b]))?;
    let centre = unit(g.cell_lat[cell], g.cell_lon[cell]);
    let at_centre = PsMinimum {
        cell,
        value: ps[cell],
        fitted: ps[cell],
        lon: g.cell_lon[cell].to_degrees().rem_euclid(360.0),
        lat: g.cell_lat[cell].to_degrees(),
        refined: false,
    };
    Some(refine(grid, ps, cell, &centre).unwrap_or(at_centre))
}

/// The fitted minimum near `cell`, or `None` (too few neighbours, a fit without a
/// minimum, a minimum farther than one grid spacing or above the cell's value).
fn refine(grid: &Grid, ps: &[f64], cell: usize, centre: &[f64; 3]) -> Option<PsMinimum> {
    let g = &grid.geometry;
    let c2e2c = grid.topology.table(Connectivity::C2E2C);
    let first: Vec<usize> = c2e2c.valid(cell).collect();
    let mut ring = vec![cell];
    for &nb in &first {
        for c in std::iter::once(nb).chain(c2e2c.valid(nb)) {
            if !ring.contains(&c) && ps[c].is_finite() {
                ring.push(c);
            }
        }
    }
    let points: Vec<[f64; 3]> = ring
        .iter()
        .map(|&c| unit(g.cell_lat[c], g.cell_lon[c]))
        .collect();
    let spacing = first
        .iter()
        .map(|&c| angle(centre, &unit(g.cell_lat[c], g.cell_lon[c])))
        .fold(0.0, f64::max);
    if spacing <= 0.0 {
        return None;
    }
    let (east, north) = tangent_basis(centre);
    let plane = |q: &[f64; 3]| {
        let d = dot(q, centre);
        (dot(q, &east) / d / spacing, dot(q, &north) / d / spacing)
    };
    let mut fit = NormalEquations::<6>::new();
    for (q, &c) in points.iter().zip(&ring) {
        let (x, y) = plane(q);
        fit.add(&[1.0, x, y, x * x, x * y, y * y], ps[c] - ps[cell], 1.0);
    }
    let [a, bx, by, cxx, cxy, cyy] = fit.solve_leading(6)?;
    let det = 4.0 * cxx * cyy - cxy * cxy;
    if !(cxx > 0.0 && det > 0.0) {
        return None;
    }
    let x = (-2.0 * cyy * bx + cxy * by) / det;
    let y = (cxy * bx - 2.0 * cxx * by) / det;
    if x.hypot(y) > 1.0 {
        return None;
    }
    let fitted = ps[cell] + a + bx * x + by * y + cxx * x * x + cxy * x * y + cyy * y * y;
    if fitted > ps[cell] {
        // Above the lowest cell: the quadratic smooths over noise rather than fitting a low.
        return None;
    }
    let q: [f64; 3] = std::array::from_fn(|i| centre[i] + spacing * (x * east[i] + y * north[i]));
    let r = dot(&q, &q).sqrt();
    Some(PsMinimum {
        cell,
        value: ps[cell],
        fitted,
        lon: q[1].atan2(q[0]).to_degrees().rem_euclid(360.0),
        lat: (q[2] / r).clamp(-1.0, 1.0).asin().to_degrees(),
        refined: true,
    })
}

/// The unit vector at latitude `lat`, longitude `lon` (rad).
fn unit(lat: f64, lon: f64) -> [f64; 3] {
    [lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin()]
}

fn dot(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Unit east and north vectors tangent at the unit vector `p` (any orthonormal pair
/// at a pole).
fn tangent_basis(p: &[f64; 3]) -> ([f64; 3], [f64; 3]) {
    let h = p[0].hypot(p[1]);
    let east = if h > 1e-12 {
        [-p[1] / h, p[0] / h, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let north = [
        p[1] * east[2] - p[2] * east[1],
        p[2] * east[0] - p[0] * east[2],
        p[0] * east[1] - p[1] * east[0],
    ];
    (east, north)
}
