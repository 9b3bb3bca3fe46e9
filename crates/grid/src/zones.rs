//! ICON's horizontal zones: points sorted by distance from the lateral boundary
//! (`refin_ctrl`), so that every zone is one contiguous index range.

use crate::error::{GridError, Result};
use crate::Location;
use std::fmt;
use std::str::FromStr;

/// A horizontal zone (ICON4Py `Zone`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Zone {
    /// Boundary row `n` (1-based; 1..=4 for cells and vertices, 1..=8 for edges).
    LateralBoundary(u8),
    /// Nudging row `n` (1 for cells and vertices; 1..=2 for edges).
    Nudging(u8),
    /// Prognostic points beyond the nudging zone.
    Interior,
    /// All points this process owns (`[0, start of halo)`).
    Local,
    /// Halo line `n` (1..=2).
    Halo(u8),
    /// The empty range at the end.
    End,
}

impl Zone {
    /// Number of boundary rows ICON distinguishes for a location.
    pub fn boundary_rows(loc: Location) -> u8 {
        if loc == Location::Edge {
            8
        } else {
            4
        }
    }

    /// Number of nudging rows for a location.
    pub fn nudging_rows(loc: Location) -> u8 {
        if loc == Location::Edge {
            2
        } else {
            1
        }
    }

    /// The `refin_ctrl` value of the points of a boundary or nudging zone.
    pub fn refin_value(self, loc: Location) -> Option<i32> {
        match self {
            Zone::LateralBoundary(n) => Some(n as i32),
            Zone::Nudging(n) => Some(Zone::boundary_rows(loc) as i32 + n as i32),
            _ => None,
        }
    }

    /// Every zone that exists for a location, in ICON's index order.
    pub fn all(loc: Location) -> Vec<Zone> {
        let mut z: Vec<Zone> = (1..=Zone::boundary_rows(loc))
            .map(Zone::LateralBoundary)
            .collect();
        z.extend((1..=Zone::nudging_rows(loc)).map(Zone::Nudging));
        z.extend([
            Zone::Interior,
            Zone::Local,
            Zone::Halo(1),
            Zone::Halo(2),
            Zone::End,
        ]);
        z
    }

    /// Whether the zone exists for the location (e.g. `LateralBoundary(5)` does not for cells).
    pub fn valid_for(self, loc: Location) -> bool {
        match self {
            Zone::LateralBoundary(n) => (1..=Zone::boundary_rows(loc)).contains(&n),
            Zone::Nudging(n) => (1..=Zone::nudging_rows(loc)).contains(&n),
            Zone::Halo(n) => (1..=2).contains(&n),
            _ => true,
        }
    }

    /// Position of the zone in ICON's `start_idx`/`end_idx` arrays (0-based), as ICON4Py reads them.
    pub fn icon_index(self, loc: Location) -> usize {
        // The array is indexed by refinement level minus the smallest level:
        // cells −8..5 (14), edges −13..10 (24), vertices −7..5 (13).
        let (min_rl, local_rl) = match loc {
            Location::Cell => (-8, -4),
            Location::Edge => (-13, -8),
            Location::Vertex => (-7, -4),
        };
        let rl = match self {
            Zone::End => min_rl,
            Zone::Halo(n) => local_rl - n as i32,
            Zone::Local => local_rl,
            Zone::Interior => 0,
            z => z.refin_value(loc).expect("boundary or nudging zone"),
        };
        (rl - min_rl) as usize
    }

    /// Length of ICON's start/end index arrays for a location (`cell_grf`, `edge_grf`, `vert_grf`).
    pub fn icon_array_len(loc: Location) -> usize {
        match loc {
            Location::Cell => 14,
            Location::Edge => 24,
            Location::Vertex => 13,
        }
    }
}

impl fmt::Display for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Zone::LateralBoundary(1) => write!(f, "LATERAL_BOUNDARY"),
            Zone::LateralBoundary(n) => write!(f, "LATERAL_BOUNDARY_LEVEL_{n}"),
            Zone::Nudging(1) => write!(f, "NUDGING"),
            Zone::Nudging(n) => write!(f, "NUDGING_LEVEL_{n}"),
            Zone::Interior => write!(f, "INTERIOR"),
            Zone::Local => write!(f, "LOCAL"),
            Zone::Halo(1) => write!(f, "HALO"),
            Zone::Halo(n) => write!(f, "HALO_LEVEL_{n}"),
            Zone::End => write!(f, "END"),
        }
    }
}

impl FromStr for Zone {
    type Err = GridError;
    fn from_str(s: &str) -> Result<Zone> {
        let u = s.trim().to_ascii_uppercase();
        let level = |prefix: &str| -> Option<u8> {
            if u == prefix {
                Some(1)
            } else {
                u.strip_prefix(prefix)?
                    .strip_prefix("_LEVEL_")?
                    .parse()
                    .ok()
            }
        };
        let zone = match u.as_str() {
            "INTERIOR" => Some(Zone::Interior),
            "LOCAL" => Some(Zone::Local),
            "END" => Some(Zone::End),
            _ => level("LATERAL_BOUNDARY")
                .map(Zone::LateralBoundary)
                .or_else(|| level("NUDGING").map(Zone::Nudging))
                .or_else(|| level("HALO").map(Zone::Halo)),
        };
        zone.ok_or_else(|| {
            GridError::InvalidParameters(format!(
                "unknown zone `{s}` (expected e.g. LATERAL_BOUNDARY_LEVEL_2, NUDGING, INTERIOR, LOCAL, HALO, END)"
            ))
        })
    }
}

/// The refinement control values and zone ranges of one location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocationZones {
    loc: Location,
    refin_ctrl: Vec<i32>,
    n_owned: usize,
    ranges: Vec<(Zone, usize, usize)>,
}

impl LocationZones {
    /// Derives zone ranges from `refin_ctrl` (0 = interior, 1.. = boundary row) of
    /// points already sorted by zone; all points owned (no halo yet).
    pub fn from_refin_ctrl(loc: Location, refin_ctrl: Vec<i32>) -> Result<LocationZones> {
        let n = refin_ctrl.len();
        let mut ranges = Vec::new();
        let ordered: Vec<Zone> = (1..=Zone::boundary_rows(loc))
            .map(Zone::LateralBoundary)
            .chain((1..=Zone::nudging_rows(loc)).map(Zone::Nudging))
            .collect();
        let mut cursor = 0usize;
        for z in ordered {
            let value = z.refin_value(loc).expect("boundary zone");
            let start = cursor;
            while cursor < n && refin_ctrl[cursor] == value {
                cursor += 1;
            }
            ranges.push((z, start, cursor));
        }
        if let Some(i) = refin_ctrl[cursor..].iter().position(|&r| {
            r >= 1 && r <= Zone::boundary_rows(loc) as i32 + Zone::nudging_rows(loc) as i32
        }) {
            return Err(GridError::Topology(format!(
                "{loc} {} has refin_ctrl {} but lies after the boundary zones: points are not sorted by zone",
                cursor + i,
                refin_ctrl[cursor + i]
            )));
        }
        ranges.push((Zone::Interior, cursor, n));
        ranges.push((Zone::Local, 0, n));
        ranges.push((Zone::Halo(1), n, n));
        ranges.push((Zone::Halo(2), n, n));
        ranges.push((Zone::End, n, n));
        Ok(LocationZones {
            loc,
            refin_ctrl,
            n_owned: n,
            ranges,
        })
    }

    /// All points interior (a global grid): every boundary and nudging zone is empty.
    pub fn global(loc: Location, n: usize) -> LocationZones {
        Self::from_refin_ctrl(loc, vec![0; n]).expect("all-interior zones are valid")
    }

    /// The location.
    pub fn location(&self) -> Location {
        self.loc
    }

    /// `refin_ctrl` per point.
    pub fn refin_ctrl(&self) -> &[i32] {
        &self.refin_ctrl
    }

    /// Number of owned points.
    pub fn n_owned(&self) -> usize {
        self.n_owned
    }

    /// `[start, end)` of a zone; an error names a zone the location does not have.
    pub fn range(&self, zone: Zone) -> Result<(usize, usize)> {
        self.ranges
            .iter()
            .find(|r| r.0 == zone)
            .map(|r| (r.1, r.2))
            .ok_or_else(|| GridError::InvalidParameters(format!("{} has no zone {zone}", self.loc)))
    }

    /// Start index of a zone.
    pub fn start(&self, zone: Zone) -> Result<usize> {
        Ok(self.range(zone)?.0)
    }

    /// End index (exclusive) of a zone.
    pub fn end(&self, zone: Zone) -> Result<usize> {
        Ok(self.range(zone)?.1)
    }

    /// Every zone with its range, in ICON order.
    pub fn ranges(&self) -> impl Iterator<Item = (Zone, usize, usize)> + '_ {
        self.ranges.iter().copied()
    }

    /// ICON's `start_idx_*` / `end_idx_*` arrays (1-based start, inclusive 1-based end).
    /// Positions with no zone (nest-overlap levels) get the empty range at the end of `LOCAL`.
    pub fn icon_arrays(&self) -> (Vec<i32>, Vec<i32>) {
        let len = Zone::icon_array_len(self.loc);
        let mut start = vec![self.n_owned as i32 + 1; len];
        let mut end = vec![self.n_owned as i32; len];
        for &(z, s, e) in &self.ranges {
            let i = z.icon_index(self.loc);
            start[i] = s as i32 + 1;
            end[i] = e as i32;
        }
        (start, end)
    }
}

/// Zones of all three locations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zones {
    /// Cell zones.
    pub cell: LocationZones,
    /// Edge zones.
    pub edge: LocationZones,
    /// Vertex zones.
    pub vertex: LocationZones,
}

impl Zones {
    /// Zones of one location.
    pub fn of(&self, loc: Location) -> &LocationZones {
        match loc {
            Location::Cell => &self.cell,
            Location::Edge => &self.edge,
            Location::Vertex => &self.vertex,
        }
    }

    /// True when any point lies in a lateral-boundary zone.
    pub fn is_limited_area(&self) -> bool {
        self.cell.refin_ctrl.iter().any(|&r| r > 0)
    }
}
