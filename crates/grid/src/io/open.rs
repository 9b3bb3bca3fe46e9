//! Opening a grid file: what is checked before libnetcdf sees the path (a URL, a folder,
//! an empty file, a file that is not NetCDF), and how libnetcdf's errors and NetCDF types
//! and values are put into messages a user can act on.

use crate::error::{GridError, Result};
use netcdf::types::{FloatType, IntType, NcVariableType};
use netcdf::AttributeValue;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The HDF5 signature of NetCDF-4 files (at offset 0, 512, 1024, 2048, …).
const HDF5: &[u8; 8] = b"\x89HDF\r\n\x1a\n";

/// The two on-disk formats libnetcdf reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    /// CDF-1, CDF-2 (64-bit offset) or CDF-5.
    Classic,
    /// NetCDF-4 (HDF5).
    Hdf5,
}

/// Opens `path` for reading after checking that it is a local, readable, non-empty
/// NetCDF file; libnetcdf's own errors are explained (see [`library_error`]).
pub(super) fn open(path: &Path) -> Result<(netcdf::File, Format)> {
    let fail = |message: String| GridError::File {
        path: path.to_path_buf(),
        message,
    };
    if path.to_string_lossy().contains("://") {
        return Err(fail(
            "is a URL; foehn reads grid files from local disk only (libnetcdf would try the \
             network): download the file first (e.g. `curl -O <url>`) and give its local path"
                .into(),
        ));
    }
    let meta = std::fs::metadata(path).map_err(|e| {
        fail(if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "does not exist; give an existing ICON grid file (NetCDF) or a grid name: {}",
                crate::spec::NAME_HINT
            )
        } else {
            format!("cannot be read: {}", plain_io(&e))
        })
    })?;
    if meta.is_dir() {
        return Err(fail(
            "is a folder, not a grid file; give the path of an ICON grid file (NetCDF)".into(),
        ));
    }
    if !meta.is_file() {
        return Err(fail(
            "is not a regular file (a device, pipe or socket); give an ICON grid file (NetCDF)"
                .into(),
        ));
    }
    let mut raw =
        std::fs::File::open(path).map_err(|e| fail(format!("cannot be read: {}", plain_io(&e))))?;
    let format = sniff(&mut raw, meta.len()).map_err(fail)?;
    if format == Format::Classic {
        raw.seek(SeekFrom::Start(0))
            .map_err(|e| format!("cannot be read: {e}"))
            .and_then(|_| super::cdf_header::check(&mut raw, meta.len()))
            .map_err(|why| {
                fail(format!(
                    "has a NetCDF header that is damaged or cut short: {why}"
                ))
            })?;
    }
    drop(raw);
    let file = netcdf::open(path).map_err(|e| {
        let what = match format {
            Format::Classic => "its NetCDF header is damaged or cut short",
            Format::Hdf5 => "its NetCDF-4 (HDF5) structure is damaged or cut short",
        };
        fail(format!("cannot be opened: {what} ({})", library_error(&e)))
    })?;
    Ok((file, format))
}

/// Whether `path` is a NetCDF-4 (HDF5) file, by its signature. The HDF5 library behind
/// such files can crash on damaged ones (docs/fuzzing.md), so a caller may read them in
/// a child process.
pub fn is_hdf5(path: &Path) -> bool {
    let is = |m: std::fs::Metadata| {
        m.is_file()
            && std::fs::File::open(path)
                .is_ok_and(|mut f| sniff(&mut f, m.len()) == Ok(Format::Hdf5))
    };
    std::fs::metadata(path).is_ok_and(is)
}

/// The format from the file's first bytes, or why it is not a NetCDF file.
fn sniff(file: &mut std::fs::File, len: u64) -> std::result::Result<Format, String> {
    if len == 0 {
        return Err("is empty (0 bytes); was it cut short while being written?".into());
    }
    let mut head = [0u8; 16];
    let n = read_up_to(file, &mut head).map_err(|e| format!("cannot be read: {e}"))?;
    let head = &head[..n];
    if super::cdf_header::is_classic(head) {
        return Ok(Format::Classic);
    }
    let mut offset = 0u64;
    while offset + HDF5.len() as u64 <= len && offset <= 1 << 30 {
        let mut sig = [0u8; 8];
        let found = file
            .seek(SeekFrom::Start(offset))
            .and_then(|_| read_up_to(file, &mut sig))
            .is_ok_and(|n| n == 8 && &sig == HDF5);
        if found {
            return Ok(Format::Hdf5);
        }
        offset = if offset == 0 { 512 } else { offset * 2 };
    }
    let shown: String = head.escape_ascii().to_string();
    Err(format!(
        "is not a NetCDF file (it starts with `{shown}`{}); grid files are ICON grid files in \
         NetCDF (classic or NetCDF-4)",
        kind_hint(head)
    ))
}

/// A guess at what a non-NetCDF file is, from its first bytes.
fn kind_hint(head: &[u8]) -> &'static str {
    if head.starts_with(b"PK\x03\x04") {
        ", a zip archive such as an .npz"
    } else if head.starts_with(b"\x93NUMPY") {
        ", a NumPy .npy array"
    } else if head.starts_with(b"CDF") {
        ", a NetCDF signature with an unknown version"
    } else if head.starts_with(b"\x89PNG") {
        ", a PNG image"
    } else {
        ""
    }
}

/// Reads until `buf` is full or the file ends; the number of bytes read.
fn read_up_to(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// An I/O error as a short phrase ("permission denied"), without the OS error number.
fn plain_io(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::NotFound => "it does not exist".into(),
        _ => e.to_string(),
    }
}

/// libnetcdf's message without the crate's `netcdf error(-N):` prefix, as
/// `libnetcdf: <text>`.
pub(super) fn library_error(e: &netcdf::Error) -> String {
    let text = e.to_string();
    let text = match text.strip_prefix("netcdf error(") {
        Some(rest) => rest.split_once("): ").map_or(rest, |(_, t)| t).to_string(),
        None => text,
    };
    format!("libnetcdf: {}", text.trim_start_matches("NetCDF: "))
}

/// A NetCDF element type as ncdump names it (`int`, `double`, `char`, …).
pub(super) fn type_name(t: &NcVariableType) -> &'static str {
    match t {
        NcVariableType::Int(i) => match i {
            IntType::U8 => "ubyte",
            IntType::I8 => "byte",
            IntType::U16 => "ushort",
            IntType::I16 => "short",
            IntType::U32 => "uint",
            IntType::I32 => "int",
            IntType::U64 => "uint64",
            IntType::I64 => "int64",
        },
        NcVariableType::Float(FloatType::F32) => "float",
        NcVariableType::Float(FloatType::F64) => "double",
        NcVariableType::Char => "char",
        NcVariableType::String => "string",
        NcVariableType::Compound(_) => "a compound type",
        NcVariableType::Opaque(_) => "an opaque type",
        NcVariableType::Enum(_) => "an enum type",
        NcVariableType::Vlen(_) => "a variable-length type",
    }
}

/// An attribute value as ncdump prints it: numbers, lists of numbers, quoted text.
pub(super) fn value_text(v: &AttributeValue) -> String {
    fn list<T: ToString>(v: &[T]) -> String {
        v.iter().map(T::to_string).collect::<Vec<_>>().join(", ")
    }
    match v {
        AttributeValue::Uchar(x) => x.to_string(),
        AttributeValue::Schar(x) => x.to_string(),
        AttributeValue::Ushort(x) => x.to_string(),
        AttributeValue::Short(x) => x.to_string(),
        AttributeValue::Uint(x) => x.to_string(),
        AttributeValue::Int(x) => x.to_string(),
        AttributeValue::Ulonglong(x) => x.to_string(),
        AttributeValue::Longlong(x) => x.to_string(),
        AttributeValue::Float(x) => x.to_string(),
        AttributeValue::Double(x) => x.to_string(),
        AttributeValue::Uchars(x) => list(x),
        AttributeValue::Schars(x) => list(x),
        AttributeValue::Ushorts(x) => list(x),
        AttributeValue::Shorts(x) => list(x),
        AttributeValue::Uints(x) => list(x),
        AttributeValue::Ints(x) => list(x),
        AttributeValue::Ulonglongs(x) => list(x),
        AttributeValue::Longlongs(x) => list(x),
        AttributeValue::Floats(x) => list(x),
        AttributeValue::Doubles(x) => list(x),
        AttributeValue::Str(s) => format!("\"{s}\""),
        AttributeValue::Strs(s) => s
            .iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", "),
    }
}
