//! Arbitrary bytes as a `.npy` file and as a `.npz` archive, read through the functions
//! `foehn exec` uses (`load_npz`, then `Field::from_array` for each array) and
//! `Field::load_npy`. Errors must name the file and read cleanly; nothing may panic.

#![no_main]

use foehn::ir::types::{Dims, VKind};
use foehn::runtime::field::npy::{self, Array};
use foehn::runtime::field::Field;
use foehn_fuzz::{message_problems, scratch};
use foehn_grid::{Connectivity, Location};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

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

fn check(what: &str, e: &foehn::error::Error, path: Option<&Path>, data: &[u8]) {
    let message = e.to_string();
    let problems = message_problems(&message, path, data);
    assert!(problems.is_empty(), "{what}: {message}\n  {problems:?}");
}

fn to_field(array: Array, data: &[u8]) {
    let rank = array.shape.len();
    // `foehn exec` adds the file's name as context to these errors.
    if let Err(e) = Field::from_array(dims_for(rank), array) {
        check("from_array", &e, None, data);
    }
}

fuzz_target!(|data: &[u8]| {
    let path = scratch("input.npy");
    std::fs::write(&path, data).expect("scratch file written");
    match npy::load_npy(&path) {
        Ok(array) => to_field(array, data),
        Err(e) => check("load_npy", &e, Some(&path), data),
    }
    if let Err(e) = Field::load_npy(&path, dims_for(2)) {
        check("Field::load_npy", &e, Some(&path), data);
    }
    let path = scratch("input.npz");
    std::fs::write(&path, data).expect("scratch file written");
    match npy::load_npz(&path) {
        Ok(arrays) => arrays.into_values().for_each(|array| to_field(array, data)),
        Err(e) => check("load_npz", &e, Some(&path), data),
    }
});
