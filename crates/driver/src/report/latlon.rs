//! Cell fields on a regular latitude–longitude grid, and area-weighted l2 norms there.
//!
//! The interpolation: for each lat/lon point q, the `K` nearest cell centres a_i (an
//! R*-tree on the unit sphere, [`rstar`]) and weights w_i with
//!
//! - Σ w_i = 1,
//! - Σ w_i (a_i − q)·e = 0 for the east and north unit vectors e at q,
//! - Σ w_i |a_i − q|² = 0,
//!
//! the ones of least Σ w_i² (ρ_i² + ε) (ρ_i the distance in units of the stencil's
//! radius: near centres weigh most). The three tangential conditions make it exact for
//! fields linear on the tangent plane; since (a_i − q)·q = −|a_i − q|²/2 on the unit
//! sphere, the last one makes it exact for every field linear in (x, y, z), and the
//! method is second-order accurate for smooth fields. The price is a few small negative
//! weights (a point between centres takes values from a second ring), so an extremum can
//! be over- or undershot by a fraction of its curvature term. A point on a cell centre
//! takes the centre's value.
//!
//! Why not barycentric weights on the three nearest centres: on the sphere they are exact
//! only on the chord plane of the triangle, so a field linear in (x, y, z) comes out
//! wrong by O(h²); inverse-distance weights are only first order.

use super::ReportError;
use rstar::primitives::GeomWithData;
use rstar::RTree;

/// Cell centres per stencil (the first ring and part of the second).
pub const STENCIL: usize = 10;
/// A lat/lon point farther than this from every cell centre (great-circle degrees) is
/// outside the run's grid.
const MAX_GAP_DEG: f64 = 5.0;

/// A regular latitude–longitude grid of box centres: longitudes `step/2, 3·step/2, …`
/// east of 0°, latitudes from `−90 + step/2` to `90 − step/2`; points latitude-major
/// (longitude fastest).
#[derive(Debug, Clone, PartialEq)]
pub struct LatLonGrid {
    /// The spacing, degrees.
    pub step: f64,
    /// Box-centre longitudes, °E.
    pub lon: Vec<f64>,
    /// Box-centre latitudes, °N, south to north.
    pub lat: Vec<f64>,
}

impl LatLonGrid {
    /// The grid of spacing `step` degrees (180/step must be a whole number).
    pub fn new(step: f64) -> Result<LatLonGrid, ReportError> {
        let rows = 180.0 / step;
        if !step.is_finite()
            || step <= 0.0
            || (rows - rows.round()).abs() > 1e-9
            || rows.round() < 2.0
        {
            return Err(ReportError::Input(format!(
                "lat/lon spacing {step}°: 180 must be a whole multiple (≥ 2) of it (1, 0.5, 2, …)"
            )));
        }
        let rows = rows.round() as usize;
        let centre = |i: usize| (i as f64 + 0.5) * step;
        Ok(LatLonGrid {
            step,
            lon: (0..2 * rows).map(centre).collect(),
            lat: (0..rows).map(|j| centre(j) - 90.0).collect(),
        })
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.lon.len() * self.lat.len()
    }

    /// False: a grid has points.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every point as (lon, lat) in degrees, latitude-major.
    pub fn points(&self) -> Vec<(f64, f64)> {
        self.lat
            .iter()
            .flat_map(|&y| self.lon.iter().map(move |&x| (x, y)))
            .collect()
    }

    /// The area of each point's box as a share of the sphere (they sum to 1).
    pub fn area_weights(&self) -> Vec<f64> {
        let h = 0.5 * self.step.to_radians();
        let dlon = self.step.to_radians();
        self.lat
            .iter()
            .flat_map(|&y| {
                let y = y.to_radians();
                let a = dlon * ((y + h).sin() - (y - h).sin()) / (4.0 * std::f64::consts::PI);
                std::iter::repeat_n(a, self.lon.len())
            })
            .collect()
    }

    /// The area-weighted root-mean-square of `a − b` over the sphere (JW06's global l2
    /// norm of a difference); `a` and `b` hold one value per point.
    pub fn l2_difference(&self, a: &[f64], b: &[f64]) -> Result<f64, ReportError> {
        if a.len() != self.len() || b.len() != self.len() {
            return Err(ReportError::Input(format!(
                "an l2 difference on the {}° grid needs {} values per field, not {} and {}",
                self.step,
                self.len(),
                a.len(),
                b.len()
            )));
        }
        let sum: f64 = self
            .area_weights()
            .iter()
            .zip(a.iter().zip(b))
            .map(|(w, (x, y))| w * (x - y) * (x - y))
            .sum();
        Ok(sum.sqrt())
    }
}

/// The point of the unit sphere at `lon`, `lat` (degrees).
pub fn unit(lon: f64, lat: f64) -> [f64; 3] {
    let (l, p) = (lon.to_radians(), lat.to_radians());
    [p.cos() * l.cos(), p.cos() * l.sin(), p.sin()]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Fixed interpolation weights from a set of cell centres to a set of points
/// (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct Interpolator {
    cells: usize,
    k: usize,
    index: Vec<usize>,
    weight: Vec<f64>,
}

impl Interpolator {
    /// Weights from the cell centres `cell_lon`, `cell_lat` (degrees) to `points`
    /// ((lon, lat) in degrees). Fails when there are fewer than [`STENCIL`] cells, when
    /// a point lies farther than 5° from every centre (the grid is not global), or when
    /// the centres around a point are degenerate (duplicates).
    pub fn new(
        cell_lon: &[f64],
        cell_lat: &[f64],
        points: &[(f64, f64)],
    ) -> Result<Interpolator, ReportError> {
        let n = cell_lon.len();
        if cell_lat.len() != n {
            return Err(ReportError::Input(format!(
                "{n} cell longitudes but {} latitudes",
                cell_lat.len()
            )));
        }
        if n < STENCIL {
            return Err(ReportError::Input(format!(
                "{n} cells: interpolation to lat/lon needs at least {STENCIL}"
            )));
        }
        let tree = RTree::bulk_load(
            (0..n)
                .map(|i| GeomWithData::new(unit(cell_lon[i], cell_lat[i]), i))
                .collect(),
        );
        let k = STENCIL;
        let mut index = Vec::with_capacity(points.len() * k);
        let mut weight = Vec::with_capacity(points.len() * k);
        let max_chord = 2.0 * (0.5 * MAX_GAP_DEG.to_radians()).sin();
        for &(lon, lat) in points {
            let q = unit(lon, lat);
            let near: Vec<(usize, [f64; 3])> = tree
                .nearest_neighbor_iter(&q)
                .take(k)
                .map(|p| (p.data, *p.geom()))
                .collect();
            let gap = near.first().map_or(f64::INFINITY, |(_, a)| chord(*a, q));
            if gap > max_chord {
                return Err(ReportError::Input(format!(
                    "no cell centre within {MAX_GAP_DEG}° of {lon:.2}°E {lat:.2}°N: the grid does not cover the globe (the report compares global runs)"
                )));
            }
            let w = stencil_weights(q, lon, lat, &near).ok_or_else(|| {
                ReportError::Input(format!(
                    "the cell centres around {lon:.2}°E {lat:.2}°N are degenerate (duplicate centres?)"
                ))
            })?;
            index.extend(near.iter().map(|(i, _)| *i));
            weight.extend(w);
        }
        Ok(Interpolator {
            cells: n,
            k,
            index,
            weight,
        })
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.index.len() / self.k
    }

    /// True without points.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// `values` (one per cell) at the points; a point next to a missing (NaN) value is NaN.
    pub fn apply(&self, values: &[f64]) -> Result<Vec<f64>, ReportError> {
        if values.len() != self.cells {
            return Err(ReportError::Input(format!(
                "a field of {} values on a grid of {} cells",
                values.len(),
                self.cells
            )));
        }
        Ok(self
            .index
            .chunks(self.k)
            .zip(self.weight.chunks(self.k))
            .map(|(i, w)| i.iter().zip(w).map(|(&i, &w)| w * values[i]).sum())
            .collect())
    }
}

fn chord(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// The weights of the module docs for the point `q` (at `lon`, `lat`) and its nearest
/// centres `near` (nearest first); `None` when the conditions cannot be met.
fn stencil_weights(
    q: [f64; 3],
    lon: f64,
    lat: f64,
    near: &[(usize, [f64; 3])],
) -> Option<Vec<f64>> {
    let k = near.len();
    let d0 = chord(near[0].1, q);
    let h = chord(near[k - 1].1, q);
    if d0 <= 1e-12 * h.max(1e-300) {
        let mut w = vec![0.0; k];
        w[0] = 1.0;
        return Some(w);
    }
    let (l, p) = (lon.to_radians(), lat.to_radians());
    let east = [-l.sin(), l.cos(), 0.0];
    let north = [-p.sin() * l.cos(), -p.sin() * l.sin(), p.cos()];
    // Rows of the conditions, scaled to order one: 1, (d·e)/h, (d·n)/h, |d|²/h².
    let rows: Vec<[f64; 4]> = near
        .iter()
        .map(|(_, a)| {
            let d = [a[0] - q[0], a[1] - q[1], a[2] - q[2]];
            [
                1.0,
                dot(d, east) / h,
                dot(d, north) / h,
                dot(d, d) / (h * h),
            ]
        })
        .collect();
    // Least Σ w²/π with π = 1/(ρ² + ε): w = Π Cᵀ (C Π Cᵀ)⁻¹ e₁.
    let pi: Vec<f64> = rows.iter().map(|r| 1.0 / (r[3] + 0.05)).collect();
    let mut m = [[0.0; 4]; 4];
    for (r, &p) in rows.iter().zip(&pi) {
        for a in 0..4 {
            for b in 0..4 {
                m[a][b] += p * r[a] * r[b];
            }
        }
    }
    let y = solve4(m, [1.0, 0.0, 0.0, 0.0])?;
    Some(
        rows.iter()
            .zip(&pi)
            .map(|(r, &p)| p * (0..4).map(|a| r[a] * y[a]).sum::<f64>())
            .collect(),
    )
}

/// The solution of the 4×4 system `m x = b` (Gaussian elimination with partial
/// pivoting); `None` when `m` is singular to working precision.
fn solve4(mut m: [[f64; 4]; 4], mut b: [f64; 4]) -> Option<[f64; 4]> {
    let scale = m.iter().flatten().fold(0.0f64, |s, x| s.max(x.abs()));
    for c in 0..4 {
        let p = (c..4).max_by(|&i, &j| m[i][c].abs().total_cmp(&m[j][c].abs()))?;
        if m[p][c].abs() <= 1e-13 * scale {
            return None;
        }
        m.swap(c, p);
        b.swap(c, p);
        for r in c + 1..4 {
            let f = m[r][c] / m[c][c];
            let pivot = m[c];
            for (x, p) in m[r][c..].iter_mut().zip(&pivot[c..]) {
                *x -= f * p;
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = [0.0; 4];
    for c in (0..4).rev() {
        let s: f64 = (c + 1..4).map(|j| m[c][j] * x[j]).sum();
        x[c] = (b[c] - s) / m[c][c];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_small_system() {
        let m = [
            [4.0, 1.0, 0.0, 0.0],
            [1.0, 3.0, 1.0, 0.0],
            [0.0, 1.0, 2.0, 1.0],
            [0.0, 0.0, 1.0, 5.0],
        ];
        let x = [1.0, -2.0, 0.5, 3.0];
        let b: Vec<f64> = m
            .iter()
            .map(|r| (0..4).map(|j| r[j] * x[j]).sum())
            .collect();
        let got = solve4(m, [b[0], b[1], b[2], b[3]]).unwrap();
        for j in 0..4 {
            assert!((got[j] - x[j]).abs() < 1e-14);
        }
        assert!(solve4([[1.0; 4]; 4], [1.0; 4]).is_none());
    }

    #[test]
    fn grid_and_weights() {
        let g = LatLonGrid::new(1.0).unwrap();
        assert_eq!((g.lon.len(), g.lat.len()), (360, 180));
        let total: f64 = g.area_weights().iter().sum();
        assert!((total - 1.0).abs() < 1e-12);
        assert!(LatLonGrid::new(0.7).is_err());
        assert!(LatLonGrid::new(-1.0).is_err());
    }
}
