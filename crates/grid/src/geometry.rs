//! Geometry fields as ICON defines them: lengths, areas, orientations, normals, Coriolis.
//!
//! Conventions (see `docs/grid-conventions.md`): the primal normal `n` of an edge points
//! from `E2C[0]` to `E2C[1]`; the dual normal (edge tangent) is `t = n × up`;
//! `tangent_orientation = sign((v1 − v0)·t)` with `v0, v1 = E2V`; the cell orientation
//! is +1 where `n` points out of the cell; the vertex orientation is +1 where `n` points
//! counter-clockwise around the vertex.

use crate::connectivity::Connectivity as C;
use crate::space::{cross, dot, normalize, Space, Vec3, EARTH_ANGULAR_VELOCITY};
use crate::topology::{Topology, MAX_VERTEX_DEGREE};
use rayon::prelude::*;

/// Positions of the grid points: vertices, cell centres (circumcentres) and edge midpoints.
#[derive(Debug, Clone, PartialEq)]
pub struct Points {
    /// Cell centres.
    pub cell: Vec<Vec3>,
    /// Edge midpoints.
    pub edge: Vec<Vec3>,
    /// Vertices.
    pub vertex: Vec<Vec3>,
}

impl Points {
    /// Vertex positions given; cell centres are circumcentres, edge centres midpoints.
    pub fn from_vertices(space: &Space, topo: &Topology, vertex: Vec<Vec3>) -> Points {
        let c2v = topo.table(C::C2V);
        let e2v = topo.table(C::E2V);
        let cell = (0..topo.n_cells())
            .into_par_iter()
            .map(|c| {
                let r = c2v.row(c);
                let p = |k: usize| vertex[r[k] as usize];
                space.circumcenter(p(0), p(1), p(2))
            })
            .collect();
        let edge = (0..topo.n_edges())
            .into_par_iter()
            .map(|e| space.midpoint(vertex[e2v.get(e, 0) as usize], vertex[e2v.get(e, 1) as usize]))
            .collect();
        Points { cell, edge, vertex }
    }

    /// Permutes the points like [`Topology::permuted`] (`new_of_old` per location).
    pub fn permuted(&self, cell: &[u32], edge: &[u32], vertex: &[u32]) -> Points {
        fn perm(p: &[Vec3], m: &[u32]) -> Vec<Vec3> {
            let mut out = vec![[0.0; 3]; p.len()];
            for (old, &new) in m.iter().enumerate() {
                out[new as usize] = p[old];
            }
            out
        }
        Points {
            cell: perm(&self.cell, cell),
            edge: perm(&self.edge, edge),
            vertex: perm(&self.vertex, vertex),
        }
    }
}

/// Every geometry field the dycore reads. Sparse fields are row-major
/// `[n, width]` with the width of the named connectivity; entries for missing
/// neighbours are 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    /// Cell-centre latitude (rad).
    pub cell_lat: Vec<f64>,
    /// Cell-centre longitude (rad).
    pub cell_lon: Vec<f64>,
    /// Cell area (m²).
    pub cell_area: Vec<f64>,
    /// (Cell, C2E): +1 where the edge normal points out of the cell, else −1.
    pub cell_edge_orientation: Vec<f64>,
    /// Edge-midpoint latitude (rad).
    pub edge_lat: Vec<f64>,
    /// Edge-midpoint longitude (rad).
    pub edge_lon: Vec<f64>,
    /// Primal edge length (m).
    pub primal_edge_length: Vec<f64>,
    /// 1 / primal edge length.
    pub inv_primal_edge_length: Vec<f64>,
    /// Dual edge length: distance of the two cell centres (m).
    pub dual_edge_length: Vec<f64>,
    /// 1 / dual edge length.
    pub inv_dual_edge_length: Vec<f64>,
    /// Distance of the two far vertices of the edge's diamond (m).
    pub vert_vert_length: Vec<f64>,
    /// 1 / vertex–vertex length.
    pub inv_vert_vert_length: Vec<f64>,
    /// Edge area: primal × dual edge length (m²).
    pub edge_area: Vec<f64>,
    /// ±1: `sign((v1 − v0)·t)`.
    pub tangent_orientation: Vec<f64>,
    /// Coriolis parameter 2Ω sin(lat) at edges (1/s); 0 on the torus.
    pub coriolis_frequency: Vec<f64>,
    /// Primal normal, zonal component at the edge.
    pub primal_normal_x: Vec<f64>,
    /// Primal normal, meridional component at the edge.
    pub primal_normal_y: Vec<f64>,
    /// Dual normal (tangent), zonal component at the edge.
    pub dual_normal_x: Vec<f64>,
    /// Dual normal (tangent), meridional component at the edge.
    pub dual_normal_y: Vec<f64>,
    /// Primal normal as a Cartesian vector.
    pub primal_normal_cartesian: Vec<Vec3>,
    /// Dual normal (tangent) as a Cartesian vector.
    pub dual_normal_cartesian: Vec<Vec3>,
    /// (Edge, E2C): primal normal, zonal component at the cell centre.
    pub primal_normal_cell_x: Vec<f64>,
    /// (Edge, E2C): primal normal, meridional component at the cell centre.
    pub primal_normal_cell_y: Vec<f64>,
    /// (Edge, E2C): dual normal, zonal component at the cell centre.
    pub dual_normal_cell_x: Vec<f64>,
    /// (Edge, E2C): dual normal, meridional component at the cell centre.
    pub dual_normal_cell_y: Vec<f64>,
    /// (Edge, E2C2V): primal normal, zonal component at the vertex.
    pub primal_normal_vert_x: Vec<f64>,
    /// (Edge, E2C2V): primal normal, meridional component at the vertex.
    pub primal_normal_vert_y: Vec<f64>,
    /// (Edge, E2C2V): dual normal, zonal component at the vertex.
    pub dual_normal_vert_x: Vec<f64>,
    /// (Edge, E2C2V): dual normal, meridional component at the vertex.
    pub dual_normal_vert_y: Vec<f64>,
    /// (Edge, E2C): distance from the edge midpoint to the cell centre (m).
    pub edge_cell_distance: Vec<f64>,
    /// (Edge, E2V): distance from the edge midpoint to the vertex (m).
    pub edge_vert_distance: Vec<f64>,
    /// Vertex latitude (rad).
    pub vertex_lat: Vec<f64>,
    /// Vertex longitude (rad).
    pub vertex_lon: Vec<f64>,
    /// Dual (vertex) cell area (m²).
    pub dual_area: Vec<f64>,
    /// (Vertex, V2E): +1 where the edge normal points counter-clockwise around the vertex.
    pub vertex_edge_orientation: Vec<f64>,
    /// Mean cell area (m²).
    pub mean_cell_area: f64,
}

struct EdgeRec {
    lat: f64,
    lon: f64,
    primal: f64,
    dual: f64,
    vv: f64,
    orient: f64,
    f: f64,
    pn: (f64, f64),
    dn: (f64, f64),
    n: Vec3,
    t: Vec3,
    pn_cell: [(f64, f64); 2],
    dn_cell: [(f64, f64); 2],
    pn_vert: [(f64, f64); 4],
    dn_vert: [(f64, f64); 4],
    cell_dist: [f64; 2],
    vert_dist: [f64; 2],
}

impl Geometry {
    /// Computes all geometry from topology and point positions.
    pub fn compute(space: &Space, topo: &Topology, pts: &Points) -> Geometry {
        let (cells, edges, verts) = (topo.table(C::C2V), topo.table(C::E2C), topo.table(C::E2V));
        let e2c2v = topo.table(C::E2C2V);
        let cell_area: Vec<f64> = (0..topo.n_cells())
            .into_par_iter()
            .map(|c| {
                let r = cells.row(c);
                let p = |k: usize| pts.vertex[r[k] as usize];
                space.triangle_area(p(0), p(1), p(2))
            })
            .collect();
        let (cell_lat, cell_lon) = lat_lon(space, &pts.cell);
        let c2e = topo.table(C::C2E);
        let cell_edge_orientation = (0..topo.n_cells() * 3)
            .into_par_iter()
            .map(|i| {
                let e = c2e.as_slice()[i] as usize;
                if edges.get(e, 0) as usize == i / 3 {
                    1.0
                } else {
                    -1.0
                }
            })
            .collect();

        let recs: Vec<EdgeRec> = (0..topo.n_edges())
            .into_par_iter()
            .map(|e| {
                let pe = pts.edge[e];
                let (v0, v1) = (pts.vertex[verts.get(e, 0) as usize], pts.vertex[verts.get(e, 1) as usize]);
                let c0 = edges.neighbor(e, 0).map(|c| pts.cell[c]);
                let c1 = edges.neighbor(e, 1).map(|c| pts.cell[c]);
                let along = space.delta(v0, v1);
                let (_, _, up) = space.local_frame(pe);
                let mut n = normalize(match space {
                    Space::Sphere { .. } => cross(v0, v1),
                    Space::Torus { .. } => [-along[1], along[0], 0.0],
                });
                let across = match (c0, c1) {
                    (Some(a), Some(b)) => space.delta(a, b),
                    (Some(a), None) => space.delta(a, pe),
                    (None, Some(b)) => space.delta(pe, b),
                    (None, None) => n,
                };
                if dot(n, across) < 0.0 {
                    n = [-n[0], -n[1], -n[2]];
                }
                let t = cross(n, up);
                let orient = if dot(along, t) >= 0.0 { 1.0 } else { -1.0 };
                let cell_dist = [c0, c1].map(|c| c.map_or(f64::NAN, |c| space.distance(pe, c)));
                let cell_dist = [
                    if cell_dist[0].is_nan() { cell_dist[1] } else { cell_dist[0] },
                    if cell_dist[1].is_nan() { cell_dist[0] } else { cell_dist[1] },
                ];
                let dual = match (c0, c1) {
                    (Some(a), Some(b)) => space.distance(a, b),
                    _ => 2.0 * cell_dist[0],
                };
                let far = [2, 3].map(|k| e2c2v.neighbor(e, k).map(|v| pts.vertex[v]));
                let vv = match far {
                    [Some(a), Some(b)] => space.distance(a, b),
                    [Some(a), None] | [None, Some(a)] => 2.0 * space.distance(pe, a),
                    [None, None] => f64::NAN,
                };
                let comp = |p: Option<Vec3>, v: Vec3| p.map_or((0.0, 0.0), |p| space.components(p, v));
                let (lat, lon) = space.lat_lon(pe);
                EdgeRec {
                    lat,
                    lon,
                    primal: space.distance(v0, v1),
                    dual,
                    vv,
                    orient,
                    f: if space.is_sphere() { 2.0 * EARTH_ANGULAR_VELOCITY * lat.sin() } else { 0.0 },
                    pn: space.components(pe, n),
                    dn: space.components(pe, t),
                    n,
                    t,
                    pn_cell: [comp(c0, n), comp(c1, n)],
                    dn_cell: [comp(c0, t), comp(c1, t)],
                    pn_vert: [0, 1, 2, 3].map(|k| comp(e2c2v.neighbor(e, k).map(|v| pts.vertex[v]), n)),
                    dn_vert: [0, 1, 2, 3].map(|k| comp(e2c2v.neighbor(e, k).map(|v| pts.vertex[v]), t)),
                    cell_dist,
                    vert_dist: [space.distance(pe, v0), space.distance(pe, v1)],
                }
            })
            .collect();

        let (vertex_lat, vertex_lon) = lat_lon(space, &pts.vertex);
        let v2e = topo.table(C::V2E);
        let v2c = topo.table(C::V2C);
        let dual_area = (0..topo.n_vertices())
            .into_par_iter()
            .map(|v| {
                let pv = pts.vertex[v];
                let ring: Vec<Vec3> = v2c.valid(v).map(|c| pts.cell[c]).collect();
                let n_edges = v2e.valid(v).count();
                if n_edges == ring.len() {
                    (0..ring.len())
                        .map(|i| space.triangle_area(pv, ring[i], ring[(i + 1) % ring.len()]))
                        .sum()
                } else {
                    // Open ring at a limited-area boundary: close it through the edge midpoints.
                    let first = pts.edge[v2e.get(v, 0) as usize];
                    let last = pts.edge[v2e.get(v, n_edges - 1) as usize];
                    let mut poly = vec![first];
                    poly.extend(ring);
                    poly.push(last);
                    poly.windows(2).map(|w| space.triangle_area(pv, w[0], w[1])).sum()
                }
            })
            .collect();
        let vertex_edge_orientation = (0..topo.n_vertices() * MAX_VERTEX_DEGREE)
            .into_par_iter()
            .map(|i| {
                let (v, j) = (i / MAX_VERTEX_DEGREE, i % MAX_VERTEX_DEGREE);
                v2e.neighbor(v, j).map_or(0.0, |e| {
                    let pv = pts.vertex[v];
                    let (_, _, up) = space.local_frame(pv);
                    let ccw = cross(up, space.delta(pv, pts.edge[e]));
                    if dot(recs[e].n, ccw) >= 0.0 {
                        1.0
                    } else {
                        -1.0
                    }
                })
            })
            .collect();

        let total: f64 = cell_area.iter().sum();
        let mean_cell_area = total / topo.n_cells().max(1) as f64;
        let col = |f: &dyn Fn(&EdgeRec) -> f64| recs.iter().map(f).collect::<Vec<f64>>();
        let pair = |f: &dyn Fn(&EdgeRec) -> &[(f64, f64)]| {
            let x = recs.iter().flat_map(|r| f(r).iter().map(|p| p.0)).collect();
            let y = recs.iter().flat_map(|r| f(r).iter().map(|p| p.1)).collect();
            (x, y)
        };
        let (primal_normal_cell_x, primal_normal_cell_y) = pair(&|r| &r.pn_cell);
        let (dual_normal_cell_x, dual_normal_cell_y) = pair(&|r| &r.dn_cell);
        let (primal_normal_vert_x, primal_normal_vert_y) = pair(&|r| &r.pn_vert);
        let (dual_normal_vert_x, dual_normal_vert_y) = pair(&|r| &r.dn_vert);
        let primal_edge_length = col(&|r| r.primal);
        let dual_edge_length = col(&|r| r.dual);
        let vert_vert_length = col(&|r| r.vv);
        Geometry {
            cell_lat,
            cell_lon,
            cell_area,
            cell_edge_orientation,
            edge_lat: col(&|r| r.lat),
            edge_lon: col(&|r| r.lon),
            inv_primal_edge_length: primal_edge_length.iter().map(|x| 1.0 / x).collect(),
            inv_dual_edge_length: dual_edge_length.iter().map(|x| 1.0 / x).collect(),
            inv_vert_vert_length: vert_vert_length.iter().map(|x| 1.0 / x).collect(),
            edge_area: recs.iter().map(|r| r.primal * r.dual).collect(),
            primal_edge_length,
            dual_edge_length,
            vert_vert_length,
            tangent_orientation: col(&|r| r.orient),
            coriolis_frequency: col(&|r| r.f),
            primal_normal_x: col(&|r| r.pn.0),
            primal_normal_y: col(&|r| r.pn.1),
            dual_normal_x: col(&|r| r.dn.0),
            dual_normal_y: col(&|r| r.dn.1),
            primal_normal_cartesian: recs.iter().map(|r| r.n).collect(),
            dual_normal_cartesian: recs.iter().map(|r| r.t).collect(),
            primal_normal_cell_x,
            primal_normal_cell_y,
            dual_normal_cell_x,
            dual_normal_cell_y,
            primal_normal_vert_x,
            primal_normal_vert_y,
            dual_normal_vert_x,
            dual_normal_vert_y,
            edge_cell_distance: recs.iter().flat_map(|r| r.cell_dist).collect(),
            edge_vert_distance: recs.iter().flat_map(|r| r.vert_dist).collect(),
            vertex_lat,
            vertex_lon,
            dual_area,
            vertex_edge_orientation,
            mean_cell_area,
        }
    }
}

fn lat_lon(space: &Space, pts: &[Vec3]) -> (Vec<f64>, Vec<f64>) {
    pts.par_iter().map(|&p| space.lat_lon(p)).unzip()
}
