//! The grid-file fuzz corpus as regression tests (see docs/fuzzing.md): every file in
//! `tests/fuzz_corpus/grid_file/` is read with `read_grid`. Nothing may panic; every
//! error names the file, holds no Rust debug formatting and no clause twice.
//!
//! Inputs that still fail these checks, for want of a fix in the grid reader, wait in
//! `tests/fuzz_corpus/grid_file_pending/` (not read here; the docs list why).

#![cfg(feature = "netcdf")]

use foehn_grid::io::read_grid;
use foehn_testkit::fuzz::{self, message_problems};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn corpus() -> Vec<PathBuf> {
    fuzz::corpus(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus/grid_file"))
}

#[test]
fn grid_fuzz_corpus_reads_without_panics_and_with_clear_errors() {
    let files = corpus();
    assert!(files.len() >= 10, "only {} corpus files", files.len());
    let mut failures = Vec::new();
    let mut readable = 0;
    for path in &files {
        let input = std::fs::read(path).unwrap();
        match catch_unwind(AssertUnwindSafe(|| read_grid(path))) {
            Ok(Ok(_)) => readable += 1,
            Ok(Err(e)) => {
                let message = e.to_string();
                failures.extend(
                    message_problems(&message, Some(path), &input)
                        .into_iter()
                        .map(|p| format!("{}: {p}: {message}", path.display())),
                );
            }
            Err(_) => failures.push(format!("{}: panicked", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The corpus holds valid files too: the reader is not just failing on everything.
    assert!(readable >= 3, "only {readable} readable corpus files");
}
