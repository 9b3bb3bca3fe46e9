//! foehn's compiled-program cache.
//!
//! An entry is a directory `<root>/<key>/` holding the artifact (a shared library, a
//! CUBIN, …) and `entry.json` with the artifact's length and BLAKE3 checksum. The key is a
//! content hash over everything that determines the artifact (IR, options, code-generator
//! version, compiler identity) built with [`KeyBuilder`]. Entries are written to a
//! temporary directory and renamed into place, so a reader never sees half an entry; an
//! entry whose artifact does not match its checksum is reported once, removed and rebuilt,
//! never loaded.
#![deny(missing_docs)]

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Environment variable naming the cache directory.
pub const CACHE_DIR_ENV: &str = "FOEHN_CACHE_DIR";
const META: &str = "entry.json";
const ARTIFACT: &str = "artifact";
/// Name stem of the folders entries are built in (`.build.foehn-<pid>.<random>`).
const STAGING: &str = ".build.";
/// Name prefix of the staging folders of earlier foehn versions.
const LEGACY_STAGING: &str = ".tmp-";

/// Cache errors.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// A file-system operation failed.
    #[error("compiled-program cache at {path}: {source}")]
    Io {
        /// Path involved.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// Building the artifact failed.
    #[error("{0}")]
    Build(String),
}

/// Result alias.
pub type Result<T> = std::result::Result<T, CacheError>;

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> CacheError + '_ {
    move |source| CacheError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Builds a cache key from labelled parts (order matters; labels keep parts apart).
#[derive(Default)]
pub struct KeyBuilder {
    hasher: blake3::Hasher,
}

impl KeyBuilder {
    /// A new, empty key.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a labelled part.
    pub fn part(mut self, label: &str, value: impl AsRef<[u8]>) -> Self {
        let v = value.as_ref();
        self.hasher.update(&(label.len() as u64).to_le_bytes());
        self.hasher.update(label.as_bytes());
        self.hasher.update(&(v.len() as u64).to_le_bytes());
        self.hasher.update(v);
        self
    }

    /// The key as 64 hex digits.
    pub fn finish(self) -> String {
        self.hasher.finalize().to_hex().to_string()
    }
}

/// What `entry.json` records about an entry.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EntryMeta {
    /// Human-readable description (program, variant, backend).
    pub description: String,
    /// Artifact length in bytes.
    pub len: u64,
    /// BLAKE3 checksum of the artifact.
    pub checksum: String,
    /// Seconds since the Unix epoch when the entry was written.
    pub created: u64,
}

/// One listed entry.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The key.
    pub key: String,
    /// Its metadata; `None` if `entry.json` is missing or unreadable.
    pub meta: Option<EntryMeta>,
    /// Total bytes on disk.
    pub bytes: u64,
}

/// How an artifact was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Found in the cache and verified.
    Hit,
    /// Built now (absent before).
    Built,
    /// The cached entry was corrupt; it was removed and rebuilt.
    Rebuilt,
}

/// The compiled-program cache rooted at one directory.
pub struct Cache {
    root: PathBuf,
    reported: Mutex<BTreeSet<String>>,
}

impl Cache {
    /// The cache at `FOEHN_CACHE_DIR` (an empty value counts as unset), else
    /// `<user cache dir>/foehn`, else `./.foehn-cache`.
    pub fn from_env() -> Cache {
        let root = std::env::var_os(CACHE_DIR_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| dirs::cache_dir().map(|d| d.join("foehn")))
            .unwrap_or_else(|| PathBuf::from(".foehn-cache"));
        Cache::at(root)
    }

    /// The cache rooted at `root` (created on first write).
    pub fn at(root: impl Into<PathBuf>) -> Cache {
        Cache {
            root: root.into(),
            reported: Mutex::new(BTreeSet::new()),
        }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Path of the artifact of `key` (which may not exist).
    pub fn artifact_path(&self, key: &str) -> PathBuf {
        self.root.join(key).join(ARTIFACT)
    }

    /// Whether `key` has a verified entry (what [`Cache::get_or_build`] would reuse).
    pub fn contains(&self, key: &str) -> bool {
        matches!(self.verify(key), Verified::Ok)
    }

    /// Returns the verified artifact path for `key`, building it with `build` (which
    /// writes the artifact into the given file) when absent or corrupt.
    pub fn get_or_build(
        &self,
        key: &str,
        description: &str,
        build: impl FnOnce(&Path) -> std::result::Result<(), String>,
    ) -> Result<(PathBuf, Origin)> {
        let mut origin = Origin::Built;
        match self.verify(key) {
            Verified::Ok => return Ok((self.artifact_path(key), Origin::Hit)),
            Verified::Absent => {}
            Verified::Corrupt(why) => {
                self.report_once(key, &why);
                let _ = fs::remove_dir_all(self.root.join(key));
                origin = Origin::Rebuilt;
            }
        }
        fs::create_dir_all(&self.root).map_err(io_err(&self.root))?;
        foehn_fsio::cleanup::sweep(&self.root, STAGING);
        let (tmp, _registration) = foehn_fsio::cleanup::create_registered(
            || {
                tempfile::Builder::new()
                    .prefix(&foehn_fsio::cleanup::temp_prefix(STAGING))
                    .tempdir_in(&self.root)
            },
            |t| t.path(),
        )
        .map_err(io_err(&self.root))?;
        let artifact = tmp.path().join(ARTIFACT);
        if let Err(why) = build(&artifact) {
            if !tmp.path().is_dir() {
                return Err(CacheError::Io {
                    path: self.root.clone(),
                    source: std::io::Error::other(
                        "the cache folder was removed while foehn was building into it \
                         (by `foehn cache clear` or by hand?); run the command again",
                    ),
                });
            }
            return Err(CacheError::Build(why));
        }
        let bytes = fs::read(&artifact).map_err(io_err(&artifact))?;
        let meta = EntryMeta {
            description: description.to_string(),
            len: bytes.len() as u64,
            checksum: blake3::hash(&bytes).to_hex().to_string(),
            created: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
        };
        let meta_path = tmp.path().join(META);
        fs::write(
            &meta_path,
            serde_json::to_vec_pretty(&meta).expect("serialisable"),
        )
        .map_err(io_err(&meta_path))?;
        let dest = self.root.join(key);
        let staged = tmp.keep();
        match fs::rename(&staged, &dest) {
            Ok(()) => {}
            // Another process won the race: keep its (identical) entry.
            Err(_) if matches!(self.verify(key), Verified::Ok) => {
                let _ = fs::remove_dir_all(&staged);
            }
            Err(e) => {
                let _ = fs::remove_dir_all(&staged);
                return Err(io_err(&dest)(e));
            }
        }
        Ok((self.artifact_path(key), origin))
    }

    fn verify(&self, key: &str) -> Verified {
        let dir = self.root.join(key);
        if !dir.exists() {
            return Verified::Absent;
        }
        let meta: EntryMeta = match fs::read(dir.join(META))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
        {
            Some(m) => m,
            None => return Verified::Corrupt("entry.json is missing or unreadable".into()),
        };
        let bytes = match fs::read(dir.join(ARTIFACT)) {
            Ok(b) => b,
            Err(e) => return Verified::Corrupt(format!("artifact unreadable: {e}")),
        };
        if bytes.len() as u64 != meta.len {
            return Verified::Corrupt(format!(
                "artifact has {} bytes, expected {}",
                bytes.len(),
                meta.len
            ));
        }
        if blake3::hash(&bytes).to_hex().as_str() != meta.checksum {
            return Verified::Corrupt("artifact checksum mismatch".into());
        }
        Verified::Ok
    }

    fn report_once(&self, key: &str, why: &str) {
        let mut seen = self.reported.lock().unwrap_or_else(|p| p.into_inner());
        if seen.insert(key.to_string()) {
            eprintln!(
                "foehn: warning: corrupt compiled-program cache entry {} ({why}); rebuilding it",
                self.root.join(key).display()
            );
        }
    }

    /// All entries, sorted by key: the folders of the root that foehn wrote (see
    /// [`is_entry`]); anything else in the root is not listed.
    pub fn list(&self) -> Result<Vec<Entry>> {
        Ok(self.scan()?.0)
    }

    /// The entries of the root, and the paths in it that are not foehn entries.
    fn scan(&self) -> Result<(Vec<Entry>, Vec<PathBuf>)> {
        let (mut out, mut other) = (Vec::new(), Vec::new());
        let rd = match fs::read_dir(&self.root) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((out, other)),
            Err(e) => return Err(io_err(&self.root)(e)),
        };
        for item in rd {
            let item = item.map_err(io_err(&self.root))?;
            let name = item.file_name().to_string_lossy().to_string();
            if !is_entry(&item.path()) {
                // Staging folders of builds in progress are foehn's too, but not entries.
                if !is_staging(&item.path(), &name) {
                    other.push(item.path());
                }
                continue;
            }
            let meta = fs::read(item.path().join(META))
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok());
            let bytes = fs::read_dir(item.path())
                .map(|rd| {
                    rd.filter_map(|f| f.ok()?.metadata().ok())
                        .map(|m| m.len())
                        .sum()
                })
                .unwrap_or(0);
            out.push(Entry {
                key: name,
                meta,
                bytes,
            });
        }
        out.sort_by(|a, b| a.key.cmp(&b.key));
        other.sort();
        Ok((out, other))
    }

    /// Removes every entry foehn wrote and nothing else: a cache root that is (by
    /// mistake) a project folder loses no file of the project. Returns how many entries
    /// were removed and the paths it left alone.
    pub fn clear(&self) -> Result<Cleared> {
        let mut interrupted = foehn_fsio::cleanup::sweep(&self.root, STAGING);
        interrupted += self.sweep_legacy_staging();
        let (entries, skipped) = self.scan()?;
        for e in &entries {
            let p = self.root.join(&e.key);
            fs::remove_dir_all(&p).map_err(io_err(&p))?;
        }
        Ok(Cleared {
            removed: entries.len(),
            interrupted,
            skipped,
        })
    }

    /// Removes the staging folders of earlier foehn versions (`.tmp-…`, holding at most
    /// an artifact and `entry.json`) older than an hour: builds that were interrupted.
    fn sweep_legacy_staging(&self) -> usize {
        let Ok(rd) = fs::read_dir(&self.root) else {
            return 0;
        };
        rd.flatten()
            .filter(|item| {
                let (path, name) = (item.path(), item.file_name());
                name.to_string_lossy().starts_with(LEGACY_STAGING)
                    && holds_only_entry_files(&path)
                    && foehn_fsio::cleanup::older_than(&path, foehn_fsio::cleanup::LEGACY_AGE)
            })
            .filter(|item| fs::remove_dir_all(item.path()).is_ok())
            .count()
    }
}

/// What [`Cache::clear`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleared {
    /// Entries removed.
    pub removed: usize,
    /// Staging folders of interrupted builds removed.
    pub interrupted: usize,
    /// Paths in the cache root that are not foehn entries, left as they were.
    pub skipped: Vec<PathBuf>,
}

/// Whether `path` (named `name`) is a folder an entry is being built in: this version's
/// (`.build.foehn-…`), or an earlier version's (`.tmp-…`) holding at most an artifact and
/// its `entry.json`.
fn is_staging(path: &Path, name: &str) -> bool {
    name.starts_with(&format!("{STAGING}foehn-"))
        || (name.starts_with(LEGACY_STAGING) && holds_only_entry_files(path))
}

/// Whether `path` is a real folder holding nothing but an artifact and `entry.json`.
fn holds_only_entry_files(path: &Path) -> bool {
    if !path.is_dir() || path.is_symlink() {
        return false;
    }
    fs::read_dir(path).is_ok_and(|rd| {
        rd.into_iter()
            .all(|item| item.is_ok_and(|i| i.file_name() == ARTIFACT || i.file_name() == META))
    })
}

/// Whether `path` is a cache entry foehn wrote: a folder named by a key (64 lowercase
/// hexadecimal digits, as [`KeyBuilder::finish`] makes them) holding nothing but an
/// artifact and its `entry.json` (either may be missing in a corrupt entry).
pub fn is_entry(path: &Path) -> bool {
    let key_shaped = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
        n.len() == 64
            && n.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    });
    if !key_shaped || !path.is_dir() || path.is_symlink() {
        return false;
    }
    let Ok(rd) = fs::read_dir(path) else {
        return false;
    };
    let mut any = false;
    for item in rd {
        let Ok(item) = item else { return false };
        let name = item.file_name();
        if name != ARTIFACT && name != META {
            return false;
        }
        any = true;
    }
    any
}

enum Verified {
    Ok,
    Absent,
    Corrupt(String),
}
