//! Writes a few arrays as .npy/.npz to a folder, or reads one back: a manual
//! cross-check with NumPy (`cargo run --example npy_roundtrip -- write DIR`).
use foehn::runtime::field::npy::{self, Array};
use foehn::runtime::field::FieldData;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::Path::new(&args[2]);
    match args[1].as_str() {
        "write" => {
            let a = Array {
                shape: vec![2, 3],
                data: FieldData::F64((0..6).map(|i| i as f64 + 0.5).collect()),
                file_dtype: None,
            };
            let b = Array {
                shape: vec![3],
                data: FieldData::Bool(vec![true, false, true]),
                file_dtype: None,
            };
            let c = Array {
                shape: vec![2, 2, 2],
                data: FieldData::I32((0..8).collect()),
                file_dtype: None,
            };
            npy::save_npy(dir.join("a.npy"), &a).unwrap();
            npy::save_npz(dir.join("abc.npz"), [("a", &a), ("b", &b), ("c", &c)]).unwrap();
        }
        _ => {
            for (name, arr) in npy::load_npz(dir.join(&args[3])).unwrap() {
                println!("{name} {:?} {:?}", arr.shape, arr.data);
            }
        }
    }
}
