//! NumPy `.npy` and `.npz` files, so fields move to and from Python unchanged.
//!
//! Arrays are written in C (row-major) order with little-endian `<f8`, `<f4`, `<i4`
//! or `|b1` elements, format version 1.0 (2.0 for huge headers), headers padded to
//! 64 bytes as NumPy does. Reading also accepts Fortran order, big-endian data and
//! `<i8`/`<i2`/`|i1`/`|u1` integers (converted to `i32` when they fit). `.npz` archives
//! are zip files of `NAME.npy` members, stored or deflated (`np.savez`/`np.savez_compressed`).

use super::{Field, FieldData};
use crate::error::{Error, Result};
use crate::ir::Dims;
use std::collections::BTreeMap;
use std::io::{Read, Seek, Write};
use std::path::Path;

/// An untyped n-dimensional array (shape + row-major data), as stored in `.npy`. Two
/// arrays are equal when their shapes and data are (wherever they were read from).
#[derive(Debug, Clone)]
pub struct Array {
    /// Extents, outermost first.
    pub shape: Vec<usize>,
    /// Row-major elements.
    pub data: FieldData,
    /// The element type as the file stored it, in NumPy's words (`int64`, `float32`),
    /// where it was read from a file: integers are read as `int32`, so a message about
    /// a wrong type can name what the user saved. `None` for arrays made in memory.
    pub file_dtype: Option<&'static str>,
}

impl PartialEq for Array {
    fn eq(&self, other: &Array) -> bool {
        self.shape == other.shape && self.data == other.data
    }
}

fn bad(msg: impl Into<String>) -> Error {
    Error::Field(msg.into())
}

fn io_err(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Writes `array` in `.npy` format.
pub fn write_npy<W: Write>(mut w: W, array: &Array) -> std::io::Result<()> {
    let descr = match array.data {
        FieldData::F64(_) => "<f8",
        FieldData::F32(_) => "<f4",
        FieldData::I32(_) => "<i4",
        FieldData::Bool(_) => "|b1",
    };
    let shape = match array.shape.len() {
        1 => format!("({},)", array.shape[0]),
        _ => format!(
            "({})",
            array
                .shape
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let v2 = header.len() + 12 > 65535;
    let prefix = if v2 { 12 } else { 10 };
    let total = (prefix + header.len() + 1).div_ceil(64) * 64;
    header.push_str(&" ".repeat(total - prefix - header.len() - 1));
    header.push('\n');
    w.write_all(b"\x93NUMPY")?;
    if v2 {
        w.write_all(&[2, 0])?;
        w.write_all(&(header.len() as u32).to_le_bytes())?;
    } else {
        w.write_all(&[1, 0])?;
        w.write_all(&(header.len() as u16).to_le_bytes())?;
    }
    w.write_all(header.as_bytes())?;
    let mut buf = Vec::with_capacity(array.data.len() * 8);
    match &array.data {
        FieldData::F64(v) => v
            .iter()
            .for_each(|x| buf.extend_from_slice(&x.to_le_bytes())),
        FieldData::F32(v) => v
            .iter()
            .for_each(|x| buf.extend_from_slice(&x.to_le_bytes())),
        FieldData::I32(v) => v
            .iter()
            .for_each(|x| buf.extend_from_slice(&x.to_le_bytes())),
        FieldData::Bool(v) => buf.extend(v.iter().map(|&b| b as u8)),
    }
    w.write_all(&buf)
}

/// The longest header read: NumPy writes a few hundred bytes for the types foehn reads
/// (and itself refuses headers over 10 000 bytes by default), so a longer claim is a
/// damaged file, never an allocation.
const MAX_HEADER: usize = 1 << 20;

/// Input text for an error message: its first 60 characters, up to any control character.
fn excerpt(text: &str) -> String {
    let text = text.trim();
    let mut out: String = text
        .chars()
        .take_while(|c| !c.is_control())
        .take(60)
        .collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// The text after `'key':` (or `"key":`) in an npy header dictionary.
fn header_value<'a>(header: &'a str, key: &str) -> Result<&'a str> {
    let (i, len) = [format!("'{key}'"), format!("\"{key}\"")]
        .iter()
        .find_map(|pat| header.find(pat.as_str()).map(|i| (i, pat.len())))
        .ok_or_else(|| {
            bad(format!(
                "npy header lacks '{key}' (header `{}`)",
                excerpt(header)
            ))
        })?;
    header[i + len..]
        .trim_start()
        .strip_prefix(':')
        .map(str::trim_start)
        .ok_or_else(|| {
            bad(format!(
                "npy header has no value for '{key}' (header `{}`)",
                excerpt(header)
            ))
        })
}

/// `(a, b, c)` as NumPy prints a shape.
fn shape_text(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Parses `(2, 3)`, `(4,)` or `()`: the text of a header's `'shape'` value.
fn parse_shape(text: &str) -> Result<Vec<usize>> {
    let bad_shape = || {
        let shown = text.find(')').map_or(text, |i| &text[..=i]);
        bad(format!(
            "bad npy 'shape' `{}` (expected a tuple of sizes such as (2, 3))",
            excerpt(shown)
        ))
    };
    let inner = text
        .strip_prefix('(')
        .and_then(|t| t.find(')').map(|close| &t[..close]))
        .ok_or_else(bad_shape)?;
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    // `(2, 3)` and `(2, 3,)`; no empty entries elsewhere.
    let parts = match parts.split_last() {
        Some((&"", rest)) => rest,
        _ => &parts[..],
    };
    parts
        .iter()
        .map(|s| s.parse::<usize>().map_err(|_| bad_shape()))
        .collect()
}

/// Reads one `.npy` array.
///
/// Malformed input is an error saying what is wrong, never a panic, and nothing is
/// allocated from a size the file claims beyond what it holds.
pub fn read_npy<R: Read>(mut r: R) -> Result<Array> {
    let mut magic = [0u8; 8];
    r.read_exact(&mut magic).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => bad("not an npy file: shorter than the npy magic"),
        _ => bad(format!("npy file unreadable: {e}")),
    })?;
    if &magic[..6] != b"\x93NUMPY" {
        return Err(bad("not an npy file (it does not start with \\x93NUMPY)"));
    }
    let (major, minor) = (magic[6], magic[7]);
    let truncated_header = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => bad("npy header truncated"),
        _ => bad(format!("npy header unreadable: {e}")),
    };
    let hlen = match major {
        1 => {
            let mut b = [0u8; 2];
            r.read_exact(&mut b).map_err(truncated_header)?;
            u16::from_le_bytes(b) as usize
        }
        2 | 3 => {
            let mut b = [0u8; 4];
            r.read_exact(&mut b).map_err(truncated_header)?;
            u32::from_le_bytes(b) as usize
        }
        _ => {
            return Err(bad(format!(
                "unsupported npy format version {major}.{minor} (foehn reads 1.0, 2.0 and 3.0)"
            )))
        }
    };
    if hlen > MAX_HEADER {
        return Err(bad(format!(
            "npy header of {hlen} bytes is longer than foehn reads ({MAX_HEADER})"
        )));
    }
    // Read what is there (at most the claimed length), never allocate the claim.
    let mut hb = Vec::new();
    r.by_ref()
        .take(hlen as u64)
        .read_to_end(&mut hb)
        .map_err(truncated_header)?;
    if hb.len() != hlen {
        return Err(bad(format!(
            "npy header truncated: it claims {hlen} bytes, the file holds {}",
            hb.len()
        )));
    }
    let header = String::from_utf8_lossy(&hb).to_string();
    let descr_text = header_value(&header, "descr")?;
    let bad_descr = || {
        bad(format!(
            "bad npy 'descr' `{}` (expected a quoted type string such as '<f8')",
            excerpt(&descr_text.chars().take(20).collect::<String>())
        ))
    };
    let quote = descr_text
        .chars()
        .next()
        .filter(|c| *c == '\'' || *c == '"')
        .ok_or_else(bad_descr)?;
    let descr = descr_text[1..]
        .split_once(quote)
        .map(|(d, _)| d.to_string())
        .ok_or_else(bad_descr)?;
    let fortran_text = header_value(&header, "fortran_order")?;
    let fortran = if fortran_text.starts_with("True") {
        true
    } else if fortran_text.starts_with("False") {
        false
    } else {
        return Err(bad(format!(
            "bad npy 'fortran_order' `{}` (expected True or False)",
            excerpt(&fortran_text.chars().take(20).collect::<String>())
        )));
    };
    let shape = parse_shape(header_value(&header, "shape")?)?;
    let unsupported = || {
        bad(format!(
            "unsupported dtype '{}' (use f8, f4, i4 or b1)",
            excerpt(&descr)
        ))
    };
    // A type string is a byte order, a kind letter and an element size: `<f8`.
    if descr.len() < 3 || !descr.is_char_boundary(1) || !descr.is_char_boundary(2) {
        return Err(unsupported());
    }
    let (endian, kind) = descr.split_at(1);
    if !["<", ">", "|", "="].contains(&endian) {
        return Err(unsupported());
    }
    let big = endian == ">";
    let size: usize = kind[1..].parse().map_err(|_| unsupported())?;
    if ![1, 2, 4, 8].contains(&size) {
        return Err(unsupported());
    }
    let too_many = || {
        bad(format!(
            "npy shape {} has too many elements",
            shape_text(&shape)
        ))
    };
    let n = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(too_many)?;
    let bytes = n.checked_mul(size).ok_or_else(too_many)?;
    // Read what is there (at most the claimed bytes) instead of allocating the claim:
    // a header claiming more than the file holds is an error, not an allocation abort.
    let mut raw = Vec::new();
    r.take(bytes as u64)
        .read_to_end(&mut raw)
        .map_err(|e| bad(format!("npy data unreadable: {e}")))?;
    if raw.len() != bytes {
        return Err(bad(format!(
            "npy data too short: the header claims shape {} of '{descr}' ({bytes} bytes), the file holds {}",
            shape_text(&shape),
            raw.len()
        )));
    }
    let mut chunks = raw.chunks_exact(size).map(|c| {
        let mut b = [0u8; 8];
        b[..size].copy_from_slice(c);
        if big {
            b[..size].reverse();
        }
        b
    });
    let ints = |chunks: &mut dyn Iterator<Item = [u8; 8]>, signed: bool| -> Result<Vec<i32>> {
        chunks
            .map(|b| {
                let v: i64 = match (size, signed) {
                    (1, true) => b[0] as i8 as i64,
                    (1, false) => b[0] as i64,
                    (2, true) => i16::from_le_bytes([b[0], b[1]]) as i64,
                    (4, true) => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64,
                    (8, true) => i64::from_le_bytes(b),
                    _ => return Err(unsupported()),
                };
                i32::try_from(v).map_err(|_| bad(format!("integer {v} does not fit i32")))
            })
            .collect()
    };
    let data = match kind {
        "f8" => FieldData::F64(chunks.map(f64::from_le_bytes).collect()),
        "f4" => FieldData::F32(
            chunks
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        ),
        "b1" => FieldData::Bool(chunks.map(|b| b[0] != 0).collect()),
        "i1" | "i2" | "i4" | "i8" => FieldData::I32(ints(&mut chunks, true)?),
        "u1" => FieldData::I32(ints(&mut chunks, false)?),
        _ => return Err(unsupported()),
    };
    let data = if fortran && shape.len() > 1 {
        fortran_to_c(&shape, data)
    } else {
        data
    };
    Ok(Array {
        shape,
        data,
        file_dtype: Some(numpy_name(kind)),
    })
}

/// NumPy's name of an `.npy` type code (`f8` → `float64`).
fn numpy_name(kind: &str) -> &'static str {
    match kind {
        "f8" => "float64",
        "f4" => "float32",
        "b1" => "bool",
        "i1" => "int8",
        "i2" => "int16",
        "i4" => "int32",
        "i8" => "int64",
        "u1" => "uint8",
        _ => "an unsupported type",
    }
}

/// Converts between column-major (field) and row-major (NumPy) element order.
fn reorder(shape: &[usize], data: &FieldData, to_row_major: bool) -> FieldData {
    if shape.len() < 2 {
        return data.clone();
    }
    let mut out = data.clone();
    let mut idx = vec![0usize; shape.len()];
    for c in 0..data.len() {
        // `c` counts in column-major order over the multi-index `idx`.
        let mut r = 0;
        for d in 0..shape.len() {
            r = r * shape[d] + idx[d];
        }
        if to_row_major {
            out.set(r, data.get(c));
        } else {
            out.set(c, data.get(r));
        }
        for d in 0..shape.len() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

fn fortran_to_c(shape: &[usize], data: FieldData) -> FieldData {
    let n = data.len();
    let mut out = data.clone();
    let mut idx = vec![0usize; shape.len()];
    for c in 0..n {
        // Fortran flat index of the C-order multi-index `idx`.
        let mut f = 0;
        for d in (0..shape.len()).rev() {
            f = f * shape[d] + idx[d];
        }
        out.set(c, data.get(f));
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// Writes an array to a `.npy` file (atomically: a temporary file renamed into place).
pub fn save_npy(path: impl AsRef<Path>, array: &Array) -> Result<()> {
    write_atomically(path.as_ref(), |w| write_npy(w, array))
}

/// Creates `path` through a temporary file beside it, renamed into place only when
/// `write` succeeded (see `foehn_fsio`: an interrupted write never leaves a partial
/// file; symlinks are written through, modes kept, non-files refused).
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<&std::fs::File>) -> std::io::Result<()>,
) -> Result<()> {
    foehn_fsio::write_with(path, |f| {
        let mut w = std::io::BufWriter::new(&*f);
        write(&mut w)?;
        w.flush()
    })
    .map_err(|e| io_err(path, e))
}

/// Reads a `.npy` file.
pub fn load_npy(path: impl AsRef<Path>) -> Result<Array> {
    let path = path.as_ref();
    let f = std::fs::File::open(path).map_err(|e| io_err(path, e))?;
    read_npy(std::io::BufReader::new(f)).map_err(|e| bad(format!("{}: {e}", path.display())))
}

/// Writes arrays to a `.npz` archive (members `NAME.npy`, stored uncompressed like `np.savez`).
pub fn save_npz<'a>(
    path: impl AsRef<Path>,
    arrays: impl IntoIterator<Item = (&'a str, &'a Array)>,
) -> Result<()> {
    let path = path.as_ref();
    let arrays: Vec<(&str, &Array)> = arrays.into_iter().collect();
    write_atomically(path, |out| {
        let mut zip = zip::ZipWriter::new(out);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(true);
        for (name, a) in &arrays {
            zip.start_file(format!("{name}.npy"), opts)
                .map_err(std::io::Error::other)?;
            write_npy(&mut zip, a)?;
        }
        zip.finish().map_err(std::io::Error::other)?;
        Ok(())
    })
}

/// Reads every array of a `.npz` archive, by name (without `.npy`).
pub fn load_npz(path: impl AsRef<Path>) -> Result<BTreeMap<String, Array>> {
    let path = path.as_ref();
    let f = std::fs::File::open(path).map_err(|e| io_err(path, e))?;
    read_npz(std::io::BufReader::new(f)).map_err(|e| bad(format!("{}: {e}", path.display())))
}

/// Reads every array of a `.npz` archive from a reader.
pub fn read_npz<R: Read + Seek>(r: R) -> Result<BTreeMap<String, Array>> {
    let mut zip = zip::ZipArchive::new(r)
        .map_err(|e| bad(format!("not an npz archive: {}", zip_message(&e))))?;
    let mut out = BTreeMap::new();
    for i in 0..zip.len() {
        let member = zip
            .by_index(i)
            .map_err(|e| bad(format!("npz member {}: {}", i + 1, zip_message(&e))))?;
        let name = member
            .name()
            .map_err(|e| {
                bad(format!(
                    "npz member {}: bad name: {}",
                    i + 1,
                    zip_message(&e)
                ))
            })?
            .trim_end_matches(".npy")
            .to_string();
        let array =
            read_npy(member).map_err(|e| bad(format!("npz member `{}`: {e}", excerpt(&name))))?;
        if out.insert(name.clone(), array).is_some() {
            return Err(bad(format!(
                "npz archive holds two members named `{}`",
                excerpt(&name)
            )));
        }
    }
    Ok(out)
}

/// A zip error in words: the zip crate names its internal record types
/// (`Unexpected end of zip::format::blocks::ZipCentralEntryBlock`).
fn zip_message(e: &zip::result::ZipError) -> String {
    let message = e.to_string();
    match message.split_once("Unexpected end of zip::") {
        Some((before, _)) => format!("{before}a zip record is cut short"),
        None => message,
    }
}

impl Field {
    /// The field as an untyped array (ICON4Py dimension order, row-major as NumPy's default).
    pub fn to_array(&self) -> Array {
        Array {
            shape: self.shape().to_vec(),
            data: reorder(self.shape(), self.data(), true),
            file_dtype: None,
        }
    }

    /// A field with `dims` from a (row-major) array; errors when the rank or local extent do not fit.
    pub fn from_array(dims: Dims, array: Array) -> Result<Field> {
        let data = reorder(&array.shape, &array.data, false);
        Field::new(dims, array.shape, data)
    }

    /// Writes the field to a `.npy` file.
    pub fn save_npy(&self, path: impl AsRef<Path>) -> Result<()> {
        save_npy(path, &self.to_array())
    }

    /// Reads a field with `dims` from a `.npy` file.
    pub fn load_npy(path: impl AsRef<Path>, dims: Dims) -> Result<Field> {
        let path = path.as_ref();
        Field::from_array(dims, load_npy(path)?)
            .map_err(|e| bad(format!("{}: {e}", path.display())))
    }
}
