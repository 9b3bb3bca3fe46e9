//! Zones: contiguous ranges that cover every point once; limited-area rows.

use foehn_grid::{Connectivity as C, Grid, GridSpec, Location, Zone, EARTH_RADIUS};

fn lam() -> Grid {
    GridSpec::parse("r2b4:cap:46,8,1500")
        .unwrap()
        .build()
        .unwrap()
}

fn check_cover(g: &Grid) {
    for loc in Location::ALL {
        let z = g.zones.of(loc);
        let n = g.size(loc);
        // Boundary rows, nudging rows and interior tile [0, n) in order.
        let mut cursor = 0;
        for zone in Zone::all(loc) {
            if matches!(zone, Zone::Local | Zone::Halo(_) | Zone::End) {
                continue;
            }
            let (s, e) = z.range(zone).unwrap();
            assert!(s <= e, "{} {loc} {zone}: [{s}, {e})", g.name);
            if e > s {
                assert_eq!(
                    s, cursor,
                    "{} {loc} {zone} is not contiguous with the previous zone",
                    g.name
                );
                cursor = e;
            }
            for i in s..e {
                match zone.refin_value(loc) {
                    Some(r) => assert_eq!(z.refin_ctrl()[i], r),
                    None => assert_eq!(z.refin_ctrl()[i], 0),
                }
            }
        }
        assert_eq!(
            cursor, n,
            "{} {loc}: zones do not cover every point",
            g.name
        );
        assert_eq!(z.range(Zone::Local).unwrap(), (0, n));
        assert_eq!(z.range(Zone::End).unwrap(), (n, n));
    }
}

#[test]
fn global_grids_have_empty_boundary_zones() {
    let g = Grid::icosahedral(2, 2, EARTH_RADIUS).unwrap();
    check_cover(&g);
    assert!(!g.is_limited_area());
    for loc in Location::ALL {
        for lb in 1..=Zone::boundary_rows(loc) {
            assert_eq!(
                g.zones.of(loc).range(Zone::LateralBoundary(lb)).unwrap(),
                (0, 0)
            );
        }
        assert_eq!(
            g.zones.of(loc).range(Zone::Interior).unwrap(),
            (0, g.size(loc))
        );
    }
}

#[test]
fn limited_area_zones_are_sorted_contiguous_and_complete() {
    let g = lam();
    assert!(g.is_limited_area());
    check_cover(&g);
    let t = &g.topology;
    for loc in Location::ALL {
        for zone in Zone::all(loc)
            .into_iter()
            .filter(|z| z.refin_value(loc).is_some())
        {
            let (s, e) = g.zones.of(loc).range(zone).unwrap();
            assert!(e > s, "{loc} {zone} is empty");
        }
    }
    // Edge NUDGING_LEVEL_2 .. LOCAL end is one contiguous range ending at n_edges.
    let ez = &g.zones.edge;
    assert_eq!(
        ez.start(Zone::Nudging(2)).unwrap(),
        ez.end(Zone::Nudging(1)).unwrap()
    );
    assert_eq!(
        ez.end(Zone::Nudging(2)).unwrap(),
        ez.start(Zone::Interior).unwrap()
    );
    // The outermost edge row closes a loop around the region: as many edges as vertices.
    let lb1 = |loc| {
        let (s, e) = g.zones.of(loc).range(Zone::LateralBoundary(1)).unwrap();
        e - s
    };
    assert_eq!(lb1(Location::Edge), lb1(Location::Vertex));
    // Edge row 2 lies between two row-1 cells: a closed strip has as many as it has cells.
    let (s2, e2) = ez.range(Zone::LateralBoundary(2)).unwrap();
    assert_eq!(e2 - s2, lb1(Location::Cell));
    // Skip values exist only at the boundary row.
    let (_, lb1_edges) = ez.range(Zone::LateralBoundary(1)).unwrap();
    for e in 0..t.n_edges() {
        let boundary = t.table(C::E2C).neighbor(e, 1).is_none();
        assert_eq!(boundary, e < lb1_edges, "edge {e}");
    }
    let (_, lb1_cells) = g.zones.cell.range(Zone::LateralBoundary(1)).unwrap();
    for c in lb1_cells..t.n_cells() {
        for conn in [C::C2E2C, C::C2E2CO, C::C2E2C2E] {
            assert!(
                t.table(conn).row(c).iter().all(|&x| x >= 0),
                "cell {c} {conn}"
            );
        }
    }
    // A row-r cell touches a vertex of row r and none of a lower row.
    for c in 0..t.n_cells() {
        let r = g.zones.cell.refin_ctrl()[c];
        if r > 0 {
            let min = t
                .table(C::C2V)
                .row(c)
                .iter()
                .map(|&v| g.zones.vertex.refin_ctrl()[v as usize])
                .filter(|&x| x > 0)
                .min();
            assert_eq!(min, Some(r), "cell {c}");
        }
    }
}

#[test]
fn icon_start_end_arrays_use_icon_positions() {
    let g = lam();
    let (start, end) = g.zones.cell.icon_arrays();
    assert_eq!(start.len(), 14);
    let (s, e) = g.zones.cell.range(Zone::Nudging(1)).unwrap();
    assert_eq!((start[13], end[13]), (s as i32 + 1, e as i32));
    assert_eq!(start[9], 1); // LATERAL_BOUNDARY begins at index 1 (Fortran)
    assert_eq!(end[4], g.size(Location::Cell) as i32); // LOCAL
    let (es, ee) = g.zones.edge.icon_arrays();
    assert_eq!(es.len(), 24);
    let (s, e) = g.zones.edge.range(Zone::Nudging(2)).unwrap();
    assert_eq!((es[23], ee[23]), (s as i32 + 1, e as i32));
    assert_eq!(g.zones.vertex.icon_arrays().0.len(), 13);
}

#[test]
fn zone_names_parse_and_print() {
    for loc in Location::ALL {
        for z in Zone::all(loc) {
            assert_eq!(z.to_string().parse::<Zone>().unwrap(), z);
        }
    }
    assert!("NUDGE"
        .parse::<Zone>()
        .unwrap_err()
        .to_string()
        .contains("unknown zone `NUDGE`"));
}

#[test]
fn bad_grid_names_and_regions_are_clear_errors() {
    for bad in [
        "r2",
        "x2b4",
        "torus_100mx",
        "r2b4:cap:1,2",
        "r2b4:circle:1,2,3",
    ] {
        let msg = GridSpec::parse(bad).unwrap_err().to_string();
        assert!(
            msg.contains(&format!("unknown grid `{bad}`")) && msg.contains("expected"),
            "{msg}"
        );
    }
    let tiny = GridSpec::parse("r2b2:cap:0,0,100")
        .unwrap()
        .build()
        .unwrap_err()
        .to_string();
    assert!(tiny.contains("only") && tiny.contains("cells"), "{tiny}");
    assert!(Grid::icosahedral(0, 1, EARTH_RADIUS).is_err());
    assert!(Grid::torus(1000.0, 1000.0, 0.0).is_err());
}
