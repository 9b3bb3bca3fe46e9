//! `foehn exec` inputs and arguments: hostile `.npy` headers inside the `.npz`, arrays
//! of the wrong kind, and misspelt or malformed scalars and static arguments are refused
//! naming the file, the array or argument, and the valid choices.

use super::{foehn, refused};
use foehn::runtime::field::npy::{save_npz, Array};
use foehn_grid::{Grid, EARTH_RADIUS};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A program of the catalog that has runtime scalars and no static arguments to choose
/// (so `exec` needs no `--variant`), and its scalars' names.
fn program_with_scalars() -> (foehn::ir::Program, &'static str) {
    foehn_icon::catalog::catalog()
        .into_iter()
        .filter(|e| e.variants().is_ok_and(|v| v.len() == 1))
        .find_map(|e| {
            let ir = e.specialize(&e.variants().ok()?[0]).ok()?;
            (!ir.scalars.is_empty()).then_some((ir, e.name))
        })
        .expect("the catalog has a program with scalars and one variant")
}

/// Valid inputs for `ir` on r2b0 with 3 levels: its fields (random) and its scalars (0-d),
/// with `replace` swapping in raw `.npy` bytes for some names.
fn inputs(dir: &Path, ir: &foehn::ir::Program, replace: &[(&str, Vec<u8>)]) -> PathBuf {
    let grid = Grid::icosahedral(2, 0, EARTH_RADIUS).unwrap();
    let args = foehn_testkit::random_args(ir, &grid, 3, 7);
    let mut arrays: Vec<(String, Array)> = args
        .fields()
        .map(|(n, f)| (n.to_string(), f.to_array()))
        .collect();
    for s in &ir.scalars {
        arrays.push((
            s.name.clone(),
            Array {
                shape: vec![],
                data: foehn::runtime::field::FieldData::F64(vec![0.5]),
                file_dtype: None,
            },
        ));
    }
    let path = dir.join("in.npz");
    save_npz(&path, arrays.iter().map(|(n, a)| (n.as_str(), a))).unwrap();
    if replace.is_empty() {
        return path;
    }
    // Rewrite the archive with the raw entries swapped in.
    let kept: Vec<(String, Vec<u8>)> = {
        let mut zip = zip::ZipArchive::new(std::fs::File::open(&path).unwrap()).unwrap();
        (0..zip.len())
            .map(|i| {
                let mut f = zip.by_index(i).unwrap();
                let mut bytes = Vec::new();
                std::io::Read::read_to_end(&mut f, &mut bytes).unwrap();
                (f.name().unwrap().to_string(), bytes)
            })
            .collect()
    };
    let mut w = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, bytes) in kept {
        let stem = name.trim_end_matches(".npy");
        let bytes = replace
            .iter()
            .find(|(n, _)| *n == stem)
            .map_or(bytes, |(_, b)| b.clone());
        w.start_file(name, opts).unwrap();
        w.write_all(&bytes).unwrap();
    }
    w.finish().unwrap();
    path
}

/// `n` little-endian 64-bit ones.
fn ones_i64(n: usize) -> Vec<u8> {
    (0..n).flat_map(|_| 1i64.to_le_bytes()).collect()
}

/// A `.npy` file with the given header fields and data bytes.
fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn exec(ir_name: &str, input: &Path, out: &Path, extra: &[&str]) -> super::Run {
    let mut args: Vec<String> = ["exec", ir_name, "--grid", "r2b0", "--backend", "interp"]
        .map(str::to_string)
        .to_vec();
    args.extend(["--inputs".into(), input.display().to_string()]);
    args.extend(["--output".into(), out.display().to_string()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    foehn(&args)
}

/// Misspelt or malformed scalars and static arguments are refused with the valid names
/// (before, `--scalar factr=3`, `--scalar factor` and `--variant nonsense=7` were
/// silently ignored).
#[test]
fn unknown_scalars_and_static_arguments_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (ir, name) = program_with_scalars();
    let input = inputs(dir.path(), &ir, &[]);
    let out = dir.path().join("out.npz");
    let scalar = ir.scalars[0].name.clone();
    let ok = exec(name, &input, &out, &[]);
    assert_eq!(ok.code, Some(0), "valid inputs run: {}", ok.stderr);
    let typo = format!("{}x=3", scalar);
    let cases: [(Vec<&str>, Vec<&str>); 4] = [
        (vec!["--scalar", &typo], vec![&typo, &scalar, "scalars"]),
        (vec!["--scalar", &scalar], vec!["expected name=value"]),
        (vec!["--variant", "nonsense=7"], vec!["nonsense"]),
        (vec!["--scalar", "factor=abc"], vec!["factor"]),
    ];
    for (extra, words) in cases {
        refused(&exec(name, &input, &out, &extra), &words);
    }
}

/// Hostile or unusable arrays inside the `.npz`: each refusal names the archive and the
/// array (before: a panic on `descr '<'` and `'<i16'`, an allocation abort on a header
/// claiming 10¹² elements, a dtype shown after conversion, "scalar missing" for a scalar
/// that is there but not 0-d).
#[test]
fn hostile_arrays_are_refused_naming_the_archive_and_array() {
    let dir = tempfile::tempdir().unwrap();
    let (ir, name) = program_with_scalars();
    let field = ir
        .fields
        .iter()
        .find(|d| d.role == foehn::ir::Role::In && d.ty.dtype == foehn::ir::DType::F64)
        .expect("an f64 input field")
        .name
        .clone();
    let scalar = ir.scalars[0].name.clone();
    let out = dir.path().join("out.npz");
    let grid = Grid::icosahedral(2, 0, EARTH_RADIUS).unwrap();
    let shape = foehn_testkit::random_args(&ir, &grid, 3, 7)
        .field(&field)
        .unwrap()
        .to_array()
        .shape;
    let numpy_shape = format!(
        "({})",
        shape.iter().map(|n| format!("{n}, ")).collect::<String>()
    );
    let ints = ones_i64(shape.iter().product());
    let cases: [(&str, Vec<u8>, Vec<&str>); 5] = [
        (&field, npy("<", "(8,)", &[0; 8]), vec!["dtype"]),
        (&field, npy("<i16", "(8,)", &[0; 128]), vec!["dtype"]),
        (
            &field,
            npy("<f8", "(1000000000000,)", &[0; 64]),
            vec!["1000000000000"],
        ),
        (&field, npy("<i8", &numpy_shape, &ints), vec!["int64"]),
        (&scalar, npy("<f8", "(3,)", &[0; 24]), vec!["0-d"]),
    ];
    for (array, bytes, mut words) in cases {
        let input = inputs(dir.path(), &ir, &[(array, bytes)]);
        words.push(array);
        words.push("in.npz");
        refused(&exec(name, &input, &out, &[]), &words);
    }
}
