//! Structural properties of generated grids: counts, Euler characteristic,
//! mutually consistent neighbour tables, ICON orderings.

use foehn_grid::generate::icosahedral_counts;
use foehn_grid::{Connectivity as C, Grid, GridSpec, Location, EARTH_RADIUS, SKIP};

fn grids() -> Vec<Grid> {
    vec![
        Grid::icosahedral(1, 1, EARTH_RADIUS).unwrap(),
        Grid::icosahedral(2, 2, EARTH_RADIUS).unwrap(),
        Grid::icosahedral(3, 1, EARTH_RADIUS).unwrap(),
        Grid::torus(20000.0, 20000.0, 1000.0).unwrap(),
        GridSpec::parse("r2b4:cap:45,10,1500")
            .unwrap()
            .build()
            .unwrap(),
    ]
}

#[test]
fn icosahedral_counts_match_formula_and_fixed_points() {
    assert_eq!(icosahedral_counts(2, 4), (20480, 30720, 10242));
    assert_eq!(icosahedral_counts(2, 6), (327680, 491520, 163842));
    assert_eq!(icosahedral_counts(2, 7), (1310720, 1966080, 655362));
    for (root, bis) in [
        (1, 1),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
        (2, 4),
        (3, 0),
        (5, 1),
    ] {
        let g = Grid::icosahedral(root, bis, EARTH_RADIUS).unwrap();
        let t = &g.topology;
        assert_eq!(
            (t.n_cells(), t.n_edges(), t.n_vertices()),
            icosahedral_counts(root, bis),
            "R{root}B{bis}"
        );
        // Euler characteristic of the sphere.
        assert_eq!(
            t.n_vertices() as i64 - t.n_edges() as i64 + t.n_cells() as i64,
            2
        );
    }
}

#[test]
fn torus_matches_icon4py_reference_grid() {
    let g = Grid::torus(100000.0, 100000.0, 1000.0).unwrap();
    let t = &g.topology;
    assert_eq!(
        (t.n_cells(), t.n_edges(), t.n_vertices()),
        (23200, 34800, 11600)
    );
    assert_eq!(
        t.n_vertices() as i64 - t.n_edges() as i64 + t.n_cells() as i64,
        0
    );
    assert_eq!(g.name, "torus_100000mx100000m_res1000m");
}

#[test]
fn closed_grids_have_two_cells_per_edge_and_no_skips_outside_pentagons() {
    for g in grids().into_iter().filter(|g| !g.is_limited_area()) {
        let t = &g.topology;
        for conn in [
            C::E2C,
            C::E2V,
            C::C2E,
            C::C2V,
            C::C2E2C,
            C::C2E2CO,
            C::E2C2V,
            C::E2C2E,
            C::E2C2EO,
            C::C2E2C2E,
            C::C2E2C2E2C,
        ] {
            assert_eq!(t.table(conn).skip_count(), 0, "{} {conn}", g.name);
        }
        // Pentagons: exactly 12 vertices with 5 neighbours on the sphere, none on the torus.
        let pentagons = (0..t.n_vertices())
            .filter(|&v| t.table(C::V2E).get(v, 5) == SKIP)
            .count();
        assert_eq!(
            pentagons,
            if g.space.is_sphere() { 12 } else { 0 },
            "{}",
            g.name
        );
        for v in 0..t.n_vertices() {
            let n = t.table(C::V2E).valid(v).count();
            assert_eq!(n, t.table(C::V2C).valid(v).count());
            assert_eq!(n, t.table(C::V2E2V).valid(v).count());
        }
    }
}

#[test]
fn tables_are_mutually_consistent() {
    for g in grids() {
        let t = &g.topology;
        let (e2c, c2e, e2v, v2e, c2v, v2c) = (
            t.table(C::E2C),
            t.table(C::C2E),
            t.table(C::E2V),
            t.table(C::V2E),
            t.table(C::C2V),
            t.table(C::V2C),
        );
        for e in 0..t.n_edges() {
            for c in e2c.valid(e) {
                assert!(
                    c2e.row(c).contains(&(e as i32)),
                    "{}: E2C/C2E edge {e}",
                    g.name
                );
            }
            for v in e2v.valid(e) {
                assert!(
                    v2e.row(v).contains(&(e as i32)),
                    "{}: E2V/V2E edge {e}",
                    g.name
                );
            }
            assert!(e2c.neighbor(e, 0).is_some());
        }
        for c in 0..t.n_cells() {
            assert_eq!(c2e.valid(c).count(), 3);
            for (i, e) in c2e.valid(c).enumerate() {
                assert!(e2c.row(e).contains(&(c as i32)));
                // Edge i joins vertices i and i+1.
                let mut ev = [e2v.get(e, 0), e2v.get(e, 1)];
                let mut cv = [c2v.get(c, i), c2v.get(c, (i + 1) % 3)];
                ev.sort();
                cv.sort();
                assert_eq!(ev, cv, "{}: C2E/C2V order in cell {c}", g.name);
            }
            for v in c2v.valid(c) {
                assert!(v2c.row(v).contains(&(c as i32)));
            }
            // C2E2C is symmetric and lies across the matching edge.
            for (i, n) in t.table(C::C2E2C).row(c).iter().enumerate() {
                if *n >= 0 {
                    let n = *n as usize;
                    assert!(t.table(C::C2E2C).row(n).contains(&(c as i32)));
                    assert!(c2e.row(n).contains(&c2e.get(c, i)));
                }
            }
            assert_eq!(t.table(C::C2E2CO).get(c, 0), c as i32);
        }
        for v in 0..t.n_vertices() {
            for e in v2e.valid(v) {
                assert!(e2v.row(e).contains(&(v as i32)));
            }
            // V2C[i] lies between V2E[i] and V2E[i+1].
            let edges: Vec<usize> = v2e.valid(v).collect();
            for (i, c) in v2c.valid(v).enumerate() {
                assert!(c2e.row(c).contains(&(edges[i] as i32)));
                assert!(c2e.row(c).contains(&(edges[(i + 1) % edges.len()] as i32)));
            }
        }
    }
}

#[test]
fn diamond_orderings_follow_icon() {
    for g in grids() {
        let t = &g.topology;
        for e in 0..t.n_edges() {
            let d = t.table(C::E2C2V).row(e);
            assert_eq!(&d[..2], t.table(C::E2V).row(e));
            for s in 0..2 {
                if let Some(c) = t.table(C::E2C).neighbor(e, s) {
                    let cv = t.table(C::C2V).row(c);
                    assert!(cv.contains(&d[2 + s]) && !d[..2].contains(&d[2 + s]));
                    // E2C2E: [[1,2],[2,0],[0,1]][position of e in C2E of c]
                    let ce = t.table(C::C2E).row(c);
                    let p = ce.iter().position(|&x| x == e as i32).unwrap();
                    let pairs = [[1, 2], [2, 0], [0, 1]][p];
                    assert_eq!(t.table(C::E2C2E).get(e, 2 * s), ce[pairs[0]]);
                    assert_eq!(t.table(C::E2C2E).get(e, 2 * s + 1), ce[pairs[1]]);
                }
            }
            assert_eq!(t.table(C::E2C2EO).get(e, 0), e as i32);
            assert_eq!(&t.table(C::E2C2EO).row(e)[1..], t.table(C::E2C2E).row(e));
        }
        for c in 0..t.n_cells() {
            let nbrs = t.table(C::C2E2C).row(c);
            for (j, &n) in nbrs.iter().enumerate() {
                let edges = &t.table(C::C2E2C2E).row(c)[3 * j..3 * j + 3];
                let cells = &t.table(C::C2E2C2E2C).row(c)[3 * j..3 * j + 3];
                if n >= 0 {
                    assert_eq!(edges, t.table(C::C2E).row(n as usize));
                    assert_eq!(cells, t.table(C::C2E2C).row(n as usize));
                }
            }
        }
    }
}

#[test]
fn skip_values_can_be_replaced_by_last_valid_neighbour() {
    let g = Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap();
    let v2e = g.topology.table(C::V2E);
    let filled = v2e.with_skips_replaced();
    assert_eq!(filled.skip_count(), 0);
    for v in 0..v2e.rows() {
        let last = v2e.valid(v).last().unwrap() as i32;
        for j in 0..6 {
            let want = if v2e.get(v, j) == SKIP {
                last
            } else {
                v2e.get(v, j)
            };
            assert_eq!(filled.get(v, j), want);
        }
    }
}

#[test]
fn recursive_order_keeps_neighbours_close() {
    let g = Grid::icosahedral(2, 4, EARTH_RADIUS).unwrap();
    let loc = foehn_grid::info::locality(&g);
    // A random order would give about n/3 ≈ 10000; recursive subdivision keeps it small.
    assert!(loc < 0.02 * g.size(Location::Edge) as f64, "locality {loc}");
}
