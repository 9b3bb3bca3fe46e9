//! Code generation: (program, schedule, target, sizes) → C-family source text and a
//! kernel table (plain C for the native CPU backend, CUDA C for the GPU backend). It
//! compiles, loads and runs nothing: that is [`crate::runtime`].
//!
//! The generated code reproduces the interpreter's semantics exactly (same operation
//! order, no FMA contraction, `fmin`/`fmax`, reductions in slot order skipping −1), so
//! backends agree with the interpreter to the last bit for the arithmetic operators.

pub mod c;

/// Version of the code generators; part of every compiled-program cache key.
pub const CODEGEN_VERSION: &str = "foehn-codegen-2";

use crate::error::{Error, Result};
use crate::ir;
use c::{generate_kernels, CProgram, Target};
use foehn_grid::Grid;

/// How a backend turns a program into kernels: the schedule (fusion, per-kernel
/// k-blocks and block sizes) and code-generation switches.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelOptions {
    /// The kernel schedule; `None`: a kernel per stencil.
    pub schedule: Option<crate::ir::Schedule>,
    /// Levels one GPU thread walks unless the schedule says otherwise (1: one level).
    pub k_block: usize,
    /// 32-bit index arithmetic on the GPU (binding checks every field fits).
    pub idx32: bool,
    /// Strides, bounds and fused kernels' member domains as compile-time constants of
    /// the caller's grid and levels (the compiled program then runs on that size only).
    pub fixed_sizes: bool,
    /// GPU blocks in k-major order unless the schedule says otherwise.
    pub k_major: bool,
    /// Level-invariant loads hoisted out of k-block loops unless the schedule says
    /// otherwise.
    pub hoist: bool,
}

impl Default for KernelOptions {
    /// The program as written: a kernel per stencil, a GPU thread per level, 64-bit
    /// indices, sizes at run time.
    fn default() -> Self {
        KernelOptions {
            schedule: None,
            k_block: 1,
            idx32: false,
            fixed_sizes: false,
            k_major: false,
            hoist: false,
        }
    }
}

impl KernelOptions {
    /// The options the optimiser chose: `schedule` (from `opt::optimise_scheduled`)
    /// with the k-block, index width and fixed sizes of `opts`.
    pub fn optimised(opts: &crate::opt::OptOptions, schedule: crate::ir::Schedule) -> Self {
        KernelOptions {
            schedule: Some(schedule),
            k_block: opts.k_block.max(1),
            idx32: opts.idx32,
            fixed_sizes: opts.fixed_sizes,
            k_major: opts.k_major,
            hoist: opts.hoist,
        }
    }

    /// These options with 32-bit indices only where every field of `p` on `grid` with
    /// `nlev` levels has fewer than 2³¹ elements.
    pub fn fitted(
        mut self,
        p: &crate::ir::Program,
        grid: &foehn_grid::Grid,
        nlev: usize,
    ) -> KernelOptions {
        let fits = p.fields.iter().all(|d| {
            crate::ir::layout::grid_shape(grid, nlev, d.ty.dims)
                .iter()
                .product::<usize>()
                < i32::MAX as usize
        });
        self.idx32 &= fits;
        self
    }

    /// The compile-time sizes these options ask for, on `sized` = (grid, levels), with
    /// the identity the compiled program checks at run time; an error message when
    /// fixed sizes are asked for without a grid.
    pub(crate) fn fixed<'g>(
        &self,
        sized: Option<(&'g foehn_grid::Grid, usize)>,
    ) -> Result<Option<(c::Fixed<'g>, String)>, String> {
        match (self.fixed_sizes, sized) {
            (true, Some((grid, nlev))) => {
                Ok(Some((c::Fixed { grid, nlev }, size_identity(grid, nlev))))
            }
            (true, None) => Err("fixed sizes need the grid and levels".into()),
            (false, _) => Ok(None),
        }
    }

    /// The schedule for `p` (the given one or a kernel per stencil), with the
    /// options' block order and hoisting where the schedule leaves them open.
    pub fn schedule_for(&self, p: &crate::ir::Program) -> crate::ir::Schedule {
        let mut s = self
            .schedule
            .clone()
            .unwrap_or_else(|| crate::ir::Schedule::unfused(p));
        for k in &mut s.kernels {
            k.k_major.get_or_insert(self.k_major);
            k.hoist.get_or_insert(self.hoist);
        }
        s
    }
}

/// What a program compiled with fixed sizes was generated for: grid identity and levels.
pub fn size_identity(grid: &foehn_grid::Grid, nlev: usize) -> String {
    format!(
        "{} ({} cells, {} edges, {} vertices), {nlev} levels",
        grid.name,
        grid.topology.n_cells(),
        grid.topology.n_edges(),
        grid.topology.n_vertices()
    )
}

/// The C source `runtime::cpu::CpuBackend` compiles for `program`: its schedule from
/// `opts`, sizes fixed for `sized` = (grid, levels) when `opts.fixed_sizes` is set.
pub fn c_source(
    program: &ir::Program,
    opts: &KernelOptions,
    sized: Option<(&Grid, usize)>,
) -> Result<CProgram> {
    let fail = |message: String| Error::Compile {
        program: program.name.clone(),
        message,
    };
    let (fixed, _) = opts.fixed(sized).map_err(fail)?.unzip();
    generate_kernels(program, Target::C, &opts.schedule_for(program), fixed)
        .map_err(|e| fail(e.to_string()))
}

/// Longest vertical range a scan column may have: `nlev + 1` when `program` has scans,
/// else 1 (no column buffers).
pub fn scan_levels(program: &ir::Program, nlev: usize) -> usize {
    if program
        .nodes
        .iter()
        .any(|n| matches!(n, ir::Node::Scan { .. }))
    {
        nlev + 1
    } else {
        1
    }
}

/// The CUDA source `runtime::cuda::CudaBackend` compiles for `program` (no device
/// needed): its schedule and switches from `opts`, sizes fixed for `grid`/`nlev` when
/// `opts.fixed_sizes` is set.
pub fn cuda_source(
    program: &ir::Program,
    nlev: usize,
    opts: &KernelOptions,
    grid: Option<&Grid>,
) -> Result<CProgram> {
    let fail = |message: String| Error::Compile {
        program: program.name.clone(),
        message,
    };
    let (fixed, _) = opts.fixed(grid.map(|g| (g, nlev))).map_err(fail)?.unzip();
    generate_kernels(
        program,
        Target::Cuda {
            max_levels: scan_levels(program, nlev),
            k_block: opts.k_block,
            idx32: opts.idx32,
        },
        &opts.schedule_for(program),
        fixed,
    )
    .map_err(|e| fail(e.to_string()))
}
