//! Grid topology: counts and every neighbour table, built from cells or read from a file.

use crate::connectivity::{Connectivity, NeighborTable, SKIP};
use crate::error::{GridError, Result};
use crate::Location;

/// The most edges (and cells) a vertex may have; ICON grids have 5 or 6.
pub const MAX_VERTEX_DEGREE: usize = 6;

/// The eight tables an ICON grid file stores; everything else derives from them.
#[derive(Debug, Clone)]
pub struct PrimaryTables {
    /// `vertex_of_cell`, counter-clockwise.
    pub c2v: NeighborTable,
    /// `edge_of_cell`.
    pub c2e: NeighborTable,
    /// `adjacent_cell_of_edge`.
    pub e2c: NeighborTable,
    /// `edge_vertices`.
    pub e2v: NeighborTable,
    /// `edges_of_vertex`.
    pub v2e: NeighborTable,
    /// `cells_of_vertex`.
    pub v2c: NeighborTable,
    /// `vertices_of_vertex`.
    pub v2e2v: NeighborTable,
    /// `neighbor_cell_index`.
    pub c2e2c: NeighborTable,
}

/// Counts of cells, edges and vertices and all fourteen connectivities.
#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    n_cells: usize,
    n_edges: usize,
    n_vertices: usize,
    tables: Vec<NeighborTable>,
}

impl Topology {
    /// Builds the full topology from triangles given as counter-clockwise vertex
    /// triples. Edges are numbered in order of first appearance (cell by cell,
    /// edge `i` of a cell joining its vertices `i` and `i+1`); `E2V` lists the
    /// lower vertex index first; `E2C[0]` is the first cell that has the edge.
    pub fn from_cells(n_vertices: usize, c2v: &[[u32; 3]]) -> Result<Topology> {
        let n_cells = c2v.len();
        // Per-vertex lists of (other vertex, edge) for edges whose lower vertex is this one.
        let mut adj_cnt = vec![0u8; n_vertices];
        let mut adj = vec![(0u32, 0u32); n_vertices * MAX_VERTEX_DEGREE];
        let mut e2v: Vec<i32> = Vec::with_capacity(n_cells * 3);
        let mut e2c: Vec<i32> = Vec::with_capacity(n_cells * 3);
        let mut c2e: Vec<i32> = vec![0; n_cells * 3];
        for (c, tri) in c2v.iter().enumerate() {
            for i in 0..3 {
                let (a, b) = (tri[i], tri[(i + 1) % 3]);
                if a == b || a as usize >= n_vertices || b as usize >= n_vertices {
                    return Err(GridError::Topology(format!(
                        "cell {c} has invalid vertices {tri:?}"
                    )));
                }
                let (lo, hi) = (a.min(b) as usize, a.max(b));
                let list = &mut adj[lo * MAX_VERTEX_DEGREE..][..adj_cnt[lo] as usize];
                let edge = match list.iter().find(|(o, _)| *o == hi) {
                    Some(&(_, e)) => {
                        let slot = &mut e2c[e as usize * 2 + 1];
                        if *slot != SKIP {
                            return Err(GridError::Topology(format!(
                                "edge ({lo},{hi}) belongs to more than two cells (cell {c})"
                            )));
                        }
                        *slot = c as i32;
                        e
                    }
                    None => {
                        if adj_cnt[lo] as usize == MAX_VERTEX_DEGREE {
                            return Err(GridError::Topology(format!(
                                "vertex {lo} has more than {MAX_VERTEX_DEGREE} edges"
                            )));
                        }
                        let e = (e2v.len() / 2) as u32;
                        adj[lo * MAX_VERTEX_DEGREE + adj_cnt[lo] as usize] = (hi, e);
                        adj_cnt[lo] += 1;
                        e2v.extend([lo as i32, hi as i32]);
                        e2c.extend([c as i32, SKIP]);
                        e
                    }
                };
                c2e[c * 3 + i] = edge as i32;
            }
        }
        let c2v_t = NeighborTable::new(3, c2v.iter().flatten().map(|&v| v as i32).collect());
        let c2e_t = NeighborTable::new(3, c2e);
        let e2c_t = NeighborTable::new(2, e2c);
        let e2v_t = NeighborTable::new(2, e2v);
        let (v2e, v2c) = vertex_rings(n_vertices, &c2v_t, &c2e_t)?;
        let v2e2v = far_vertices(&v2e, &e2v_t, n_vertices);
        let c2e2c = cells_across_edges(&c2e_t, &e2c_t);
        Topology::from_primary(PrimaryTables {
            c2v: c2v_t,
            c2e: c2e_t,
            e2c: e2c_t,
            e2v: e2v_t,
            v2e,
            v2c,
            v2e2v,
            c2e2c,
        })
    }

    /// Completes the topology from the eight stored tables (as read from an ICON
    /// grid file, 0-based), checking sizes and index ranges.
    pub fn from_primary(p: PrimaryTables) -> Result<Topology> {
        let n_cells = p.c2v.rows();
        let n_edges = p.e2v.rows();
        let n_vertices = p.v2e.rows();
        let expect = [
            (Connectivity::C2V, &p.c2v),
            (Connectivity::C2E, &p.c2e),
            (Connectivity::E2C, &p.e2c),
            (Connectivity::E2V, &p.e2v),
            (Connectivity::V2E, &p.v2e),
            (Connectivity::V2C, &p.v2c),
            (Connectivity::V2E2V, &p.v2e2v),
            (Connectivity::C2E2C, &p.c2e2c),
        ];
        for (conn, table) in expect {
            let rows = count(conn.from(), n_cells, n_edges, n_vertices);
            let targets = count(conn.to(), n_cells, n_edges, n_vertices);
            if table.rows() != rows || table.width() != conn.width() {
                return Err(GridError::Topology(format!(
                    "{conn} has shape [{}, {}], expected [{rows}, {}]",
                    table.rows(),
                    table.width(),
                    conn.width()
                )));
            }
            if let Some(bad) = table
                .as_slice()
                .iter()
                .find(|&&v| v < SKIP || v >= targets as i32)
            {
                return Err(GridError::Topology(format!(
                    "{conn} holds index {bad}, outside [-1, {targets})"
                )));
            }
        }
        for (conn, table) in [
            (Connectivity::C2V, &p.c2v),
            (Connectivity::C2E, &p.c2e),
            (Connectivity::E2V, &p.e2v),
        ] {
            if let Some(row) = (0..table.rows()).find(|&i| table.row(i).contains(&SKIP)) {
                return Err(GridError::Topology(format!(
                    "{conn} row {row} is incomplete ({:?}): every {} needs all its neighbours",
                    table.row(row),
                    conn.from()
                )));
            }
        }
        for (conn, table) in [
            (Connectivity::V2E, &p.v2e),
            (Connectivity::V2C, &p.v2c),
            (Connectivity::V2E2V, &p.v2e2v),
        ] {
            for v in 0..table.rows() {
                let row = table.row(v);
                let valid = row.iter().take_while(|&&x| x != SKIP).count();
                if valid == 0 || row[valid..].iter().any(|&x| x != SKIP) {
                    return Err(GridError::Topology(format!(
                        "{conn} row {v} ({row:?}) must list its neighbours first, then -1"
                    )));
                }
            }
        }
        if (0..p.e2c.rows()).any(|e| p.e2c.get(e, 0) == SKIP) {
            return Err(GridError::Topology(
                "E2C: every edge needs its first cell".into(),
            ));
        }
        let c2e2co = prepend_self(&p.c2e2c);
        let e2c2v = diamond_vertices(&p.e2v, &p.e2c, &p.c2v);
        let e2c2e = diamond_edges(&p.e2c, &p.c2e);
        let e2c2eo = prepend_self(&e2c2e);
        let c2e2c2e = gather_rows(&p.c2e2c, &p.c2e);
        let c2e2c2e2c = gather_rows(&p.c2e2c, &p.c2e2c);
        let mut tables = vec![NeighborTable::new(1, vec![]); Connectivity::ALL.len()];
        let all = [
            (Connectivity::E2C, p.e2c),
            (Connectivity::E2V, p.e2v),
            (Connectivity::C2E, p.c2e),
            (Connectivity::C2V, p.c2v),
            (Connectivity::V2E, p.v2e),
            (Connectivity::V2C, p.v2c),
            (Connectivity::V2E2V, p.v2e2v),
            (Connectivity::C2E2C, p.c2e2c),
            (Connectivity::C2E2CO, c2e2co),
            (Connectivity::E2C2V, e2c2v),
            (Connectivity::E2C2E, e2c2e),
            (Connectivity::E2C2EO, e2c2eo),
            (Connectivity::C2E2C2E, c2e2c2e),
            (Connectivity::C2E2C2E2C, c2e2c2e2c),
        ];
        for (conn, table) in all {
            tables[conn as usize] = table;
        }
        Ok(Topology {
            n_cells,
            n_edges,
            n_vertices,
            tables,
        })
    }

    /// Number of cells.
    pub fn n_cells(&self) -> usize {
        self.n_cells
    }
    /// Number of edges.
    pub fn n_edges(&self) -> usize {
        self.n_edges
    }
    /// Number of vertices.
    pub fn n_vertices(&self) -> usize {
        self.n_vertices
    }
    /// Number of points of a location.
    pub fn size(&self, loc: Location) -> usize {
        count(loc, self.n_cells, self.n_edges, self.n_vertices)
    }

    /// The neighbour table of a connectivity.
    pub fn table(&self, conn: Connectivity) -> &NeighborTable {
        &self.tables[conn as usize]
    }

    /// The topology renumbered: `new_of_old[loc][old] = new` for each location.
    /// Rows move to their new positions and entries are mapped; row contents keep their order.
    pub fn permuted(&self, cell: &[u32], edge: &[u32], vertex: &[u32]) -> Topology {
        let map = |loc: Location| match loc {
            Location::Cell => cell,
            Location::Edge => edge,
            Location::Vertex => vertex,
        };
        let tables = Connectivity::ALL
            .iter()
            .map(|&conn| {
                let t = self.table(conn);
                let (rows_map, val_map) = (map(conn.from()), map(conn.to()));
                let w = t.width();
                let mut data = vec![SKIP; t.rows() * w];
                for (old, &new) in rows_map.iter().enumerate().take(t.rows()) {
                    let new = new as usize;
                    for (j, &v) in t.row(old).iter().enumerate() {
                        data[new * w + j] = if v < 0 {
                            SKIP
                        } else {
                            val_map[v as usize] as i32
                        };
                    }
                }
                NeighborTable::new(w, data)
            })
            .collect();
        Topology {
            n_cells: self.n_cells,
            n_edges: self.n_edges,
            n_vertices: self.n_vertices,
            tables,
        }
    }
}

fn count(loc: Location, c: usize, e: usize, v: usize) -> usize {
    match loc {
        Location::Cell => c,
        Location::Edge => e,
        Location::Vertex => v,
    }
}

/// Orders edges and cells around each vertex counter-clockwise. In a cell
/// `(v, a, b)` the edge `v–a` comes before the cell and `b–v` after it; a ring
/// that is open (limited-area boundary) starts at its first edge.
fn vertex_rings(
    n_vertices: usize,
    c2v: &NeighborTable,
    c2e: &NeighborTable,
) -> Result<(NeighborTable, NeighborTable)> {
    // CSR of vertex -> (cell, edge out, edge in).
    let mut start = vec![0usize; n_vertices + 1];
    for &v in c2v.as_slice() {
        start[v as usize + 1] += 1;
    }
    for i in 0..n_vertices {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut items = vec![(0i32, 0i32, 0i32); c2v.as_slice().len()];
    for c in 0..c2v.rows() {
        for k in 0..3 {
            let v = c2v.get(c, k) as usize;
            items[fill[v]] = (c as i32, c2e.get(c, k), c2e.get(c, (k + 2) % 3));
            fill[v] += 1;
        }
    }
    let w = MAX_VERTEX_DEGREE;
    let mut v2e = vec![SKIP; n_vertices * w];
    let mut v2c = vec![SKIP; n_vertices * w];
    for v in 0..n_vertices {
        let ring = &items[start[v]..start[v + 1]];
        if ring.is_empty() {
            return Err(GridError::Topology(format!("vertex {v} has no cells")));
        }
        if ring.len() > w {
            return Err(GridError::Topology(format!(
                "vertex {v} has {} cells, more than {w}",
                ring.len()
            )));
        }
        // An open ring starts at the cell whose outgoing edge is nobody's incoming edge.
        let first = ring
            .iter()
            .position(|a| !ring.iter().any(|b| b.2 == a.1))
            .unwrap_or_else(|| {
                (0..ring.len())
                    .min_by_key(|&i| ring[i].1)
                    .expect("non-empty ring")
            });
        let mut cur = ring[first];
        let mut n = 0;
        loop {
            if n >= ring.len() {
                return Err(GridError::Topology(format!(
                    "cells around vertex {v} do not form a ring"
                )));
            }
            v2e[v * w + n] = cur.1;
            v2c[v * w + n] = cur.0;
            n += 1;
            match ring.iter().find(|b| b.1 == cur.2) {
                Some(next) if n < ring.len() => cur = *next,
                Some(_) => break, // closed ring
                None => {
                    // open ring: the last incoming edge closes the fan
                    if n < w {
                        v2e[v * w + n] = cur.2;
                    }
                    break;
                }
            }
        }
        if n != ring.len() {
            return Err(GridError::Topology(format!(
                "cells around vertex {v} do not form a single fan"
            )));
        }
    }
    Ok((NeighborTable::new(w, v2e), NeighborTable::new(w, v2c)))
}

fn far_vertices(v2e: &NeighborTable, e2v: &NeighborTable, n_vertices: usize) -> NeighborTable {
    let w = v2e.width();
    let mut out = vec![SKIP; n_vertices * w];
    for v in 0..n_vertices {
        for j in 0..w {
            if let Some(e) = v2e.neighbor(v, j) {
                let (a, b) = (e2v.get(e, 0), e2v.get(e, 1));
                out[v * w + j] = if a as usize == v { b } else { a };
            }
        }
    }
    NeighborTable::new(w, out)
}

fn cells_across_edges(c2e: &NeighborTable, e2c: &NeighborTable) -> NeighborTable {
    let mut out = vec![SKIP; c2e.rows() * 3];
    for c in 0..c2e.rows() {
        for i in 0..3 {
            let e = c2e.get(c, i) as usize;
            let (a, b) = (e2c.get(e, 0), e2c.get(e, 1));
            out[c * 3 + i] = if a as usize == c { b } else { a };
        }
    }
    NeighborTable::new(3, out)
}

fn prepend_self(t: &NeighborTable) -> NeighborTable {
    let w = t.width() + 1;
    let mut out = Vec::with_capacity(t.rows() * w);
    for i in 0..t.rows() {
        out.push(i as i32);
        out.extend_from_slice(t.row(i));
    }
    NeighborTable::new(w, out)
}

/// `E2C2V`: the edge's own vertices, then the vertex of each adjacent cell not on the edge.
fn diamond_vertices(
    e2v: &NeighborTable,
    e2c: &NeighborTable,
    c2v: &NeighborTable,
) -> NeighborTable {
    let mut out = vec![SKIP; e2v.rows() * 4];
    for e in 0..e2v.rows() {
        let own = e2v.row(e);
        out[e * 4] = own[0];
        out[e * 4 + 1] = own[1];
        for s in 0..2 {
            if let Some(c) = e2c.neighbor(e, s) {
                if let Some(&far) = c2v.row(c).iter().find(|v| !own.contains(v)) {
                    out[e * 4 + 2 + s] = far;
                }
            }
        }
    }
    NeighborTable::new(4, out)
}

/// `E2C2E`: for each adjacent cell, its other two edges in ICON's cyclic order
/// (`[[1,2],[2,0],[0,1]]` by the edge's position in the cell).
fn diamond_edges(e2c: &NeighborTable, c2e: &NeighborTable) -> NeighborTable {
    let mut out = vec![SKIP; e2c.rows() * 4];
    for e in 0..e2c.rows() {
        for s in 0..2 {
            if let Some(c) = e2c.neighbor(e, s) {
                let row = c2e.row(c);
                if let Some(p) = row.iter().position(|&x| x as usize == e) {
                    out[e * 4 + 2 * s] = row[(p + 1) % 3];
                    out[e * 4 + 2 * s + 1] = row[(p + 2) % 3];
                }
            }
        }
    }
    NeighborTable::new(4, out)
}

/// Row `i` of the result concatenates the `inner` rows of `outer`'s entries of row `i`.
fn gather_rows(outer: &NeighborTable, inner: &NeighborTable) -> NeighborTable {
    let (wo, wi) = (outer.width(), inner.width());
    let mut out = vec![SKIP; outer.rows() * wo * wi];
    for i in 0..outer.rows() {
        for j in 0..wo {
            if let Some(k) = outer.neighbor(i, j) {
                out[(i * wo + j) * wi..][..wi].copy_from_slice(inner.row(k));
            }
        }
    }
    NeighborTable::new(wo * wi, out)
}
