//! The zonal mean of a cell field on an unstructured grid: latitude bands about one grid
//! spacing wide, and in each band and level an area-weighted least-squares cubic in
//! latitude fitted over the band and its two neighbours, evaluated at each cell's
//! latitude (see the [series documentation](super) for why a plain band mean is not
//! enough).

use super::lsq::NormalEquations;
use foehn_grid::{Connectivity, Grid, Location};
use foehn_icon::fields::Columns;
use rayon::prelude::*;
use std::f64::consts::FRAC_PI_2;

/// The latitude bands of a grid's cells.
#[derive(Debug, Clone)]
pub struct ZonalBands {
    /// Band width, rad.
    width: f64,
    /// The cells of each band, south to north.
    members: Vec<Vec<usize>>,
    /// Each cell's band and its position among the band's members.
    slot: Vec<(usize, usize)>,
    /// Cell latitudes, rad.
    lat: Vec<f64>,
    /// Cell areas, m².
    area: Vec<f64>,
}

impl ZonalBands {
    /// Bands of the width of the mean angular distance between neighbouring cell
    /// centres (π over a whole number of them).
    pub fn new(grid: &Grid) -> ZonalBands {
        let g = &grid.geometry;
        let n = grid.size(Location::Cell);
        let spacing = mean_neighbour_angle(grid);
        let count = if spacing > 0.0 {
            ((std::f64::consts::PI / spacing).round() as usize).max(1)
        } else {
            1
        };
        let width = std::f64::consts::PI / count as f64;
        let mut members = vec![Vec::new(); count];
        let mut slot = Vec::with_capacity(n);
        for c in 0..n {
            let b = ((g.cell_lat[c] + FRAC_PI_2) / width).floor() as isize;
            let b = b.clamp(0, count as isize - 1) as usize;
            slot.push((b, members[b].len()));
            members[b].push(c);
        }
        ZonalBands {
            width,
            members,
            slot,
            lat: g.cell_lat.clone(),
            area: g.cell_area.clone(),
        }
    }

    /// Number of bands.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// True when there are no bands (never: a grid has at least one).
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Band width, degrees.
    pub fn width_degrees(&self) -> f64 {
        self.width.to_degrees()
    }

    /// The zonal mean `ū` of the cell field `f` (`[n_cells, levels]`) at every cell and
    /// level: the cubic in latitude fitted (area-weighted) to the finite values of the
    /// cell's band and its neighbours at that level (a lower degree where they do not
    /// determine a cubic), at the cell's latitude; NaN
    /// where `f` is NaN. `None` when `f` is not a field of this grid's cells.
    pub fn zonal_mean(&self, f: &Columns) -> Option<Columns> {
        if f.len() != self.lat.len() {
            return None;
        }
        let levels = f.levels();
        // Bands are independent: fitted in parallel, each into its own cells' values.
        let bands: Vec<Vec<f64>> = (0..self.members.len())
            .into_par_iter()
            .map(|b| self.band_fit(b, f, levels))
            .collect();
        // Every cell lies in one band: its column is copied from there, on all threads.
        let mut out = vec![0.0; f.len() * levels];
        if levels > 0 {
            out.par_chunks_mut(levels)
                .zip(&self.slot)
                .for_each(|(o, &(b, i))| o.copy_from_slice(&bands[b][i * levels..][..levels]));
        }
        Columns::from_vec(f.len(), levels, out)
    }

    /// The fitted zonal mean at band `b`'s cells, `levels` values a cell in the band's
    /// cell order (NaN where `f` is NaN or no fit exists).
    fn band_fit(&self, b: usize, f: &Columns, levels: usize) -> Vec<f64> {
        let centre = -FRAC_PI_2 + (b as f64 + 0.5) * self.width;
        let x = |c: usize| (self.lat[c] - centre) / self.width;
        let mut fits = vec![NormalEquations::<4>::new(); levels];
        let window = b.saturating_sub(1)..(b + 2).min(self.members.len());
        for &c in window.flat_map(|w| &self.members[w]) {
            let xc = x(c);
            let basis = [1.0, xc, xc * xc, xc * xc * xc];
            for (e, &y) in fits.iter_mut().zip(f.column(c)) {
                if y.is_finite() {
                    e.add(&basis, y, self.area[c]);
                }
            }
        }
        let solved: Vec<_> = fits.iter().map(|e| e.solve_best()).collect();
        let cells = &self.members[b];
        let mut out = vec![f64::NAN; cells.len() * levels];
        for (&c, o) in cells.iter().zip(out.chunks_exact_mut(levels)) {
            let xc = x(c);
            for (k, fit) in solved.iter().enumerate() {
                if let (true, Some((m, coeff))) = (f.get(c, k).is_finite(), fit) {
                    o[k] = coeff[..*m].iter().rev().fold(0.0, |acc, a| acc * xc + a);
                }
            }
        }
        out
    }
}

/// The mean great-circle angle between the centres of neighbouring cells, rad (0 on a
/// grid without neighbours).
fn mean_neighbour_angle(grid: &Grid) -> f64 {
    let g = &grid.geometry;
    let unit = |c: usize| {
        let (la, lo) = (g.cell_lat[c], g.cell_lon[c]);
        [la.cos() * lo.cos(), la.cos() * lo.sin(), la.sin()]
    };
    let table = grid.topology.table(Connectivity::C2E2C);
    let (mut sum, mut count) = (0.0, 0usize);
    for c in 0..grid.size(Location::Cell) {
        let p = unit(c);
        for nb in table.valid(c) {
            sum += angle(&p, &unit(nb));
            count += 1;
        }
    }
    if count == 0 {
        0.0
    } else {
        sum / count as f64
    }
}

/// The angle between two unit vectors, rad (accurate for small angles).
pub(crate) fn angle(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    let cross = [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ];
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    cross.iter().map(|x| x * x).sum::<f64>().sqrt().atan2(dot)
}
