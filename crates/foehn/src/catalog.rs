//! The programs foehn can build, feed with realistic inputs and verify: what `foehn
//! bench`, `foehn explain` and `foehn exec` operate on. Each entry has a plain-Rust
//! reference where one exists; other crates (the ICON dycore) add their own entries.

use crate::dsl::ProgramDef;
use crate::error::Result;
use crate::examples;
use crate::field::Args;
use crate::ir::{self, DType, Variant};
use crate::testing::{random_args, random_field, SplitMix64};
use foehn_grid::Grid;

/// A plain-Rust reference: computes the program's outputs into `args`.
pub type ReferenceFn = fn(&Grid, &mut Args) -> Result<()>;
/// Builds realistic random inputs (never zeros) for a specialised program.
pub type InputsFn = fn(&ir::Program, &Grid, usize, u64) -> Args;

/// One program of the catalog.
#[derive(Clone)]
pub struct Entry {
    /// Program name (as `ProgramDef::name`).
    pub name: &'static str,
    /// Builds the program definition.
    pub build: fn() -> ProgramDef,
    /// Random inputs.
    pub inputs: InputsFn,
    /// Independent reference implementation, if any.
    pub reference: Option<ReferenceFn>,
    /// How often ICON calls the program per time step (for weighted comparisons).
    pub calls_per_step: Option<f64>,
}

impl Entry {
    /// Every variant of the program (the cartesian product of its static arguments).
    pub fn variants(&self) -> Result<Vec<Variant>> {
        (self.build)().variants(&Variant::new())
    }
}

fn tridiagonal_inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    // A diagonally dominant system, as ICON's implicit vertical solver has.
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0xd1a6);
    let b = random_field(
        &mut rng,
        grid,
        nlev,
        (foehn_grid::Location::Cell, ir::VKind::Full),
        DType::F64,
        4.0,
        5.0,
    );
    args.set_field("b", b);
    args
}

/// The example programs of the language documentation.
pub fn examples() -> Vec<Entry> {
    vec![
        Entry {
            name: "divergence",
            build: examples::divergence,
            inputs: random_args,
            reference: Some(examples::reference::divergence),
            calls_per_step: None,
        },
        Entry {
            name: "interpolate_to_half_levels",
            build: examples::interpolate_to_half_levels,
            inputs: random_args,
            reference: Some(examples::reference::interpolate_to_half_levels),
            calls_per_step: None,
        },
        Entry {
            name: "tridiagonal_solve",
            build: examples::tridiagonal_solve,
            inputs: tridiagonal_inputs,
            reference: Some(examples::reference::tridiagonal_solve),
            calls_per_step: None,
        },
    ]
}
