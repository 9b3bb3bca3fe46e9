//! `apply_diffusion_to_theta_and_exner` (not written yet).

use foehn::catalog::Entry;
use foehn::dsl::ProgramDef;
use foehn::error::Result;
use foehn::field::Args;
use foehn::ir;
use foehn_grid::Grid;

/// Program name.
pub const NAME: &str = "apply_diffusion_to_theta_and_exner";

/// The DSL program.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |_| {})
}

/// Plain-Rust reference.
pub fn reference(_grid: &Grid, _args: &mut Args) -> Result<()> {
    Ok(())
}

/// Realistic random inputs.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    foehn::testing::random_args(program, grid, nlev, seed)
}

/// Catalog entry.
pub fn entry() -> Entry {
    Entry { name: NAME, build: program, inputs, reference: Some(reference), calls_per_step: Some(1.0) }
}
