//! The three horizontal locations of ICON's triangular grid.

use std::fmt;

/// A horizontal location (grid entity kind): cells (triangles), edges, vertices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// Triangular cells (ICON's "Cell" dimension).
    Cell,
    /// Edges between two cells (ICON's "Edge" dimension).
    Edge,
    /// Vertices (corners of cells, centres of dual hexagons/pentagons).
    Vertex,
}

impl Location {
    /// All locations in a fixed order.
    pub const ALL: [Location; 3] = [Location::Cell, Location::Edge, Location::Vertex];

    /// The GT4Py/ICON4Py dimension name ("Cell", "Edge", "Vertex").
    pub fn name(self) -> &'static str {
        match self {
            Location::Cell => "Cell",
            Location::Edge => "Edge",
            Location::Vertex => "Vertex",
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
