//! Safe output files, the one way foehn writes a file a user names (grids, `.npy`/`.npz`,
//! reports): the data goes to a temporary file beside the target, which is flushed and
//! renamed into place only when complete, so a reader sees the old file or the new one,
//! never a partial one, and an interrupted write leaves no temporary behind (removed on
//! drop, on SIGINT/SIGTERM/SIGHUP once [`cleanup::remove_on_interrupt`] is installed, and
//! by the next write of the same output after a SIGKILL; see [`cleanup`]). The target is resolved first:
//! - a symlink is written through (the file it points to is replaced; the link stays);
//! - an existing regular file keeps its permissions;
//! - anything else that exists (a directory, a device such as `/dev/null`, a FIFO) is
//!   refused with an error that says so, and left alone.
#![deny(missing_docs)]

pub mod cleanup;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Where an output goes: the file to replace (symlinks resolved) and the permissions
/// to keep.
#[derive(Debug)]
pub struct Target {
    /// The path the data lands at.
    pub path: PathBuf,
    permissions: Option<fs::Permissions>,
}

/// Resolves the output `path`: follows symlinks (also dangling ones, whose target is
/// created), refuses an existing path that is not a regular file, and remembers the
/// permissions of an existing file.
pub fn target(path: &Path) -> io::Result<Target> {
    let mut resolved = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&resolved) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = fs::read_link(&resolved)?;
                resolved = match resolved.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(m) if m.is_file() => {
                return Ok(Target {
                    path: resolved,
                    permissions: Some(m.permissions()),
                })
            }
            Ok(m) => {
                let what = if m.is_dir() {
                    "a directory"
                } else {
                    "not a regular file (a device, FIFO or socket)"
                };
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("it is {what}; give the path of a file to write"),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(Target {
                    path: resolved,
                    permissions: None,
                })
            }
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "it is a chain of more than 40 symbolic links (a loop?)",
    ))
}

/// A temporary file beside an output's target, removed unless [`Staged::commit`] moved
/// it into place.
#[derive(Debug)]
pub struct Staged {
    target: Target,
    temp: tempfile::TempPath,
    _registration: cleanup::Registration,
}

impl Staged {
    /// Stages an output to `path` (see [`target`]); its folder must exist.
    pub fn new(path: &Path) -> io::Result<Staged> {
        Staged::beside(path, None)
    }

    /// Stages an output to `path` through a temporary whose name ends in `.{extension}`,
    /// for writers that pick the format by the name (the plots' PNG encoder), whatever
    /// the target is called.
    pub fn with_extension(path: &Path, extension: &str) -> io::Result<Staged> {
        Staged::beside(path, Some(extension))
    }

    fn beside(path: &Path, extension: Option<&str>) -> io::Result<Staged> {
        let target = target(path)?;
        let name = target.path.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "it does not end in a file name",
            )
        })?;
        let dir = parent_dir(&target.path);
        let stem = format!(".{}.", name.to_string_lossy());
        cleanup::sweep(dir, &stem);
        let prefix = cleanup::temp_prefix(&stem);
        let suffix = match extension {
            Some(ext) => format!(".tmp.{ext}"),
            None => ".tmp".to_string(),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(&suffix);
        #[cfg(unix)]
        {
            // A new output gets the usual mode (0666 less the umask), not a temporary's 0600.
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(fs::Permissions::from_mode(0o666));
        }
        let (temp, _registration) = cleanup::create_registered(
            || builder.tempfile_in(dir).map(|f| f.into_temp_path()),
            |t| t,
        )
        .map_err(|e| in_folder(dir, &e))?;
        Ok(Staged {
            target,
            temp,
            _registration,
        })
    }

    /// The temporary file's path (write the data here; open or create it by this path
    /// only inside [`Staged::create_by_path`]).
    pub fn path(&self) -> &Path {
        &self.temp
    }

    /// Runs `create`, which opens the temporary by its path with create or truncate (a
    /// library's `create`, an encoder that writes a file by name), so that an interrupt
    /// cannot remove the temporary just before `create` brings it back.
    pub fn create_by_path<T>(&self, create: impl FnOnce(&Path) -> T) -> T {
        cleanup::uninterrupted(|| create(&self.temp))
    }

    /// Flushes the temporary file, gives it the replaced file's permissions and renames
    /// it over the target.
    pub fn commit(self) -> io::Result<PathBuf> {
        fs::File::open(&self.temp)?.sync_all()?;
        if let Some(p) = &self.target.permissions {
            fs::set_permissions(&self.temp, p.clone())?;
        }
        self.temp.persist(&self.target.path).map_err(|e| e.error)?;
        // Make the rename durable; not every platform can sync a directory.
        let _ = fs::File::open(parent_dir(&self.target.path)).and_then(|d| d.sync_all());
        Ok(self.target.path)
    }
}

/// An error creating a file in `dir`, naming the folder and the reason in words (not
/// the temporary's name, which means nothing to the user).
fn in_folder(dir: &Path, e: &io::Error) -> io::Error {
    let why = match e.kind() {
        io::ErrorKind::NotFound => "the folder does not exist".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        io::ErrorKind::ReadOnlyFilesystem => "the file system is read-only".to_string(),
        io::ErrorKind::NotADirectory => "a part of the path is not a folder".to_string(),
        io::ErrorKind::StorageFull => "the disk is full".to_string(),
        kind => kind.to_string(),
    };
    io::Error::new(
        e.kind(),
        format!("cannot create a file in {}: {why}", dir.display()),
    )
}

/// The folder of `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Writes `bytes` to `path` safely (see the crate documentation).
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(path, |f| io::Write::write_all(f, bytes))
}

/// Writes to `path` safely through `write`, which fills the temporary file.
pub fn write_with(
    path: &Path,
    write: impl FnOnce(&mut fs::File) -> io::Result<()>,
) -> io::Result<()> {
    let staged = Staged::new(path)?;
    let mut f = staged.create_by_path(|p| fs::File::create(p))?;
    write(&mut f)?;
    drop(f);
    staged.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn writes_replace_atomically_and_leave_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.txt");
        write(&p, b"one").unwrap();
        write(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        // A failed write keeps the old file and removes its temporary.
        let e = write_with(&p, |_| Err(io::Error::other("disk on fire"))).unwrap_err();
        assert!(e.to_string().contains("disk on fire"));
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_written_through_modes_kept_and_devices_refused() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        fs::write(&real, b"old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o644)).unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o644
        );
        let e = write(Path::new("/dev/null"), b"x").unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
        let e = write(dir.path(), b"x").unwrap_err().to_string();
        assert!(e.contains("a directory"), "{e}");
    }
}
