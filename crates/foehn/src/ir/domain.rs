//! Index bounds, `concat_where` regions and stencil output domains.
//!
//! A [`Bound`] is symbolic (a zone start/end, `nlev`, the dimension size, or zero)
//! plus an integer offset, so the IR stays independent of the grid; backends resolve
//! bounds with [`Bound::resolve`] once per call (or at compile time when the grid is fixed).

use super::types::VKind;
use foehn_grid::{Grid, Location, Zone};
use std::fmt;
use std::ops::{Add, Sub};

/// The symbolic part of a [`Bound`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BoundBase {
    /// Index 0.
    Zero,
    /// The number of full levels.
    Nlev,
    /// The size of the dimension the bound is used on (points of the location, or
    /// levels of the vertical kind: `nlev` or `nlev + 1`).
    Size,
    /// The first index of a horizontal zone.
    ZoneStart(Zone),
    /// One past the last index of a horizontal zone.
    ZoneEnd(Zone),
}

/// An index bound: a symbolic base plus an offset, e.g. `nlev - 1`, `start(NUDGING_2)`, `5`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bound {
    /// The symbolic base.
    pub base: BoundBase,
    /// The integer offset added to the base.
    pub offset: i64,
}

/// The dimension a bound or region interval applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IndexDim {
    /// The horizontal index of a location.
    H(Location),
    /// The vertical level index of a kind.
    V(VKind),
}

impl fmt::Display for IndexDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexDim::H(l) => write!(f, "{l}"),
            IndexDim::V(v) => write!(f, "{v}"),
        }
    }
}

impl Bound {
    /// A constant index.
    pub const fn index(i: i64) -> Bound {
        Bound {
            base: BoundBase::Zero,
            offset: i,
        }
    }

    /// The size of the dimension (end of the whole range).
    pub const fn size() -> Bound {
        Bound {
            base: BoundBase::Size,
            offset: 0,
        }
    }

    /// Resolves the bound to an index on `grid` with `nlev` full levels.
    /// Errors name a zone used on a vertical dimension or missing for the location.
    pub fn resolve(&self, dim: IndexDim, grid: &Grid, nlev: usize) -> Result<i64, String> {
        let base = match (self.base, dim) {
            (BoundBase::Zero, _) => 0,
            (BoundBase::Nlev, _) => nlev as i64,
            (BoundBase::Size, IndexDim::H(l)) => grid.size(l) as i64,
            (BoundBase::Size, IndexDim::V(v)) => v.levels(nlev) as i64,
            (BoundBase::ZoneStart(z), IndexDim::H(l)) => {
                grid.zones.of(l).start(z).map_err(|e| e.to_string())? as i64
            }
            (BoundBase::ZoneEnd(z), IndexDim::H(l)) => {
                grid.zones.of(l).end(z).map_err(|e| e.to_string())? as i64
            }
            (BoundBase::ZoneStart(z) | BoundBase::ZoneEnd(z), IndexDim::V(v)) => {
                return Err(format!(
                    "zone {z} used as a bound of vertical dimension {v}"
                ))
            }
        };
        Ok(base + self.offset)
    }

    /// A reason why the bound cannot be used on `dim`, if any (zones on vertical dims).
    pub fn misuse(&self, dim: IndexDim) -> Option<String> {
        match (self.base, dim) {
            (BoundBase::ZoneStart(z) | BoundBase::ZoneEnd(z), IndexDim::V(v)) => {
                Some(format!("zone {z} cannot bound vertical dimension {v}"))
            }
            _ => None,
        }
    }
}

impl From<i64> for Bound {
    fn from(i: i64) -> Bound {
        Bound::index(i)
    }
}

impl From<i32> for Bound {
    fn from(i: i32) -> Bound {
        Bound::index(i as i64)
    }
}

impl From<usize> for Bound {
    fn from(i: usize) -> Bound {
        Bound::index(i as i64)
    }
}

impl Add<i64> for Bound {
    type Output = Bound;
    fn add(self, rhs: i64) -> Bound {
        Bound {
            base: self.base,
            offset: self.offset + rhs,
        }
    }
}

impl Sub<i64> for Bound {
    type Output = Bound;
    fn sub(self, rhs: i64) -> Bound {
        Bound {
            base: self.base,
            offset: self.offset - rhs,
        }
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = match self.base {
            BoundBase::Zero => return write!(f, "{}", self.offset),
            BoundBase::Nlev => "nlev".to_string(),
            BoundBase::Size => "size".to_string(),
            BoundBase::ZoneStart(z) => format!("start({z})"),
            BoundBase::ZoneEnd(z) => format!("end({z})"),
        };
        match self.offset {
            0 => write!(f, "{base}"),
            o if o > 0 => write!(f, "{base}+{o}"),
            o => write!(f, "{base}-{}", -o),
        }
    }
}

/// One interval condition `lo <= index < hi` on one dimension (either side optional).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Interval {
    /// The dimension whose index is tested.
    pub dim: IndexDim,
    /// Inclusive lower bound.
    pub lo: Option<Bound>,
    /// Exclusive upper bound.
    pub hi: Option<Bound>,
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.lo, self.hi) {
            (Some(lo), Some(hi)) => write!(f, "{lo} <= {} < {hi}", self.dim),
            (Some(lo), None) => write!(f, "{} >= {lo}", self.dim),
            (None, Some(hi)) => write!(f, "{} < {hi}", self.dim),
            (None, None) => write!(f, "true"),
        }
    }
}

/// A `concat_where` region: the conjunction of interval conditions (a box in index space).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Region {
    /// The conditions, all of which must hold.
    pub intervals: Vec<Interval>,
}

impl Region {
    /// Whether the point `(h, k)` of location `loc` lies in the region; `Err` when a bound
    /// cannot be resolved on `grid`.
    pub fn contains(
        &self,
        loc: Option<Location>,
        h: usize,
        k: i64,
        grid: &Grid,
        nlev: usize,
    ) -> Result<bool, String> {
        for iv in &self.intervals {
            let idx = match iv.dim {
                IndexDim::H(l) => {
                    if let Some(at) = loc.filter(|&at| at != l) {
                        return Err(format!("region on {l} evaluated at a {at} point"));
                    }
                    h as i64
                }
                IndexDim::V(_) => k,
            };
            if let Some(lo) = iv.lo {
                if idx < lo.resolve(iv.dim, grid, nlev)? {
                    return Ok(false);
                }
            }
            if let Some(hi) = iv.hi {
                if idx >= hi.resolve(iv.dim, grid, nlev)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }
}

impl std::ops::BitAnd for Region {
    type Output = Region;
    fn bitand(mut self, rhs: Region) -> Region {
        self.intervals.extend(rhs.intervals);
        self
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.intervals.iter().map(|i| i.to_string()).collect();
        write!(f, "{}", parts.join(" & "))
    }
}

/// The output domain of a stencil: `[start, end)` horizontally (on the outputs'
/// location) and vertically (on the outputs' vertical kind; ignored for 2-D outputs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Domain {
    /// Horizontal `[start, end)`.
    pub horizontal: (Bound, Bound),
    /// Vertical `[start, end)`.
    pub vertical: (Bound, Bound),
}

impl Default for Domain {
    /// The whole field: `[0, size)` in both directions.
    fn default() -> Domain {
        Domain {
            horizontal: (Bound::index(0), Bound::size()),
            vertical: (Bound::index(0), Bound::size()),
        }
    }
}

/// A domain with its bounds resolved on a grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolvedDomain {
    /// Horizontal `[start, end)`.
    pub h: (usize, usize),
    /// Vertical `[start, end)`; `(0, 1)` for 2-D outputs.
    pub k: (usize, usize),
}

impl Domain {
    /// Resolves the bounds for outputs on `loc` with vertical kind `vkind`; errors
    /// when a range is reversed or leaves `[0, size]`.
    pub fn resolve(
        &self,
        loc: Option<Location>,
        vkind: Option<VKind>,
        grid: &Grid,
        nlev: usize,
    ) -> Result<ResolvedDomain, String> {
        let range = |(a, b): (Bound, Bound),
                     dim: IndexDim,
                     size: usize|
         -> Result<(usize, usize), String> {
            let (s, e) = (a.resolve(dim, grid, nlev)?, b.resolve(dim, grid, nlev)?);
            if s < 0 || e > size as i64 || s > e {
                return Err(format!(
                    "{dim} range [{a}, {b}) = [{s}, {e}) is not within [0, {size}]"
                ));
            }
            Ok((s as usize, e as usize))
        };
        let h = match loc {
            Some(loc) => range(self.horizontal, IndexDim::H(loc), grid.size(loc))?,
            None => (0, 1),
        };
        let k = match vkind {
            Some(v) => range(self.vertical, IndexDim::V(v), v.levels(nlev))?,
            None => (0, 1),
        };
        Ok(ResolvedDomain { h, k })
    }
}

/// The start of a horizontal zone, as a bound (`start(Zone::Nudging(2))`).
pub fn start(zone: Zone) -> Bound {
    Bound {
        base: BoundBase::ZoneStart(zone),
        offset: 0,
    }
}

/// The end of a horizontal zone, as a bound (`end(Zone::Local)`).
pub fn end(zone: Zone) -> Bound {
    Bound {
        base: BoundBase::ZoneEnd(zone),
        offset: 0,
    }
}

/// The number of full levels, as a bound (`nlev() - 1`).
pub fn nlev() -> Bound {
    Bound {
        base: BoundBase::Nlev,
        offset: 0,
    }
}
