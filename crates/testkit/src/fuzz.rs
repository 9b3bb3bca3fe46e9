//! What the fuzz targets and their regression tests share: the checks every user-facing
//! error message of a reader must pass (it names the file, holds no Rust debug
//! formatting and no clause twice) and the listing of a corpus.

use std::path::{Path, PathBuf};

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

/// What is wrong with `message`, the error of reading `path` (`None`: the caller adds
/// the file) whose bytes are `input`: it must name the file, hold no debug formatting and
/// no clause twice (`a: b: b`). Text that is in the input itself (a reader may quote it)
/// is not held against it.
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

/// The files of the corpus folder `dir`, sorted (a missing folder panics with its name).
pub fn corpus(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .collect();
    files.sort();
    files
}
