//! Global icosahedral grids RnBk: root division `n` of the icosahedron's faces,
//! then `k` bisections, with cells in recursive-subdivision order.

use crate::error::{GridError, Result};
use crate::generate::renumber_vertices_by_first_use;
use crate::generate::spring::{relax_level, Optimisation};
use crate::space::{add, normalize, scale, sub, unit_from_lat_lon, Vec3};
use crate::topology::MAX_VERTEX_DEGREE;

/// Counts of an RnBk grid: (cells, edges, vertices). Counts too large for `usize` (a
/// nonsensical `grid_root` in a file) saturate, so they match no real grid.
pub fn icosahedral_counts(root: u32, bisections: u32) -> (usize, usize, usize) {
    let cells = (root as usize)
        .checked_pow(2)
        .and_then(|r2| r2.checked_mul(20))
        .zip(4usize.checked_pow(bisections))
        .and_then(|(c, p)| c.checked_mul(p))
        .unwrap_or(usize::MAX);
    (cells, cells.saturating_mul(3) / 2, cells / 2 + 2)
}

/// The 12 vertices and 20 counter-clockwise faces of the icosahedron, faces ordered in
/// five columns (north cap, two band triangles, south cap) so neighbours stay close.
fn icosahedron() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let lat = 0.5f64.atan();
    let deg72 = 2.0 * std::f64::consts::PI / 5.0;
    let mut v = vec![[0.0, 0.0, 1.0]];
    v.extend((0..5).map(|i| unit_from_lat_lon(lat, i as f64 * deg72)));
    v.extend((0..5).map(|i| unit_from_lat_lon(-lat, (i as f64 + 0.5) * deg72)));
    v.push([0.0, 0.0, -1.0]);
    let (north, south) = (0u32, 11u32);
    let up = |i: u32| 1 + i % 5;
    let low = |i: u32| 6 + i % 5;
    let mut faces = Vec::with_capacity(20);
    for i in 0..5 {
        faces.push([north, up(i), up(i + 1)]);
        faces.push([up(i), low(i), up(i + 1)]);
        faces.push([low(i), low(i + 1), up(i + 1)]);
        faces.push([south, low(i + 1), low(i)]);
    }
    (v, faces)
}

/// Midpoint vertices of the current level, looked up by their edge's lower vertex.
struct MidpointCache {
    count: Vec<u8>,
    entries: Vec<(u32, u32)>,
}

impl MidpointCache {
    fn new(n_vertices: usize) -> Self {
        MidpointCache {
            count: vec![0; n_vertices],
            entries: vec![(0, 0); n_vertices * MAX_VERTEX_DEGREE],
        }
    }

    fn get_or_insert(&mut self, a: u32, b: u32, make: impl FnOnce() -> u32) -> u32 {
        let (lo, hi) = (a.min(b) as usize, a.max(b));
        let list = &self.entries[lo * MAX_VERTEX_DEGREE..][..self.count[lo] as usize];
        if let Some(&(_, m)) = list.iter().find(|(o, _)| *o == hi) {
            return m;
        }
        let m = make();
        self.entries[lo * MAX_VERTEX_DEGREE + self.count[lo] as usize] = (hi, m);
        self.count[lo] += 1;
        m
    }
}

/// Vertex positions (unit vectors) and counter-clockwise cells of grid RnBk.
pub fn icosahedral_mesh(root: u32, bisections: u32) -> Result<(Vec<Vec3>, Vec<[u32; 3]>)> {
    icosahedral_mesh_optimised(root, bisections, Optimisation::Plain)
}

/// Vertex positions and cells of grid RnBk, positions placed by `optimisation` after
/// each bisection (as ICON's grid generator does; the root division is never moved).
/// Topology and numbering do not depend on the optimisation.
pub fn icosahedral_mesh_optimised(
    root: u32,
    bisections: u32,
    optimisation: Optimisation,
) -> Result<(Vec<Vec3>, Vec<[u32; 3]>)> {
    if root == 0 || root > 64 || bisections > 12 {
        return Err(GridError::InvalidParameters(format!(
            "R{root}B{bisections}: root must be 1..=64 and bisections 0..=12"
        )));
    }
    let (ico_v, ico_f) = icosahedron();
    let (mut verts, mut cells) = root_division(&ico_v, &ico_f, root);
    for _ in 0..bisections {
        let mut cache = MidpointCache::new(verts.len());
        let mut next = Vec::with_capacity(cells.len() * 4);
        for &[a, b, c] in &cells {
            let mut mid = |p: u32, q: u32| {
                cache.get_or_insert(p, q, || {
                    verts.push(normalize(add(verts[p as usize], verts[q as usize])));
                    (verts.len() - 1) as u32
                })
            };
            let (ab, bc, ca) = (mid(a, b), mid(b, c), mid(c, a));
            next.extend([[a, ab, ca], [ab, bc, ca], [ab, b, bc], [ca, bc, c]]);
        }
        cells = next;
        if let Optimisation::Spring { beta } = optimisation {
            relax_level(&mut verts, &cells, beta)?;
        }
    }
    Ok(renumber_vertices_by_first_use(verts, cells))
}

/// Splits every icosahedron face into `n²` triangles; shared points are created once.
fn root_division(ico_v: &[Vec3], ico_f: &[[u32; 3]], n: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut verts: Vec<Vec3> = ico_v.to_vec();
    let mut edge_points: std::collections::BTreeMap<(u32, u32), Vec<u32>> = Default::default();
    let mut cells = Vec::new();
    let nf = n as f64;
    for &[a, b, c] in ico_f {
        let (pa, pb, pc) = (ico_v[a as usize], ico_v[b as usize], ico_v[c as usize]);
        // Interior points of an icosahedron edge, listed from its lower vertex.
        let mut edge = |p: u32, q: u32, verts: &mut Vec<Vec3>| -> Vec<u32> {
            let (lo, hi) = (p.min(q), p.max(q));
            let ids = edge_points
                .entry((lo, hi))
                .or_insert_with(|| {
                    let (x, y) = (ico_v[lo as usize], ico_v[hi as usize]);
                    (1..n)
                        .map(|s| {
                            verts.push(normalize(add(x, scale(sub(y, x), s as f64 / nf))));
                            (verts.len() - 1) as u32
                        })
                        .collect()
                })
                .clone();
            if p < q {
                ids
            } else {
                ids.into_iter().rev().collect()
            }
        };
        let (ab, ac, bc) = (
            edge(a, b, &mut verts),
            edge(a, c, &mut verts),
            edge(b, c, &mut verts),
        );
        // id[i][j]: the point A + i/n (B−A) + j/n (C−A), i + j <= n.
        let mut id = vec![vec![u32::MAX; (n + 1) as usize]; (n + 1) as usize];
        for (i, row) in id.iter_mut().enumerate() {
            for (j, slot) in row.iter_mut().enumerate().take(n as usize - i + 1) {
                *slot = match (i, j) {
                    (0, 0) => a,
                    (i, 0) if i == n as usize => b,
                    (0, j) if j == n as usize => c,
                    (i, 0) => ab[i - 1],
                    (0, j) => ac[j - 1],
                    (i, j) if i + j == n as usize => bc[j - 1],
                    (i, j) => {
                        let p = add(
                            pa,
                            add(
                                scale(sub(pb, pa), i as f64 / nf),
                                scale(sub(pc, pa), j as f64 / nf),
                            ),
                        );
                        verts.push(normalize(p));
                        (verts.len() - 1) as u32
                    }
                };
            }
        }
        let n = n as usize;
        for j in 0..n {
            for i in 0..n - j {
                cells.push([id[i][j], id[i + 1][j], id[i][j + 1]]);
                if i + j + 1 < n {
                    cells.push([id[i + 1][j], id[i + 1][j + 1], id[i][j + 1]]);
                }
            }
        }
    }
    (verts, cells)
}
