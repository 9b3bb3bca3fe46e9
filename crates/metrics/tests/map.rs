//! Cell maps: valid PNGs of the fixed size, the same bytes every time, limited-area
//! boxes, given ranges and refusals of inconsistent inputs.

use foehn_metrics::map::{CellMap, Region};
use std::path::Path;

/// Cell centres of a Fibonacci sphere of `n` points (degrees) with a wave pattern.
fn sphere(n: usize) -> CellMap {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let (mut lon, mut lat, mut values) = (vec![], vec![], vec![]);
    for i in 0..n {
        let z = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
        let (x, y) = (
            (i as f64 * golden).to_degrees().rem_euclid(360.0),
            z.asin().to_degrees(),
        );
        lon.push(x);
        lat.push(y);
        values.push(1000.0 + 15.0 * (5.0 * x.to_radians()).sin() * (2.0 * y.to_radians()).sin());
    }
    values[0] = f64::NAN;
    CellMap {
        title: "surface pressure (ps), day 9".into(),
        units: "hPa".into(),
        lon,
        lat,
        values,
        region: None,
        range: None,
    }
}

fn png(path: &Path) -> (Vec<u8>, (u32, u32)) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    let size = (be(16), be(20));
    (bytes, size)
}

#[test]
fn global_map_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let map = sphere(5120);
    let (a, b) = (dir.path().join("a.png"), dir.path().join("b.png"));
    map.render_png(&a).unwrap();
    map.render_png(&b).unwrap();
    let (bytes, size) = png(&a);
    assert_eq!(size, (1100, 600));
    assert!(bytes.len() > 30_000, "only {} bytes", bytes.len());
    assert_eq!(bytes, png(&b).0);
    // Another range gives another picture.
    let c = dir.path().join("c.png");
    CellMap {
        range: Some((940.0, 1020.0)),
        ..map.clone()
    }
    .render_png(&c)
    .unwrap();
    assert_ne!(png(&c).0, bytes);
    // Only the PNGs: no temporary left.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
}

#[test]
fn limited_area_and_region() {
    let dir = tempfile::tempdir().unwrap();
    let mut map = sphere(20_000);
    let keep: Vec<usize> = (0..map.values.len())
        .filter(|&i| {
            (map.lat[i] - 46.0).abs() < 12.0
                && (map.lon[i] - 8.0 + 180.0).rem_euclid(360.0) < 195.0
                && (map.lon[i] - 8.0 + 180.0).rem_euclid(360.0) > 165.0
        })
        .collect();
    let pick = |v: &[f64]| keep.iter().map(|&i| v[i]).collect::<Vec<_>>();
    map = CellMap {
        lon: pick(&map.lon),
        lat: pick(&map.lat),
        values: pick(&map.values),
        ..map
    };
    let path = dir.path().join("cap.png");
    map.render_png(&path).unwrap();
    assert_eq!(png(&path).1, (1100, 600));
    let nh = dir.path().join("nh.png");
    let region = Region {
        lon: (0.0, 360.0),
        lat: (20.0, 80.0),
    };
    CellMap {
        region: Some(region),
        ..sphere(5120)
    }
    .render_png(&nh)
    .unwrap();
    assert_eq!(png(&nh).1, (1100, 600));
}

#[test]
fn refusals() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.png");
    let mut map = sphere(100);
    map.lat.pop();
    let e = map.render_png(&path).unwrap_err().to_string();
    assert!(e.contains("x.png") && e.contains("latitudes (99)"), "{e}");
    let empty = CellMap {
        lon: vec![],
        lat: vec![],
        values: vec![],
        ..sphere(10)
    };
    assert!(empty.render_png(&path).is_err());
    assert!(!path.exists());
    // All values missing: drawn grey with a unit range, not refused.
    let grey = CellMap {
        values: vec![f64::NAN; 10],
        ..sphere(10)
    };
    grey.render_png(&path).unwrap();
}
