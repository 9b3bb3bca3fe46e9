//! Code generation: (program, schedule, target, sizes) → C-family source text and a
//! kernel table (plain C for the native CPU backend, CUDA C for the GPU backend), by
//! [`generate`]. It decides nothing (the schedule carries every choice) and compiles,
//! loads and runs nothing: that is [`crate::runtime`].
//!
//! The generated code reproduces the interpreter's semantics exactly (same operation
//! order, no FMA contraction, `fmin`/`fmax`, reductions in slot order skipping −1), so
//! backends agree with the interpreter to the last bit for the arithmetic operators.

pub mod c;

pub use c::{
    generate, scan_levels, slot_selected_wheres, CKernel, CProgram, CodegenError, Site, Sizes,
    Target,
};

/// Version of the code generators; part of every compiled-program cache key.
pub const CODEGEN_VERSION: &str = "foehn-codegen-2";

/// What a program compiled with fixed sizes was generated for: grid identity and levels
/// (the runtime compares it with the grid and levels of every call).
pub fn size_identity(grid: &foehn_grid::Grid, nlev: usize) -> String {
    format!(
        "{} ({} cells, {} edges, {} vertices), {nlev} levels",
        grid.name,
        grid.topology.n_cells(),
        grid.topology.n_edges(),
        grid.topology.n_vertices()
    )
}
