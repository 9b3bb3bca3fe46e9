//! What the C and CUDA generators hand the runtimes: the source with its kernels, their
//! calling information, run-time check sites and region bounds, the target and sizes a
//! program is generated for, and the generators' errors.

use crate::ir::{Bound, FieldId, IndexDim, Program};
use foehn_grid::Connectivity;
use std::collections::BTreeSet;

/// The generated source and what the runtime needs to call it.
#[derive(Debug, Clone, PartialEq)]
pub struct CProgram {
    /// The complete C translation unit.
    pub source: String,
    /// One entry per kernel of the schedule, in launch order.
    pub kernels: Vec<CKernel>,
    /// Region bounds the code reads from `ctx->bounds`, in index order.
    pub bounds: Vec<(IndexDim, Bound)>,
    /// The run-time checks; the error word is 1 + an index into this.
    pub sites: Vec<Site>,
}

/// A run-time check of the generated code: the stencil it guards and what failing it
/// means (the runtime adds the program and stencil when it reports it).
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    /// The stencil whose code holds the check.
    pub stencil: String,
    /// What went wrong, e.g. "field `w` read at a level outside its levels".
    pub what: String,
}

impl CProgram {
    /// The most stencils one kernel computes (sizes the member-domain array).
    pub fn max_members(&self) -> usize {
        super::max_members(&self.kernels)
    }

    /// The region bounds resolved on `grid` with `nlev` levels, in `ctx->bounds` order.
    pub fn resolve_bounds(
        &self,
        program: &Program,
        grid: &foehn_grid::Grid,
        nlev: usize,
    ) -> crate::Result<Vec<i64>> {
        resolve_bounds(&self.bounds, program, grid, nlev)
    }
}

/// The values of region `bounds` (a [`CProgram::bounds`] list) for `program` on `grid`
/// with `nlev` levels.
pub(crate) fn resolve_bounds(
    bounds: &[(IndexDim, Bound)],
    program: &Program,
    grid: &foehn_grid::Grid,
    nlev: usize,
) -> crate::Result<Vec<i64>> {
    bounds
        .iter()
        .map(|(dim, b)| b.resolve(*dim, grid, nlev))
        .collect::<std::result::Result<_, _>>()
        .map_err(|message| crate::Error::Runtime {
            program: program.name.clone(),
            stencil: "-".into(),
            message,
        })
}

/// Calling information of one kernel function (one stencil, or several fused).
#[derive(Debug, Clone, PartialEq)]
pub struct CKernel {
    /// The C symbol.
    pub symbol: String,
    /// The stencils it computes, indices into `Program::stencils`.
    pub members: Vec<usize>,
    /// Fields the kernel reads.
    pub reads: BTreeSet<FieldId>,
    /// Output fields a member stencil also reads: the runtime passes a snapshot taken
    /// before the kernel as their read pointer, so every point sees the old values.
    pub snapshot: BTreeSet<FieldId>,
    /// True when the kernel computes scan columns: one CUDA thread per horizontal point
    /// (walking the levels), or a warp per point with [`CKernel::warps`], instead of one
    /// per (point, level).
    pub per_column: bool,
    /// Levels one CUDA thread walks in this kernel (1 without k-blocking). Stencils
    /// with data-dependent vertical offsets are not k-blocked: measured slower.
    pub k_block: usize,
    /// Blocks in k-major order: a one-dimensional grid of (level block, horizontal
    /// block) pairs, the level block varying fastest.
    pub k_major: bool,
    /// Values staged in shared memory: the connectivity they are read through and how
    /// many tiles (the runtime builds the block lists and sizes shared memory).
    pub stage: Option<(Connectivity, usize)>,
    /// A column kernel with a warp per column (level-fastest layout, ADR 0032): its
    /// warps per block, which the launch must use.
    pub warps: Option<u32>,
    /// With `warps`: the threads of a column (32, or fewer with several columns a warp).
    pub lanes: u32,
}

/// Sizes fixed at compile time: strides, level counts, region bounds and fused
/// kernels' member domains become constants of the generated code. The runtime then
/// checks the caller's grid and levels are the ones the code was generated for.
#[derive(Clone, Copy)]
pub(crate) struct Fixed<'g> {
    /// The grid.
    pub grid: &'g foehn_grid::Grid,
    /// Full levels.
    pub nlev: usize,
    /// Fields with levels are laid out level-fastest (`Schedule::level_fastest`).
    pub level_fastest: bool,
}

/// Errors: IR constructs this generator does not lower (yet).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("code generation for program `{program}`, stencil `{stencil}`: {message}")]
pub struct CodegenError {
    /// Program name.
    pub program: String,
    /// Stencil name.
    pub stencil: String,
    /// What is not supported.
    pub message: String,
}

/// What the generated source is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Plain C11: one function per kernel over a horizontal chunk and the level range.
    C,
    /// CUDA C++ for NVRTC: one kernel per schedule entry, a thread per (horizontal
    /// point, k-block), or per horizontal point for kernels with scans.
    Cuda,
}

/// The grid and levels a program is generated for: the levels size the CUDA scan
/// columns; with a schedule's fixed sizes the grid's sizes and domains become constants
/// (then the grid is required).
#[derive(Clone, Copy)]
pub struct Sizes<'g> {
    /// The grid, if known.
    pub grid: Option<&'g foehn_grid::Grid>,
    /// Full levels.
    pub nlev: usize,
}

impl<'g> Sizes<'g> {
    /// `grid` with `nlev` full levels.
    pub fn of(grid: &'g foehn_grid::Grid, nlev: usize) -> Sizes<'g> {
        Sizes {
            grid: Some(grid),
            nlev,
        }
    }

    /// `nlev` full levels on a grid not known yet (schedules without fixed sizes).
    pub fn levels(nlev: usize) -> Sizes<'static> {
        Sizes { grid: None, nlev }
    }
}
