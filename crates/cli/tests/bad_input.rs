//! Bad input through the real binary: a cache folder that is really a user's project
//! folder loses nothing, a closed output pipe is no panic, oversized grids and level
//! counts are clear errors naming the limit.

use std::fs;
use std::process::Command;

#[test]
fn cache_clear_never_deletes_what_foehn_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src").join("lib.rs"), "// mine").unwrap();
    fs::write(dir.path().join("README.md"), "mine").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_foehn"))
        .args(["cache", "clear"])
        .env("FOEHN_CACHE_DIR", dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("removed 0 entries"), "{text}");
    assert!(text.contains("foehn did not write"), "{text}");
    assert!(dir.path().join("src").join("lib.rs").exists());
    assert!(dir.path().join("README.md").exists());
}

/// Printing into a closed pipe (`foehn grid info r2b2 | head -0`) ends quietly, without
/// a panic message (a bad-input report).
#[test]
fn a_closed_output_pipe_is_not_a_panic() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_foehn"))
        .args(["grid", "info", "r2b2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

/// Oversized and nonsensical sizes are clear errors before anything is allocated, and
/// misspelt static arguments are refused with the valid names.
#[test]
fn oversized_grids_and_level_counts_are_refused_with_the_limit() {
    for (args, words) in [
        (
            vec!["grid", "info", "r2b12"],
            vec!["R2B12", "FOEHN_MAX_CELLS"],
        ),
        (
            vec!["grid", "info", "torus_infmx1000m_res100m"],
            vec!["finite"],
        ),
        (
            vec!["explain", "divergence", "--levels", "0"],
            vec!["1 to 1000"],
        ),
        (
            vec!["run", "--levels", "18446744073709551615"],
            vec!["1 to 1000"],
        ),
        (vec!["run", "--levels", "100000000"], vec!["1 to 1000"]),
        (
            vec![
                "explain",
                "apply_diffusion_to_vn",
                "--variant",
                "limitd_area=true",
            ],
            vec!["limitd_area", "not a static argument", "limited_area"],
        ),
        (
            vec!["explain", "divergence", "--variant", "nonsense=7"],
            vec!["nonsense", "none"],
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_foehn"))
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        for w in words {
            assert!(err.contains(w), "{args:?}: `{w}` missing in {err}");
        }
    }
}

/// Output paths: a device is refused and left alone, a symlink is written through (the
/// link stays), an existing file keeps its mode.
#[cfg(unix)]
#[test]
fn outputs_never_replace_devices_links_or_modes() {
    use std::os::unix::fs::PermissionsExt;
    let out = Command::new(env!("CARGO_BIN_EXE_foehn"))
        .args(["grid", "generate", "r2b0", "-o", "/dev/null"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("not a regular file"),
        "{err}"
    );
    assert!(std::path::Path::new("/dev/null").exists());
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.nc");
    fs::write(&real, b"old").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o644)).unwrap();
    let link = dir.path().join("link.nc");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_foehn"))
        .args(["grid", "generate", "r2b0", "-o"])
        .arg(&link)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
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
