//! Maps of a snapshot: valid PNGs of the map's size, the same bytes every time, and
//! refusals of what cannot be mapped.

use super::super::plot::{day_label, snapshot_map, write_maps, write_snapshot_map, MapRequest};
use super::cases;
use foehn_metrics::map::Region;

fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

/// Surface pressure (hPa) and 850 hPa temperature on both grids; deterministic bytes.
#[test]
fn maps() {
    let dir = tempfile::tempdir().unwrap();
    for case in cases() {
        let grid = case.fields.grid();
        for (name, level) in [("ps", 0), ("temp_p", 0), ("vor", 5)] {
            let a = dir.path().join(format!("{name}_a.png"));
            let b = dir.path().join(format!("{name}_b.png"));
            write_snapshot_map(grid, &case.snapshot, name, level, &a).unwrap();
            write_snapshot_map(grid, &case.snapshot, name, level, &b).unwrap();
            let (ba, bb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
            assert_eq!(png_size(&ba), (1100, 600), "{name}");
            assert!(
                ba.len() > 20_000,
                "{}: {name} only {} bytes",
                case.name,
                ba.len()
            );
            assert_eq!(ba, bb, "{}: {name} not deterministic", case.name);
        }
        let map = snapshot_map(grid, &case.snapshot, "ps", 0).unwrap();
        assert_eq!(map.units, "hPa");
        assert!(map.values.iter().all(|p| (p - 1000.0).abs() < 1.0));
        assert_eq!(map.title, "surface pressure (ps), day 1");
        let t = snapshot_map(grid, &case.snapshot, "temp_p", 0).unwrap();
        assert_eq!(
            t.title,
            "temperature on pressure levels (temp_p), 850 hPa, day 1"
        );
    }
    let case = cases()[0];
    let grid = case.fields.grid();
    assert!(snapshot_map(grid, &case.snapshot, "vn", 0).is_err());
    assert!(snapshot_map(grid, &case.snapshot, "nothing", 0).is_err());
    let e = snapshot_map(grid, &case.snapshot, "temp", 99)
        .unwrap_err()
        .to_string();
    assert!(e.contains("12 levels"), "{e}");
}

#[test]
fn day_labels() {
    assert_eq!(day_label(9.0 * 86_400.0), "day 9");
    assert_eq!(day_label(21_600.0), "day 0.25");
    assert_eq!(day_label(0.0), "day 0");
}

/// A run's maps: named by variable, level and time, the requested box and scale used.
#[test]
fn run_maps() {
    let dir = tempfile::tempdir().unwrap();
    let case = cases()[0];
    let nh = MapRequest {
        region: Some(Region {
            lon: (0.0, 360.0),
            lat: (20.0, 80.0),
        }),
        range: Some((940.0, 1020.0)),
        ..MapRequest::new("ps", 0)
    };
    let requests = [
        nh.clone(),
        MapRequest::new("temp_p", 0),
        MapRequest::new("vor", 11),
    ];
    let grid = case.fields.grid();
    let paths = write_maps(grid, &case.snapshot, &requests, dir.path(), "jw").unwrap();
    let names: Vec<String> = paths
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "jw_ps_0001d00h00m00s.png",
            "jw_temp_p_L1_0001d00h00m00s.png",
            "jw_vor_L12_0001d00h00m00s.png"
        ]
    );
    // The box and scale asked for change the picture.
    let plain = dir.path().join("plain.png");
    write_snapshot_map(grid, &case.snapshot, "ps", 0, &plain).unwrap();
    assert_ne!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&paths[0]).unwrap()
    );
    let e = write_maps(
        grid,
        &case.snapshot,
        &[MapRequest::new("vn", 0)],
        dir.path(),
        "jw",
    );
    assert!(e.is_err());
}
