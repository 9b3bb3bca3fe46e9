//! Consistency checks of a grid read from a file (ICON's own files carry no foehn content
//! hash, so nothing else vouches for them): the tables agree with each other, skip values
//! stand only where the grid's kind allows them, positions are finite and areas and
//! lengths positive. A grid that fails would give NaN or silently wrong fields.

use super::names::TABLES;
use super::nc::Reader;
use crate::connectivity::{Connectivity as C, NeighborTable};
use crate::error::Result;
use crate::grid::{Grid, GridKind};

/// Checks `grid` as read by `r`; the error names the variable and the first bad entry
/// (1-based, as in the file).
pub(super) fn check(r: &Reader<'_>, grid: &Grid) -> Result<()> {
    check_tables(r, grid)?;
    check_geometry(r, grid)
}

/// The ICON variable holding `conn`.
fn var(conn: C) -> &'static str {
    TABLES
        .iter()
        .find(|t| t.conn == conn)
        .map_or("", |t| t.name)
}

/// Every pair of tables that describe the same incidence lists each other, derived
/// tables (cell neighbours, vertex neighbours) agree with the primary ones, and skip
/// values stand only where the grid has a boundary.
fn check_tables(r: &Reader<'_>, grid: &Grid) -> Result<()> {
    let t = &grid.topology;
    let closed = !matches!(grid.kind, GridKind::LimitedArea { .. });
    if closed {
        for conn in [C::E2C, C::C2E2C] {
            let table = t.table(conn);
            if let Some(i) = table.as_slice().iter().position(|&c| c < 0) {
                let w = table.width();
                return Err(r.bad(
                    var(conn),
                    format!(
                        "{} {} has no entry {}, but a grid without boundary (global or periodic) needs all {w}",
                        conn.from().name().to_lowercase(),
                        i / w + 1,
                        i % w + 1
                    ),
                ));
            }
        }
    }
    for (a, b) in [(C::C2E, C::E2C), (C::C2V, C::V2C), (C::E2V, C::V2E)] {
        for (from, back) in [(a, b), (b, a)] {
            if let Some((row, j, target)) = first_unlisted(t.table(from), t.table(back)) {
                return Err(r.bad(
                    var(from),
                    format!(
                        "{} {} lists {} {} (entry {}), but `{}` of {} {} does not list {} {}; the tables disagree",
                        from.from().name().to_lowercase(),
                        row + 1,
                        from.to().name().to_lowercase(),
                        target + 1,
                        j + 1,
                        var(back),
                        from.to().name().to_lowercase(),
                        target + 1,
                        from.from().name().to_lowercase(),
                        row + 1,
                    ),
                ));
            }
        }
    }
    // Neighbours across edges: the other cell of each edge, the other vertex of each edge.
    let across = |e2x: &NeighborTable, e: usize, x: usize| {
        e2x.row(e)
            .iter()
            .copied()
            .find(|&o| o >= 0 && o as usize != x)
    };
    let derived = [
        (C::C2E2C, C::C2E, C::E2C, "the cells across its edges"),
        (
            C::V2E2V,
            C::V2E,
            C::E2V,
            "the vertices at the other end of its edges",
        ),
    ];
    for (conn, x2e_conn, e2x_conn, what) in derived {
        let (table, x2e, e2x) = (t.table(conn), t.table(x2e_conn), t.table(e2x_conn));
        for x in 0..table.rows() {
            let (listed, n) = sorted(table.row(x).iter().copied().filter(|&v| v >= 0));
            let (expected, m) = sorted(x2e.valid(x).filter_map(|e| across(e2x, e, x)));
            let (listed, expected) = (&listed[..n], &expected[..m]);
            if listed != expected {
                let one_based = |v: &[i32]| {
                    v.iter()
                        .map(|i| (i + 1).to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                return Err(r.bad(
                    var(conn),
                    format!(
                        "{} {} lists [{}], but {what} (from `{}` and `{}`) are [{}]; the tables disagree",
                        conn.from().name().to_lowercase(),
                        x + 1,
                        one_based(listed),
                        var(x2e_conn),
                        var(e2x_conn),
                        one_based(expected)
                    ),
                ));
            }
        }
    }
    // Around a vertex, edges and cells alternate: without a boundary there are as many
    // cells as edges.
    if closed {
        let (v2c, v2e) = (t.table(C::V2C), t.table(C::V2E));
        if let Some(v) = (0..v2c.rows()).find(|&v| v2c.valid(v).count() != v2e.valid(v).count()) {
            return Err(r.bad(
                var(C::V2C),
                format!(
                    "vertex {} has {} cells but {} edges; around a vertex of a grid without boundary they alternate, so the counts are equal",
                    v + 1,
                    v2c.valid(v).count(),
                    v2e.valid(v).count()
                ),
            ));
        }
    }
    Ok(())
}

/// The (at most six, the widest neighbour table's width) indices of `values`, sorted,
/// without allocating: this runs for every cell and vertex of a grid being read.
fn sorted(values: impl Iterator<Item = i32>) -> ([i32; 6], usize) {
    let mut out = [0; 6];
    let mut n = 0;
    for v in values.take(out.len()) {
        out[n] = v;
        n += 1;
    }
    out[..n].sort_unstable();
    (out, n)
}

/// Finite positions, positive areas and lengths.
fn check_geometry(r: &Reader<'_>, grid: &Grid) -> Result<()> {
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
