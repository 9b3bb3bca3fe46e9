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
