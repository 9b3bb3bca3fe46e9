//! Writes the seed corpora: small valid inputs written by foehn itself, plus a few
//! hand-made variants of what NumPy and ICON write (Fortran order, big-endian, other
//! integer types, format versions 2 and 3, deflated archives; ICON files without
//! foehn's attributes, NetCDF-4/HDF5).
//!
//! `cargo run --manifest-path fuzz/Cargo.toml --example make_seeds -- fuzz/corpus`

use foehn::runtime::field::npy::{save_npz, write_npy, Array};
use foehn::runtime::field::FieldData;
use foehn_grid::{Grid, GridSpec, EARTH_RADIUS};
use netcdf::types::{FloatType, IntType, NcVariableType};
use std::io::Write;
use std::path::Path;

/// A `.npy` file with a hand-written header (`version` 1, 2 or 3) and raw data.
fn raw_npy(version: u8, header: &str, data: &[u8]) -> Vec<u8> {
    let mut h = header.to_string();
    let prefix = if version == 1 { 10 } else { 12 };
    while !(prefix + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    let mut b = b"\x93NUMPY".to_vec();
    b.extend_from_slice(&[version, 0]);
    if version == 1 {
        b.extend_from_slice(&(h.len() as u16).to_le_bytes());
    } else {
        b.extend_from_slice(&(h.len() as u32).to_le_bytes());
    }
    b.extend_from_slice(h.as_bytes());
    b.extend_from_slice(data);
    b
}

fn npy_bytes(a: &Array) -> Vec<u8> {
    let mut b = Vec::new();
    write_npy(&mut b, a).unwrap();
    b
}

fn npy_seeds(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let put = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes).unwrap();
    let arrays = [
        ("f64_3", vec![3], FieldData::F64(vec![1.0, -2.5, f64::NAN])),
        ("f64_scalar", vec![], FieldData::F64(vec![0.25])),
        (
            "f32_2x3",
            vec![2, 3],
            FieldData::F32((0..6).map(|i| i as f32).collect()),
        ),
        (
            "i32_2x2x1",
            vec![2, 2, 1],
            FieldData::I32(vec![1, -1, i32::MAX, i32::MIN]),
        ),
        (
            "bool_5",
            vec![5],
            FieldData::Bool(vec![true, false, true, true, false]),
        ),
        ("f64_0x4", vec![0, 4], FieldData::F64(vec![])),
        (
            "f64_4x3x2",
            vec![4, 3, 2],
            FieldData::F64((0..24).map(f64::from).collect()),
        ),
    ];
    for (name, shape, data) in &arrays {
        let a = Array {
            shape: shape.clone(),
            data: data.clone(),
            file_dtype: None,
        };
        put(&format!("{name}.npy"), &npy_bytes(&a));
    }
    let h = |descr: &str, fortran: bool, shape: &str| {
        let f = if fortran { "True" } else { "False" };
        format!("{{'descr': '{descr}', 'fortran_order': {f}, 'shape': {shape}, }}")
    };
    let f8: Vec<u8> = (0..6).flat_map(|i| f64::from(i).to_le_bytes()).collect();
    put(
        "fortran_f8.npy",
        &raw_npy(1, &h("<f8", true, "(2, 3)"), &f8),
    );
    let be: Vec<u8> = [1.5f64, -3.0]
        .iter()
        .flat_map(|x| x.to_be_bytes())
        .collect();
    put("big_f8.npy", &raw_npy(1, &h(">f8", false, "(2,)"), &be));
    let i8s: Vec<u8> = [7i64, -7, 1 << 40]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    put(
        "i8_too_big.npy",
        &raw_npy(1, &h("<i8", false, "(3,)"), &i8s),
    );
    put("i8.npy", &raw_npy(1, &h("<i8", false, "(2,)"), &i8s[..16]));
    let i2: Vec<u8> = [300i16, -2].iter().flat_map(|x| x.to_le_bytes()).collect();
    put("i2.npy", &raw_npy(1, &h("<i2", false, "(2,)"), &i2));
    put(
        "i1.npy",
        &raw_npy(1, &h("|i1", false, "(3,)"), &[1, 0xff, 0x80]),
    );
    put(
        "u1.npy",
        &raw_npy(1, &h("|u1", false, "(1, 3)"), &[1, 0xff, 0x80]),
    );
    let f4: Vec<u8> = (0..4).flat_map(|i| (i as f32).to_be_bytes()).collect();
    put(
        "fortran_big_f4.npy",
        &raw_npy(1, &h(">f4", true, "(2, 2)"), &f4),
    );
    put("v2_f8.npy", &raw_npy(2, &h("<f8", false, "(6,)"), &f8));
    put("v3_b1.npy", &raw_npy(3, &h("|b1", false, "(2,)"), &[0, 1]));
    let dq = "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (1,)}";
    put("double_quotes.npy", &raw_npy(1, dq, &f8[..8]));

    // Archives: stored (np.savez, and what foehn writes) and deflated (np.savez_compressed).
    let a = |i: usize| Array {
        shape: arrays[i].1.clone(),
        data: arrays[i].2.clone(),
        file_dtype: None,
    };
    let (a0, a1, a3, a4) = (a(0), a(1), a(2), a(4));
    save_npz(
        dir.join("stored.npz"),
        [("vn", &a0), ("dtime", &a1), ("mask", &a4)],
    )
    .unwrap();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, array) in [("w", &a3), ("theta", &a0)] {
        zip.start_file(format!("{name}.npy"), deflated).unwrap();
        zip.write_all(&npy_bytes(array)).unwrap();
    }
    put("deflated.npz", &zip.finish().unwrap().into_inner());
    let empty = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    put("empty.npz", &empty.finish().unwrap().into_inner());
}

/// Copies a NetCDF file into another format, leaving out the global attributes `drop`.
fn copy_netcdf(from: &Path, to: &Path, options: netcdf::Options, drop: &[&str]) {
    let src = netcdf::open(from).unwrap();
    let mut dst = netcdf::create_with(to, options).unwrap();
    for d in src.dimensions() {
        dst.add_dimension(&d.name(), d.len()).unwrap();
    }
    for a in src.attributes() {
        if !drop.contains(&a.name()) {
            dst.add_attribute(a.name(), a.value().unwrap()).unwrap();
        }
    }
    // Classic files take all definitions before any data.
    let kept: Vec<_> = src
        .variables()
        .filter(|v| !drop.contains(&v.name().as_str()))
        .collect();
    for v in &kept {
        let dims: Vec<String> = v.dimensions().iter().map(|d| d.name()).collect();
        let dims: Vec<&str> = dims.iter().map(String::as_str).collect();
        let mut out = dst
            .add_variable_with_type(&v.name(), &dims, &v.vartype())
            .unwrap();
        for a in v.attributes() {
            out.put_attribute(a.name(), a.value().unwrap()).unwrap();
        }
    }
    dst.enddef().unwrap();
    for v in &kept {
        let name = v.name();
        let mut out = dst.variable_mut(&name).unwrap();
        match v.vartype() {
            NcVariableType::Int(IntType::I32) => out
                .put_values(&v.get_values::<i32, _>(..).unwrap(), ..)
                .unwrap(),
            NcVariableType::Float(FloatType::F64) => out
                .put_values(&v.get_values::<f64, _>(..).unwrap(), ..)
                .unwrap(),
            NcVariableType::Float(FloatType::F32) => out
                .put_values(&v.get_values::<f32, _>(..).unwrap(), ..)
                .unwrap(),
            t => panic!("{name}: type {t:?} not copied"),
        }
    }
}

fn grid_seeds(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let write = |name: &str, grid: &Grid| {
        let path = dir.join(name);
        foehn_grid::io::write_grid(grid, &path).unwrap();
        assert_eq!(&foehn_grid::io::read_grid(&path).unwrap(), grid);
        path
    };
    let build = |name: &str| GridSpec::parse(name).unwrap().build().unwrap();
    let r2b0 = write("r2b0", &Grid::icosahedral(2, 0, EARTH_RADIUS).unwrap());
    // The smallest torus with a valid topology among a few candidates.
    let torus = [
        "torus_3000mx2000m_res1000m",
        "torus_4000mx3464m_res1000m",
        "torus_6000mx5196m_res1000m",
    ]
    .iter()
    .find_map(|name| {
        let grid = GridSpec::parse(name).unwrap().build().ok()?;
        println!("torus seed: {name}");
        Some(write("torus", &grid))
    })
    .unwrap();
    write("limited_area", &build("r2b2:cap:0,0,6000"));
    // As ICON writes them: no foehn attributes, no end marker (kind inferred).
    let icon_only = [
        "foehn_grid_name",
        "foehn_grid_kind",
        "foehn_parent_grid",
        "foehn_grid_file_version",
        "foehn_end_of_file",
        "torus_nx",
        "torus_ny",
        "torus_dx",
        "uuidOfHGrid",
    ];
    copy_netcdf(
        &r2b0,
        &dir.join("r2b0_icon"),
        netcdf::Options::_64BIT_OFFSET,
        &icon_only,
    );
    copy_netcdf(
        &torus,
        &dir.join("torus_icon"),
        netcdf::Options::_64BIT_OFFSET,
        &icon_only,
    );
    copy_netcdf(
        &torus,
        &dir.join("torus_netcdf4"),
        netcdf::Options::NETCDF4,
        &[],
    );
    for f in std::fs::read_dir(dir).unwrap() {
        let path = f.unwrap().path();
        let ok = foehn_grid::io::read_grid(&path).map(|g| g.name);
        println!(
            "{}: {} bytes, {ok:?}",
            path.display(),
            path.metadata().unwrap().len()
        );
    }
}

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fuzz/corpus".into());
    let out = Path::new(&out);
    npy_seeds(&out.join("npy"));
    grid_seeds(&out.join("grid_file"));
}
