//! Maps of a snapshot: valid PNGs of the map's size, the same bytes every time, and
//! refusals of what cannot be mapped.

use super::super::plot::{day_label, snapshot_map, write_snapshot_map};
use super::cases;

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
