//! Temporaries never outlive their writer: the ones in flight are removed when the process
//! is interrupted (SIGINT, SIGTERM, SIGHUP; see [`remove_on_interrupt`]), and the ones a
//! killed process left (SIGKILL, a power cut) are removed by the next writer of the same
//! output (see [`sweep`]). A temporary's name carries its writer's process id
//! (`<stem>foehn-<pid>.<random>…`), so only those whose writer is gone are touched.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// Temporaries (files or folders) of this process that are not yet moved into place.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// How old a temporary of an earlier foehn version (whose name has no process id) must
/// be before a sweep removes it: no write takes this long.
pub const LEGACY_AGE: Duration = Duration::from_secs(3600);

/// A temporary registered for removal on interrupt; dropping it deregisters the path
/// (the owner has moved or removed it).
#[derive(Debug)]
pub struct Registration(PathBuf);

impl Drop for Registration {
    fn drop(&mut self) {
        let mut live = LIVE.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = live.iter().rposition(|p| *p == self.0) {
            live.swap_remove(i);
        }
    }
}

/// Creates a temporary with `create` and registers it for removal if the process is
/// interrupted before the returned guard is dropped. Creation happens under the lock the
/// interrupt handler takes, so an interrupt either comes before the temporary exists or
/// finds it registered: no window in which a temporary can be left behind.
pub fn create_registered<T, E>(
    create: impl FnOnce() -> Result<T, E>,
    path_of: impl FnOnce(&T) -> &Path,
) -> Result<(T, Registration), E> {
    let mut live = LIVE.lock().unwrap_or_else(|p| p.into_inner());
    let made = create()?;
    let path = path_of(&made).to_path_buf();
    live.push(path.clone());
    Ok((made, Registration(path)))
}

/// Runs `f` under the lock the interrupt handler takes. For code that (re)creates a
/// registered temporary by its path (a library's `create`, an image encoder): were the
/// handler to remove the file just before, the creation would bring it back after.
pub fn uninterrupted<T>(f: impl FnOnce() -> T) -> T {
    let _live = LIVE.lock().unwrap_or_else(|p| p.into_inner());
    f()
}

/// Installs the handler that, on SIGINT, SIGTERM or SIGHUP, removes every registered
/// temporary and exits with status 130 (as a shell reports an interrupt). Call once,
/// at the start of `main`; an error means another handler is already installed.
pub fn remove_on_interrupt() -> Result<(), String> {
    ctrlc::set_handler(|| {
        let live = LIVE.lock().unwrap_or_else(|p| p.into_inner());
        for p in live.iter() {
            let _ = fs::remove_file(p).or_else(|_| fs::remove_dir_all(p));
        }
        eprintln!(
            "foehn: interrupted; removed {} unfinished output(s)",
            live.len()
        );
        std::process::exit(130);
    })
    .map_err(|e| format!("cannot install the interrupt handler: {e}"))
}

/// The name prefix of this process's temporaries for outputs whose names start with
/// `stem`.
pub fn temp_prefix(stem: &str) -> String {
    format!("{stem}foehn-{}.", std::process::id())
}

/// Removes, from `dir`, the temporaries of outputs named by `stem` that a process that no
/// longer runs left behind: `<stem>foehn-<pid>.…` with a dead `pid`, and the names of
/// earlier foehn versions (`<stem><pid>-<n>.tmp` with a dead `pid`, `<stem><6 letters>.tmp…`
/// older than an hour). Returns how many it removed; unreadable entries are skipped.
pub fn sweep(dir: &Path, stem: &str) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(stem)) else {
            continue;
        };
        if stale(rest, &entry.path()) {
            let path = entry.path();
            let gone = match entry.file_type() {
                Ok(t) if t.is_dir() => fs::remove_dir_all(&path),
                _ => fs::remove_file(&path),
            };
            removed += usize::from(gone.is_ok());
        }
    }
    removed
}

/// Whether a temporary named `<stem><rest>` is left over from a finished process.
fn stale(rest: &str, path: &Path) -> bool {
    if let Some(after) = rest.strip_prefix("foehn-") {
        return after
            .split_once('.')
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
            .is_some_and(|pid| !process_alive(pid));
    }
    // Earlier versions: `<pid>-<n>.tmp`, and tempfile's `<6 letters>.tmp` (`.tmp.<ext>`).
    if let Some(stamp) = rest.strip_suffix(".tmp") {
        if let Some((pid, n)) = stamp.split_once('-') {
            if let (Ok(pid), true) = (pid.parse::<u32>(), n.bytes().all(|b| b.is_ascii_digit())) {
                return !process_alive(pid);
            }
        }
    }
    let random = rest.split_once(".tmp").map(|(r, _)| r);
    let legacy =
        random.is_some_and(|r| r.len() == 6 && r.bytes().all(|b| b.is_ascii_alphanumeric()));
    legacy && older_than(path, LEGACY_AGE)
}

/// Whether `path` was last modified more than `age` ago.
pub fn older_than(path: &Path, age: Duration) -> bool {
    fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|d| d > age)
}

/// Whether a process with this id runs (on Linux, from `/proc`; elsewhere every
/// process counts as running, so nothing is removed by mistake).
pub fn process_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process id that does not run: the largest pid Linux can hand out, plus one.
    const DEAD: u32 = 4_194_305;

    #[test]
    fn only_temporaries_of_finished_writers_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        let touch = |n: &str| fs::write(dir.path().join(n), b"x").unwrap();
        let mine = format!(".out.nc.foehn-{}.abc123.tmp", std::process::id());
        for n in [
            format!(".out.nc.foehn-{DEAD}.abc123.tmp").as_str(),
            &format!(".out.nc.{DEAD}-0.tmp"),
            &mine,
            ".out.nc.Xy12ab.tmp",
            "out.nc",
            ".other.nc.foehn-4194305.abc123.tmp",
            ".out.nc.notes",
        ] {
            touch(n);
        }
        assert_eq!(sweep(dir.path(), ".out.nc."), 2);
        let left: std::collections::BTreeSet<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        // The live writer's, a recent legacy one, the output itself and other files stay.
        let kept = [
            ".other.nc.foehn-4194305.abc123.tmp",
            ".out.nc.Xy12ab.tmp",
            &mine,
            ".out.nc.notes",
            "out.nc",
        ];
        assert_eq!(left, kept.map(str::to_string).into_iter().collect());
    }

    #[test]
    fn registrations_end_when_dropped() {
        let p = PathBuf::from("/nonexistent/foehn-registration-test");
        let (_, r) = create_registered(|| Ok::<_, ()>(p.clone()), |q| q.as_path()).unwrap();
        assert!(LIVE.lock().unwrap().contains(&p));
        drop(r);
        assert!(!LIVE.lock().unwrap().contains(&p));
    }
}
