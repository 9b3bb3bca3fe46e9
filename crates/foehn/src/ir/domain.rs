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
/// location) and vertically (on the outputs' vertical kind; ignored for 2-D outputs),
/// optionally clipped per direction (the optimiser's region specialisation restricts a
/// copy of a stencil to one side of a `concat_where` region this way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Domain {
    /// Horizontal `[start, end)`.
    pub horizontal: (Bound, Bound),
    /// Vertical `[start, end)`.
    pub vertical: (Bound, Bound),
    /// Horizontal clip `(lower, upper)`: the resolved start is raised to `lower` and the
    /// end lowered to `upper` where given; `(None, None)` (the default) clips nothing.
    pub clip_horizontal: (Option<Bound>, Option<Bound>),
    /// Vertical clip `(lower, upper)`, as [`Domain::clip_horizontal`].
    pub clip_vertical: (Option<Bound>, Option<Bound>),
}

impl Default for Domain {
    /// The whole field: `[0, size)` in both directions, unclipped.
    fn default() -> Domain {
        Domain {
            horizontal: (Bound::index(0), Bound::size()),
            vertical: (Bound::index(0), Bound::size()),
            clip_horizontal: (None, None),
            clip_vertical: (None, None),
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

impl ResolvedDomain {
    /// The smallest domain covering both (what a kernel of several members launches on).
    pub fn union(self, other: ResolvedDomain) -> ResolvedDomain {
        ResolvedDomain {
            h: (self.h.0.min(other.h.0), self.h.1.max(other.h.1)),
            k: (self.k.0.min(other.k.0), self.k.1.max(other.k.1)),
        }
    }
}

impl Domain {
    /// Why the domain is not well formed for outputs on `loc` with vertical kind
    /// `vkind`, if it is not: a horizontal range (or clip) on outputs without a
    /// horizontal dimension, a vertical one on outputs without levels, a horizontal
    /// bound using `nlev`, a zone bounding a vertical dimension.
    pub fn misuse(&self, loc: Option<Location>, vkind: Option<VKind>) -> Option<String> {
        let whole = Domain::default();
        let h = [self.horizontal.0, self.horizontal.1]
            .into_iter()
            .chain(self.clip_horizontal.0)
            .chain(self.clip_horizontal.1);
        let v = [self.vertical.0, self.vertical.1]
            .into_iter()
            .chain(self.clip_vertical.0)
            .chain(self.clip_vertical.1);
        match loc {
            None if self.horizontal != whole.horizontal || self.clip_horizontal != (None, None) => {
                return Some(
                    "a horizontal domain is given but the outputs have no horizontal dimension"
                        .into(),
                )
            }
            None => {}
            Some(l) => {
                for b in h {
                    if b.base == BoundBase::Nlev {
                        return Some(format!("horizontal domain bound {b} uses nlev"));
                    }
                    if let Some(m) = b.misuse(IndexDim::H(l)) {
                        return Some(m);
                    }
                }
            }
        }
        match vkind {
            None if self.vertical != whole.vertical || self.clip_vertical != (None, None) => {
                Some("a vertical domain is given but the outputs have no vertical dimension".into())
            }
            None => None,
            Some(k) => v.into_iter().find_map(|b| b.misuse(IndexDim::V(k))),
        }
    }

    /// True when a clip is set in either direction.
    pub fn is_clipped(&self) -> bool {
        self.clip_horizontal != (None, None) || self.clip_vertical != (None, None)
    }

    /// Resolves the bounds for outputs on `loc` with vertical kind `vkind`; errors
    /// when a range is reversed or leaves `[0, size]`. The clips apply afterwards: a
    /// clipped range that becomes empty is returned as an empty range (start == end,
    /// within the unclipped range), not as an error; a clip bound that cannot be
    /// resolved is an error.
    pub fn resolve(
        &self,
        loc: Option<Location>,
        vkind: Option<VKind>,
        grid: &Grid,
        nlev: usize,
    ) -> Result<ResolvedDomain, String> {
        let range = |(a, b): (Bound, Bound),
                     (lo, hi): (Option<Bound>, Option<Bound>),
                     dim: IndexDim,
                     size: usize|
         -> Result<(usize, usize), String> {
            let (s, e) = (a.resolve(dim, grid, nlev)?, b.resolve(dim, grid, nlev)?);
            if s < 0 || e > size as i64 || s > e {
                return Err(format!(
                    "{dim} range [{a}, {b}) = [{s}, {e}) is not within [0, {size}]"
                ));
            }
            let mut cs = s;
            let mut ce = e;
            if let Some(lo) = lo {
                cs = cs.max(lo.resolve(dim, grid, nlev)?);
            }
            if let Some(hi) = hi {
                ce = ce.min(hi.resolve(dim, grid, nlev)?);
            }
            if cs >= ce {
                // Empty: a point inside the unclipped range (cs >= s, so only the end caps).
                let p = cs.min(e) as usize;
                return Ok((p, p));
            }
            Ok((cs as usize, ce as usize))
        };
        let h = match loc {
            Some(loc) => range(
                self.horizontal,
                self.clip_horizontal,
                IndexDim::H(loc),
                grid.size(loc),
            )?,
            None => (0, 1),
        };
        let k = match vkind {
            Some(v) => range(
                self.vertical,
                self.clip_vertical,
                IndexDim::V(v),
                v.levels(nlev),
            )?,
            None => (0, 1),
        };
        Ok(ResolvedDomain { h, k })
    }
}

/// Text of a clip `(lower, upper)`: `[lo, hi)` with `..` for a missing side.
pub(crate) fn clip_text(clip: (Option<Bound>, Option<Bound>)) -> String {
    let side = |b: Option<Bound>| b.map_or("..".to_string(), |b| b.to_string());
    format!("[{}, {})", side(clip.0), side(clip.1))
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

#[cfg(test)]
mod tests {
    use super::*;
    use foehn_grid::EARTH_RADIUS;

    #[test]
    fn clips_narrow_the_resolved_range_and_may_empty_it() {
        let grid = Grid::icosahedral(2, 0, EARTH_RADIUS).unwrap();
        let (cells, levels) = (grid.size(Location::Cell), 10);
        let at = |d: Domain| d.resolve(Some(Location::Cell), Some(VKind::Full), &grid, levels);
        let base = Domain {
            horizontal: (Bound::index(2), Bound::size() - 3),
            vertical: (Bound::index(1), nlev()),
            ..Domain::default()
        };
        assert!(!base.is_clipped());
        let r = at(base).unwrap();
        assert_eq!((r.h, r.k), ((2, cells - 3), (1, levels)));
        // A lower clip is a max with the start, an upper clip a min with the end.
        let clipped = Domain {
            clip_horizontal: (Some(Bound::index(5)), None),
            clip_vertical: (None, Some(nlev() - 2)),
            ..base
        };
        assert!(clipped.is_clipped());
        let r = at(clipped).unwrap();
        assert_eq!((r.h, r.k), ((5, cells - 3), (1, levels - 2)));
        // Clips beyond the range change nothing.
        let wide = Domain {
            clip_horizontal: (Some(Bound::index(-4)), Some(Bound::size() + 7)),
            clip_vertical: (Some(Bound::index(0)), Some(nlev())),
            ..base
        };
        let r = at(wide).unwrap();
        assert_eq!((r.h, r.k), ((2, cells - 3), (1, levels)));
        // A clip that empties the range gives an empty range inside the unclipped one.
        for clip in [
            (Some(Bound::index(1)), Some(Bound::index(1))),
            (Some(Bound::index(7)), Some(Bound::index(3))),
            (None, Some(Bound::index(0))),
            (Some(nlev() + 5), None),
        ] {
            let r = at(Domain {
                clip_vertical: clip,
                ..base
            })
            .unwrap();
            assert_eq!(r.k.0, r.k.1, "{clip:?}");
            assert!((1..=levels).contains(&r.k.0), "{clip:?}: {:?}", r.k);
            assert_eq!(r.h, (2, cells - 3));
        }
        // The unclipped range is still checked first: a reversed range is an error even
        // under a clip that would make it look valid.
        let reversed = Domain {
            vertical: (Bound::index(5), Bound::index(2)),
            clip_vertical: (Some(Bound::index(3)), Some(Bound::index(4))),
            ..base
        };
        let err = at(reversed).unwrap_err();
        assert!(err.contains("is not within"), "{err}");
        // A zone clip on a vertical dimension cannot be resolved.
        let zone = Domain {
            clip_vertical: (Some(start(Zone::Interior)), None),
            ..base
        };
        assert!(at(zone).is_err());
        // 2-D outputs ignore the vertical clip.
        let r = Domain {
            clip_vertical: (Some(Bound::index(3)), Some(Bound::index(3))),
            ..base
        }
        .resolve(Some(Location::Cell), None, &grid, levels)
        .unwrap();
        assert_eq!(r.k, (0, 1));
    }

    #[test]
    fn clip_text_shows_missing_sides() {
        assert_eq!(clip_text((Some(Bound::index(1)), None)), "[1, ..)");
        assert_eq!(clip_text((None, Some(nlev() - 1))), "[.., nlev-1)");
    }
}
