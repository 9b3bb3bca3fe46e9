//! Neighbour tables ("connectivities", GT4Py offsets) in ICON's conventions.
//!
//! Every table is a dense row-major `i32` array of shape `[n_from, width]`, with
//! [`SKIP`] (−1) where a neighbour does not exist (pentagon vertices, limited-area
//! boundaries). See `docs/grid-conventions.md` for the orderings.

use crate::Location;
use std::fmt;

/// The skip value marking a missing neighbour (ICON4Py's `GridFile.INVALID_INDEX`).
pub const SKIP: i32 = -1;

/// A named connectivity (GT4Py `FieldOffset`) between two locations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(clippy::upper_case_acronyms)]
pub enum Connectivity {
    /// Edge → its 2 cells; the primal normal points from `E2C[0]` to `E2C[1]`.
    E2C,
    /// Edge → its 2 end vertices.
    E2V,
    /// Cell → its 3 edges, edge `i` joining `C2V[i]` and `C2V[(i+1)%3]`.
    C2E,
    /// Cell → its 3 vertices, counter-clockwise seen from outside.
    C2V,
    /// Vertex → its 6 (5 at pentagons) edges, counter-clockwise.
    V2E,
    /// Vertex → its 6 (5) cells; `V2C[i]` lies between `V2E[i]` and `V2E[i+1]`.
    V2C,
    /// Vertex → the far vertex of each `V2E` edge.
    V2E2V,
    /// Cell → the cell across each of its `C2E` edges.
    C2E2C,
    /// Cell → itself then its 3 `C2E2C` neighbours.
    C2E2CO,
    /// Edge → diamond vertices: `E2V[0]`, `E2V[1]`, far vertex of `E2C[0]`, of `E2C[1]`.
    E2C2V,
    /// Edge → the other two edges of `E2C[0]` then of `E2C[1]`, in ICON's cyclic order.
    E2C2E,
    /// Edge → itself then its 4 `E2C2E` edges.
    E2C2EO,
    /// Cell → the 3 edges of each of its 3 `C2E2C` neighbours.
    C2E2C2E,
    /// Cell → the 3 `C2E2C` neighbours of each of its 3 `C2E2C` neighbours.
    C2E2C2E2C,
}

impl Connectivity {
    /// Every connectivity, in a fixed order.
    pub const ALL: [Connectivity; 14] = [
        Connectivity::E2C,
        Connectivity::E2V,
        Connectivity::C2E,
        Connectivity::C2V,
        Connectivity::V2E,
        Connectivity::V2C,
        Connectivity::V2E2V,
        Connectivity::C2E2C,
        Connectivity::C2E2CO,
        Connectivity::E2C2V,
        Connectivity::E2C2E,
        Connectivity::E2C2EO,
        Connectivity::C2E2C2E,
        Connectivity::C2E2C2E2C,
    ];

    /// The GT4Py name of the offset (e.g. "C2E2CO").
    pub fn name(self) -> &'static str {
        use Connectivity::*;
        match self {
            E2C => "E2C",
            E2V => "E2V",
            C2E => "C2E",
            C2V => "C2V",
            V2E => "V2E",
            V2C => "V2C",
            V2E2V => "V2E2V",
            C2E2C => "C2E2C",
            C2E2CO => "C2E2CO",
            E2C2V => "E2C2V",
            E2C2E => "E2C2E",
            E2C2EO => "E2C2EO",
            C2E2C2E => "C2E2C2E",
            C2E2C2E2C => "C2E2C2E2C",
        }
    }

    /// Parses a GT4Py offset name (case-insensitive).
    pub fn from_name(name: &str) -> Option<Connectivity> {
        Self::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }

    /// The location a row of the table belongs to (where the result lives).
    pub fn from(self) -> Location {
        use Connectivity::*;
        match self {
            E2C | E2V | E2C2V | E2C2E | E2C2EO => Location::Edge,
            C2E | C2V | C2E2C | C2E2CO | C2E2C2E | C2E2C2E2C => Location::Cell,
            V2E | V2C | V2E2V => Location::Vertex,
        }
    }

    /// The location the table's entries index (where the neighbours live).
    pub fn to(self) -> Location {
        use Connectivity::*;
        match self {
            E2C | C2E2C | C2E2CO | C2E2C2E2C | V2C => Location::Cell,
            E2V | C2V | E2C2V | V2E2V => Location::Vertex,
            C2E | V2E | E2C2E | E2C2EO | C2E2C2E => Location::Edge,
        }
    }

    /// The number of neighbours per row.
    pub fn width(self) -> usize {
        use Connectivity::*;
        match self {
            E2C | E2V => 2,
            C2E | C2V | C2E2C => 3,
            C2E2CO | E2C2V | E2C2E => 4,
            E2C2EO => 5,
            V2E | V2C | V2E2V => 6,
            C2E2C2E | C2E2C2E2C => 9,
        }
    }
}

impl fmt::Display for Connectivity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dense neighbour table `[rows, width]` of `i32` indices with [`SKIP`] for "none".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeighborTable {
    width: usize,
    data: Vec<i32>,
}

impl NeighborTable {
    /// Wraps row-major data; `data.len()` must be a multiple of `width`.
    pub fn new(width: usize, data: Vec<i32>) -> Self {
        assert!(
            width > 0 && data.len().is_multiple_of(width),
            "ragged neighbour table"
        );
        NeighborTable { width, data }
    }

    /// Neighbours per row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.data.len() / self.width
    }

    /// Row `i` as a slice of `width` entries.
    #[inline]
    pub fn row(&self, i: usize) -> &[i32] {
        &self.data[i * self.width..(i + 1) * self.width]
    }

    /// Entry `(i, j)`, possibly [`SKIP`].
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> i32 {
        self.data[i * self.width + j]
    }

    /// Entry `(i, j)` as an index, `None` where it is [`SKIP`].
    #[inline]
    pub fn neighbor(&self, i: usize, j: usize) -> Option<usize> {
        let v = self.get(i, j);
        (v >= 0).then_some(v as usize)
    }

    /// The valid (non-skip) neighbours of row `i`.
    pub fn valid(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.row(i).iter().filter(|&&v| v >= 0).map(|&v| v as usize)
    }

    /// The whole table, row-major.
    pub fn as_slice(&self) -> &[i32] {
        &self.data
    }

    /// Number of skip entries in the table.
    pub fn skip_count(&self) -> usize {
        self.data.iter().filter(|&&v| v == SKIP).count()
    }

    /// A copy in which every skip value is replaced by the row's last valid
    /// neighbour (ICON pads this way, with zero weights), or 0 for an empty row.
    pub fn with_skips_replaced(&self) -> NeighborTable {
        let mut data = self.data.clone();
        for row in data.chunks_mut(self.width) {
            let last = row.iter().rev().copied().find(|&v| v >= 0).unwrap_or(0);
            row.iter_mut().filter(|v| **v < 0).for_each(|v| *v = last);
        }
        NeighborTable {
            width: self.width,
            data,
        }
    }
}
