//! Arbitrary bytes as an ICON grid file, read by `foehn_grid::read_grid` (NetCDF through
//! libnetcdf). Nothing may panic. Errors must name the file and read cleanly; as the
//! grid reader is not this target's to fix, inputs whose messages fail that are saved
//! to `fuzz/artifacts/grid_file_messages/` (with the message) instead of stopping the run.
//!
//! Classic NetCDF headers that claim more than the file holds (which made libnetcdf
//! allocate gigabytes, crash on a NULL pointer or divide by zero; docs/fuzzing.md) are
//! refused by the reader itself now (`foehn_grid`'s header check before `nc_open`).

#![no_main]

use foehn_fuzz::{message_problems, scratch};
use libfuzzer_sys::fuzz_target;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

fn save_message_case(data: &[u8], message: &str, problems: &[String]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("artifacts/grid_file_messages");
    let mut h = DefaultHasher::new();
    problems.hash(&mut h);
    // One example per kind of problem and message shape (digits masked).
    message
        .chars()
        .filter(|c| !c.is_ascii_digit())
        .collect::<String>()
        .hash(&mut h);
    let stem = dir.join(format!("{:016x}", h.finish()));
    if stem.exists() {
        return;
    }
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(&stem, data);
    let _ = std::fs::write(
        stem.with_extension("txt"),
        format!("{message}\n{problems:?}\n"),
    );
}

fuzz_target!(|data: &[u8]| {
    let path = scratch("grid.nc");
    std::fs::write(&path, data).expect("scratch file written");
    if let Err(e) = foehn_grid::io::read_grid(&path) {
        let message = e.to_string();
        let problems = message_problems(&message, Some(&path), data);
        if !problems.is_empty() {
            save_message_case(data, &message, &problems);
        }
    }
});
