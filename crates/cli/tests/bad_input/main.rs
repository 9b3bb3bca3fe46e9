//! Bad input through the real `foehn` binary, one module per kind of input: grid names,
//! sizes and files; output paths and interrupted writes; `exec` inputs and arguments;
//! timing reports; the cache and the C compiler. Every refusal goes through
//! [`refused`], which asserts a clean error exit (no panic, no abort), the key words of
//! the message, and that the message is readable ([`assert_readable`]: no Rust debug
//! formatting, no repeated cause, no raw library codes or generated-code names) — so
//! every message of the suite is scanned.

mod cache;
mod exec;
mod grids;
mod outputs;
mod reports;

use std::ffi::OsStr;
use std::process::Command;

/// What a run of the binary gave.
pub struct Run {
    /// Exit status code (`None`: killed by a signal, e.g. an abort).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// The binary with `args`, its cache in a fresh folder unless `setup` says otherwise.
pub fn command<S: AsRef<OsStr>>(args: &[S]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_foehn"));
    cmd.args(args);
    cmd
}

/// Runs a prepared command to its end.
pub fn run(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("the foehn binary runs");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `foehn args…` with default settings.
pub fn foehn<S: AsRef<OsStr>>(args: &[S]) -> Run {
    run(&mut command(args))
}

/// Asserts that `r` is a clean refusal: exit status 1 or 2 (1: an error, 2: clap's usage
/// error), no panic or abort, the message holds every one of `words` and is readable.
pub fn refused(r: &Run, words: &[&str]) {
    let what = format!("stderr: {}\nstdout: {}", r.stderr, r.stdout);
    assert!(
        matches!(r.code, Some(1 | 2)),
        "exit status {:?}, expected a clean error\n{what}",
        r.code
    );
    for w in words {
        assert!(r.stderr.contains(w), "`{w}` missing in the message\n{what}");
    }
    assert_readable(&r.stderr);
}

/// Text that shows Rust's debug formatting, a library's raw code or a name from
/// generated code, none of which a user can act on.
const UNREADABLE: [&str; 12] = [
    "panicked",
    "Os {",
    "kind: ",
    "Custom {",
    "Error {",
    "IoError(",
    "ImageError(",
    "Float(",
    "Int(",
    "Some(",
    "netcdf error(",
    "RUST_BACKTRACE",
];

/// Asserts that an error message has no debug forms (see [`UNREADABLE`]), no names of
/// generated C code (`NK2`, `SH0`), and no clause said twice (`a: b: a: b`, two OS
/// error numbers).
pub fn assert_readable(message: &str) {
    for form in UNREADABLE {
        assert!(!message.contains(form), "`{form}` in: {message}");
    }
    for name in ["NK", "SH", "SJ", "SK"] {
        let generated = message.match_indices(name).any(|(i, _)| {
            let after = message[i + name.len()..].chars().next();
            let before = message[..i].chars().next_back();
            after.is_some_and(|c| c.is_ascii_digit())
                && !before.is_some_and(|c| c.is_ascii_alphanumeric())
        });
        assert!(!generated, "a generated-code name `{name}…` in: {message}");
    }
    assert!(
        message.matches("(os error").count() <= 1,
        "an OS error twice in: {message}"
    );
    let clauses: Vec<&str> = message
        .split([':', ';', '\n'])
        .map(str::trim)
        .filter(|c| c.len() >= 12)
        .collect();
    for (i, c) in clauses.iter().enumerate() {
        assert!(
            !clauses[i + 1..].contains(c),
            "the clause `{c}` twice in: {message}"
        );
    }
}

/// The scanner catches what it must (it is not vacuous).
#[test]
fn the_message_scanner_catches_debug_forms_and_repeats() {
    for bad in [
        "cannot open x.nc: Os { code: 2, kind: NotFound }",
        "has type Float(F64), expected an integer type",
        "writing a.png: ImageError(IoError(Os {…}))",
        "program `x`, stencil `y`: program `x`, stencil `y`: boom",
        "a.nc: No such file (os error 2): No such file (os error 2)",
        "field `w` read at a level outside its NK2 levels",
    ] {
        assert!(
            std::panic::catch_unwind(|| assert_readable(bad)).is_err(),
            "not caught: {bad}"
        );
    }
    assert_readable("grid file g.nc: variable `edge_of_cell`: cell 3 lists edge 7 (entry 1)");
}
