//! `foehn cache clear` through the real binary: a cache folder that is really a user's
//! project folder loses nothing (a data-loss report of the bad-input review).

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
