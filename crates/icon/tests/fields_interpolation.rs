//! The interpolation fields computed from the grid (issue 13, item 4) on the global
//! R2B2 grid (with its 12 pentagons), finer global grids and the limited-area cap:
//! weights that must sum to one do; the discrete operators keep the identities ICON's
//! operators are built for (divergence theorem, curl of a gradient, divergence of a
//! curl, Laplacian of a constant); the Green–Gauss gradient, the Laplacian and the RBF
//! reconstructions converge on smooth fields at the measured rate; the limited-area
//! zones are honoured; the result does not depend on the number of threads.

// Loops run over point indices that address several fields at once.
#![allow(clippy::needless_range_loop)]

mod interpolation_support;

#[allow(unused_imports)]
use foehn_grid::{Connectivity as C, Grid, Location, LocationZones, Zone, Zones, EARTH_RADIUS};
#[allow(unused_imports)]
use foehn_icon::fields::interpolation::{
    InterpolationConfig, InterpolationError, InterpolationFields, SparseField,
};
#[allow(unused_imports)]
use foehn_testkit::{grids, SplitMix64};
use interpolation_support::*;

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
    let names: Vec<&str> = named.iter().map(|n| n.name).collect();
    assert_eq!(names, INTERPOLATION_NAMES);
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
        let data = n.data.as_f64().expect("interpolation fields are float64");
        assert!(data.iter().all(|x| x.is_finite()), "{}", n.name);
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
            let (x_data, y_data) = (x.data.as_f64().unwrap(), y.data.as_f64().unwrap());
            assert!(bits(x_data) == bits(y_data), "{}: {}", grid.name, x.name);
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
            f64s(&format!("out_{}", n.icon_name), n.data.as_f64().unwrap());
        }
    }
}
