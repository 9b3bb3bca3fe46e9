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
            .map(|e| {
                space.midpoint(
                    vertex[e2v.get(e, 0) as usize],
                    vertex[e2v.get(e, 1) as usize],
                )
            })
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
    /// (Edge, E2C): primal normal, zonal component at the cell centre, unit length.
    pub primal_normal_cell_x: Vec<f64>,
    /// (Edge, E2C): primal normal, meridional component at the cell centre, unit length.
    pub primal_normal_cell_y: Vec<f64>,
    /// (Edge, E2C): dual normal, zonal component at the cell centre, unit length.
    pub dual_normal_cell_x: Vec<f64>,
    /// (Edge, E2C): dual normal, meridional component at the cell centre, unit length.
    pub dual_normal_cell_y: Vec<f64>,
    /// (Edge, E2C2V): primal normal, zonal component at the vertex, unit length.
    pub primal_normal_vert_x: Vec<f64>,
    /// (Edge, E2C2V): primal normal, meridional component at the vertex, unit length.
    pub primal_normal_vert_y: Vec<f64>,
    /// (Edge, E2C2V): dual normal, zonal component at the vertex, unit length.
    pub dual_normal_vert_x: Vec<f64>,
    /// (Edge, E2C2V): dual normal, meridional component at the vertex, unit length.
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

        let ne = topo.n_edges();
        let cell_of = |e: usize, s: usize| edges.neighbor(e, s).map(|c| pts.cell[c]);
        let vert_of = |e: usize, k: usize| e2c2v.neighbor(e, k).map(|v| pts.vertex[v]);
        // Normal n (from E2C[0] to E2C[1]) and tangent t = n × up, per edge.
        let (normal, tangent): (Vec<Vec3>, Vec<Vec3>) = (0..ne)
            .into_par_iter()
            .map(|e| {
                let pe = pts.edge[e];
                let (v0, v1) = (
                    pts.vertex[verts.get(e, 0) as usize],
                    pts.vertex[verts.get(e, 1) as usize],
                );
                let along = space.delta(v0, v1);
                let mut n = normalize(match space {
                    Space::Sphere { .. } => cross(v0, v1),
                    Space::Torus { .. } => [-along[1], along[0], 0.0],
                });
                let across = match (cell_of(e, 0), cell_of(e, 1)) {
                    (Some(a), Some(b)) => space.delta(a, b),
                    (Some(a), None) => space.delta(a, pe),
                    (None, Some(b)) => space.delta(pe, b),
                    (None, None) => n,
                };
                if dot(n, across) < 0.0 {
                    n = [-n[0], -n[1], -n[2]];
                }
                (n, cross(n, space.local_frame(pe).2))
            })
            .unzip();
        let per_edge = |f: &(dyn Fn(usize) -> f64 + Sync)| -> Vec<f64> {
            (0..ne).into_par_iter().map(f).collect()
        };
        let sparse = |w: usize, f: &(dyn Fn(usize, usize) -> f64 + Sync)| -> Vec<f64> {
            (0..ne * w)
                .into_par_iter()
                .map(|i| f(i / w, i % w))
                .collect()
        };
        let edge_cell_distance = sparse(2, &|e, s| {
            let d = |s| cell_of(e, s).map(|c| space.distance(pts.edge[e], c));
            d(s).or_else(|| d(1 - s)).unwrap_or(f64::NAN)
        });
        let dual_edge_length = per_edge(&|e| match (cell_of(e, 0), cell_of(e, 1)) {
            (Some(a), Some(b)) => space.distance(a, b),
            _ => 2.0 * edge_cell_distance[2 * e],
        });
        let primal_edge_length = per_edge(&|e| {
            space.distance(
                pts.vertex[verts.get(e, 0) as usize],
                pts.vertex[verts.get(e, 1) as usize],
            )
        });
        let vert_vert_length = per_edge(&|e| match (vert_of(e, 2), vert_of(e, 3)) {
            (Some(a), Some(b)) => space.distance(a, b),
            (Some(a), None) | (None, Some(a)) => 2.0 * space.distance(pts.edge[e], a),
            (None, None) => f64::NAN,
        });
        let tangent_orientation = per_edge(&|e| {
            let along = space.delta(
                pts.vertex[verts.get(e, 0) as usize],
                pts.vertex[verts.get(e, 1) as usize],
            );
            if dot(along, tangent[e]) >= 0.0 {
                1.0
            } else {
                -1.0
            }
        });
        let (edge_lat, edge_lon) = lat_lon(space, &pts.edge);
        let coriolis_frequency = per_edge(&|e| {
            if space.is_sphere() {
                2.0 * EARTH_ANGULAR_VELOCITY * edge_lat[e].sin()
            } else {
                0.0
            }
        });
        // Zonal (x) or meridional (y) component of a vector at a point (0 where absent).
        let comp = |p: Option<Vec3>, v: Vec3, y: bool| {
            p.map_or(0.0, |p| {
                let (u, w) = space.components(p, v);
                if y {
                    w
                } else {
                    u
                }
            })
        };
        // The same of the vector projected onto the tangent plane at the point and scaled
        // back to unit length, as ICON (`primal_normal_cell`, `dual_normal_vert`, …, each
        // divided by its norm) and ICON4Py (`zonal_and_meridional_components_on_edges`) do:
        // an edge's unit normal seen from a cell centre or a vertex away from the edge.
        let unit_comp = |p: Option<Vec3>, v: Vec3, y: bool| {
            p.map_or(0.0, |p| {
                let (u, w) = space.components(p, v);
                let norm = u.hypot(w);
                if y {
                    w / norm
                } else {
                    u / norm
                }
            })
        };
        let at_edge = |vecs: &[Vec3], y: bool| per_edge(&|e| comp(Some(pts.edge[e]), vecs[e], y));
        let at_cells =
            |vecs: &[Vec3], y: bool| sparse(2, &|e, s| unit_comp(cell_of(e, s), vecs[e], y));
        let at_verts =
            |vecs: &[Vec3], y: bool| sparse(4, &|e, k| unit_comp(vert_of(e, k), vecs[e], y));

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
                    poly.windows(2)
                        .map(|w| space.triangle_area(pv, w[0], w[1]))
                        .sum()
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
                    if dot(normal[e], ccw) >= 0.0 {
                        1.0
                    } else {
                        -1.0
                    }
                })
            })
            .collect();

        let total: f64 = cell_area.iter().sum();
        let mean_cell_area = total / topo.n_cells().max(1) as f64;
        let inverse = |v: &[f64]| v.par_iter().map(|x| 1.0 / x).collect::<Vec<f64>>();
        Geometry {
            cell_lat,
            cell_lon,
            cell_area,
            cell_edge_orientation,
            inv_primal_edge_length: inverse(&primal_edge_length),
            inv_dual_edge_length: inverse(&dual_edge_length),
            inv_vert_vert_length: inverse(&vert_vert_length),
            edge_area: per_edge(&|e| primal_edge_length[e] * dual_edge_length[e]),
            primal_normal_x: at_edge(&normal, false),
            primal_normal_y: at_edge(&normal, true),
            dual_normal_x: at_edge(&tangent, false),
            dual_normal_y: at_edge(&tangent, true),
            primal_normal_cell_x: at_cells(&normal, false),
            primal_normal_cell_y: at_cells(&normal, true),
            dual_normal_cell_x: at_cells(&tangent, false),
            dual_normal_cell_y: at_cells(&tangent, true),
            primal_normal_vert_x: at_verts(&normal, false),
            primal_normal_vert_y: at_verts(&normal, true),
            dual_normal_vert_x: at_verts(&tangent, false),
            dual_normal_vert_y: at_verts(&tangent, true),
            edge_vert_distance: sparse(2, &|e, k| {
                space.distance(pts.edge[e], pts.vertex[verts.get(e, k) as usize])
            }),
            edge_cell_distance,
            primal_edge_length,
            dual_edge_length,
            vert_vert_length,
            tangent_orientation,
            coriolis_frequency,
            edge_lat,
            edge_lon,
            primal_normal_cartesian: normal,
            dual_normal_cartesian: tangent,
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
