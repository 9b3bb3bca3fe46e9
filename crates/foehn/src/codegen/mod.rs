//! Code generation: IR → C-family source (plain C for the native CPU backend, CUDA C
//! for the GPU backend), and the native CPU backend that compiles, caches, loads and
//! runs it.
//!
//! The generated code reproduces the interpreter's semantics exactly (same operation
//! order, no FMA contraction, `fmin`/`fmax`, reductions in slot order skipping −1), so
//! backends agree with the interpreter to the last bit for the arithmetic operators.

pub mod c;
pub mod cpu;
pub mod cuda;

/// Version of the code generators; part of every compiled-program cache key.
pub const CODEGEN_VERSION: &str = "foehn-codegen-1";

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Compiled programs loaded into this process, by cache key (shared by the backends).
pub(crate) struct Loaded<T>(Mutex<BTreeMap<String, Arc<T>>>);

impl<T> Default for Loaded<T> {
    fn default() -> Self {
        Loaded(Mutex::new(BTreeMap::new()))
    }
}

impl<T> Loaded<T> {
    /// The program loaded under `key`, if any.
    pub(crate) fn get(&self, key: &str) -> Option<Arc<T>> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(key)
            .cloned()
    }

    /// Remembers a loaded program under its cache key and under `alias` (a key that is
    /// cheaper to compute, the IR's content hash) and returns it.
    pub(crate) fn insert(&self, key: String, alias: String, value: T) -> Arc<T> {
        let v = Arc::new(value);
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        map.insert(key, v.clone());
        map.insert(alias, v.clone());
        v
    }
}
