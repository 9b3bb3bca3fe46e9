//! The checkpoint file: self-describing, checksummed, written atomically.
//!
//! ```text
//! "FOEHNCKP"                      8 bytes, the magic
//! version                         u32, little-endian (2)
//! header length                   u64, little-endian
//! header                          TOML: identity, clock, scalars (f64 as the hex of
//!                                 their bits), and per field its name, dtype, shape,
//!                                 byte count and whether it is uniform, in the order
//!                                 of the data
//! data                            each field's values, little-endian (bool: 1 byte);
//!                                 a uniform field (every value the same bits: the
//!                                 zero-filled tendencies and increments of a JW run)
//!                                 as its one value
//! checksum                        BLAKE3 (32 bytes) of everything before it
//! ```
//!
//! Version 1 (no uniform fields) is still read.
//!
//! The header can be read with `head -c`; the f64 numbers of the clock are stored as
//! their bits, so that a restart continues from exactly the same time.

use super::{Checkpoint, ClockState, Identity, SavedField};
use foehn::error::{Error, Result};
use foehn::runtime::field::FieldData;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

/// The first bytes of every checkpoint file.
pub const MAGIC: [u8; 8] = *b"FOEHNCKP";
/// The format version this foehn writes (it also reads [`OLDEST_VERSION`] and later).
pub const VERSION: u32 = 2;
/// The oldest format version this foehn reads.
pub const OLDEST_VERSION: u32 = 1;
/// Bytes of the checksum at the end.
const HASH_LEN: u64 = 32;
/// Bytes before the header.
const PREAMBLE: u64 = 8 + 4 + 8;
/// The largest header accepted (a damaged length must not allocate gigabytes).
const MAX_HEADER: u64 = 64 << 20;
/// Values converted per chunk when writing.
const CHUNK: usize = 8192;

/// The header of a checkpoint file.
#[derive(Debug, Serialize, Deserialize)]
struct Header {
    /// Always "foehn checkpoint".
    format: String,
    /// Bits of the running CFL maximum, hex.
    max_vertical_cfl: String,
    /// Bits of the solver's previous substep's `dtime`, hex.
    dtime_previous_substep: String,
    identity: Identity,
    clock: ClockHeader,
    fields: Vec<FieldEntry>,
}

/// [`ClockState`] with the time as its bits.
#[derive(Debug, Serialize, Deserialize)]
struct ClockHeader {
    steps_done: u64,
    /// Simulated time, s (for people; `time_bits` is what a restart reads).
    time: f64,
    /// Bits of the simulated time, hex.
    time_bits: String,
    cfl_watch_active: bool,
    ndyn_substeps_var: usize,
}

/// One field of the data section.
#[derive(Debug, Serialize, Deserialize)]
struct FieldEntry {
    name: String,
    dtype: String,
    shape: Vec<usize>,
    /// Bytes in the data section: every value's, or one value's if `uniform`.
    bytes: u64,
    /// Every value has the same bits; the data section holds it once.
    #[serde(default)]
    uniform: bool,
}

/// Whether every value of `data` has the same bits as the first (and there are two or
/// more).
fn uniform(data: &FieldData) -> bool {
    fn same<T: Copy>(v: &[T], bits: impl Fn(T) -> u64) -> bool {
        v.len() > 1 && v.iter().all(|&x| bits(x) == bits(v[0]))
    }
    match data {
        FieldData::F64(v) => same(v, f64::to_bits),
        FieldData::F32(v) => same(v, |x| u64::from(x.to_bits())),
        FieldData::I32(v) => same(v, |x| x as u32 as u64),
        FieldData::Bool(v) => same(v, u64::from),
    }
}

/// The first value of `data`, as one-value data.
fn first_value(data: &FieldData) -> FieldData {
    match data {
        FieldData::F64(v) => FieldData::F64(v[..1].to_vec()),
        FieldData::F32(v) => FieldData::F32(v[..1].to_vec()),
        FieldData::I32(v) => FieldData::I32(v[..1].to_vec()),
        FieldData::Bool(v) => FieldData::Bool(v[..1].to_vec()),
    }
}

/// The type name and bytes per value of `data`.
fn dtype_of(data: &FieldData) -> (&'static str, u64) {
    match data {
        FieldData::F64(_) => ("f64", 8),
        FieldData::F32(_) => ("f32", 4),
        FieldData::I32(_) => ("i32", 4),
        FieldData::Bool(_) => ("bool", 1),
    }
}

/// Calls `f` with the little-endian bytes of `data`, a chunk at a time.
pub(super) fn for_each_chunk(data: &FieldData, mut f: impl FnMut(&[u8])) {
    fn chunks<T: Copy, const N: usize>(
        v: &[T],
        bytes: impl Fn(T) -> [u8; N],
        f: &mut impl FnMut(&[u8]),
    ) {
        let mut buf = Vec::with_capacity(CHUNK * N);
        for part in v.chunks(CHUNK) {
            buf.clear();
            buf.extend(part.iter().flat_map(|x| bytes(*x)));
            f(&buf);
        }
    }
    match data {
        FieldData::F64(v) => chunks(v, f64::to_le_bytes, &mut f),
        FieldData::F32(v) => chunks(v, f32::to_le_bytes, &mut f),
        FieldData::I32(v) => chunks(v, i32::to_le_bytes, &mut f),
        FieldData::Bool(v) => chunks(v, |b| [b as u8], &mut f),
    }
}

fn hex(x: f64) -> String {
    format!("{:016x}", x.to_bits())
}

/// An error about the checkpoint at `path`.
fn fail(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::Field(format!("checkpoint {}: {what}", path.display()))
}

/// Refuses to replace an existing file at `path` that is not a foehn checkpoint.
pub(super) fn refuse_foreign(path: &Path) -> Result<()> {
    let Ok(mut f) = File::open(path) else {
        return Ok(());
    };
    if !f.metadata().map(|m| m.is_file()).unwrap_or(false) {
        return Ok(()); // a directory or a device: the staged write refuses it
    }
    let mut head = Vec::new();
    let _ = (&mut f).take(MAGIC.len() as u64).read_to_end(&mut head);
    if !head.is_empty() && head != MAGIC {
        return Err(fail(
            path,
            "the file exists and is not a foehn checkpoint; not overwriting it: name \
             another checkpoint file, or move that one away",
        ));
    }
    Ok(())
}

/// A writer that hashes what passes through it.
struct Hashing<W> {
    inner: W,
    hasher: blake3::Hasher,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// Writes `c` to `path` (see the module doc).
pub(super) fn write(c: &Checkpoint, path: &Path) -> Result<()> {
    refuse_foreign(path)?;
    let header = Header {
        format: "foehn checkpoint".into(),
        max_vertical_cfl: hex(c.max_vertical_cfl),
        dtime_previous_substep: hex(c.dtime_previous_substep),
        identity: c.identity.clone(),
        clock: ClockHeader {
            steps_done: c.clock.steps_done,
            time: c.clock.time,
            time_bits: hex(c.clock.time),
            cfl_watch_active: c.clock.cfl_watch_active,
            ndyn_substeps_var: c.clock.ndyn_substeps_var,
        },
        fields: c
            .fields
            .iter()
            .map(|f| {
                let (dtype, size) = dtype_of(&f.data);
                let uniform = uniform(&f.data);
                FieldEntry {
                    name: f.name.clone(),
                    dtype: dtype.into(),
                    shape: f.shape.clone(),
                    bytes: size * if uniform { 1 } else { f.data.len() as u64 },
                    uniform,
                }
            })
            .collect(),
    };
    let text = toml::to_string(&header).map_err(|e| fail(path, format!("header: {e}")))?;
    let io_err = |e: io::Error| fail(path, e);
    let staged = foehn_fsio::Staged::new(path).map_err(io_err)?;
    let file = staged.create_by_path(|p| File::create(p)).map_err(io_err)?;
    let mut w = Hashing {
        inner: BufWriter::new(file),
        hasher: blake3::Hasher::new(),
    };
    w.write_all(&MAGIC).map_err(io_err)?;
    w.write_all(&VERSION.to_le_bytes()).map_err(io_err)?;
    w.write_all(&(text.len() as u64).to_le_bytes())
        .map_err(io_err)?;
    w.write_all(text.as_bytes()).map_err(io_err)?;
    for (f, entry) in c.fields.iter().zip(&header.fields) {
        let one;
        let data = if entry.uniform {
            one = first_value(&f.data);
            &one
        } else {
            &f.data
        };
        let mut result = Ok(());
        for_each_chunk(data, |bytes| {
            if result.is_ok() {
                result = w.write_all(bytes);
            }
        });
        result.map_err(io_err)?;
    }
    let hash = w.hasher.finalize();
    let mut inner = w.inner;
    inner.write_all(hash.as_bytes()).map_err(io_err)?;
    inner
        .into_inner()
        .map_err(|e| io_err(e.into_error()))?
        .sync_all()
        .map_err(io_err)?;
    staged.commit().map_err(io_err)?;
    Ok(())
}

/// Reads a checkpoint from `path` (see the module doc), refusing a file that is not
/// one, of another version, truncated or damaged.
pub(super) fn read(path: &Path) -> Result<Checkpoint> {
    let file = File::open(path).map_err(|e| fail(path, format!("cannot open it: {e}")))?;
    let len = file.metadata().map_err(|e| fail(path, e))?.len();
    let mut r = Hashing {
        inner: BufReader::new(file),
        hasher: blake3::Hasher::new(),
    };
    let truncated = |what: &str| {
        fail(
            path,
            format!(
                "truncated ({len} bytes; {what}): the write was interrupted, or the file was cut"
            ),
        )
    };
    let mut preamble = [0u8; PREAMBLE as usize];
    if len < PREAMBLE {
        let mut head = vec![0u8; len as usize];
        r.read_exact(&mut head).map_err(|e| fail(path, e))?;
        if !MAGIC.starts_with(&head) {
            return Err(not_a_checkpoint(path));
        }
        return Err(truncated("shorter than the preamble"));
    }
    r.read_exact(&mut preamble).map_err(|e| fail(path, e))?;
    if preamble[..8] != MAGIC {
        return Err(not_a_checkpoint(path));
    }
    let version = u32::from_le_bytes(preamble[8..12].try_into().expect("4 bytes"));
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(fail(
            path,
            format!(
                "format version {version}; this foehn reads versions {OLDEST_VERSION} to \
                 {VERSION} (restart with the foehn that wrote it)"
            ),
        ));
    }
    let header_len = u64::from_le_bytes(preamble[12..20].try_into().expect("8 bytes"));
    if header_len > MAX_HEADER {
        return Err(fail(
            path,
            format!("corrupt: a header of {header_len} bytes"),
        ));
    }
    if PREAMBLE + header_len + HASH_LEN > len {
        return Err(truncated("the header is cut"));
    }
    let mut text = vec![0u8; header_len as usize];
    r.read_exact(&mut text).map_err(|e| fail(path, e))?;
    let header: Header = std::str::from_utf8(&text)
        .map_err(|e| e.to_string())
        .and_then(|t| toml::from_str(t).map_err(|e| e.to_string()))
        .map_err(|e| fail(path, format!("corrupt header: {e}")))?;
    let data: u64 = header.fields.iter().map(|f| f.bytes).sum();
    let expected = PREAMBLE + header_len + data + HASH_LEN;
    if len < expected {
        return Err(truncated(&format!("its header describes {expected}")));
    }
    if len > expected {
        return Err(fail(
            path,
            format!("corrupt: {len} bytes, its header describes {expected}"),
        ));
    }
    let mut fields = Vec::with_capacity(header.fields.len());
    for entry in &header.fields {
        fields.push(read_field(&mut r, entry).map_err(|e| fail(path, e))?);
    }
    let hash = r.hasher.finalize();
    let mut stored = [0u8; HASH_LEN as usize];
    r.inner.read_exact(&mut stored).map_err(|e| fail(path, e))?;
    if hash.as_bytes() != &stored {
        return Err(fail(
            path,
            "corrupt: the checksum does not match the contents (the file was damaged or \
             altered after it was written)",
        ));
    }
    let bits = |name: &str, s: &str| {
        u64::from_str_radix(s, 16)
            .map(f64::from_bits)
            .map_err(|e| fail(path, format!("corrupt header: {name} = {s:?}: {e}")))
    };
    Ok(Checkpoint {
        identity: header.identity,
        clock: ClockState {
            steps_done: header.clock.steps_done,
            time: bits("clock.time_bits", &header.clock.time_bits)?,
            cfl_watch_active: header.clock.cfl_watch_active,
            ndyn_substeps_var: header.clock.ndyn_substeps_var,
        },
        max_vertical_cfl: bits("max_vertical_cfl", &header.max_vertical_cfl)?,
        dtime_previous_substep: bits("dtime_previous_substep", &header.dtime_previous_substep)?,
        fields,
        source: Some(path.to_path_buf()),
    })
}

fn not_a_checkpoint(path: &Path) -> Error {
    fail(
        path,
        "not a foehn checkpoint (it does not start with FOEHNCKP): give a file written by \
         foehn run jw --checkpoint-interval",
    )
}

/// Reads the values of `entry` from `r`.
fn read_field(r: &mut impl Read, entry: &FieldEntry) -> std::result::Result<SavedField, String> {
    let n: usize = entry.shape.iter().product();
    if entry.uniform && n < 2 {
        return Err(format!(
            "corrupt header: field `{}` of shape {:?} cannot be uniform",
            entry.name, entry.shape
        ));
    }
    let stored = if entry.uniform { 1 } else { n };
    let size = match entry.dtype.as_str() {
        "f64" => 8,
        "f32" | "i32" => 4,
        "bool" => 1,
        other => return Err(format!("field `{}`: unknown dtype {other:?}", entry.name)),
    };
    if (stored as u64) * size != entry.bytes {
        return Err(format!(
            "corrupt header: field `{}` of shape {:?}{} cannot be {} bytes",
            entry.name,
            entry.shape,
            if entry.uniform { ", uniform," } else { "" },
            entry.bytes
        ));
    }
    let mut bytes = vec![0u8; entry.bytes as usize];
    r.read_exact(&mut bytes).map_err(|e| e.to_string())?;
    fn values<T, const N: usize>(bytes: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
        bytes
            .chunks_exact(N)
            .map(|c| f(c.try_into().expect("N bytes")))
            .collect()
    }
    let data = match entry.dtype.as_str() {
        "f64" => FieldData::F64(values(&bytes, f64::from_le_bytes)),
        "f32" => FieldData::F32(values(&bytes, f32::from_le_bytes)),
        "i32" => FieldData::I32(values(&bytes, i32::from_le_bytes)),
        _ => FieldData::Bool(
            bytes
                .iter()
                .map(|b| match b {
                    0 => Ok(false),
                    1 => Ok(true),
                    _ => Err(format!(
                        "corrupt: field `{}` holds a bool of {b}",
                        entry.name
                    )),
                })
                .collect::<std::result::Result<_, _>>()?,
        ),
    };
    let data = if entry.uniform {
        match data {
            FieldData::F64(v) => FieldData::F64(vec![v[0]; n]),
            FieldData::F32(v) => FieldData::F32(vec![v[0]; n]),
            FieldData::I32(v) => FieldData::I32(vec![v[0]; n]),
            FieldData::Bool(v) => FieldData::Bool(vec![v[0]; n]),
        }
    } else {
        data
    };
    Ok(SavedField {
        name: entry.name.clone(),
        shape: entry.shape.clone(),
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small checkpoint: a varying f64 field, uniform fields of every type, a
    /// one-value field (never called uniform), and a field of -0.0 and +0.0 (not
    /// uniform: their bits differ).
    fn checkpoint() -> Checkpoint {
        let field = |name: &str, data: FieldData| SavedField {
            name: name.into(),
            shape: vec![data.len()],
            data,
        };
        Checkpoint {
            identity: Identity {
                grid: "g".into(),
                cells: 1,
                edges: 2,
                vertices: 3,
                levels: 4,
                settings: "s".into(),
                solver: "v".into(),
                constants: "c".into(),
                run: "r".into(),
            },
            clock: ClockState {
                steps_done: 3,
                time: 900.0,
                cfl_watch_active: false,
                ndyn_substeps_var: 5,
            },
            max_vertical_cfl: 0.25,
            dtime_previous_substep: 60.0,
            fields: vec![
                field(
                    "varying",
                    FieldData::F64((0..1000).map(f64::from).collect()),
                ),
                field("zeros", FieldData::F64(vec![0.0; 5000])),
                field("f32s", FieldData::F32(vec![1.5; 300])),
                field("i32s", FieldData::I32(vec![-7; 300])),
                field("bools", FieldData::Bool(vec![true; 300])),
                field("one", FieldData::F64(vec![2.0])),
                field("signed_zeros", FieldData::F64(vec![0.0, -0.0, 0.0])),
            ],
            source: None,
        }
    }

    #[test]
    fn uniform_fields_are_stored_once_and_read_back_bit_for_bit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.ckpt");
        let c = checkpoint();
        c.write(&path).unwrap();
        let read = Checkpoint::read(&path).unwrap();
        assert_eq!(read.first_difference(&c), None);
        let full: usize = c
            .fields
            .iter()
            .map(|f| f.data.len() * dtype_of(&f.data).1 as usize)
            .sum();
        let len = std::fs::metadata(&path).unwrap().len() as usize;
        assert!(len < full / 4, "{len} bytes for {full} bytes of fields");
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        assert_eq!(text.matches("uniform = true").count(), 4, "{text}");
    }

    #[test]
    fn a_version_1_file_is_still_read() {
        // Version 1 as it was written: no uniform fields, no `uniform` keys.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.ckpt");
        let mut c = checkpoint();
        c.fields.retain(|f| !uniform(&f.data));
        c.write(&path).unwrap();
        let v2 = std::fs::read(&path).unwrap();
        let header_len = u64::from_le_bytes(v2[12..20].try_into().unwrap()) as usize;
        let header = std::str::from_utf8(&v2[20..20 + header_len]).unwrap();
        let header = header.replace("uniform = false\n", "");
        let mut bytes = MAGIC.to_vec();
        bytes.extend(1u32.to_le_bytes());
        bytes.extend((header.len() as u64).to_le_bytes());
        bytes.extend(header.as_bytes());
        bytes.extend(&v2[20 + header_len..v2.len() - HASH_LEN as usize]);
        let hash = blake3::hash(&bytes);
        bytes.extend(hash.as_bytes());
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(Checkpoint::read(&path).unwrap().first_difference(&c), None);
        // A later version is refused, saying which this foehn reads.
        bytes[8..12].copy_from_slice(&(VERSION + 1).to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        let e = Checkpoint::read(&path).unwrap_err().to_string();
        assert!(
            e.contains("format version 3") && e.contains("versions 1 to 2"),
            "{e}"
        );
    }
}
