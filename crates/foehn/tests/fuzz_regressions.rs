//! The `.npy`/`.npz` fuzz corpus as regression tests (see docs/fuzzing.md): every file in
//! `tests/fuzz_corpus/npy/` is read as an `.npy` file and as an `.npz` archive through
//! the functions `foehn exec` uses. Nothing may panic; every error names the file, holds
//! no Rust debug formatting and no clause twice.

use foehn::ir::types::{Dims, VKind};
use foehn::runtime::field::npy::{self, Array};
use foehn::runtime::field::Field;
use foehn_grid::{Connectivity, Location};
use foehn_testkit::fuzz::{self, message_problems};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// Dimensions of an array's rank, as a program argument would declare them.
fn dims_for(rank: usize) -> Dims {
    let h = Some(Location::Cell);
    let (horizontal, local, vertical) = match rank {
        0 => (None, None, None),
        1 => (h, None, None),
        2 => (h, None, Some(VKind::Full)),
        _ => (h, Some(Connectivity::C2E), Some(VKind::Half)),
    };
    Dims {
        horizontal,
        local,
        vertical,
    }
}

/// The error of making a field of `array`, as `foehn exec` does (it adds the file's name).
fn field_error(array: Array) -> Option<String> {
    Field::from_array(dims_for(array.shape.len()), array)
        .err()
        .map(|e| e.to_string())
}

/// Reads `path` every way the fuzz target does; the problems found.
fn read_every_way(path: &Path) -> Vec<String> {
    let input = std::fs::read(path).unwrap();
    // (function, message, whether the message itself must name the file)
    let mut errors: Vec<(&str, String, bool)> = Vec::new();
    match npy::load_npy(path) {
        Ok(array) => errors.extend(field_error(array).map(|m| ("Field::from_array", m, false))),
        Err(e) => errors.push(("load_npy", e.to_string(), true)),
    }
    if let Err(e) = Field::load_npy(path, dims_for(2)) {
        errors.push(("Field::load_npy", e.to_string(), true));
    }
    match npy::load_npz(path) {
        Ok(arrays) => errors.extend(
            arrays
                .into_values()
                .filter_map(field_error)
                .map(|m| ("Field::from_array", m, false)),
        ),
        Err(e) => errors.push(("load_npz", e.to_string(), true)),
    }
    errors
        .into_iter()
        .flat_map(|(what, message, names_file)| {
            message_problems(&message, names_file.then_some(path), &input)
                .into_iter()
                .map(move |p| format!("{what}: {p}: {message}"))
        })
        .collect()
}

fn corpus() -> Vec<PathBuf> {
    fuzz::corpus(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus/npy"))
}

#[test]
fn npy_fuzz_corpus_reads_without_panics_and_with_clear_errors() {
    let files = corpus();
    assert!(files.len() >= 20, "only {} corpus files", files.len());
    let mut failures = Vec::new();
    for path in &files {
        match catch_unwind(AssertUnwindSafe(|| read_every_way(path))) {
            Ok(problems) => failures.extend(
                problems
                    .into_iter()
                    .map(|p| format!("{}: {p}", path.display())),
            ),
            Err(_) => failures.push(format!("{}: panicked", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The corpus holds valid files too: the reader is not just failing on everything.
#[test]
fn npy_fuzz_corpus_includes_readable_files() {
    let ok = corpus()
        .iter()
        .filter(|p| npy::load_npy(p).is_ok() || npy::load_npz(p).is_ok())
        .count();
    assert!(ok >= 5, "only {ok} readable corpus files");
}
