//! ICON grid files: bit-identical round trips, deterministic output, and clear errors
//! for missing variables, wrong shapes, bad indices and damaged files.
#![cfg(feature = "netcdf")]

use foehn_grid::io::{read_grid, write_grid};
use foehn_grid::{Connectivity as C, Grid, GridError, GridKind, GridSpec, Location, EARTH_RADIUS};
use std::path::{Path, PathBuf};

fn assert_same(back: &Grid, grid: &Grid) {
    assert_eq!(back.name, grid.name);
    assert_eq!(back.kind, grid.kind);
    assert_eq!(back.space, grid.space);
    assert_eq!(back.zones, grid.zones);
    assert!(back.topology == grid.topology, "topology differs");
    assert!(back.points == grid.points, "points differ");
    assert!(back.geometry == grid.geometry, "geometry differs");
    assert!(back == grid);
}

/// Writes and reads back in a fresh directory; checks that no temporary file is left.
fn round_trip(grid: &Grid) -> Grid {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grid.nc");
    write_grid(grid, &path).unwrap();
    let entries: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, vec![std::ffi::OsString::from("grid.nc")]);
    read_grid(&path).unwrap()
}

#[test]
fn icosahedral_round_trip_is_bit_identical() {
    let grid = Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap();
    assert_same(&round_trip(&grid), &grid);
}

#[test]
fn torus_round_trip_is_bit_identical() {
    let grid = Grid::torus(20000.0, 20000.0, 1000.0).unwrap();
    assert!(matches!(grid.kind, GridKind::Torus(_)));
    assert_same(&round_trip(&grid), &grid);
}

#[test]
fn limited_area_round_trip_is_bit_identical() {
    let grid = GridSpec::parse("r2b4:cap:45,10,1500")
        .unwrap()
        .build()
        .unwrap();
    assert!(grid.is_limited_area());
    let back = round_trip(&grid);
    assert!(back.is_limited_area());
    assert_same(&back, &grid);
}

#[test]
fn writing_is_deterministic_and_replaces_files() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.nc"), dir.path().join("b.nc"));
    let grid = Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap();
    write_grid(&Grid::icosahedral(1, 0, EARTH_RADIUS).unwrap(), &a).unwrap();
    // Replaces the smaller grid.
    write_grid(&grid, &a).unwrap();
    // Across a clock-second boundary: no timestamps may end up in the file.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    write_grid(&grid, &b).unwrap();
    let (bytes_a, bytes_b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert!(bytes_a == bytes_b, "two writes of one grid differ");
    assert_same(&read_grid(&a).unwrap(), &grid);
    // A different grid gets a different uuidOfHGrid.
    let other = Grid::icosahedral(2, 1, 1.0).unwrap();
    write_grid(&other, &b).unwrap();
    let uuid = |p: &Path| {
        let f = netcdf::open(p).unwrap();
        String::try_from(f.attribute("uuidOfHGrid").unwrap().value().unwrap()).unwrap()
    };
    assert_ne!(uuid(&a), uuid(&b));
    assert_eq!(uuid(&a).len(), 36);
}

#[test]
fn icon_layout_tables_are_transposed_and_one_based() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r2b0.nc");
    let grid = Grid::icosahedral(2, 0, EARTH_RADIUS).unwrap();
    write_grid(&grid, &path).unwrap();
    let f = netcdf::open(&path).unwrap();
    let var = f.variable("vertex_of_cell").unwrap();
    let dims: Vec<_> = var
        .dimensions()
        .iter()
        .map(|d| (d.name(), d.len()))
        .collect();
    assert_eq!(dims, vec![("nv".to_string(), 3), ("cell".to_string(), 80)]);
    let data: Vec<i32> = var.get_values(..).unwrap();
    let c2v = grid.topology.table(C::C2V);
    assert_eq!(data[80 + 7], c2v.get(7, 1) + 1);
    let cells_of_vertex: Vec<i32> = f
        .variable("cells_of_vertex")
        .unwrap()
        .get_values(..)
        .unwrap();
    let pentagon =
        (0..grid.size(Location::Vertex)).find(|&v| grid.topology.table(C::V2C).get(v, 5) < 0);
    let n_vertices = grid.size(Location::Vertex);
    assert_eq!(cells_of_vertex[5 * n_vertices + pentagon.unwrap()], 0);
    assert_eq!(f.dimension_len("edge_grf"), Some(24));
    let geometry: i32 = f
        .attribute("grid_geometry")
        .unwrap()
        .value()
        .unwrap()
        .try_into()
        .unwrap();
    assert_eq!(geometry, 1);
}

/// How [`write_icon_like`] spoils the file.
#[derive(Default)]
struct Spoil {
    omit: Option<&'static str>,
    short: Option<&'static str>,
    bad_index: Option<&'static str>,
}

const TABLES: [(&str, C, &str); 8] = [
    ("vertex_of_cell", C::C2V, "nv"),
    ("edge_of_cell", C::C2E, "nv"),
    ("neighbor_cell_index", C::C2E2C, "nv"),
    ("adjacent_cell_of_edge", C::E2C, "nc"),
    ("edge_vertices", C::E2V, "nc"),
    ("edges_of_vertex", C::V2E, "ne"),
    ("cells_of_vertex", C::V2C, "ne"),
    ("vertices_of_vertex", C::V2E2V, "ne"),
];

fn dim(loc: Location) -> &'static str {
    match loc {
        Location::Cell => "cell",
        Location::Edge => "edge",
        Location::Vertex => "vertex",
    }
}

/// A minimal grid file as older ICON tools write it: tables `(cell, nv)` (row-major),
/// positions only as lat/lon in degrees, no zones, no foehn attributes.
fn write_icon_like(grid: &Grid, path: &Path, spoil: &Spoil) {
    let mut f = netcdf::create_with(path, netcdf::Options::_64BIT_OFFSET).unwrap();
    for loc in Location::ALL {
        f.add_dimension(dim(loc), grid.size(loc)).unwrap();
    }
    for (name, len) in [
        ("nv", 3),
        ("ne", 6),
        ("nc", 2),
        ("short", grid.size(Location::Cell) - 1),
    ] {
        f.add_dimension(name, len).unwrap();
    }
    f.add_attribute("grid_root", 2i32).unwrap();
    f.add_attribute("grid_level", 1i32).unwrap();
    let g = &grid.geometry;
    let positions = [
        ("clon", "cell", &g.cell_lon),
        ("clat", "cell", &g.cell_lat),
        ("elon", "edge", &g.edge_lon),
        ("elat", "edge", &g.edge_lat),
        ("vlon", "vertex", &g.vertex_lon),
        ("vlat", "vertex", &g.vertex_lat),
    ];
    let mut reals = Vec::new();
    for (name, d, values) in positions {
        let mut var = f.add_variable::<f64>(name, &[d]).unwrap();
        var.put_attribute("units", "degrees").unwrap();
        reals.push((
            name,
            values.iter().map(|x| x.to_degrees()).collect::<Vec<f64>>(),
        ));
    }
    let mut ints = Vec::new();
    for (name, conn, width_dim) in TABLES {
        if spoil.omit == Some(name) {
            continue;
        }
        let table = grid.topology.table(conn);
        let mut data: Vec<i32> = table.as_slice().iter().map(|&v| v + 1).collect();
        let rows = if spoil.short == Some(name) {
            "short"
        } else {
            dim(conn.from())
        };
        if rows == "short" {
            data.truncate(data.len() - table.width());
        }
        if spoil.bad_index == Some(name) {
            data[10] = grid.size(conn.to()) as i32 + 1;
        }
        f.add_variable::<i32>(name, &[rows, width_dim]).unwrap();
        ints.push((name, data));
    }
    f.enddef().unwrap();
    for (name, data) in reals {
        f.variable_mut(name).unwrap().put_values(&data, ..).unwrap();
    }
    for (name, data) in ints {
        f.variable_mut(name).unwrap().put_values(&data, ..).unwrap();
    }
    f.close().unwrap();
}

fn icon_like(spoil: &Spoil) -> (tempfile::TempDir, PathBuf, Grid) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("icon_like.nc");
    let grid = Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap();
    write_icon_like(&grid, &path, spoil);
    (dir, path, grid)
}

#[test]
fn reads_cell_major_tables_and_lat_lon_positions() {
    let (_dir, path, grid) = icon_like(&Spoil::default());
    let back = read_grid(&path).unwrap();
    assert_eq!(back.topology, grid.topology);
    assert_eq!(
        back.kind,
        GridKind::Icosahedral {
            root: 2,
            bisections: 1
        }
    );
    assert_eq!(back.name, "r2b1");
    assert_eq!(back.zones, grid.zones);
    assert_eq!(back.space, grid.space);
    let close = |a: &[[f64; 3]], b: &[[f64; 3]]| {
        a.iter()
            .zip(b)
            .all(|(p, q)| (0..3).all(|k| (p[k] - q[k]).abs() < 1e-12))
    };
    assert!(close(&back.points.vertex, &grid.points.vertex));
    assert!(close(&back.points.cell, &grid.points.cell));
    let rel = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs();
    assert!(back
        .geometry
        .cell_area
        .iter()
        .zip(&grid.geometry.cell_area)
        .all(|(a, b)| rel(*a, *b)));
}

#[test]
fn missing_variable_is_named() {
    let (_dir, path, _) = icon_like(&Spoil {
        omit: Some("edge_of_cell"),
        ..Spoil::default()
    });
    match read_grid(&path) {
        Err(GridError::MissingVariable { path: p, variable }) => {
            assert_eq!(p, path);
            assert_eq!(variable, "edge_of_cell");
        }
        other => panic!("expected MissingVariable, got {other:?}"),
    }
}

#[test]
fn wrong_size_table_is_a_bad_variable() {
    let (_dir, path, _) = icon_like(&Spoil {
        short: Some("edge_of_cell"),
        ..Spoil::default()
    });
    let err = read_grid(&path).unwrap_err();
    let GridError::BadVariable {
        path: p,
        variable,
        message,
    } = &err
    else {
        panic!("expected BadVariable, got {err:?}");
    };
    assert_eq!((p, variable.as_str()), (&path, "edge_of_cell"));
    assert_eq!(
        message,
        "has 319 x 3 entries, expected 3 x 320 (dimension `cell`)"
    );
    assert!(err.to_string().contains("icon_like.nc"), "{err}");
}

#[test]
fn index_out_of_range_is_a_bad_variable() {
    let (_dir, path, _) = icon_like(&Spoil {
        bad_index: Some("cells_of_vertex"),
        ..Spoil::default()
    });
    let err = read_grid(&path).unwrap_err();
    assert!(
        matches!(&err, GridError::BadVariable { variable, message, .. }
            if variable == "cells_of_vertex" && message.contains("321")),
        "{err:?}"
    );
}

#[test]
fn truncated_file_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let grid = Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap();
    let path = dir.path().join("truncated.nc");
    write_grid(&grid, &path).unwrap();
    let len = std::fs::metadata(&path).unwrap().len();
    // Cut into the data: "is truncated". Cut into the header: libnetcdf fails, or parses
    // what is left, which lacks variables.
    for (keep, data) in [(len / 2, true), (len - 1, true), (100, false), (0, false)] {
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(keep)
            .unwrap();
        let err = read_grid(&path)
            .map(|_| ())
            .expect_err(&format!("kept {keep} of {len} bytes"));
        let text = err.to_string();
        assert!(text.contains("truncated.nc"), "{text}");
        if data {
            assert!(matches!(err, GridError::File { .. }), "{err:?}");
            assert!(text.contains("is truncated"), "{text}");
        }
    }
}

#[test]
fn modified_foehn_file_fails_the_uuid_check() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("modified.nc");
    write_grid(&Grid::icosahedral(2, 0, EARTH_RADIUS).unwrap(), &path).unwrap();
    {
        let mut f = netcdf::append(&path).unwrap();
        let mut var = f.variable_mut("cartesian_x_vertices").unwrap();
        let x: f64 = var.get_value(3).unwrap();
        var.put_value(x + 1e-9, 3).unwrap();
    }
    let err = read_grid(&path).unwrap_err();
    assert!(
        matches!(&err, GridError::BadVariable { variable, .. } if variable == ":uuidOfHGrid"),
        "{err:?}"
    );
}

#[test]
fn truncated_icon_file_is_detected_by_its_size() {
    let (_dir, path, _) = icon_like(&Spoil::default());
    let len = std::fs::metadata(&path).unwrap().len();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(len / 2).unwrap();
    let err = read_grid(&path).unwrap_err();
    assert!(matches!(err, GridError::File { .. }), "{err:?}");
    assert!(err.to_string().contains("is truncated"), "{err}");
}

#[test]
fn unreadable_files_are_file_errors() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("text.nc");
    std::fs::write(&text, "not a grid").unwrap();
    assert!(matches!(read_grid(&text), Err(GridError::File { .. })));
    assert!(matches!(
        read_grid(&dir.path().join("absent.nc")),
        Err(GridError::File { .. })
    ));
    let grid = Grid::icosahedral(1, 0, EARTH_RADIUS).unwrap();
    let nowhere = dir.path().join("no/such/dir/grid.nc");
    assert!(matches!(
        write_grid(&grid, &nowhere),
        Err(GridError::File { .. })
    ));
}

#[test]
fn damaged_files_give_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let grid = Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap();
    let path = dir.path().join("damaged.nc");
    write_grid(&grid, &path).unwrap();
    let original = std::fs::read(&path).unwrap();
    let (mut errors, mut same) = (0, 0);
    for offset in (0..original.len()).step_by(original.len() / 80) {
        let mut bytes = original.clone();
        let end = (offset + 64).min(bytes.len());
        bytes[offset..end].iter_mut().for_each(|b| *b ^= 0x5a);
        std::fs::write(&path, &bytes).unwrap();
        // Damage to the geometry variables, which the reader recomputes, goes unnoticed.
        match read_grid(&path) {
            Ok(back) => {
                assert!(
                    back == grid,
                    "damage at {offset} changed the grid unnoticed"
                );
                same += 1;
            }
            Err(e) => {
                assert!(e.to_string().contains("damaged.nc"), "{e}");
                errors += 1;
            }
        }
    }
    assert!(
        errors > 10 && same > 10,
        "{errors} errors, {same} unchanged"
    );
}

/// ICON-style files (no foehn content hash) are checked for consistency: a "no
/// neighbour" where a global grid has one, tables that disagree and a NaN position are
/// errors naming the variable, not NaN fields later (bad-input reports).
#[test]
fn inconsistent_icon_files_are_refused() {
    let spoil_int = |name: &str, at: [usize; 2], value: i32| {
        let (dir, path, _) = icon_like(&Spoil::default());
        {
            let mut f = netcdf::append(&path).unwrap();
            let mut var = f.variable_mut(name).unwrap();
            var.put_value(value, at).unwrap();
        }
        (dir, path)
    };
    // Edge 1 loses its second cell in a global grid.
    let (_d, path) = spoil_int("adjacent_cell_of_edge", [0, 1], 0);
    let e = read_grid(&path).unwrap_err().to_string();
    assert!(
        e.contains("adjacent_cell_of_edge") && e.contains("without boundary"),
        "{e}"
    );
    // Cell 1 lists the wrong edge (another valid edge index).
    let (_d, path) = spoil_int("edge_of_cell", [0, 0], 77);
    let e = read_grid(&path).unwrap_err().to_string();
    assert!(e.contains("disagree"), "{e}");
    // A NaN latitude.
    let (_d, path) = {
        let (dir, path, _) = icon_like(&Spoil::default());
        {
            let mut f = netcdf::append(&path).unwrap();
            f.variable_mut("clat")
                .unwrap()
                .put_value(f64::NAN, [5])
                .unwrap();
        }
        (dir, path)
    };
    let e = read_grid(&path).unwrap_err().to_string();
    assert!(
        e.contains("finite") || e.contains("NaN") || e.contains("not positive"),
        "{e}"
    );
}

/// Every table pair of an ICON-style file must agree: cell–vertex, edge–vertex, and the
/// derived neighbour tables against the primary ones; the error names the table, the
/// element (1-based) and says that the tables disagree.
#[test]
fn every_table_pair_is_checked() {
    for (name, at, value) in [
        ("vertex_of_cell", [0, 0], 30),
        ("cells_of_vertex", [3, 1], 70),
        ("edge_vertices", [4, 0], 40),
        ("edges_of_vertex", [2, 2], 100),
        ("neighbor_cell_index", [6, 1], 55),
        ("vertices_of_vertex", [8, 0], 33),
    ] {
        let (_dir, path, grid) = icon_like(&Spoil::default());
        let f = netcdf::open(&path).unwrap();
        let old: i32 = f.variable(name).unwrap().get_value(at).unwrap();
        drop(f);
        assert_ne!(old, value, "{name}: the spoil must change the entry");
        {
            let mut f = netcdf::append(&path).unwrap();
            f.variable_mut(name).unwrap().put_value(value, at).unwrap();
        }
        let e = read_grid(&path).unwrap_err().to_string();
        assert!(e.contains("disagree"), "{name}: {e}");
        assert!(e.contains("icon_like.nc"), "{name}: {e}");
        assert!(grid.size(Location::Cell) > 0);
    }
}
