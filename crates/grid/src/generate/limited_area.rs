//! Limited-area grids: a region cut out of a global grid, with `refin_ctrl` counted in
//! rows from the lateral boundary and points sorted into ICON's zones.

use crate::connectivity::Connectivity as C;
use crate::error::{GridError, Result};
use crate::generate::renumber_vertices_by_first_use;
use crate::grid::{Grid, GridKind};
use crate::space::{unit_from_lat_lon, Space};
use crate::topology::Topology;
use crate::zones::{LocationZones, Zone, Zones};
use crate::Location;
use std::collections::VecDeque;

/// The region a limited-area grid covers (cells whose centre lies inside).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Region {
    /// Spherical cap around a centre with a great-circle radius.
    Cap(Cap),
    /// Latitude/longitude box.
    LatLonBox(LatLonBox),
}

/// Spherical cap around a centre (degrees) with a great-circle radius (m).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cap {
    /// Centre latitude (degrees).
    pub lat_deg: f64,
    /// Centre longitude (degrees).
    pub lon_deg: f64,
    /// Radius (m).
    pub radius_m: f64,
}

/// Latitude/longitude box (degrees; longitudes may wrap, lon_min > lon_max).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatLonBox {
    /// Southern edge.
    pub lat_min: f64,
    /// Northern edge.
    pub lat_max: f64,
    /// Western edge.
    pub lon_min: f64,
    /// Eastern edge.
    pub lon_max: f64,
}

impl Cap {
    fn contains(&self, space: &Space, lat: f64, lon: f64) -> bool {
        let c = unit_from_lat_lon(self.lat_deg.to_radians(), self.lon_deg.to_radians());
        space.distance(c, unit_from_lat_lon(lat, lon)) <= self.radius_m
    }

    fn describe(&self) -> String {
        format!(
            "cap:{},{},{}",
            self.lat_deg,
            self.lon_deg,
            self.radius_m / 1000.0
        )
    }
}

impl LatLonBox {
    fn contains(&self, lat: f64, lon: f64) -> bool {
        let (la, lo) = (lat.to_degrees(), lon.to_degrees().rem_euclid(360.0));
        let (w, e) = (
            self.lon_min.rem_euclid(360.0),
            self.lon_max.rem_euclid(360.0),
        );
        let in_lon = if w <= e {
            lo >= w && lo <= e
        } else {
            lo >= w || lo <= e
        };
        la >= self.lat_min && la <= self.lat_max && in_lon
    }

    fn describe(&self) -> String {
        format!(
            "box:{},{},{},{}",
            self.lat_min, self.lat_max, self.lon_min, self.lon_max
        )
    }
}

impl Region {
    fn contains(&self, space: &Space, lat: f64, lon: f64) -> bool {
        match self {
            Region::Cap(c) => c.contains(space, lat, lon),
            Region::LatLonBox(b) => b.contains(lat, lon),
        }
    }

    fn describe(&self) -> String {
        match self {
            Region::Cap(c) => c.describe(),
            Region::LatLonBox(b) => b.describe(),
        }
    }
}

/// Cuts `region` out of the global grid `parent` and sorts it into ICON zones.
pub fn limited_area(parent: &Grid, region: &Region) -> Result<Grid> {
    let GridKind::Icosahedral { root, bisections } = parent.kind else {
        return Err(GridError::InvalidParameters(
            "a limited-area grid is cut from a global icosahedral grid".into(),
        ));
    };
    let topo = &parent.topology;
    let g = &parent.geometry;
    let mut selected: Vec<bool> = (0..topo.n_cells())
        .map(|c| region.contains(&parent.space, g.cell_lat[c], g.cell_lon[c]))
        .collect();
    close_pinches(topo, &mut selected);
    let n_sel = selected.iter().filter(|&&s| s).count();
    if n_sel < 200 {
        return Err(GridError::InvalidParameters(format!(
            "region {} holds only {n_sel} cells of {}; a limited area needs at least 200 \
             (enlarge the region or refine the parent grid)",
            region.describe(),
            parent.name
        )));
    }
    if n_sel == topo.n_cells() {
        return Err(GridError::InvalidParameters(format!(
            "region {} covers the whole globe",
            region.describe()
        )));
    }
    let c2v = topo.table(C::C2V);
    let cells: Vec<[u32; 3]> = (0..topo.n_cells())
        .filter(|&c| selected[c])
        .map(|c| [0, 1, 2].map(|k| c2v.get(c, k) as u32))
        .collect();
    let (verts, cells) = renumber_vertices_by_first_use(parent.points.vertex.clone(), cells);
    let verts: Vec<_> = verts.into_iter().take(used_count(&cells)).collect();
    let local = Topology::from_cells(verts.len(), &cells)?;

    let rows = boundary_rows(&local);
    let cap = |loc: Location, row: i32| {
        let max = Zone::boundary_rows(loc) as i32 + Zone::nudging_rows(loc) as i32;
        if row <= max {
            row
        } else {
            0
        }
    };
    let refin: [Vec<i32>; 3] = [
        rows.cell.iter().map(|&r| cap(Location::Cell, r)).collect(),
        rows.edge.iter().map(|&r| cap(Location::Edge, r)).collect(),
        rows.vertex
            .iter()
            .map(|&r| cap(Location::Vertex, r))
            .collect(),
    ];
    // Sort each location: boundary rows 1.. first, then the interior in its original order.
    let order = |r: &[i32]| -> Vec<u32> {
        let mut idx: Vec<usize> = (0..r.len()).collect();
        idx.sort_by_key(|&i| (if r[i] > 0 { r[i] } else { i32::MAX }, i));
        let mut new_of_old = vec![0u32; r.len()];
        for (new, &old) in idx.iter().enumerate() {
            new_of_old[old] = new as u32;
        }
        new_of_old
    };
    let (pc, pe, pv) = (order(&refin[0]), order(&refin[1]), order(&refin[2]));
    let topology = local.permuted(&pc, &pe, &pv);
    let permute = |r: &[i32], m: &[u32]| {
        let mut out = vec![0; r.len()];
        for (old, &new) in m.iter().enumerate() {
            out[new as usize] = r[old];
        }
        out
    };
    let zones = Zones {
        cell: LocationZones::from_refin_ctrl(Location::Cell, permute(&refin[0], &pc))?,
        edge: LocationZones::from_refin_ctrl(Location::Edge, permute(&refin[1], &pe))?,
        vertex: LocationZones::from_refin_ctrl(Location::Vertex, permute(&refin[2], &pv))?,
    };
    let mut vpos = vec![[0.0; 3]; verts.len()];
    for (old, &new) in pv.iter().enumerate() {
        vpos[new as usize] = verts[old];
    }
    Ok(Grid::assemble(
        format!("{}:{}", parent.name, region.describe()),
        GridKind::LimitedArea {
            parent: parent.name.clone(),
            root,
            bisections,
        },
        parent.space,
        topology,
        vpos,
        Some(zones),
    ))
}

fn used_count(cells: &[[u32; 3]]) -> usize {
    cells
        .iter()
        .flatten()
        .map(|&v| v as usize + 1)
        .max()
        .unwrap_or(0)
}

/// Adds every cell around a vertex whose selected cells form more than one fan, so the
/// region's boundary is a simple closed curve.
fn close_pinches(topo: &Topology, selected: &mut [bool]) {
    let v2c = topo.table(C::V2C);
    loop {
        let mut changed = false;
        for v in 0..topo.n_vertices() {
            let ring: Vec<usize> = v2c.valid(v).collect();
            let arcs = (0..ring.len())
                .filter(|&i| {
                    selected[ring[i]] && !selected[ring[(i + ring.len() - 1) % ring.len()]]
                })
                .count();
            if arcs > 1 {
                ring.iter().for_each(|&c| selected[c] = true);
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

struct Rows {
    cell: Vec<i32>,
    edge: Vec<i32>,
    vertex: Vec<i32>,
}

/// Rows counted from the boundary: vertex row = 1 + graph distance from a boundary
/// vertex; cell row = smallest row of its vertices; edge row = 1 on the boundary, `2r`
/// between two cells of row `r`, `2r + 1` between cells of rows `r` and `r + 1`.
fn boundary_rows(topo: &Topology) -> Rows {
    let (e2c, e2v, v2e2v) = (topo.table(C::E2C), topo.table(C::E2V), topo.table(C::V2E2V));
    let mut vrow = vec![i32::MAX; topo.n_vertices()];
    let mut queue = VecDeque::new();
    for e in 0..topo.n_edges() {
        if e2c.neighbor(e, 1).is_none() {
            for &v in e2v.row(e) {
                if vrow[v as usize] != 1 {
                    vrow[v as usize] = 1;
                    queue.push_back(v as usize);
                }
            }
        }
    }
    while let Some(v) = queue.pop_front() {
        for w in v2e2v.valid(v) {
            if vrow[w] == i32::MAX {
                vrow[w] = vrow[v] + 1;
                queue.push_back(w);
            }
        }
    }
    let c2v = topo.table(C::C2V);
    let cell: Vec<i32> = (0..topo.n_cells())
        .map(|c| {
            c2v.row(c)
                .iter()
                .map(|&v| vrow[v as usize])
                .min()
                .unwrap_or(i32::MAX)
        })
        .collect();
    let cell: Vec<i32> = cell;
    let edge = (0..topo.n_edges())
        .map(|e| match (e2c.neighbor(e, 0), e2c.neighbor(e, 1)) {
            (Some(a), Some(b)) if cell[a] == cell[b] => 2 * cell[a],
            (Some(a), Some(b)) => 2 * cell[a].min(cell[b]) + 1,
            _ => 1,
        })
        .collect();
    Rows {
        cell,
        edge,
        vertex: vrow,
    }
}
