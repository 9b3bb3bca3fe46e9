//! Output paths and interrupted writes: a device, folder or missing folder is refused
//! and left alone, a symlink is written through, an existing file keeps its mode, an
//! interrupted write leaves no temporary, and one a killed run left is swept.

use super::{command, foehn, refused};
use std::ffi::OsStr;
use std::fs;
use std::path::Path;

fn generate(grid: &str, out: &Path) -> super::Run {
    foehn(&[
        OsStr::new("grid"),
        OsStr::new("generate"),
        OsStr::new(grid),
        OsStr::new("-o"),
        out.as_os_str(),
    ])
}

/// Outputs that cannot be written are refused with the reason, once.
#[test]
fn unwritable_outputs_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&Path, &[&str]); 3] = [
        (Path::new("/dev/null"), &["not a regular file"]),
        (dir.path(), &["a directory"]),
        (
            &dir.path().join("no/such/folder/g.nc"),
            &["folder does not exist"],
        ),
    ];
    for (path, words) in cases {
        refused(&generate("r2b0", path), words);
    }
    assert!(Path::new("/dev/null").exists());
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A symlink is written through (the link stays), an existing file keeps its mode.
#[cfg(unix)]
#[test]
fn outputs_are_written_through_links_keeping_modes() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.nc");
    fs::write(&real, b"old").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o644)).unwrap();
    let link = dir.path().join("link.nc");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_eq!(generate("r2b0", &link).code, Some(0));
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(
        fs::metadata(&real).unwrap().len() > 3,
        "written through the link"
    );
    assert_eq!(
        fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o644
    );
}

/// The files of `dir` whose names mark them as temporaries.
fn temporaries(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// Starts `foehn grid generate r2b6 -o out`, waits until its temporary exists (the write
/// has begun), and sends `signal`; returns the exit status.
#[cfg(unix)]
fn interrupt_a_write(dir: &Path, out: &Path, signal: i32) -> std::process::ExitStatus {
    let mut child = command(&[
        OsStr::new("grid"),
        OsStr::new("generate"),
        OsStr::new("r2b6"),
        OsStr::new("-o"),
        out.as_os_str(),
    ])
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::null())
    .spawn()
    .unwrap();
    let t0 = std::time::Instant::now();
    while temporaries(dir).is_empty() {
        assert!(t0.elapsed().as_secs() < 120, "the write never began");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the write ended before it could be interrupted"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    // SAFETY: sends a signal to our own child process.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    child.wait().unwrap()
}

/// SIGINT and SIGTERM during a write remove the temporary and keep the old output
/// (before, `.x.nc.<pid>-0.tmp` files stayed); after SIGKILL, which no handler sees,
/// the old output is intact too and the next write removes the temporary.
#[cfg(unix)]
#[test]
fn an_interrupted_write_keeps_the_old_output_and_leaves_no_temporary() {
    use std::os::unix::process::ExitStatusExt;
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGKILL] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.nc");
        fs::write(&out, b"the old output").unwrap();
        let status = interrupt_a_write(dir.path(), &out, signal);
        assert_eq!(
            fs::read(&out).unwrap(),
            b"the old output",
            "signal {signal}"
        );
        if signal == libc::SIGKILL {
            assert_eq!(status.signal(), Some(libc::SIGKILL));
            assert_eq!(
                temporaries(dir.path()).len(),
                1,
                "SIGKILL leaves its temporary"
            );
            assert_eq!(generate("r2b0", &out).code, Some(0));
        } else {
            assert_eq!(status.code(), Some(130), "signal {signal}");
        }
        assert!(
            temporaries(dir.path()).is_empty(),
            "signal {signal} left {:?}",
            temporaries(dir.path())
        );
    }
}

/// A temporary that a killed run (SIGKILL: no handler runs) left is removed by the next
/// write of the same output; temporaries of other outputs and of live writers stay.
#[test]
fn temporaries_of_killed_runs_are_swept_by_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    // 4194305 is above Linux's largest process id: no process has it.
    let stale = [".out.nc.foehn-4194305.a1b2c3.tmp", ".out.nc.4194305-0.tmp"];
    for name in stale {
        fs::write(dir.path().join(name), b"half a file").unwrap();
    }
    let others = ".other.nc.foehn-4194305.a1b2c3.tmp";
    fs::write(dir.path().join(others), b"not ours to sweep now").unwrap();
    let r = generate("r2b0", &dir.path().join("out.nc"));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(temporaries(dir.path()), [others]);
}

/// Printing into a closed pipe (`foehn grid info r2b2 | head -0`) ends quietly.
#[test]
fn a_closed_output_pipe_is_not_a_panic() {
    use std::process::Stdio;
    let mut child = command(&["grid", "info", "r2b2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}
