//! `.npy`/`.npz` round trips, NumPy's exact byte layout, and fields through files.

use foehn::dsl::prelude::*;
use foehn::ir::Dims;
use foehn::runtime::field::npy::{self, Array};
use foehn::runtime::field::{Field, FieldData};
use foehn_grid::{Grid, EARTH_RADIUS};
use foehn_testkit::{random_field, SplitMix64};

/// What `np.save(f, np.arange(6.0).reshape(2, 3))` writes.
fn numpy_bytes() -> Vec<u8> {
    let dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
    let mut header = dict.to_string();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend_from_slice(&(header.len() as u16).to_le_bytes());
    b.extend_from_slice(header.as_bytes());
    for i in 0..6 {
        b.extend_from_slice(&(i as f64).to_le_bytes());
    }
    b
}

#[test]
fn writes_numpy_layout_byte_for_byte() {
    let a = Array {
        shape: vec![2, 3],
        data: FieldData::F64((0..6).map(|i| i as f64).collect()),
        file_dtype: None,
    };
    let mut out = vec![];
    npy::write_npy(&mut out, &a).unwrap();
    assert_eq!(out, numpy_bytes());
    assert_eq!(npy::read_npy(&numpy_bytes()[..]).unwrap(), a);
}

#[test]
fn round_trips_every_dtype_and_rank() {
    let cases = vec![
        Array {
            shape: vec![4],
            data: FieldData::I32(vec![-1, 0, 7, i32::MAX]),
            file_dtype: None,
        },
        Array {
            shape: vec![2, 2],
            data: FieldData::Bool(vec![true, false, false, true]),
            file_dtype: None,
        },
        Array {
            shape: vec![3, 1, 2],
            data: FieldData::F32(vec![1.5, -2.0, 0.1, 3.0, 1e-30, 7.0]),
            file_dtype: None,
        },
        Array {
            shape: vec![],
            data: FieldData::F64(vec![42.0]),
            file_dtype: None,
        },
        Array {
            shape: vec![0, 3],
            data: FieldData::F64(vec![]),
            file_dtype: None,
        },
    ];
    for a in cases {
        let mut out = vec![];
        npy::write_npy(&mut out, &a).unwrap();
        assert_eq!(
            (out.len()
                - a.data.len()
                    * match a.data {
                        FieldData::F64(_) => 8,
                        FieldData::Bool(_) => 1,
                        _ => 4,
                    })
                % 64,
            0
        );
        assert_eq!(npy::read_npy(&out[..]).unwrap(), a);
    }
}

#[test]
fn reads_fortran_order_big_endian_and_int64() {
    // shape (2, 3) in Fortran order: columns first.
    let header = "{'descr': '>i8', 'fortran_order': True, 'shape': (2, 3), }\n";
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend_from_slice(&(header.len() as u16).to_le_bytes());
    b.extend_from_slice(header.as_bytes());
    // C-order matrix [[0, 1, 2], [3, 4, 5]] stored column-major: 0 3 1 4 2 5.
    for v in [0i64, 3, 1, 4, 2, 5] {
        b.extend_from_slice(&v.to_be_bytes());
    }
    let a = npy::read_npy(&b[..]).unwrap();
    assert_eq!(
        a,
        Array {
            shape: vec![2, 3],
            data: FieldData::I32(vec![0, 1, 2, 3, 4, 5]),
            file_dtype: None
        }
    );
}

#[test]
fn fields_through_npy_and_npz_files() {
    let dir = tempfile::tempdir().unwrap();
    let grid = Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap();
    let mut rng = SplitMix64::new(9);
    let vn = random_field(&mut rng, &grid, 4, (EDGE, K), F64, -1.0, 1.0);
    let geofac = random_field(&mut rng, &grid, 4, (CELL, C2E), F32, -1.0, 1.0);
    let offsets = random_field(&mut rng, &grid, 4, (EDGE, E2C, K), I32, -2.0, 2.0);
    let mask = random_field(&mut rng, &grid, 4, (CELL,), BOOL, 0.0, 1.0);

    let path = dir.path().join("vn.npy");
    vn.save_npy(&path).unwrap();
    assert_eq!(Field::load_npy(&path, vn.dims()).unwrap(), vn);
    assert_eq!(npy::load_npy(&path).unwrap().shape, vec![480, 4]);

    let npz = dir.path().join("state.npz");
    let arrays = [
        ("vn", vn.to_array()),
        ("geofac_div", geofac.to_array()),
        ("vertoffset", offsets.to_array()),
        ("mask", mask.to_array()),
    ];
    npy::save_npz(&npz, arrays.iter().map(|(n, a)| (*n, a))).unwrap();
    let back = npy::load_npz(&npz).unwrap();
    assert_eq!(
        back.keys().collect::<Vec<_>>(),
        vec!["geofac_div", "mask", "vertoffset", "vn"]
    );
    assert_eq!(
        Field::from_array(geofac.dims(), back["geofac_div"].clone()).unwrap(),
        geofac
    );
    assert_eq!(
        Field::from_array(offsets.dims(), back["vertoffset"].clone()).unwrap(),
        offsets
    );
    assert_eq!(back["vertoffset"].shape, vec![480, 2, 4]);
    assert_eq!(
        Field::from_array(mask.dims(), back["mask"].clone()).unwrap(),
        mask
    );

    // A rank or local-width mismatch is a clear error.
    let wrong = Dims::from_list(&[Dim::H(CELL), Dim::Local(C2E)]).unwrap();
    let err = Field::from_array(wrong, back["vertoffset"].clone()).unwrap_err();
    assert!(
        err.to_string()
            .contains("3 extents but dims [Cell, C2E] need 2"),
        "{err}"
    );
}

#[test]
fn fields_are_column_major_and_arrays_row_major() {
    use foehn::dsl::prelude::*;
    let grid = foehn_grid::Grid::icosahedral(1, 0, foehn_grid::EARTH_RADIUS).unwrap();
    let f = Field::from_fn(&grid, 4, (CELL, C2E, K), I32, |i| {
        foehn::ir::Scalar::I32((i[0] * 100 + i[1] * 10 + i[2]) as i32)
    });
    // Field storage: horizontal fastest, then local, then vertical.
    let n = grid.size(CELL);
    assert_eq!(f.strides(), (1, n, 3 * n));
    assert_eq!(f.as_i32().unwrap()[f.flat_index(7, 2, 3)], 723);
    assert_eq!(f.as_i32().unwrap()[7 + n * (2 + 3 * 3)], 723);
    // NumPy arrays: row-major in ICON4Py dimension order.
    let a = f.to_array();
    assert_eq!(a.shape, vec![n, 3, 4]);
    assert_eq!(a.data.get((7 * 3 + 2) * 4 + 3), foehn::ir::Scalar::I32(723));
    let back = Field::from_array(f.dims(), a).unwrap();
    assert_eq!(back, f);
}

/// The level-fastest relayout (ADR 0027) puts a point's column contiguous, local slot
/// by slot, leaves fields without levels alone and comes back exactly.
#[test]
fn level_fastest_relayout_puts_columns_together_and_comes_back() {
    let grid = foehn_grid::Grid::icosahedral(1, 0, foehn_grid::EARTH_RADIUS).unwrap();
    let f = Field::from_fn(&grid, 4, (CELL, C2E, K), I32, |i| {
        foehn::ir::Scalar::I32((i[0] * 100 + i[1] * 10 + i[2]) as i32)
    });
    let mut g = f.clone();
    g.relayout_level_fastest(true);
    // (h, j, k) at h·3·4 + j·4 + k.
    assert_eq!(g.as_i32().unwrap()[7 * 12 + 2 * 4 + 3], 723);
    assert_eq!(g.as_i32().unwrap()[0..4], [0, 1, 2, 3]);
    g.relayout_level_fastest(false);
    assert_eq!(g, f);
    let flat = Field::from_fn(&grid, 4, (CELL, C2E), I32, |i| {
        foehn::ir::Scalar::I32((i[0] * 10 + i[1]) as i32)
    });
    let mut same = flat.clone();
    same.relayout_level_fastest(true);
    assert_eq!(same, flat);
}

/// Hostile headers are errors naming what is wrong, never a panic or an allocation of
/// what the header claims: a type string without kind or size, an unsupported element
/// size, a shape of 10¹² elements in a small file, a shape whose element count
/// overflows.
#[test]
fn hostile_headers_are_clear_errors() {
    let file = |descr: &str, shape: &str, data: usize| {
        let header =
            format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}\n");
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend_from_slice(&(header.len() as u16).to_le_bytes());
        b.extend_from_slice(header.as_bytes());
        b.extend(std::iter::repeat_n(0u8, data));
        b
    };
    for (descr, shape, data, words) in [
        ("<", "(2,)", 16, "unsupported dtype"),
        ("<i16", "(2,)", 32, "unsupported dtype"),
        ("<f8", "(1000000000000,)", 16, "too short"),
        (
            "<f8",
            "(4294967296, 4294967296, 4294967296)",
            16,
            "too many elements",
        ),
        ("é", "(2,)", 16, "unsupported dtype"),
    ] {
        let e = npy::read_npy(&file(descr, shape, data)[..])
            .unwrap_err()
            .to_string();
        assert!(e.contains(words), "{descr} {shape}: {e}");
    }
}
