//! The reference solution and acceptance bands of the JW baroclinic wave
//! (`docs/jw-test.md` of the project's shared documents): minimum surface pressure and
//! its location per day from a converged spectral model (T85, T170), the l2 difference
//! of p_s between T85 and T170 (the reference's uncertainty), and the bands a run of
//! R2B4–R2B6 must fall in.

use serde::Serialize;

/// The reference at one day.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ReferenceDay {
    /// Days since the start.
    pub day: u32,
    /// Minimum p_s at T85, hPa.
    pub t85_hpa: f64,
    /// Minimum p_s at T170, hPa.
    pub t170_hpa: f64,
    /// Its longitude at T170, °E.
    pub lon: f64,
    /// Its latitude at T170, °N.
    pub lat: f64,
    /// Global l2 of p_s(T85) − p_s(T170), hPa.
    pub l2_t85_t170_hpa: f64,
}

const fn day(day: u32, t85: f64, t170: f64, lon: f64, lat: f64, l2: f64) -> ReferenceDay {
    ReferenceDay {
        day,
        t85_hpa: t85,
        t170_hpa: t170,
        lon,
        lat,
        l2_t85_t170_hpa: l2,
    }
}

/// The reference table of jw-test.md.
pub const REFERENCE: [ReferenceDay; 6] = [
    day(4, 998.32, 998.31, 106.9, 47.4, 0.0007),
    day(6, 993.28, 993.28, 149.1, 49.5, 0.003),
    day(7, 985.71, 985.62, 170.9, 52.3, 0.013),
    day(8, 966.69, 966.16, 193.4, 57.9, 0.08),
    day(9, 941.27, 942.35, 210.2, 60.0, 0.23),
    day(10, 932.12, 929.45, 239.8, 64.2, 0.48),
];

/// The reference at `day` (whole days), if the table has it.
pub fn reference(day: u32) -> Option<&'static ReferenceDay> {
    REFERENCE.iter().find(|r| r.day == day)
}

/// Where a minimum of p_s must lie at one day and resolution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MinimumBand {
    /// Lowest accepted value, hPa (`None`: no lower bound).
    pub min_hpa: Option<f64>,
    /// Highest accepted value, hPa.
    pub max_hpa: f64,
    /// Accepted longitudes, °E (west, east).
    pub lon: (f64, f64),
    /// Accepted latitudes, °N (south, north).
    pub lat: (f64, f64),
}

impl MinimumBand {
    /// The band as text: `963–972 hPa, 183–203°E, 53–63°N` (`≤ 980 hPa` when one-sided).
    pub fn text(&self) -> String {
        let value = match self.min_hpa {
            Some(lo) => format!("{lo:.1}–{:.1} hPa", self.max_hpa),
            None => format!("≤ {:.1} hPa", self.max_hpa),
        };
        format!(
            "{value}, {:.0}–{:.0}°E, {:.0}–{:.0}°N",
            self.lon.0, self.lon.1, self.lat.0, self.lat.1
        )
    }

    /// Whether `hpa` lies in the value band.
    pub fn value_ok(&self, hpa: f64) -> bool {
        self.min_hpa.is_none_or(|lo| hpa >= lo) && hpa <= self.max_hpa
    }

    /// Whether (`lon`, `lat`) lies in the location band (longitudes compared modulo 360).
    pub fn location_ok(&self, lon: f64, lat: f64) -> bool {
        let centre = 0.5 * (self.lon.0 + self.lon.1);
        let half = 0.5 * (self.lon.1 - self.lon.0);
        let off = (lon - centre + 180.0).rem_euclid(360.0) - 180.0;
        off.abs() <= half && lat >= self.lat.0 && lat <= self.lat.1
    }
}

/// The acceptance band of the p_s minimum at `day` on a grid of `bisections` (R2B`n`;
/// `None`: not an R2B grid). Day 6 (still linear): 993.3 ± 1 hPa "near" 150°E, 50°N —
/// read as ±10° of longitude and ±5° of latitude, the tolerances of days 8 and 9 — at
/// every resolution. Days 8 and 9: two-sided at R2B5 and finer, an upper bound at R2B4
/// and coarser. Other days, or a grid of unknown resolution at days 8/9: none.
pub fn minimum_band(day: u32, bisections: Option<u32>) -> Option<MinimumBand> {
    let around = |lon: f64, lat: f64, min_hpa, max_hpa| MinimumBand {
        min_hpa,
        max_hpa,
        lon: (lon - 10.0, lon + 10.0),
        lat: (lat - 5.0, lat + 5.0),
    };
    let fine = bisections.map(|n| n >= 5);
    match (day, fine) {
        (6, _) => Some(around(150.0, 50.0, Some(992.3), 994.3)),
        (8, Some(true)) => Some(around(193.0, 58.0, Some(963.0), 972.0)),
        (8, Some(false)) => Some(around(193.0, 58.0, None, 980.0)),
        (9, Some(true)) => Some(around(210.0, 60.0, Some(938.0), 952.0)),
        (9, Some(false)) => Some(around(210.0, 60.0, None, 960.0)),
        _ => None,
    }
}

/// The band of the l2(p_s) difference between R2B5 and R2B6 at `day`, hPa: ≤ 0.3 at
/// day 8, ≤ 1 at day 9.
pub fn convergence_band(day: u32) -> Option<f64> {
    match day {
        8 => Some(0.3),
        9 => Some(1.0),
        _ => None,
    }
}

/// The bisection count `n` of an R2B`n` grid of `cells` cells (20·4·4ⁿ), if it is one.
pub fn r2b_level(cells: usize) -> Option<u32> {
    (0..16u32).find(|&n| 80usize << (2 * n) == cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels() {
        assert_eq!(r2b_level(20_480), Some(4));
        assert_eq!(r2b_level(327_680), Some(6));
        assert_eq!(r2b_level(1280), Some(2));
        assert_eq!(r2b_level(1000), None);
    }

    #[test]
    fn bands() {
        let b = minimum_band(8, Some(6)).unwrap();
        assert!(b.value_ok(966.16) && b.location_ok(193.4, 57.9));
        assert!(!b.value_ok(975.0) && !b.location_ok(150.0, 57.9));
        let coarse = minimum_band(8, Some(4)).unwrap();
        assert!(coarse.value_ok(975.0) && !coarse.value_ok(985.0));
        assert!(minimum_band(6, Some(2)).unwrap().location_ok(149.1, 49.5));
        assert!(minimum_band(6, None).is_some() && minimum_band(8, None).is_none());
        assert!(minimum_band(4, Some(5)).is_none());
        // Longitudes compare modulo 360.
        let near_zero = MinimumBand {
            min_hpa: None,
            max_hpa: 1.0,
            lon: (-5.0, 5.0),
            lat: (0.0, 1.0),
        };
        assert!(near_zero.location_ok(358.0, 0.5));
        assert_eq!(b.text(), "963.0–972.0 hPa, 183–203°E, 53–63°N");
    }
}
