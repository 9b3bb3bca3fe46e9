//! Shared by the fuzz targets: a scratch file for the input bytes and the checks every
//! error message of a reader must pass (the same checks as the regression tests in
//! `crates/foehn/tests/fuzz_regressions.rs` and `crates/grid/tests/fuzz_regressions.rs`).


use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Rust debug formatting that must never reach a user-facing message.
pub const DEBUG_FORMATTING: [&str; 7] = [
    "Os {", "Float(", "Int(", "IoError(", "Some(", "Error {", "kind:",
];

/// Whether `input` holds `text`, as bytes or as readers decode it (invalid UTF-8 as U+FFFD).
fn quotes(input: &[u8], text: &str) -> bool {
    let needle = text.as_bytes();
    needle.is_empty()
        || input.windows(needle.len()).any(|w| w == needle)
        || String::from_utf8_lossy(input).contains(text)
}

/// What is wrong with `message`, the error of reading `path` whose bytes are `input`:
/// it must name the file, hold no debug formatting and no clause twice (`a: b: b`).
/// Text that is in the input itself (a reader may quote it) is not held against it.
pub fn message_problems(message: &str, path: Option<&Path>, input: &[u8]) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(path) = path {
        if !message.contains(&path.display().to_string()) {
            problems.push(format!("does not name the file {}", path.display()));
        }
    }
    for pattern in DEBUG_FORMATTING {
        if message.contains(pattern) && !quotes(input, pattern) {
            problems.push(format!("holds debug formatting `{pattern}`"));
        }
    }
    let clauses: Vec<&str> = message
        .split(": ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    for (i, c) in clauses.iter().enumerate() {
        if clauses[i + 1..].contains(c) && !quotes(input, c) {
            problems.push(format!("repeats the clause `{c}`"));
            break;
        }
    }
    problems
}

/// A scratch file `name` in a directory of its own, made once per process.
pub fn scratch(name: &str) -> PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        tempfile::Builder::new()
            .prefix("foehn-fuzz-")
            .tempdir()
            .expect("a scratch directory")
    })
    .path()
    .join(name)
}
