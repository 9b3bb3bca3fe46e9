//! A check of a classic NetCDF header (CDF-1, CDF-2, CDF-5) before libnetcdf opens the
//! file. Fuzzing (docs/fuzzing.md) found what libnetcdf 4.9 and the netcdf crate do with
//! hostile headers, and each rule here keeps one of them away:
//!
//! * every count (list lengths, attribute values, a variable's dimension ids) must fit
//!   in the bytes the file has: libnetcdf allocates what the header claims before it
//!   compares that with the file (a 13-byte file made it allocate until killed, a
//!   31-byte one crash on a NULL pointer);
//! * a variable's type must be a NetCDF type, and the record dimension (length 0) may
//!   only come first: otherwise libnetcdf divides by zero in `NC_check_vlen` (SIGFPE);
//! * names must be UTF-8 of at most 256 bytes: the netcdf crate's `Dimension::name`
//!   panics on others.
//!
//! Layout (NetCDF classic format specification):
//! `magic numrecs dim_list gatt_list var_list`, lists `tag nelems items` or absent
//! (`0 0`); counts and sizes are 4 bytes big-endian, 8 in CDF-5; variable offsets 4
//! bytes in CDF-1, 8 in CDF-2 and CDF-5; names and values padded to 4 bytes. Only the
//! header is read (at most [`MAX_HEADER`] bytes).

use std::io::Read;

/// The longest header read: an ICON grid file's is a few kilobytes.
pub(super) const MAX_HEADER: u64 = 16 << 20;

/// The longest name libnetcdf accepts (`NC_MAX_NAME`).
const MAX_NAME: u64 = 256;
/// The most dimensions a variable may have (`NC_MAX_VAR_DIMS`).
const MAX_VAR_DIMS: u64 = 1024;

struct Header<'a> {
    /// The start of the file (the header and maybe more).
    bytes: &'a [u8],
    /// The file's length: what counts must fit in.
    file_len: u64,
    at: usize,
    /// CDF-5: 8-byte counts.
    wide: bool,
}

impl Header<'_> {
    fn remaining(&self) -> u64 {
        self.file_len.saturating_sub(self.at as u64)
    }

    fn take(&mut self, n: u64, what: &str) -> Result<&[u8], String> {
        if n > self.remaining() {
            return Err(format!(
                "{what} needs {n} bytes at offset {}, the file has {} left",
                self.at,
                self.remaining()
            ));
        }
        if self.at as u64 + n > self.bytes.len() as u64 {
            return Err(format!(
                "the header is longer than {} MiB, which no grid file's is",
                MAX_HEADER >> 20
            ));
        }
        let start = self.at;
        self.at += n as usize;
        Ok(&self.bytes[start..self.at])
    }

    fn u32(&mut self, what: &str) -> Result<u64, String> {
        let b = self.take(4, what)?;
        Ok(u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
    }

    /// A count or size: 4 bytes, or 8 in CDF-5.
    fn count(&mut self, what: &str) -> Result<u64, String> {
        if self.wide {
            let b = self.take(8, what)?;
            Ok(u64::from_be_bytes([
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
            ]))
        } else {
            self.u32(what)
        }
    }

    /// `n` items of at least `min` bytes each must fit in what is left.
    fn fits(&self, n: u64, min: u64, what: &str) -> Result<(), String> {
        match n.checked_mul(min) {
            Some(bytes) if bytes <= self.remaining() => Ok(()),
            _ => Err(format!(
                "{what} claims {n} entries, more than the {} bytes left can hold",
                self.remaining()
            )),
        }
    }

    fn name(&mut self, what: &str) -> Result<(), String> {
        let n = self.count(what)?;
        if n == 0 || n > MAX_NAME {
            return Err(format!("{what} has a name of {n} bytes"));
        }
        let padded = self.take(n.div_ceil(4) * 4, what)?;
        // The netcdf crate panics on names that are not UTF-8 (`Dimension::name`).
        std::str::from_utf8(&padded[..n as usize])
            .map(|_| ())
            .map_err(|_| format!("{what} has a name that is not UTF-8"))
    }

    /// A list's tag and length (0 when absent).
    fn list(&mut self, tag: u32, min_item: u64, what: &str) -> Result<u64, String> {
        let t = self.u32(what)?;
        let n = self.count(what)?;
        if t == 0 && n == 0 {
            return Ok(0);
        }
        if t != u64::from(tag) {
            return Err(format!("{what} has tag {t:#x}, expected {tag:#x}"));
        }
        self.fits(n, min_item, what)?;
        Ok(n)
    }

    fn attributes(&mut self, what: &str) -> Result<(), String> {
        let n = self.list(0x0C, 12, what)?;
        for _ in 0..n {
            self.name(what)?;
            let size = match self.u32(what)? {
                1 | 2 | 7 => 1,
                3 | 8 => 2,
                4 | 5 | 9 => 4,
                6 | 10 | 11 => 8,
                t => return Err(format!("{what} has an attribute of type {t}")),
            };
            let count = self.count(what)?;
            self.fits(count, size, what)?;
            self.take((count * size).div_ceil(4) * 4, what)?;
        }
        Ok(())
    }
}

/// Checks the classic header of `file` (`file_len` bytes, starting with a classic
/// signature); why it is refused, if it is.
pub(super) fn check(file: &mut std::fs::File, file_len: u64) -> Result<(), String> {
    let mut bytes = Vec::new();
    file.take(MAX_HEADER)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot be read: {e}"))?;
    check_bytes(&bytes, file_len)
}

/// Whether `head` starts with a classic NetCDF signature (`CDF` and version 1, 2 or 5).
pub(super) fn is_classic(head: &[u8]) -> bool {
    head.len() >= 4 && head.starts_with(b"CDF") && matches!(head[3], 1 | 2 | 5)
}

/// [`check`] on the start of a file, `bytes`, of a file of `file_len` bytes.
fn check_bytes(bytes: &[u8], file_len: u64) -> Result<(), String> {
    if !is_classic(bytes) {
        return Err("not a classic NetCDF file".into());
    }
    let version = bytes[3];
    let mut h = Header {
        bytes,
        file_len,
        at: 4,
        wide: version == 5,
    };
    h.count("numrecs")?;
    let ndims = h.list(0x0A, 8, "the dimension list")?;
    // Length 0 marks the record (unlimited) dimension; there is at most one.
    let mut record = None;
    for i in 0..ndims {
        h.name("a dimension")?;
        if h.count("a dimension")? == 0 {
            if record.is_some() {
                return Err("two dimensions have length 0 (the record dimension)".into());
            }
            record = Some(i);
        }
    }
    h.attributes("the global attribute list")?;
    let nvars = h.list(0x0B, 24, "the variable list")?;
    for _ in 0..nvars {
        h.name("a variable")?;
        let rank = h.count("a variable")?;
        if rank > MAX_VAR_DIMS {
            return Err(format!("a variable claims {rank} dimensions"));
        }
        h.fits(rank, if h.wide { 8 } else { 4 }, "a variable's dimensions")?;
        for position in 0..rank {
            let id = h.count("a variable's dimensions")?;
            if id >= ndims {
                return Err(format!("a variable uses dimension {id} of {ndims}"));
            }
            // libnetcdf divides by the product of the other dimensions (NC_check_vlen):
            // the record dimension anywhere but first makes that 0 (SIGFPE).
            if position > 0 && Some(id) == record {
                return Err("a variable has the record dimension after its first".into());
            }
        }
        h.attributes("a variable's attribute list")?;
        let types = if version == 5 { 11 } else { 6 };
        let t = h.u32("a variable's type")?;
        if !(1..=types).contains(&t) {
            return Err(format!("a variable has type {t}"));
        }
        h.count("a variable's size")?;
        if version == 1 {
            h.u32("a variable's offset")?;
        } else {
            h.take(8, "a variable's offset")?;
        }
    }
    Ok(())
}
