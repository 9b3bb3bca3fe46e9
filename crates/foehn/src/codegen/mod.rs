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
pub const CODEGEN_VERSION: &str = "foehn-codegen-2";

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
            crate::field::Field::grid_shape(grid, nlev, d.ty.dims)
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

/// Checks that a program compiled with fixed sizes (`fixed_for`, from
/// [`size_identity`]) is called on the grid and levels it was generated for.
pub(crate) fn check_fixed_size(
    program: &crate::ir::Program,
    fixed_for: Option<&str>,
    grid: &foehn_grid::Grid,
    nlev: usize,
) -> crate::Result<()> {
    let Some(want) = fixed_for else {
        return Ok(());
    };
    let got = size_identity(grid, nlev);
    if want != got {
        return Err(crate::Error::Runtime {
            program: program.name.clone(),
            stencil: "-".into(),
            message: format!("compiled for {want} (fixed sizes), called on {got}"),
        });
    }
    Ok(())
}

/// What a program compiled with fixed sizes was generated for: grid identity and levels.
pub(crate) fn size_identity(grid: &foehn_grid::Grid, nlev: usize) -> String {
    format!(
        "{} ({} cells, {} edges, {} vertices), {nlev} levels",
        grid.name,
        grid.topology.n_cells(),
        grid.topology.n_edges(),
        grid.topology.n_vertices()
    )
}

/// The points a kernel runs on: the union of its members' active domains, and each
/// member's domain `[h0, h1, k0, k1]` (all zero for a member with nothing to do), which
/// fused kernels test before computing the member.
pub(crate) struct KernelLaunch {
    /// Union of the members' domains.
    pub union: crate::ir::ResolvedDomain,
    /// Four bounds per member.
    pub members: Vec<i64>,
}

impl KernelLaunch {
    /// Resolves the members' domains on `grid`; `None` when none has a point.
    pub(crate) fn resolve(
        p: &crate::ir::Program,
        members: &[usize],
        grid: &foehn_grid::Grid,
        nlev: usize,
    ) -> crate::Result<Option<KernelLaunch>> {
        let mut union: Option<crate::ir::ResolvedDomain> = None;
        let mut bounds = Vec::with_capacity(4 * members.len());
        for &m in members {
            match p.active_domain(&p.stencils[m], grid, nlev)? {
                Some(r) => {
                    bounds.extend([r.h.0, r.h.1, r.k.0, r.k.1].map(|x| x as i64));
                    union = Some(match union {
                        None => r,
                        Some(u) => crate::ir::ResolvedDomain {
                            h: (u.h.0.min(r.h.0), u.h.1.max(r.h.1)),
                            k: (u.k.0.min(r.k.0), u.k.1.max(r.k.1)),
                        },
                    });
                }
                None => bounds.extend([0; 4]),
            }
        }
        Ok(union.map(|union| KernelLaunch {
            union,
            members: bounds,
        }))
    }
}
