//! Consistency checks of a grid read from a file (ICON's own files carry no foehn content
//! hash, so nothing else vouches for them): the tables agree with each other, skip values
//! stand only where the grid's kind allows them, positions are finite and areas and
//! lengths positive. A grid that fails would give NaN or silently wrong fields.

use super::nc::Reader;
use crate::connectivity::{Connectivity as C, NeighborTable};
use crate::error::Result;
use crate::grid::{Grid, GridKind};

/// Checks `grid` as read by `r`; the error names the variable and the first bad entry
/// (1-based, as in the file).
pub(super) fn check(r: &Reader<'_>, grid: &Grid) -> Result<()> {
    let t = &grid.topology;
    let (c2e, e2c) = (t.table(C::C2E), t.table(C::E2C));
    if !matches!(grid.kind, GridKind::LimitedArea { .. }) {
        if let Some(i) = e2c.as_slice().iter().position(|&c| c < 0) {
            let w = e2c.width();
            return Err(r.bad(
                "adjacent_cell_of_edge",
                format!(
                    "edge {} has no cell {}, but a global grid has two cells at every edge",
                    i / w + 1,
                    i % w + 1
                ),
            ));
        }
    }
    if let Some((c, j, e)) = first_unlisted(c2e, e2c) {
        return Err(r.bad(
            "edge_of_cell",
            format!(
                "cell {} lists edge {} (entry {}), but adjacent_cell_of_edge of edge {} does not list cell {}; the tables disagree",
                c + 1,
                e + 1,
                j + 1,
                e + 1,
                c + 1
            ),
        ));
    }
    if let Some((e, _, c)) = first_unlisted(e2c, c2e) {
        return Err(r.bad(
            "adjacent_cell_of_edge",
            format!(
                "edge {} lists cell {}, but edge_of_cell of cell {} does not list edge {}; the tables disagree",
                e + 1,
                c + 1,
                c + 1,
                e + 1
            ),
        ));
    }
    let g = &grid.geometry;
    for (name, values) in [
        ("clat", &g.cell_lat),
        ("clon", &g.cell_lon),
        ("elat", &g.edge_lat),
        ("elon", &g.edge_lon),
        ("vlat", &g.vertex_lat),
        ("vlon", &g.vertex_lon),
    ] {
        if let Some(i) = values.iter().position(|x| !x.is_finite()) {
            return Err(r.bad(name, format!("position {} is not a finite number", i + 1)));
        }
    }
    for (name, values, what) in [
        ("cell_area", &g.cell_area, "cell area"),
        ("edge_length", &g.primal_edge_length, "edge length"),
        ("dual_edge_length", &g.dual_edge_length, "dual edge length"),
    ] {
        if let Some(i) = values.iter().position(|x| !(x.is_finite() && *x > 0.0)) {
            return Err(r.bad(
                name,
                format!(
                    "the {what} at {} computed from the positions and tables is {}, not positive: the vertices of that element are in the wrong order or coincide",
                    i + 1,
                    values[i]
                ),
            ));
        }
    }
    Ok(())
}

/// The first entry of `table` whose target row in `back` does not list the source row:
/// `(source row, entry index, target)`, all 0-based; skip values (negative) are ignored.
fn first_unlisted(table: &NeighborTable, back: &NeighborTable) -> Option<(usize, usize, usize)> {
    (0..table.rows()).find_map(|row| {
        table.row(row).iter().enumerate().find_map(|(j, &target)| {
            (target >= 0 && !back.row(target as usize).contains(&(row as i32))).then_some((
                row,
                j,
                target as usize,
            ))
        })
    })
}
