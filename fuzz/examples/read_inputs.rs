//! Reads fuzz inputs outside the fuzzer (no sanitizer, no memory limit), printing each
//! result: `cargo run --manifest-path fuzz/Cargo.toml --example read_inputs -- grid FILE…`
//! (or `npy FILE…`), e.g. under `/usr/bin/time -v` to see the memory a file costs.

use std::path::Path;

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().expect("grid or npy, then files");
    for file in args {
        let path = Path::new(&file);
        let result = match kind.as_str() {
            "grid" => foehn_grid::io::read_grid(path)
                .map(|g| g.name)
                .map_err(|e| e.to_string()),
            "npy" => {
                use foehn::runtime::field::npy::{load_npy, load_npz};
                let npy = match load_npy(path) {
                    Ok(a) => format!("npy ok {:?}", a.shape),
                    Err(e) => format!("npy error: {e}"),
                };
                let npz = match load_npz(path) {
                    Ok(m) => format!("npz ok {:?}", m.keys().collect::<Vec<_>>()),
                    Err(e) => format!("npz error: {e}"),
                };
                Ok(format!("{npy} | {npz}"))
            }
            other => panic!("unknown kind {other}"),
        };
        match result {
            Ok(what) => println!("{file}: ok: {what}"),
            Err(e) => println!("{file}: error: {e}"),
        }
    }
}
