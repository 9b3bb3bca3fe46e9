//! Cache behaviour: hits, atomic entries, corruption detected and rebuilt.

use foehn_cache::{Cache, KeyBuilder, Origin};
use std::fs;
use std::path::PathBuf;

fn build_with(content: &'static [u8]) -> impl FnOnce(&std::path::Path) -> Result<(), String> {
    move |p| fs::write(p, content).map_err(|e| e.to_string())
}

/// A cache in a fresh temporary directory (kept alive by the returned guard).
fn fresh_cache() -> (tempfile::TempDir, Cache) {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::at(dir.path());
    (dir, cache)
}

/// Looks `key` up, building it with `content` when absent or corrupt.
fn get_or_write(cache: &Cache, key: &str, content: &'static [u8]) -> (PathBuf, Origin) {
    cache
        .get_or_build(key, "test", build_with(content))
        .unwrap()
}

#[test]
fn keys_are_deterministic_and_separate_parts() {
    let a = KeyBuilder::new().part("ir", "x").part("opt", "y").finish();
    let b = KeyBuilder::new().part("ir", "x").part("opt", "y").finish();
    let c = KeyBuilder::new().part("ir", "xo").part("pt", "y").finish();
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_eq!(a.len(), 64);
}

#[test]
fn second_lookup_hits_and_does_not_rebuild() {
    let (_dir, cache) = fresh_cache();
    let k1 = KeyBuilder::new().part("k", "1").finish();
    let (p, o) = get_or_write(&cache, &k1, b"hello");
    assert_eq!(o, Origin::Built);
    assert_eq!(fs::read(&p).unwrap(), b"hello");
    let (p2, o2) = cache
        .get_or_build(&k1, "test", |_| Err("must not rebuild".into()))
        .unwrap();
    assert_eq!((p2, o2), (p, Origin::Hit));
    assert_eq!(cache.list().unwrap().len(), 1);
}

/// `contains` says what `get_or_build` would reuse: nothing before the build, the entry
/// after it, and not a corrupt one (which would be rebuilt).
#[test]
fn contains_only_verified_entries() {
    let (_dir, cache) = fresh_cache();
    assert!(!cache.contains("k5"));
    let (p, _) = get_or_write(&cache, "k5", b"a long enough artifact");
    assert!(cache.contains("k5") && !cache.contains("k6"));
    let f = fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(5).unwrap();
    assert!(!cache.contains("k5"));
}

#[test]
fn truncated_entry_is_detected_and_rebuilt() {
    let (_dir, cache) = fresh_cache();
    let (p, _) = get_or_write(&cache, "k2", b"a long enough artifact");
    let f = fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(5).unwrap();
    let (p2, o) = get_or_write(&cache, "k2", b"a long enough artifact");
    assert_eq!(o, Origin::Rebuilt);
    assert_eq!(fs::read(p2).unwrap(), b"a long enough artifact");
}

#[test]
fn same_length_corruption_and_missing_metadata_are_detected() {
    let (dir, cache) = fresh_cache();
    let (p, _) = get_or_write(&cache, "k3", b"abcdef");
    fs::write(&p, b"abcdeX").unwrap();
    assert_eq!(get_or_write(&cache, "k3", b"abcdef").1, Origin::Rebuilt);
    fs::remove_file(dir.path().join("k3").join("entry.json")).unwrap();
    assert_eq!(get_or_write(&cache, "k3", b"abcdef").1, Origin::Rebuilt);
}

#[test]
fn failed_build_leaves_no_entry_and_clear_empties() {
    let (_dir, cache) = fresh_cache();
    let err = cache
        .get_or_build("k4", "t", |_| Err("compiler exploded".into()))
        .unwrap_err();
    assert!(err.to_string().contains("compiler exploded"));
    assert!(cache.list().unwrap().is_empty());
    get_or_write(&cache, &KeyBuilder::new().part("p", "a").finish(), b"1");
    get_or_write(&cache, &KeyBuilder::new().part("p", "b").finish(), b"2");
    assert_eq!(cache.clear().unwrap().removed, 2);
    assert!(cache.list().unwrap().is_empty());
}

/// A cache root pointed at a project folder by mistake: `clear` removes foehn's entries
/// only and names what it left; an empty `FOEHN_CACHE_DIR` counts as unset.
#[test]
fn clear_removes_only_what_foehn_wrote() {
    let (dir, cache) = fresh_cache();
    let key = KeyBuilder::new().part("p", "x").finish();
    get_or_write(&cache, &key, b"artifact");
    // The user's own things: a source folder, a file, a key-named folder with other
    // files, an empty key-named folder.
    fs::create_dir_all(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src").join("main.rs"), "fn main() {}").unwrap();
    fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let lookalike = dir.path().join("a".repeat(64));
    fs::create_dir_all(&lookalike).unwrap();
    fs::write(lookalike.join("thesis.tex"), "mine").unwrap();
    fs::create_dir_all(dir.path().join("b".repeat(64))).unwrap();
    let cleared = cache.clear().unwrap();
    assert_eq!(cleared.removed, 1);
    assert_eq!(cleared.skipped.len(), 4, "{:?}", cleared.skipped);
    assert!(!dir.path().join(&key).exists());
    assert!(dir.path().join("src").join("main.rs").exists());
    assert!(dir.path().join("notes.txt").exists());
    assert!(lookalike.join("thesis.tex").exists());
}

/// A cache folder removed while a build writes into it is reported as such, not as the
/// compiler's failure (a bad-input report).
#[test]
fn a_cache_folder_removed_during_a_build_is_named_not_the_compiler() {
    let (dir, cache) = fresh_cache();
    let root = dir.path().to_path_buf();
    let err = cache
        .get_or_build(&"a".repeat(64), "test", |artifact| {
            fs::remove_dir_all(&root).unwrap();
            fs::write(artifact, b"x").map_err(|e| format!("the C compiler failed: {e}"))
        })
        .unwrap_err()
        .to_string();
    assert!(err.contains("removed while foehn was building"), "{err}");
    assert!(!err.contains("compiler"), "{err}");
}

/// Staging folders of builds that were killed (their process is gone) are removed by
/// the next build and by `clear`, and counted; other folders stay.
#[test]
fn staging_folders_of_killed_builds_are_swept() {
    let (dir, cache) = fresh_cache();
    let stale = dir.path().join(".build.foehn-4194305.abc123");
    fs::create_dir_all(&stale).unwrap();
    fs::write(stale.join("artifact"), b"half").unwrap();
    fs::create_dir_all(dir.path().join("mine")).unwrap();
    let cleared = cache.clear().unwrap();
    assert_eq!(cleared.interrupted, 1);
    assert!(!stale.exists());
    assert!(dir.path().join("mine").exists());
    assert_eq!(cleared.skipped, vec![dir.path().join("mine")]);
}
