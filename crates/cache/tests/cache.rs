//! Cache behaviour: hits, atomic entries, corruption detected and rebuilt.

use foehn_cache::{Cache, KeyBuilder, Origin};
use std::fs;

fn build_with(content: &'static [u8]) -> impl FnOnce(&std::path::Path) -> Result<(), String> {
    move |p| fs::write(p, content).map_err(|e| e.to_string())
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
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::at(dir.path());
    let (p, o) = cache
        .get_or_build("k1", "test", build_with(b"hello"))
        .unwrap();
    assert_eq!(o, Origin::Built);
    assert_eq!(fs::read(&p).unwrap(), b"hello");
    let (p2, o2) = cache
        .get_or_build("k1", "test", |_| Err("must not rebuild".into()))
        .unwrap();
    assert_eq!((p2, o2), (p, Origin::Hit));
    assert_eq!(cache.list().unwrap().len(), 1);
}

#[test]
fn truncated_entry_is_detected_and_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::at(dir.path());
    let (p, _) = cache
        .get_or_build("k2", "test", build_with(b"a long enough artifact"))
        .unwrap();
    let f = fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(5).unwrap();
    let (p2, o) = cache
        .get_or_build("k2", "test", build_with(b"a long enough artifact"))
        .unwrap();
    assert_eq!(o, Origin::Rebuilt);
    assert_eq!(fs::read(p2).unwrap(), b"a long enough artifact");
}

#[test]
fn same_length_corruption_and_missing_metadata_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::at(dir.path());
    let (p, _) = cache
        .get_or_build("k3", "test", build_with(b"abcdef"))
        .unwrap();
    fs::write(&p, b"abcdeX").unwrap();
    assert_eq!(
        cache
            .get_or_build("k3", "t", build_with(b"abcdef"))
            .unwrap()
            .1,
        Origin::Rebuilt
    );
    fs::remove_file(dir.path().join("k3").join("entry.json")).unwrap();
    assert_eq!(
        cache
            .get_or_build("k3", "t", build_with(b"abcdef"))
            .unwrap()
            .1,
        Origin::Rebuilt
    );
}

#[test]
fn failed_build_leaves_no_entry_and_clear_empties() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::at(dir.path());
    let err = cache
        .get_or_build("k4", "t", |_| Err("compiler exploded".into()))
        .unwrap_err();
    assert!(err.to_string().contains("compiler exploded"));
    assert!(cache.list().unwrap().is_empty());
    cache.get_or_build("a", "t", build_with(b"1")).unwrap();
    cache.get_or_build("b", "t", build_with(b"2")).unwrap();
    assert_eq!(cache.clear().unwrap(), 2);
    assert!(cache.list().unwrap().is_empty());
}
