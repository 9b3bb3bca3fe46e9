//! The compiled-program cache and the C compiler: a cache folder that is really a
//! user's project loses nothing, an empty `FOEHN_CACHE_DIR` is unset (not the current
//! folder), and a compiler that fails silently is named with what to check.

use super::{command, refused, run};
use std::fs;

#[test]
fn cache_clear_never_deletes_what_foehn_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src").join("lib.rs"), "// mine").unwrap();
    fs::write(dir.path().join("README.md"), "mine").unwrap();
    let r = run(command(&["cache", "clear"]).env("FOEHN_CACHE_DIR", dir.path()));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("removed 0 entries"), "{}", r.stdout);
    assert!(r.stdout.contains("foehn did not write"), "{}", r.stdout);
    assert!(dir.path().join("src").join("lib.rs").exists());
    assert!(dir.path().join("README.md").exists());
}

/// `FOEHN_CACHE_DIR=''` means unset: nothing lands in the current folder.
#[test]
fn an_empty_cache_dir_setting_is_unset() {
    let (cwd, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let r = run(
        command(&["compile", "--programs", "divergence", "--backend", "cpu"])
            .current_dir(cwd.path())
            .env("FOEHN_CACHE_DIR", "")
            .env("HOME", home.path())
            .env("XDG_CACHE_HOME", home.path().join("cache")),
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(fs::read_dir(cwd.path()).unwrap().count(), 0);
    assert!(
        home.path().join("cache").exists(),
        "the default cache is used"
    );
}

/// A C compiler that fails without a word (`CC=false`) gives a message that says so and
/// what to check, not an empty one.
#[test]
fn a_silent_compiler_failure_says_what_to_check() {
    let cache = tempfile::tempdir().unwrap();
    let r = run(
        command(&["compile", "--programs", "divergence", "--backend", "cpu"])
            .env("FOEHN_CACHE_DIR", cache.path())
            .env("CC", "false"),
    );
    refused(&r, &["`false`", "printed nothing", "CC"]);
}
