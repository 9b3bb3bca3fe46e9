//! File helpers: atomic writes (temporary file + rename) and JSON reading with errors that
//! name the file.

use crate::error::{Error, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::Path;

/// Write `bytes` to `path` atomically: a reader sees the old file or the new one, never a
/// partial one (see `foehn_fsio`: symlinks written through, modes kept, non-files
/// refused). Creates missing parent folders.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    foehn_fsio::write(path, bytes).map_err(|e| Error::io(path, e))
}

/// Serialize `value` as pretty JSON (with a final newline) and write it atomically to `path`.
pub fn write_json_atomic<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })?;
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// Read and parse the JSON file `path` into `T`.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    serde_json::from_str(&text).map_err(|source| Error::Json {
        path: path.to_path_buf(),
        source,
    })
}
