//! The interpolation fields computed from the grid (issue 13, item 4) on the global
//! R2B2 grid (with its 12 pentagons), finer global grids and the limited-area cap:
//! weights that must sum to one do; the discrete operators keep the identities ICON's
//! operators are built for (divergence theorem, curl of a gradient, divergence of a
//! curl, Laplacian of a constant); the Green–Gauss gradient, the Laplacian and the RBF
//! reconstructions converge on smooth fields at the measured rate; the limited-area
//! zones are honoured; the result does not depend on the number of threads.

// Loops run over point indices that address several fields at once.
#![allow(clippy::needless_range_loop)]

use foehn_grid::{Connectivity as C, Grid, Location, LocationZones, Zone, Zones, EARTH_RADIUS};
use foehn_icon::fields::interpolation::{
    InterpolationConfig, InterpolationError, InterpolationFields, SparseField,
};
use foehn_testkit::grids;
use foehn_testkit::SplitMix64;
use std::sync::OnceLock;

type Vec3 = [f64; 3];

fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The rotation axis of the test flow: tilted, so that no grid symmetry helps.
fn axis() -> Vec3 {
    let a = [0.3, -0.2, 1.0];
    let n = dot(a, a).sqrt();
    a.map(|x| x / n)
}

/// Solid-body rotation about [`axis`] at 1 (unit-sphere speed) at a unit vector `p`.
fn solid_body(p: Vec3) -> Vec3 {
    cross(axis(), p)
}

/// Local east and north unit vectors at a unit vector `p`.
fn east_north(p: Vec3) -> (Vec3, Vec3) {
    let h = (p[0] * p[0] + p[1] * p[1]).sqrt();
    let east = [-p[1] / h, p[0] / h, 0.0];
    (east, cross(p, east))
}

fn fields(grid: &Grid) -> InterpolationFields {
    InterpolationFields::compute(grid, &InterpolationConfig::default()).expect("fields")
}

fn global() -> &'static (Grid, InterpolationFields) {
    static F: OnceLock<(Grid, InterpolationFields)> = OnceLock::new();
    F.get_or_init(|| {
        let g = grids::global().clone();
        let f = fields(&g);
        (g, f)
    })
}

fn limited_area() -> &'static (Grid, InterpolationFields) {
    static F: OnceLock<(Grid, InterpolationFields)> = OnceLock::new();
    F.get_or_init(|| {
        let g = grids::limited_area().clone();
        let f = fields(&g);
        (g, f)
    })
}

fn r2b3() -> &'static (Grid, InterpolationFields) {
    static F: OnceLock<(Grid, InterpolationFields)> = OnceLock::new();
    F.get_or_init(|| {
        let g = Grid::icosahedral(2, 3, EARTH_RADIUS).expect("r2b3");
        let f = fields(&g);
        (g, f)
    })
}

fn r2b4() -> &'static (Grid, InterpolationFields) {
    static F: OnceLock<(Grid, InterpolationFields)> = OnceLock::new();
    F.get_or_init(|| {
        let g = Grid::icosahedral(2, 4, EARTH_RADIUS).expect("r2b4");
        let f = fields(&g);
        (g, f)
    })
}

fn both() -> [&'static (Grid, InterpolationFields); 2] {
    [global(), limited_area()]
}

fn start(grid: &Grid, loc: Location, zone: Zone) -> usize {
    grid.zones.of(loc).start(zone).unwrap()
}

/// Applies a sparse field to point values through a connectivity (missing slots skipped).
fn apply(grid: &Grid, conn: C, w: &SparseField, x: &[f64], i: usize) -> f64 {
    let t = grid.topology.table(conn);
    (0..t.width())
        .filter_map(|j| t.neighbor(i, j).map(|n| w.get(i, j) * x[n]))
        .sum()
}

fn fmt(x: &[f64]) -> String {
    x.iter()
        .map(|v| format!("{v:.3e}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn random(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| rng.range_f64(-1.0, 1.0)).collect()
}

#[test]
fn c_lin_e_pairs_sum_to_one_and_vanish_in_the_first_boundary_row() {
    for (grid, f) in both() {
        let lb2 = start(grid, Location::Edge, Zone::LateralBoundary(2));
        for e in 0..grid.topology.n_edges() {
            let (a, b) = (f.c_lin_e.get(e, 0), f.c_lin_e.get(e, 1));
            if e < lb2 {
                assert_eq!((a, b), (0.0, 0.0), "{} edge {e}", grid.name);
            } else {
                assert!((a + b - 1.0).abs() < 1e-15, "{} edge {e}", grid.name);
                assert!(a > 0.3 && b > 0.3, "{} edge {e}: {a} {b}", grid.name);
            }
        }
    }
    let (grid, f) = limited_area();
    let lb2 = start(grid, Location::Edge, Zone::LateralBoundary(2));
    assert!(lb2 > 0, "the cap has a first boundary row");
    assert!(f.c_lin_e.as_slice()[..2 * lb2].iter().all(|&x| x == 0.0));
}

#[test]
fn edge_to_cell_weights_sum_to_one_and_interpolate_linear_functions() {
    for (grid, f) in both() {
        let c2e = grid.topology.table(C::C2E);
        let mut worst: f64 = 0.0;
        for c in 0..grid.topology.n_cells() {
            let s: f64 = f.e_bln_c_s.row(c).iter().sum();
            assert!((s - 1.0).abs() < 1e-14, "{} cell {c}: {s}", grid.name);
            // A linear function of position, interpolated from the edge midpoints.
            let psi = |p: Vec3| dot(axis(), p);
            let at_edges: f64 = (0..3)
                .map(|k| f.e_bln_c_s.get(c, k) * psi(grid.points.edge[c2e.get(c, k) as usize]))
                .sum();
            worst = worst.max((at_edges - psi(grid.points.cell[c])).abs());
        }
        // Exact in the rotated lat-lon frame, second order on the sphere (h² ≈ 0.01).
        assert!(worst < 5e-3, "{}: {worst}", grid.name);
    }
}

#[test]
fn cell_average_weights_sum_to_one_and_conserve_mass() {
    for (grid, f) in both() {
        let lb2 = start(grid, Location::Cell, Zone::LateralBoundary(2));
        let lb3 = start(grid, Location::Cell, Zone::LateralBoundary(3));
        let c2e2co = grid.topology.table(C::C2E2CO);
        let area = &grid.geometry.cell_area;
        for c in 0..grid.topology.n_cells() {
            let row = f.c_bln_avg.row(c);
            if c < lb2 {
                assert!(row.iter().all(|&x| x == 0.0));
                continue;
            }
            let s: f64 = row.iter().sum();
            assert!((s - 1.0).abs() < 1e-6, "{} cell {c}: {s}", grid.name);
            assert!(
                (row[0] - 0.5).abs() <= 0.003 + 1e-15,
                "{} cell {c}",
                grid.name
            );
            assert!(row.iter().all(|&x| x > 0.0), "{} cell {c}", grid.name);
            if c >= lb3 {
                // Σ over the neighbours n of the weight n gives c, times n's area = A_c.
                let mass: f64 = c2e2co
                    .valid(c)
                    .map(|n| {
                        let slot = c2e2co.row(n).iter().position(|&x| x as usize == c);
                        f.c_bln_avg.get(n, slot.unwrap()) * area[n]
                    })
                    .sum();
                assert!(
                    (mass / area[c] - 1.0).abs() < 1e-13,
                    "{} cell {c}: {mass} vs {}",
                    grid.name,
                    area[c]
                );
            }
        }
    }
}

/// Largest |Σ weights − 1| of `cells_aw_verts` over the computed vertices.
fn c_intp_sum_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let lb2 = start(grid, Location::Vertex, Zone::LateralBoundary(2));
    (lb2..grid.topology.n_vertices())
        .map(|v| (f.cells_aw_verts.row(v).iter().sum::<f64>() - 1.0).abs())
        .fold(0.0, f64::max)
}

#[test]
fn cell_to_vertex_weights_are_area_shares_summing_to_one_up_to_spherical_excess() {
    for (grid, f) in both() {
        let lb2 = start(grid, Location::Vertex, Zone::LateralBoundary(2));
        let v2c = grid.topology.table(C::V2C);
        for v in 0..grid.topology.n_vertices() {
            let row = f.cells_aw_verts.row(v);
            if v < lb2 {
                assert!(row.iter().all(|&x| x == 0.0));
                continue;
            }
            for (j, &w) in row.iter().enumerate() {
                if v2c.neighbor(v, j).is_some() {
                    assert!(w > 0.1 && w < 0.3, "{} vertex {v}: {w}", grid.name);
                } else {
                    assert_eq!(w, 0.0);
                }
            }
        }
    }
    // The planar right triangles miss the spherical excess: O(h²), 16× per two bisections.
    let e2 = c_intp_sum_error(&global().0, &global().1);
    let e4 = c_intp_sum_error(&r2b4().0, &r2b4().1);
    println!("cells_aw_verts |Σ − 1|: r2b2 {e2:.3e}, r2b4 {e4:.3e}");
    assert!(e2 < 1e-3, "{e2}");
    assert!(e2 / e4 > 12.0, "{e2} / {e4}");
}

#[test]
fn divergence_theorem_holds_to_round_off_on_the_globe() {
    let (grid, f) = global();
    let vn = random(grid.topology.n_edges(), 1);
    let area = &grid.geometry.cell_area;
    let (mut total, mut scale) = (0.0, 0.0);
    for c in 0..grid.topology.n_cells() {
        let div = apply(grid, C::C2E, &f.geofac_div, &vn, c);
        total += area[c] * div;
        scale += (area[c] * div).abs();
    }
    assert!(total.abs() < 1e-13 * scale, "Σ A div = {total} of {scale}");
}

/// The normal gradient of a cell scalar, `(ψ(c1) − ψ(c0)) / ℓ*`, at edges with two cells.
fn normal_gradient(grid: &Grid, psi: &[f64]) -> Vec<f64> {
    let e2c = grid.topology.table(C::E2C);
    (0..grid.topology.n_edges())
        .map(|e| match (e2c.neighbor(e, 0), e2c.neighbor(e, 1)) {
            (Some(a), Some(b)) => (psi[b] - psi[a]) * grid.geometry.inv_dual_edge_length[e],
            _ => 0.0,
        })
        .collect()
}

#[test]
fn curl_of_a_gradient_vanishes() {
    for (grid, f) in both() {
        let psi = random(grid.topology.n_cells(), 2);
        let grad = normal_gradient(grid, &psi);
        let v2e = grid.topology.table(C::V2E);
        let lb2 = start(grid, Location::Vertex, Zone::LateralBoundary(2));
        for v in lb2..grid.topology.n_vertices() {
            let curl = apply(grid, C::V2E, &f.geofac_rot, &grad, v);
            let scale: f64 = v2e
                .valid(v)
                .enumerate()
                .map(|(j, e)| (f.geofac_rot.get(v, j) * grad[e]).abs())
                .sum();
            assert!(
                curl.abs() < 1e-13 * scale,
                "{} vertex {v}: {curl} of {scale}",
                grid.name
            );
        }
    }
}

#[test]
fn divergence_of_a_curl_vanishes() {
    // The normal wind of a stream function at vertices: the tangential difference
    // along the edge, (ψ(v1) − ψ(v0)) / ℓ oriented by the edge's tangent orientation.
    for (grid, f) in both() {
        let psi = random(grid.topology.n_vertices(), 3);
        let e2v = grid.topology.table(C::E2V);
        let g = &grid.geometry;
        let vn: Vec<f64> = (0..grid.topology.n_edges())
            .map(|e| {
                let (a, b) = (e2v.get(e, 0) as usize, e2v.get(e, 1) as usize);
                g.tangent_orientation[e] * (psi[b] - psi[a]) * g.inv_primal_edge_length[e]
            })
            .collect();
        for c in 0..grid.topology.n_cells() {
            let div = apply(grid, C::C2E, &f.geofac_div, &vn, c);
            let scale: f64 = (0..3)
                .map(|k| {
                    let e = grid.topology.table(C::C2E).get(c, k) as usize;
                    (f.geofac_div.get(c, k) * vn[e]).abs()
                })
                .sum();
            assert!(
                div.abs() < 1e-13 * scale,
                "{} cell {c}: {div} of {scale}",
                grid.name
            );
        }
    }
}

#[test]
fn laplacian_of_a_constant_vanishes_and_equals_div_grad() {
    for (grid, f) in both() {
        let lb2 = start(grid, Location::Cell, Zone::LateralBoundary(2));
        let psi = random(grid.topology.n_cells(), 4);
        let grad = normal_gradient(grid, &psi);
        for c in 0..grid.topology.n_cells() {
            let row = f.geofac_n2s.row(c);
            if c < lb2 {
                assert!(row.iter().all(|&x| x == 0.0));
                continue;
            }
            let scale: f64 = row.iter().map(|x| x.abs()).sum();
            let sum: f64 = row.iter().sum();
            assert!(sum.abs() < 1e-14 * scale, "{} cell {c}: {sum}", grid.name);
            let n2s = apply(grid, C::C2E2CO, &f.geofac_n2s, &psi, c);
            let div_grad = apply(grid, C::C2E, &f.geofac_div, &grad, c);
            assert!(
                (n2s - div_grad).abs() < 1e-12 * scale,
                "{} cell {c}",
                grid.name
            );
        }
    }
}

/// Mean and largest error of the discrete Laplacian of ψ = a·p (∇²ψ = −2ψ/R²),
/// relative to 2/R².
fn laplacian_error(grid: &Grid, f: &InterpolationFields) -> (f64, f64) {
    let psi: Vec<f64> = grid.points.cell.iter().map(|&p| dot(axis(), p)).collect();
    let r2 = EARTH_RADIUS * EARTH_RADIUS;
    let errors: Vec<f64> = (0..grid.topology.n_cells())
        .map(|c| {
            let lap = apply(grid, C::C2E2CO, &f.geofac_n2s, &psi, c);
            (lap + 2.0 * psi[c] / r2).abs() * r2 / 2.0
        })
        .collect();
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    (mean, errors.iter().copied().fold(0.0, f64::max))
}

#[test]
fn laplacian_of_a_first_spherical_harmonic_converges_in_the_mean() {
    // The triangular C-grid Laplacian (ICON's div of the normal gradient) is not
    // consistent pointwise on the icosahedral grid: along the lines of the original
    // icosahedron its error stays near 10 % at every resolution. In the mean it
    // converges at first order (measured 1.8e-2, 1.0e-2, 5.5e-3 for r2b2..r2b4).
    let errors = [global(), r2b3(), r2b4()].map(|(g, f)| laplacian_error(g, f));
    let mean = errors.map(|e| e.0);
    let max = errors.map(|e| e.1);
    println!(
        "∇² of Y1, relative error r2b2..r2b4: mean {}, max {}",
        fmt(&mean),
        fmt(&max)
    );
    assert!(mean[0] / mean[2] > 2.8, "{mean:?}");
    assert!(mean[2] < 1e-2, "{mean:?}");
    assert!(max.iter().all(|&m| m < 0.12), "{max:?}");
}

/// Largest error of the Green–Gauss gradient of ψ = a·p relative to |∇ψ|max = 1/R.
fn gradient_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let psi: Vec<f64> = grid.points.cell.iter().map(|&p| dot(axis(), p)).collect();
    let a = axis();
    (0..grid.topology.n_cells())
        .map(|c| {
            let p = grid.points.cell[c];
            let (east, north) = east_north(p);
            let gx = apply(grid, C::C2E2CO, &f.geofac_grg_x, &psi, c);
            let gy = apply(grid, C::C2E2CO, &f.geofac_grg_y, &psi, c);
            let (ex, ey) = (dot(a, east) / EARTH_RADIUS, dot(a, north) / EARTH_RADIUS);
            (gx - ex).hypot(gy - ey) * EARTH_RADIUS
        })
        .fold(0.0, f64::max)
}

#[test]
fn green_gauss_gradient_of_a_linear_function_converges() {
    let errors = [global(), r2b3(), r2b4()].map(|(g, f)| gradient_error(g, f));
    println!(
        "Green–Gauss gradient, max relative error r2b2..r2b4: {}",
        fmt(&errors)
    );
    assert!(errors[2] < 0.03, "{errors:?}");
    assert!(errors[0] / errors[2] > 3.0, "{errors:?}");
    // The limited-area cap (cut from r2b4) from its second boundary row.
    let (grid, f) = limited_area();
    let lb2 = start(grid, Location::Cell, Zone::LateralBoundary(2));
    assert!((0..lb2).all(|c| f.geofac_grg_x.row(c).iter().all(|&x| x == 0.0)));
    let psi: Vec<f64> = grid.points.cell.iter().map(|&p| dot(axis(), p)).collect();
    for c in lb2..grid.topology.n_cells() {
        let (east, north) = east_north(grid.points.cell[c]);
        let gx = apply(grid, C::C2E2CO, &f.geofac_grg_x, &psi, c) * EARTH_RADIUS;
        let gy = apply(grid, C::C2E2CO, &f.geofac_grg_y, &psi, c) * EARTH_RADIUS;
        let err = (gx - dot(axis(), east)).hypot(gy - dot(axis(), north));
        assert!(err < 0.03, "cap cell {c}: {err}");
    }
}

#[test]
fn gradient_of_divergence_is_the_normal_gradient_of_the_divergence() {
    for (grid, f) in both() {
        let vn = random(grid.topology.n_edges(), 5);
        let div: Vec<f64> = (0..grid.topology.n_cells())
            .map(|c| apply(grid, C::C2E, &f.geofac_div, &vn, c))
            .collect();
        let expected = normal_gradient(grid, &div);
        let lb2 = start(grid, Location::Edge, Zone::LateralBoundary(2));
        for e in 0..grid.topology.n_edges() {
            let got = apply(grid, C::E2C2EO, &f.geofac_grdiv, &vn, e);
            if e < lb2 {
                assert_eq!(got, 0.0);
            } else {
                let scale = f.geofac_grdiv.row(e).iter().map(|x| x.abs()).sum::<f64>();
                assert!(
                    (got - expected[e]).abs() < 1e-13 * scale,
                    "{} edge {e}",
                    grid.name
                );
            }
        }
    }
}

/// Normal wind of the solid-body rotation at every edge.
fn solid_body_vn(grid: &Grid) -> Vec<f64> {
    (0..grid.topology.n_edges())
        .map(|e| {
            dot(
                solid_body(grid.points.edge[e]),
                grid.geometry.primal_normal_cartesian[e],
            )
        })
        .collect()
}

/// Largest error of the RBF tangential wind at edges (speeds ≤ 1).
fn rbf_edge_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let vn = solid_body_vn(grid);
    let lb2 = start(grid, Location::Edge, Zone::LateralBoundary(2));
    (lb2..grid.topology.n_edges())
        .map(|e| {
            let exact = dot(
                solid_body(grid.points.edge[e]),
                grid.geometry.dual_normal_cartesian[e],
            );
            (apply(grid, C::E2C2E, &f.rbf_vec_coeff_e, &vn, e) - exact).abs()
        })
        .fold(0.0, f64::max)
}

/// Largest error of an RBF (u, v) reconstruction at `points` through `conn`.
fn rbf_uv_error(
    grid: &Grid,
    conn: C,
    points: &[Vec3],
    c1: &SparseField,
    c2: &SparseField,
    from: usize,
) -> f64 {
    let vn = solid_body_vn(grid);
    (from..points.len())
        .map(|i| {
            let p = points[i];
            let (east, north) = east_north(p);
            let v = solid_body(p);
            let u = apply(grid, conn, c1, &vn, i);
            let w = apply(grid, conn, c2, &vn, i);
            (u - dot(v, east)).hypot(w - dot(v, north))
        })
        .fold(0.0, f64::max)
}

fn rbf_vertex_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let from = start(grid, Location::Vertex, Zone::LateralBoundary(2));
    let (c1, c2) = (&f.rbf_vec_coeff_v1, &f.rbf_vec_coeff_v2);
    rbf_uv_error(grid, C::V2E, &grid.points.vertex, c1, c2, from)
}

fn rbf_cell_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let from = start(grid, Location::Cell, Zone::LateralBoundary(2));
    let (c1, c2) = (&f.rbf_vec_coeff_c1, &f.rbf_vec_coeff_c2);
    rbf_uv_error(grid, C::C2E2C2E, &grid.points.cell, c1, c2, from)
}

#[test]
fn rbf_reconstructions_of_solid_body_rotation_converge() {
    let levels = [global(), r2b3(), r2b4()];
    let edge = levels.map(|(g, f)| rbf_edge_error(g, f));
    let vertex = levels.map(|(g, f)| rbf_vertex_error(g, f));
    let cell = levels.map(|(g, f)| rbf_cell_error(g, f));
    println!(
        "RBF max error r2b2..r2b4 (speed 1): edge {} vertex {} cell {}",
        fmt(&edge),
        fmt(&vertex),
        fmt(&cell)
    );
    for (name, e) in [("edge", edge), ("vertex", vertex), ("cell", cell)] {
        assert!(e[0] < 0.02, "{name}: {e:?}");
        assert!(
            e[0] / e[2] > 3.0,
            "{name}: error falls by {} over two bisections",
            e[0] / e[2]
        );
    }
    // The limited-area cap (cut from r2b4) is as accurate as r2b4.
    let (grid, f) = limited_area();
    assert!(rbf_edge_error(grid, f) < 1.5 * edge[2]);
    assert!(rbf_vertex_error(grid, f) < 1.5 * vertex[2]);
    assert!(rbf_cell_error(grid, f) < 1.5 * cell[2]);
}

#[test]
fn rbf_rows_reproduce_the_target_direction_and_skip_missing_slots() {
    for (grid, f) in both() {
        // Normalisation: a uniform field along the edge tangent is exact.
        let e2c2e = grid.topology.table(C::E2C2E);
        let g = &grid.geometry;
        let lb2 = start(grid, Location::Edge, Zone::LateralBoundary(2));
        for e in lb2..grid.topology.n_edges() {
            let t = g.dual_normal_cartesian[e];
            let s: f64 = (0..4)
                .map(|j| {
                    let n = g.primal_normal_cartesian[e2c2e.get(e, j) as usize];
                    f.rbf_vec_coeff_e.get(e, j) * dot(t, n)
                })
                .sum();
            assert!((s - 1.0).abs() < 1e-12, "{} edge {e}: {s}", grid.name);
        }
        let v2e = grid.topology.table(C::V2E);
        for v in 0..grid.topology.n_vertices() {
            for j in 0..6 {
                if v2e.neighbor(v, j).is_none() {
                    assert_eq!(f.rbf_vec_coeff_v1.get(v, j), 0.0);
                    assert_eq!(f.rbf_vec_coeff_v2.get(v, j), 0.0);
                }
            }
        }
    }
}

/// Largest |e_flx_avg(vn) − vn| of the solid-body rotation over the normalised edges.
fn flux_average_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let vn = solid_body_vn(grid);
    let lb5 = start(grid, Location::Edge, Zone::LateralBoundary(5));
    (lb5..grid.topology.n_edges())
        .map(|e| (apply(grid, C::E2C2EO, &f.e_flx_avg, &vn, e) - vn[e]).abs())
        .fold(0.0, f64::max)
}

#[test]
fn edge_flux_average_keeps_uniform_normal_flow_and_smooth_winds() {
    for (grid, f) in both() {
        let e2c2e = grid.topology.table(C::E2C2E);
        let n = &grid.geometry.primal_normal_cartesian;
        let lb4 = start(grid, Location::Edge, Zone::LateralBoundary(4));
        let lb5 = start(grid, Location::Edge, Zone::LateralBoundary(5));
        for e in 0..grid.topology.n_edges() {
            let row = f.e_flx_avg.row(e);
            if e < lb4 {
                assert!(row.iter().all(|&x| x == 0.0));
            } else if e >= lb5 {
                let kept = row[0]
                    + (0..4)
                        .map(|j| dot(n[e], n[e2c2e.get(e, j) as usize]) * row[1 + j])
                        .sum::<f64>();
                assert!((kept - 1.0).abs() < 1e-14, "{} edge {e}: {kept}", grid.name);
                assert!(
                    row[0] > 0.3 && row[0] < 1.0,
                    "{} edge {e}: {row:?}",
                    grid.name
                );
            }
        }
    }
    let errors = [global(), r2b3(), r2b4()].map(|(g, f)| flux_average_error(g, f));
    println!(
        "e_flx_avg of solid-body vn, max |avg − vn| r2b2..r2b4: {}",
        fmt(&errors)
    );
    // Second order: measured 2.2e-3, 5.6e-4, 1.4e-4.
    assert!(errors[0] / errors[2] > 10.0, "{errors:?}");
}

#[test]
fn cell_centres_lie_on_the_normal_through_the_edge_in_the_tangent_plane() {
    for (grid, f) in both() {
        let g = &grid.geometry;
        let e2c = grid.topology.table(C::E2C);
        for e in 0..grid.topology.n_edges() {
            for s in 0..2 {
                let (x, y) = (f.pos_on_tplane_e_x.get(e, s), f.pos_on_tplane_e_y.get(e, s));
                if e2c.neighbor(e, s).is_none() {
                    assert_eq!((x, y), (0.0, 0.0));
                    continue;
                }
                let d = g.edge_cell_distance[2 * e + s];
                // The circumcentres lie on the edge's perpendicular bisector: y = 0; the
                // first cell behind the normal, the second ahead; |x| = R tan(d/R) ≈ d.
                assert!(y.abs() < 1e-6 * d, "{} edge {e}: y {y}", grid.name);
                let signed = if s == 0 { -d } else { d };
                assert!(
                    (x / signed - 1.0).abs() < 1e-2,
                    "{} edge {e}: {x} vs {signed}",
                    grid.name
                );
                assert!(x.abs() >= d * (1.0 - 1e-12), "gnomonic: {x} vs {d}");
            }
        }
    }
}

/// Positions of a cell's three neighbours in its tangent plane (gnomonic, m).
fn neighbour_offsets(grid: &Grid, c: usize) -> [(f64, f64); 3] {
    let c2e2c = grid.topology.table(C::C2E2C);
    let p = grid.points.cell[c];
    let (east, north) = east_north(p);
    [0, 1, 2].map(|j| {
        let q = grid.points.cell[c2e2c.get(c, j) as usize];
        let s = EARTH_RADIUS / dot(p, q);
        (dot(q, east) * s, dot(q, north) * s)
    })
}

/// Largest error of the least-squares gradient of ψ = a·p relative to 1/R.
fn lsq_gradient_error(grid: &Grid, f: &InterpolationFields) -> f64 {
    let c2e2c = grid.topology.table(C::C2E2C);
    let lb2 = start(grid, Location::Cell, Zone::LateralBoundary(2));
    let psi: Vec<f64> = grid.points.cell.iter().map(|&p| dot(axis(), p)).collect();
    (lb2..grid.topology.n_cells())
        .map(|c| {
            let row = f.lsq_pseudoinv.row(c);
            let diff = [0, 1, 2].map(|j| psi[c2e2c.get(c, j) as usize] - psi[c]);
            let gx: f64 = (0..3).map(|j| row[j] * diff[j]).sum();
            let gy: f64 = (0..3).map(|j| row[3 + j] * diff[j]).sum();
            let (east, north) = east_north(grid.points.cell[c]);
            let (ex, ey) = (dot(axis(), east), dot(axis(), north));
            (gx * EARTH_RADIUS - ex).hypot(gy * EARTH_RADIUS - ey)
        })
        .fold(0.0, f64::max)
}

#[test]
fn least_squares_gradient_inverts_the_neighbour_offsets_and_converges() {
    for (grid, f) in both() {
        let lb2 = start(grid, Location::Cell, Zone::LateralBoundary(2));
        for c in 0..grid.topology.n_cells() {
            let row = f.lsq_pseudoinv.row(c);
            if c < lb2 {
                assert!(row.iter().all(|&x| x == 0.0));
                continue;
            }
            // Exact for functions linear in the tangent plane: Σ_j P[k, j] d_j = e_k.
            let d = neighbour_offsets(grid, c);
            let scale = d[0].0.hypot(d[0].1);
            for k in 0..2 {
                let px: f64 = (0..3).map(|j| row[3 * k + j] * d[j].0).sum();
                let py: f64 = (0..3).map(|j| row[3 * k + j] * d[j].1).sum();
                let want = if k == 0 { (1.0, 0.0) } else { (0.0, 1.0) };
                assert!(
                    (px - want.0).abs() < 1e-9 && (py - want.1).abs() < 1e-9,
                    "{} cell {c} (|d| {scale}): {px} {py}",
                    grid.name
                );
            }
        }
    }
    let errors = [global(), r2b3(), r2b4()].map(|(g, f)| lsq_gradient_error(g, f));
    println!(
        "least-squares gradient, max relative error r2b2..r2b4: {}",
        fmt(&errors)
    );
    assert!(errors[0] / errors[2] > 3.0, "{errors:?}");
}

#[test]
fn nudging_coefficient_is_zero_outside_the_nudging_zone() {
    let (grid, f) = global();
    assert!(f.nudgecoeff_e.iter().all(|&x| x == 0.0));
    let (grid_l, f_l) = limited_area();
    let zones = grid_l.zones.of(Location::Edge);
    let (ns, ne) = zones.range(Zone::Nudging(2)).unwrap();
    assert!(ne > ns, "the cap has a nudging zone");
    for (e, &x) in f_l.nudgecoeff_e.iter().enumerate() {
        if (ns..ne).contains(&e) {
            // First nudged row (refin_ctrl 10): the maximal coefficient.
            assert_eq!(zones.refin_ctrl()[e], 10);
            assert!((x - 0.375).abs() < 1e-15, "edge {e}: {x}");
        } else {
            assert_eq!(x, 0.0, "edge {e} (refin_ctrl {})", zones.refin_ctrl()[e]);
        }
    }
    let _ = grid;
}

#[test]
fn every_field_is_listed_under_icon4py_names_with_matching_shapes() {
    let (grid, f) = limited_area();
    let named = f.named();
    let expected = [
        "nudging_coefficients_for_edges",
        "geometrical_factor_for_divergence",
        "geometrical_factor_for_curl",
        "geometrical_factor_for_nabla_2_scalar",
        "geometrical_factor_for_gradient_of_divergence",
        "rbf_scale_cell",
        "rbf_scale_edge",
        "rbf_scale_vertex",
        "lsq_interpolation_coefficient",
        "bilinear_cell_average_weight",
        "bilinear_edge_cell_weight",
        "pos_on_tplane_e_x",
        "pos_on_tplane_e_y",
        "interpolation_coefficient_from_cell_to_edge",
        "geometrical_factor_for_green_gauss_gradient_x",
        "geometrical_factor_for_green_gauss_gradient_y",
        "e_flux_average",
        "cell_to_vertex_interpolation_factor_by_area_weighting",
        "rbf_interpolation_coefficient_cell_1",
        "rbf_interpolation_coefficient_cell_2",
        "rbf_interpolation_coefficient_edge",
        "rbf_interpolation_coefficient_vertex_1",
        "rbf_interpolation_coefficient_vertex_2",
    ];
    let names: Vec<&str> = named.iter().map(|n| n.name).collect();
    assert_eq!(names, expected);
    for n in &named {
        assert_eq!(n.dims.len(), n.shape.len(), "{}", n.name);
        assert_eq!(
            n.shape.iter().product::<usize>(),
            n.data.len(),
            "{}",
            n.name
        );
        if let Some(&h) = n.dims.first() {
            let loc = match h {
                "Cell" => Location::Cell,
                "Edge" => Location::Edge,
                _ => Location::Vertex,
            };
            assert_eq!(n.shape[0], grid.size(loc), "{}", n.name);
        }
        if let Some(conn) = n.dims.last().and_then(|d| C::from_name(d)) {
            assert_eq!(n.shape[n.shape.len() - 1], conn.width(), "{}", n.name);
        }
        assert!(n.data.iter().all(|x| x.is_finite()), "{}", n.name);
    }
}

#[test]
fn one_and_two_threads_give_the_same_bits() {
    for grid in [grids::global(), grids::limited_area()] {
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| fields(grid))
        };
        let (a, b) = (run(1), run(2));
        for (x, y) in a.named().iter().zip(b.named().iter()) {
            let bits = |d: &[f64]| d.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert!(bits(x.data) == bits(y.data), "{}: {}", grid.name, x.name);
        }
    }
}

#[test]
fn the_torus_gets_its_uniform_weights() {
    let grid = grids::torus();
    let f = fields(grid);
    assert!(f.e_bln_c_s.as_slice().iter().all(|&x| x == 1.0 / 3.0));
    assert!(f
        .c_lin_e
        .as_slice()
        .iter()
        .all(|&x| (x - 0.5).abs() < 1e-12));
    let dual = grid.geometry.dual_edge_length[0];
    assert!((f.rbf_scale_edge - dual).abs() < 1e-9 * dual);
    // Uniform flow is reconstructed exactly enough at edges and vertices.
    let u = [0.6, -0.8, 0.0];
    let g = &grid.geometry;
    let vn: Vec<f64> = g
        .primal_normal_cartesian
        .iter()
        .map(|&n| dot(u, n))
        .collect();
    for e in 0..grid.topology.n_edges() {
        let vt = apply(grid, C::E2C2E, &f.rbf_vec_coeff_e, &vn, e);
        assert!(
            (vt - dot(u, g.dual_normal_cartesian[e])).abs() < 1e-9,
            "edge {e}"
        );
        let x = f.pos_on_tplane_e_x.row(e);
        assert!((x[0] + dual / 2.0).abs() < 1e-6 && (x[1] - dual / 2.0).abs() < 1e-6);
    }
    for v in 0..grid.topology.n_vertices() {
        let a = apply(grid, C::V2E, &f.rbf_vec_coeff_v1, &vn, v);
        let b = apply(grid, C::V2E, &f.rbf_vec_coeff_v2, &vn, v);
        assert!(
            (a - u[0]).abs() < 1e-9 && (b - u[1]).abs() < 1e-9,
            "vertex {v}: {a} {b}"
        );
    }
    let psi = random(grid.topology.n_cells(), 6);
    let grad = normal_gradient(grid, &psi);
    for v in 0..grid.topology.n_vertices() {
        assert!(apply(grid, C::V2E, &f.geofac_rot, &grad, v).abs() < 1e-15);
    }
}

#[test]
fn a_limited_area_grid_without_its_zones_is_an_error_not_a_panic() {
    let mut grid = grids::limited_area().clone();
    let t = &grid.topology;
    grid.zones = Zones {
        cell: LocationZones::global(Location::Cell, t.n_cells()),
        edge: LocationZones::global(Location::Edge, t.n_edges()),
        vertex: LocationZones::global(Location::Vertex, t.n_vertices()),
    };
    let err = InterpolationFields::compute(&grid, &InterpolationConfig::default()).unwrap_err();
    match &err {
        InterpolationError::MissingNeighbour {
            field,
            connectivity,
            index,
            from,
        } => {
            assert_eq!((*field, *connectivity), ("c_lin_e", C::E2C));
            assert_eq!(*from, Zone::LateralBoundary(2));
            assert!(grid.topology.table(C::E2C).neighbor(*index, 1).is_none());
        }
        other => panic!("unexpected {other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("c_lin_e") && message.contains("E2C"),
        "{message}"
    );
}

#[test]
fn invalid_configurations_are_rejected() {
    let grid = grids::global();
    for config in [
        InterpolationConfig {
            divergence_averaging_central_cell_weight: 1.5,
            ..Default::default()
        },
        InterpolationConfig {
            nudge_efold_width: 0.0,
            ..Default::default()
        },
        InterpolationConfig {
            c_bln_avg_iterations: 0,
            ..Default::default()
        },
    ] {
        let err = InterpolationFields::compute(grid, &config).unwrap_err();
        assert!(
            matches!(err, InterpolationError::InvalidConfig { .. }),
            "{err}"
        );
    }
}

/// Times every field on R2B6 (release build, this machine):
/// `cargo test --release -p foehn-icon --test fields_interpolation -- --ignored --nocapture`.
#[test]
#[ignore]
fn timing_r2b6() {
    use std::time::Instant;
    let t = Instant::now();
    let grid = Grid::icosahedral(2, 6, EARTH_RADIUS).unwrap();
    println!("r2b6 grid: {:.2} s", t.elapsed().as_secs_f64());
    let config = InterpolationConfig::default();
    let t = Instant::now();
    let f = InterpolationFields::compute(&grid, &config).unwrap();
    println!(
        "r2b6 interpolation fields ({} threads): {:.2} s",
        rayon::current_num_threads(),
        t.elapsed().as_secs_f64()
    );
    use foehn_icon::fields::interpolation::{geofac, nudging, rbf, tangent_plane, weights};
    let time = |name: &str, run: &dyn Fn()| {
        let t = Instant::now();
        run();
        println!("  {name}: {:.3} s", t.elapsed().as_secs_f64());
    };
    time("c_lin_e", &|| drop(weights::c_lin_e(&grid)));
    time("e_bln_c_s", &|| drop(weights::e_bln_c_s(&grid)));
    time("c_bln_avg", &|| drop(weights::c_bln_avg(&grid, &config)));
    time("cells_aw_verts", &|| drop(weights::cells_aw_verts(&grid)));
    time("e_flx_avg", &|| {
        drop(weights::e_flx_avg(&grid, &f.c_bln_avg, &f.geofac_div))
    });
    time("geofac_*", &|| {
        let d = geofac::div(&grid);
        drop(geofac::rot(&grid));
        drop(geofac::n2s(&grid, &d));
        drop(geofac::grg(&grid, &d, &f.c_lin_e));
        drop(geofac::grdiv(&grid, &d));
    });
    let s = rbf::default_scales(&grid);
    time("rbf_vec_coeff_e", &|| {
        drop(rbf::edge_coefficients(
            &grid,
            config.rbf_kernel_edge,
            s.edge,
        ))
    });
    time("rbf_vec_coeff_v", &|| {
        drop(rbf::vertex_coefficients(
            &grid,
            config.rbf_kernel_vertex,
            s.vertex,
        ))
    });
    time("rbf_vec_coeff_c", &|| {
        drop(rbf::cell_coefficients(
            &grid,
            config.rbf_kernel_cell,
            s.cell,
        ))
    });
    time("pos_on_tplane_e", &|| {
        drop(tangent_plane::pos_on_tplane_e(&grid))
    });
    time("nudgecoeff_e", &|| {
        drop(nudging::nudgecoeff_e(&grid, &config))
    });
}

/// Writes the grid inputs and the fields of R2B2 and the cap as raw little-endian arrays
/// for `fields_interpolation_parity.py`, which runs ICON4Py's own NumPy functions on
/// them and compares (needs NumPy and a copy of ICON4Py):
/// `FOEHN_PARITY_DIR=/tmp/parity cargo test -p foehn-icon --test fields_interpolation -- --ignored dump_for_icon4py_parity`,
/// then `python3 crates/icon/tests/fields_interpolation_parity.py /tmp/parity ICON4PY_GIT_DIR`.
#[test]
#[ignore]
fn dump_for_icon4py_parity() {
    use std::io::Write;
    let root = std::env::var("FOEHN_PARITY_DIR").unwrap_or("/tmp/foehn-interp-parity".into());
    for (grid, f, tag) in [
        (&global().0, &global().1, "r2b2"),
        (&limited_area().0, &limited_area().1, "lam"),
    ] {
        let dir = format!("{root}/{tag}");
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, bytes: Vec<u8>| {
            std::fs::File::create(format!("{dir}/{name}"))
                .and_then(|mut f| f.write_all(&bytes))
                .unwrap()
        };
        let f64s = |name: &str, x: &[f64]| {
            write(
                &format!("{name}.f64"),
                x.iter().flat_map(|v| v.to_le_bytes()).collect(),
            )
        };
        let i32s = |name: &str, x: &[i32]| {
            write(
                &format!("{name}.i32"),
                x.iter().flat_map(|v| v.to_le_bytes()).collect(),
            )
        };
        let (g, t) = (&grid.geometry, &grid.topology);
        for c in C::ALL {
            i32s(c.name(), t.table(c).as_slice());
        }
        for (n, v) in [
            ("cell_lat", &g.cell_lat),
            ("cell_lon", &g.cell_lon),
            ("cell_area", &g.cell_area),
            ("cell_edge_orientation", &g.cell_edge_orientation),
            ("edge_lat", &g.edge_lat),
            ("edge_lon", &g.edge_lon),
            ("primal_edge_length", &g.primal_edge_length),
            ("dual_edge_length", &g.dual_edge_length),
            ("inv_dual_edge_length", &g.inv_dual_edge_length),
            ("primal_normal_x", &g.primal_normal_x),
            ("primal_normal_y", &g.primal_normal_y),
            ("dual_normal_x", &g.dual_normal_x),
            ("dual_normal_y", &g.dual_normal_y),
            ("primal_normal_cell_x", &g.primal_normal_cell_x),
            ("primal_normal_cell_y", &g.primal_normal_cell_y),
            ("edge_cell_distance", &g.edge_cell_distance),
            ("edge_vert_distance", &g.edge_vert_distance),
            ("vertex_lat", &g.vertex_lat),
            ("vertex_lon", &g.vertex_lon),
            ("dual_area", &g.dual_area),
            ("vertex_edge_orientation", &g.vertex_edge_orientation),
        ] {
            f64s(n, v);
        }
        let flat = |p: &[Vec3]| p.iter().flatten().copied().collect::<Vec<f64>>();
        f64s("primal_cart", &flat(&g.primal_normal_cartesian));
        f64s("cell_xyz", &flat(&grid.points.cell));
        f64s("edge_xyz", &flat(&grid.points.edge));
        f64s("vertex_xyz", &flat(&grid.points.vertex));
        let z = |l: Location, zone: Zone| grid.zones.of(l).start(zone).unwrap() as i32;
        let local = |l: Location| grid.zones.of(l).end(Zone::Local).unwrap() as i32;
        i32s(
            "starts",
            &[
                z(Location::Cell, Zone::LateralBoundary(2)),
                z(Location::Cell, Zone::LateralBoundary(3)),
                z(Location::Edge, Zone::LateralBoundary(2)),
                z(Location::Edge, Zone::LateralBoundary(4)),
                z(Location::Edge, Zone::LateralBoundary(5)),
                z(Location::Vertex, Zone::LateralBoundary(2)),
                local(Location::Cell),
                local(Location::Edge),
                local(Location::Vertex),
                t.n_cells() as i32,
                t.n_edges() as i32,
                t.n_vertices() as i32,
            ],
        );
        for n in f.named() {
            f64s(&format!("out_{}", n.icon_name), n.data);
        }
    }
}
