//! Geometry properties: areas, lengths, orientations and discrete operators.

use foehn_grid::{Connectivity as C, Grid, GridSpec, EARTH_RADIUS};

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

/// Discrete divergence Σ_{C2E} geofac_div·vn with geofac_div = L·orientation/area.
fn divergence(g: &Grid, vn: &[f64]) -> Vec<f64> {
    let c2e = g.topology.table(C::C2E);
    let geo = &g.geometry;
    (0..g.topology.n_cells())
        .map(|c| {
            (0..3)
                .map(|i| {
                    let e = c2e.get(c, i) as usize;
                    vn[e] * geo.primal_edge_length[e] * geo.cell_edge_orientation[3 * c + i]
                        / geo.cell_area[c]
                })
                .sum()
        })
        .collect()
}

#[test]
fn cell_and_dual_areas_tile_the_sphere() {
    for (root, bis) in [(2, 0), (2, 3), (3, 2)] {
        let g = Grid::icosahedral(root, bis, EARTH_RADIUS).unwrap();
        let sphere = 4.0 * std::f64::consts::PI * EARTH_RADIUS * EARTH_RADIUS;
        let cells: f64 = g.geometry.cell_area.iter().sum();
        let duals: f64 = g.geometry.dual_area.iter().sum();
        assert!(
            rel(cells, sphere) < 1e-10,
            "R{root}B{bis} cells {}",
            rel(cells, sphere)
        );
        assert!(
            rel(duals, sphere) < 1e-10,
            "R{root}B{bis} duals {}",
            rel(duals, sphere)
        );
        assert!(g.geometry.cell_area.iter().all(|&a| a > 0.0));
        assert!(g.geometry.dual_area.iter().all(|&a| a > 0.0));
        assert!(
            rel(
                g.geometry.mean_cell_area,
                sphere / g.topology.n_cells() as f64
            ) < 1e-12
        );
    }
    let t = Grid::torus(20000.0, 30000.0, 1000.0).unwrap();
    let area = t.space.total_area();
    assert!(rel(t.geometry.cell_area.iter().sum(), area) < 1e-12);
    assert!(rel(t.geometry.dual_area.iter().sum(), area) < 1e-12);
}

#[test]
fn edge_lengths_normals_and_orientations_are_consistent() {
    for g in [
        Grid::icosahedral(2, 3, EARTH_RADIUS).unwrap(),
        Grid::torus(20000.0, 20000.0, 1000.0).unwrap(),
        GridSpec::parse("r2b4:box:30,60,-10,40")
            .unwrap()
            .build()
            .unwrap(),
    ] {
        let (geo, t, pts) = (&g.geometry, &g.topology, &g.points);
        for e in 0..t.n_edges() {
            let n = geo.primal_normal_cartesian[e];
            let tan = geo.dual_normal_cartesian[e];
            let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
            assert!((dot(n, n) - 1.0).abs() < 1e-12 && (dot(tan, tan) - 1.0).abs() < 1e-12);
            assert!(dot(n, tan).abs() < 1e-12);
            // Zonal/meridional components at the edge carry the whole (tangential) vector.
            let pn = geo.primal_normal_x[e].powi(2) + geo.primal_normal_y[e].powi(2);
            assert!(
                (pn - 1.0).abs() < 1e-10,
                "{} edge {e}: |n_uv|² = {pn}",
                g.name
            );
            // The normal points from E2C[0] to E2C[1].
            if let (Some(c0), Some(c1)) = (
                t.table(C::E2C).neighbor(e, 0),
                t.table(C::E2C).neighbor(e, 1),
            ) {
                assert!(dot(n, g.space.delta(pts.cell[c0], pts.cell[c1])) > 0.0);
            }
            // tangent_orientation = sign((v1 − v0)·t)
            let (v0, v1) = (
                t.table(C::E2V).get(e, 0) as usize,
                t.table(C::E2V).get(e, 1) as usize,
            );
            let along = g.space.delta(pts.vertex[v0], pts.vertex[v1]);
            assert_eq!(dot(along, tan).signum(), geo.tangent_orientation[e]);
            assert!(geo.primal_edge_length[e] > 0.0 && geo.dual_edge_length[e] > 0.0);
            assert!(
                (geo.edge_area[e] - geo.primal_edge_length[e] * geo.dual_edge_length[e]).abs()
                    <= 1e-6 * geo.edge_area[e]
            );
            assert!((geo.inv_dual_edge_length[e] * geo.dual_edge_length[e] - 1.0).abs() < 1e-15);
        }
        // Both orientations occur, so sign handling is exercised by every test.
        assert!(
            geo.tangent_orientation.iter().any(|&o| o > 0.0)
                && geo.tangent_orientation.iter().any(|&o| o < 0.0)
        );
    }
}

#[test]
fn divergence_of_constant_field_vanishes_on_the_torus() {
    let g = Grid::torus(30000.0, 20000.0, 1000.0).unwrap();
    let (u, v) = (3.7, -1.3);
    let vn: Vec<f64> = (0..g.topology.n_edges())
        .map(|e| u * g.geometry.primal_normal_x[e] + v * g.geometry.primal_normal_y[e])
        .collect();
    let scale = (u * u + v * v).sqrt() / 1000.0;
    for d in divergence(&g, &vn) {
        assert!(d.abs() < 1e-13 * scale.max(1.0), "div = {d}");
    }
}

#[test]
fn divergence_of_a_discrete_curl_vanishes_on_the_sphere() {
    // vn = tangential derivative of a vertex stream function: the discrete div∘curl is
    // zero to rounding only if cell and tangent orientations are mutually consistent.
    for g in [
        Grid::icosahedral(2, 3, EARTH_RADIUS).unwrap(),
        GridSpec::parse("r2b4:cap:-20,100,2000")
            .unwrap()
            .build()
            .unwrap(),
    ] {
        let geo = &g.geometry;
        let e2v = g.topology.table(C::E2V);
        let psi: Vec<f64> = (0..g.topology.n_vertices())
            .map(|v| 1e6 * (3.0 * geo.vertex_lat[v]).sin() * (2.0 * geo.vertex_lon[v]).cos() + 2e5)
            .collect();
        let vn: Vec<f64> = (0..g.topology.n_edges())
            .map(|e| {
                let d = psi[e2v.get(e, 1) as usize] - psi[e2v.get(e, 0) as usize];
                geo.tangent_orientation[e] * d / geo.primal_edge_length[e]
            })
            .collect();
        let div = divergence(&g, &vn);
        let typical = 1e6 / geo.primal_edge_length[0] / geo.primal_edge_length[0];
        let max = div.iter().fold(0.0f64, |m, d| m.max(d.abs()));
        assert!(
            max < 1e-12 * typical,
            "{}: max |div curl| = {max:e} (typical {typical:e})",
            g.name
        );
    }
}

#[test]
fn global_divergence_integrates_to_zero() {
    let g = Grid::icosahedral(2, 2, EARTH_RADIUS).unwrap();
    let vn: Vec<f64> = (0..g.topology.n_edges())
        .map(|e| ((e * 7919) % 1000) as f64 / 100.0 - 5.0)
        .collect();
    let div = divergence(&g, &vn);
    let total: f64 = div
        .iter()
        .zip(&g.geometry.cell_area)
        .map(|(d, a)| d * a)
        .sum();
    let scale: f64 = vn
        .iter()
        .zip(&g.geometry.primal_edge_length)
        .map(|(v, l)| (v * l).abs())
        .sum();
    assert!(total.abs() < 1e-12 * scale, "∫div = {total:e}");
}

#[test]
fn circulation_orientation_matches_tangent_orientation() {
    // The vertex orientation is +1 where the normal points counter-clockwise around the
    // vertex; that is +t_o at E2V[0] and −t_o at E2V[1].
    let g = Grid::icosahedral(2, 2, EARTH_RADIUS).unwrap();
    let (v2e, e2v) = (g.topology.table(C::V2E), g.topology.table(C::E2V));
    for v in 0..g.topology.n_vertices() {
        for (j, e) in v2e.valid(v).enumerate() {
            let o = g.geometry.vertex_edge_orientation[6 * v + j];
            let t = g.geometry.tangent_orientation[e];
            let want = if e2v.get(e, 0) as usize == v { t } else { -t };
            assert_eq!(o, want, "vertex {v} edge {e}");
        }
    }
}

#[test]
fn coriolis_and_coordinates() {
    let g = Grid::icosahedral(2, 2, EARTH_RADIUS).unwrap();
    for e in 0..g.topology.n_edges() {
        let f = 2.0 * foehn_grid::EARTH_ANGULAR_VELOCITY * g.geometry.edge_lat[e].sin();
        assert_eq!(g.geometry.coriolis_frequency[e], f);
        assert!(g.geometry.edge_lat[e].abs() <= std::f64::consts::FRAC_PI_2);
    }
    let ratio = foehn_grid::info::GridInfo::of(&g).area_ratio;
    assert!(ratio > 1.0 && ratio < 2.0, "area ratio {ratio}");
}

/// The edge normals and tangents seen from the edge's cells and vertices are unit vectors
/// (ICON divides the projection onto the point's tangent plane by its norm; ICON's
/// geofac_grg and RBF coefficients are built from them); the bare projections are
/// shorter by up to ~1e-3 on R2B3.
#[test]
fn edge_vectors_seen_from_cells_and_vertices_are_unit_vectors() {
    let g = Grid::icosahedral(2, 3, EARTH_RADIUS).unwrap();
    let geo = &g.geometry;
    let n_edges = g.topology.n_edges();
    let at_points: [(&[f64], &[f64], usize); 4] = [
        (&geo.primal_normal_cell_x, &geo.primal_normal_cell_y, 2),
        (&geo.dual_normal_cell_x, &geo.dual_normal_cell_y, 2),
        (&geo.primal_normal_vert_x, &geo.primal_normal_vert_y, 4),
        (&geo.dual_normal_vert_x, &geo.dual_normal_vert_y, 4),
    ];
    for (x, y, k) in at_points {
        assert_eq!(x.len(), n_edges * k);
        for (i, (u, v)) in x.iter().zip(y).enumerate() {
            let norm = u.hypot(*v);
            assert!(
                (norm - 1.0).abs() < 1e-14,
                "edge {}, neighbour {}: |n| = {norm}",
                i / k,
                i % k
            );
        }
    }
}
