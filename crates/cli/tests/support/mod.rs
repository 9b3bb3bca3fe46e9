//! Running the real `foehn` binary from the CLI's test files (`mod support;`).
#![allow(dead_code)]

use std::process::Command;

/// What a run of the binary gave: exit status, standard output and error.
pub struct Run {
    /// The exit status (`None` when a signal ended it).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs the `foehn` binary with `args`.
pub fn foehn(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_foehn"))
        .args(args)
        .output()
        .expect("the foehn binary runs");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
