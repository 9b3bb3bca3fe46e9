//! A check of a classic NetCDF header (CDF-1, CDF-2, CDF-5) against the file's length,
//! before libnetcdf sees it: libnetcdf 4.9 allocates (and fills) what the header's
//! counts claim (attribute values, a variable's dimension ids, list lengths) before
//! comparing them with the file, so a 46 KB file can cost it 15 GB. This is the guard
//! docs/fuzzing.md proposes for the grid reader; the fuzz target skips the inputs it
//! refuses, so fuzzing goes on past that known libnetcdf behaviour.
//!
//! Layout (NetCDF classic format specification):
//! `magic numrecs dim_list gatt_list var_list`, lists `tag nelems items` or absent
//! (`0 0`); counts and sizes are 4 bytes big-endian, 8 in CDF-5; variable offsets 4
//! bytes in CDF-1, 8 in CDF-2 and CDF-5; names and values padded to 4 bytes.

/// The longest name libnetcdf accepts (`NC_MAX_NAME`).
const MAX_NAME: u64 = 256;
/// The most dimensions a variable may have (`NC_MAX_VAR_DIMS`).
const MAX_VAR_DIMS: u64 = 1024;

struct Header<'a> {
    bytes: &'a [u8],
    at: usize,
    /// CDF-5: 8-byte counts.
    wide: bool,
}

impl Header<'_> {
    fn remaining(&self) -> u64 {
        (self.bytes.len() - self.at) as u64
    }

    fn take(&mut self, n: u64, what: &str) -> Result<&[u8], String> {
        if n > self.remaining() {
            return Err(format!(
                "{what} needs {n} bytes at offset {}, the file has {} left",
                self.at,
                self.remaining()
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
            Ok(u64::from_be_bytes(b.try_into().expect("8 bytes")))
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
        self.take(n.div_ceil(4) * 4, what).map(|_| ())
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

/// Whether `bytes` start with a classic NetCDF signature (`CDF` 1, 2 or 5).
pub fn is_classic(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && bytes.starts_with(b"CDF") && matches!(bytes[3], 1 | 2 | 5)
}

/// Checks that every count in a classic header fits in the file; why not, if not.
pub fn check_classic_header(bytes: &[u8]) -> Result<(), String> {
    if !is_classic(bytes) {
        return Err("not a classic NetCDF file".into());
    }
    let version = bytes[3];
    let mut h = Header {
        bytes,
        at: 4,
        wide: version == 5,
    };
    h.count("numrecs")?;
    let ndims = h.list(0x0A, 8, "the dimension list")?;
    for _ in 0..ndims {
        h.name("a dimension")?;
        h.count("a dimension")?;
    }
    h.attributes("the global attributes")?;
    let nvars = h.list(0x0B, 24, "the variable list")?;
    for _ in 0..nvars {
        h.name("a variable")?;
        let rank = h.count("a variable")?;
        if rank > MAX_VAR_DIMS {
            return Err(format!("a variable claims {rank} dimensions"));
        }
        h.fits(rank, if h.wide { 8 } else { 4 }, "a variable's dimensions")?;
        for _ in 0..rank {
            let id = h.count("a variable's dimensions")?;
            if id >= ndims {
                return Err(format!("a variable uses dimension {id} of {ndims}"));
            }
        }
        h.attributes("a variable's attributes")?;
        h.u32("a variable's type")?;
        h.count("a variable's size")?;
        if version == 1 {
            h.u32("a variable's offset")?;
        } else {
            h.take(8, "a variable's offset")?;
        }
    }
    Ok(())
}
