//! Lat/lon maps (PNG) of a field on an unstructured grid's cells, for model output: each
//! pixel of the map takes the value of the nearest cell centre (a nearest-cell raster;
//! pixels farther than the grid spacing from every centre, outside a limited-area grid,
//! stay white), coloured on a viridis scale, with axes in degrees, a colour bar with
//! values and units, and a title. Missing values (NaN) are drawn grey. Text uses the
//! embedded font (see [`crate::plot`]); the same map always gives the same bytes.

use crate::error::{Error, Result};
use crate::plot::{write_png, FAMILY};
use plotters::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// A lon/lat box in degrees (`lon.0 < lon.1`, `lat.0 < lat.1`; longitudes may run past
/// 180 or below 0, as 0..360 or −180..180).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Region {
    /// West and east edges, °E.
    pub lon: (f64, f64),
    /// South and north edges, °N.
    pub lat: (f64, f64),
}

impl Region {
    /// The whole sphere, 0–360°E (the Jablonowski–Williamson plots' convention).
    pub const GLOBE: Region = Region {
        lon: (0.0, 360.0),
        lat: (-90.0, 90.0),
    };
}

/// What a cell map shows.
#[derive(Debug, Clone, PartialEq)]
pub struct CellMap {
    /// The title above the map.
    pub title: String,
    /// The colour bar's label (the variable's units).
    pub units: String,
    /// Longitude of each cell centre, degrees.
    pub lon: Vec<f64>,
    /// Latitude of each cell centre, degrees.
    pub lat: Vec<f64>,
    /// The value of each cell; NaN where missing.
    pub values: Vec<f64>,
    /// The box shown; `None`: the globe when the cells reach both poles' regions, else
    /// the cells' bounding box.
    pub region: Option<Region>,
    /// The colour scale's limits; `None`: the finite values' minimum and maximum.
    pub range: Option<(f64, f64)>,
}

/// Viridis at nine equally spaced points.
const VIRIDIS: [(u8, u8, u8); 9] = [
    (68, 1, 84),
    (71, 45, 123),
    (59, 82, 139),
    (44, 114, 142),
    (33, 145, 140),
    (40, 174, 128),
    (94, 201, 98),
    (173, 220, 48),
    (253, 231, 37),
];
const MISSING: RGBColor = RGBColor(200, 200, 200);
const SIZE: (u32, u32) = (1100, 600);
const BAR_PX: u32 = 150;

/// The viridis colour of `t` in [0, 1] (clamped).
pub fn colour(t: f64) -> RGBColor {
    let x = t.clamp(0.0, 1.0) * (VIRIDIS.len() - 1) as f64;
    let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + f * (b as f64 - a as f64)).round() as u8;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

fn unit(lon_deg: f64, lat_deg: f64) -> [f64; 3] {
    let (lon, lat) = (lon_deg.to_radians(), lat_deg.to_radians());
    [lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin()]
}

fn dist2(a: [f64; 3], b: [f64; 3]) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)
}

/// Nearest cell centre to a point of the unit sphere, by a hash of cubes of the grid
/// spacing (chord length).
struct Nearest {
    points: Vec<[f64; 3]>,
    h: f64,
    cubes: HashMap<[i64; 3], Vec<usize>>,
}

impl Nearest {
    fn new(points: Vec<[f64; 3]>) -> Nearest {
        let h = spacing(&points);
        let mut cubes: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
        for (i, &p) in points.iter().enumerate() {
            cubes.entry(Self::cube(p, h)).or_default().push(i);
        }
        Nearest { points, h, cubes }
    }

    fn cube(p: [f64; 3], h: f64) -> [i64; 3] {
        p.map(|x| ((x + 1.0) / h).floor() as i64)
    }

    /// The nearest cell within 1.5 grid spacings of `q` (ties: the lower index).
    fn find(&self, q: [f64; 3]) -> Option<usize> {
        let c = Self::cube(q, self.h);
        let limit = 1.5 * self.h;
        let mut best: Option<(f64, usize)> = None;
        for r in 1..=2i64 {
            best = None;
            for dx in -r..=r {
                for dy in -r..=r {
                    for dz in -r..=r {
                        let Some(cell) = self.cubes.get(&[c[0] + dx, c[1] + dy, c[2] + dz]) else {
                            continue;
                        };
                        for &i in cell {
                            let d = dist2(q, self.points[i]);
                            if best.is_none_or(|(bd, bi)| d < bd || (d == bd && i < bi)) {
                                best = Some((d, i));
                            }
                        }
                    }
                }
            }
            // Every centre outside the searched block is farther than r·h.
            if best.is_some_and(|(d, _)| d.sqrt() <= r as f64 * self.h) {
                break;
            }
        }
        best.filter(|(d, _)| d.sqrt() <= limit).map(|(_, i)| i)
    }
}

/// The median distance from a sample of centres to their nearest other centre.
fn spacing(points: &[[f64; 3]]) -> f64 {
    let step = (points.len() / 64).max(1);
    let mut d: Vec<f64> = (0..points.len())
        .step_by(step)
        .map(|i| {
            points
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &p)| dist2(points[i], p))
                .fold(f64::INFINITY, f64::min)
                .sqrt()
        })
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    d.sort_by(f64::total_cmp);
    d.get(d.len() / 2).copied().unwrap_or(2.0)
}

/// The box of `lon`/`lat` (degrees): the globe when the cells span more than 150° of
/// latitude, else their bounding box padded by 1°, in whichever longitude convention
/// (−180..180 or 0..360) makes it narrower.
pub fn default_region(lon: &[f64], lat: &[f64]) -> Region {
    let (s, n) = lat
        .iter()
        .fold((90.0f64, -90.0f64), |(s, n), &y| (s.min(y), n.max(y)));
    if n - s > 150.0 || lon.is_empty() {
        return Region::GLOBE;
    }
    let span = |wrap: f64| {
        lon.iter()
            .map(|&x| (x + 360.0 - wrap).rem_euclid(360.0) + wrap - 360.0)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                (a.min(x), b.max(x))
            })
    };
    let (a, b) = span(180.0);
    let (c, d) = span(360.0);
    let (w, e) = if b - a <= d - c { (a, b) } else { (c, d) };
    Region {
        lon: (w - 1.0, e + 1.0),
        lat: ((s - 1.0).max(-90.0), (n + 1.0).min(90.0)),
    }
}

/// A tick label for `v` on a scale spanning `span`: the digits the span needs, or
/// scientific notation for very small or large values; a tick within rounding of zero
/// is `0`.
fn tick(v: f64, span: f64) -> String {
    let v = if v.abs() < span.abs() * 1e-9 { 0.0 } else { v };
    let mag = v.abs().max(span.abs());
    if mag != 0.0 && !(1e-2..1e6).contains(&mag) {
        return if v == 0.0 {
            "0".to_string()
        } else {
            format!("{v:.2e}")
        };
    }
    let digits = (1.0 - span.abs().log10().floor()).clamp(0.0, 6.0) as usize;
    format!("{v:.digits$}")
}

impl CellMap {
    /// Writes the map to `path` as a PNG (atomically; an existing file keeps its mode).
    pub fn render_png(&self, path: &Path) -> Result<()> {
        let n = self.values.len();
        if n == 0 || self.lon.len() != n || self.lat.len() != n {
            return Err(Error::invalid(
                path,
                format!(
                    "a map needs as many longitudes ({}) and latitudes ({}) as values ({n}), at least one",
                    self.lon.len(),
                    self.lat.len()
                ),
            ));
        }
        let region = self
            .region
            .unwrap_or_else(|| default_region(&self.lon, &self.lat));
        let range = self.range.or_else(|| {
            let finite = self.values.iter().filter(|v| v.is_finite());
            let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
            lo.is_finite().then_some((lo, hi))
        });
        let (lo, hi) = match range {
            Some((lo, hi)) if hi > lo => (lo, hi),
            Some((lo, _)) => (lo - 0.5, lo + 0.5),
            None => (0.0, 1.0),
        };
        write_png(path, |p| self.draw(p, region, (lo, hi)))?;
        Ok(())
    }

    fn draw(
        &self,
        path: &Path,
        region: Region,
        (lo, hi): (f64, f64),
    ) -> std::result::Result<(), Box<dyn std::error::Error>> {
        let root = BitMapBackend::new(path, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let (map_area, bar_area) = root.split_horizontally(SIZE.0 - BAR_PX);
        let (lon, lat) = (region.lon, region.lat);
        let mut chart = ChartBuilder::on(&map_area)
            .caption(&self.title, (FAMILY, 18))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(56)
            .build_cartesian_2d(lon.0..lon.1, lat.0..lat.1)?;
        // The raster, pixel by pixel, before the graticule and the axes.
        let area = chart.plotting_area().strip_coord_spec();
        let (w, h) = area.dim_in_pixel();
        let nearest = Nearest::new(
            self.lon
                .iter()
                .zip(&self.lat)
                .map(|(&x, &y)| unit(x, y))
                .collect(),
        );
        for py in 0..h {
            let y = lat.1 - (py as f64 + 0.5) / h as f64 * (lat.1 - lat.0);
            for px in 0..w {
                let x = lon.0 + (px as f64 + 0.5) / w as f64 * (lon.1 - lon.0);
                let Some(c) = nearest.find(unit(x, y)) else {
                    continue;
                };
                let v = self.values[c];
                let col = if v.is_nan() {
                    MISSING
                } else {
                    colour((v - lo) / (hi - lo))
                };
                area.draw_pixel((px as i32, py as i32), &col)?;
            }
        }
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .bold_line_style(BLACK.mix(0.25))
            .x_desc("longitude (°E)")
            .y_desc("latitude (°N)")
            .label_style((FAMILY, 13))
            .x_labels(13)
            .y_labels(7)
            .x_label_formatter(&|v| format!("{v:.0}°"))
            .y_label_formatter(&|v| format!("{v:.0}°"))
            .draw()?;
        chart
            .plotting_area()
            .draw(&Rectangle::new([(lon.0, lat.0), (lon.1, lat.1)], BLACK))?;
        self.draw_bar(&bar_area, (lo, hi))?;
        root.present()?;
        Ok(())
    }

    /// The colour bar: 256 steps from `lo` to `hi`, values on its axis, units below.
    fn draw_bar(
        &self,
        area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
        (lo, hi): (f64, f64),
    ) -> std::result::Result<(), Box<dyn std::error::Error>> {
        let mut bar = ChartBuilder::on(area)
            .margin_top(42)
            .margin_bottom(56)
            .margin_right(40)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0..1.0, lo..hi)?;
        let steps = 256;
        bar.draw_series((0..steps).map(|i| {
            let (a, b) = (i as f64 / steps as f64, (i + 1) as f64 / steps as f64);
            let (va, vb) = (lo + a * (hi - lo), lo + b * (hi - lo));
            Rectangle::new([(0.0, va), (1.0, vb)], colour((a + b) / 2.0).filled())
        }))?;
        let span = hi - lo;
        bar.configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .label_style((FAMILY, 13))
            .y_labels(8)
            .y_desc(self.units.as_str())
            .y_label_formatter(&|v| tick(*v, span))
            .draw()?;
        bar.plotting_area()
            .draw(&Rectangle::new([(0.0, lo), (1.0, hi)], BLACK))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearest-cell search agrees with a brute-force search, and a point far from
    /// every centre finds none.
    #[test]
    fn nearest_matches_brute_force() {
        let mut pts = Vec::new();
        for i in 0..40 {
            for j in 0..20 {
                pts.push(unit(
                    i as f64 * 9.0 + (j % 2) as f64 * 4.5,
                    -85.0 + j as f64 * 9.0,
                ));
            }
        }
        let near = Nearest::new(pts.clone());
        for k in 0..500 {
            let q = unit(k as f64 * 0.73, ((k * 37) % 180) as f64 - 89.5);
            let brute = (0..pts.len())
                .min_by(|&a, &b| dist2(q, pts[a]).total_cmp(&dist2(q, pts[b])))
                .unwrap();
            let found = near.find(q);
            if let Some(f) = found {
                assert_eq!(dist2(q, pts[f]), dist2(q, pts[brute]), "query {k}");
            } else {
                assert!(dist2(q, pts[brute]).sqrt() > 1.5 * near.h, "query {k}");
            }
        }
        let cap = Nearest::new(vec![unit(0.0, 0.0), unit(1.0, 0.0), unit(0.0, 1.0)]);
        assert_eq!(cap.find(unit(90.0, 0.0)), None);
    }

    /// The colour scale runs from viridis' dark violet to its yellow and is clamped.
    #[test]
    fn colours() {
        assert_eq!(colour(0.0), RGBColor(68, 1, 84));
        assert_eq!(colour(1.0), RGBColor(253, 231, 37));
        assert_eq!(colour(-3.0), colour(0.0));
        assert_eq!(colour(0.5), RGBColor(33, 145, 140));
    }

    /// Regions: a global set of cells gives the globe; a cap across the date line gets
    /// the narrower convention.
    #[test]
    fn regions() {
        let g = default_region(&[0.0, 100.0, 200.0], &[-89.0, 0.0, 89.0]);
        assert_eq!(g, Region::GLOBE);
        let r = default_region(&[175.0, -175.0], &[40.0, 50.0]);
        assert_eq!(r.lon, (174.0, 186.0));
        assert_eq!(r.lat, (39.0, 51.0));
        let r = default_region(&[5.0, 10.0], &[40.0, 50.0]);
        assert_eq!(r.lon, (4.0, 11.0));
    }

    /// Tick labels keep the digits the span needs.
    #[test]
    fn ticks() {
        assert_eq!(tick(99500.0, 2000.0), "99500");
        assert_eq!(tick(285.31, 40.0), "285");
        assert_eq!(tick(13.0, 5.0), "13.0");
        assert_eq!(tick(2.5e-5, 1e-4), "2.50e-5");
        assert_eq!(tick(-1.69e-21, 3e-5), "0");
    }
}
