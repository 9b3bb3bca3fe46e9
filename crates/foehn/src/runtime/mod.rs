//! Running programs: host fields and arguments ([`field`]), the [`Backend`] trait, the
//! reference interpreter ([`interp`]), the native CPU backend that compiles the
//! generated C and runs it on all cores ([`cpu`]), the CUDA backend that compiles the
//! generated CUDA with NVRTC and binds and launches it ([`cuda`]), and the autotuner of
//! launch parameters ([`tune`]).

pub mod cpu;
pub mod cuda;
pub mod field;
pub mod interp;
mod temp_pool;
pub mod tune;

use crate::dsl::ProgramDef;
use crate::error::Result;
use crate::ir::{self, Variant};
use field::Args;
use foehn_grid::Grid;
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

/// Something that runs programs: the interpreter, the native CPU backend, the CUDA
/// backend.
pub trait Backend {
    /// A short name (`interp`, `cpu`, `cuda`).
    fn name(&self) -> &str;

    /// Runs a specialised program on `grid`, reading and updating `args` (argument
    /// shapes are checked first; outputs are written only inside each stencil's domain).
    fn execute(&self, program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()>;

    /// Runs `program` on `grid` with `nlev` levels on argument fields that are views of
    /// memory the caller owns (`args`: the program's non-temporary fields, in declaration
    /// order) and `scalars` (in declaration order). By default through owned copies
    /// (copied into named arguments, run, writable arguments copied back); the CPU
    /// backend runs on the views in place.
    fn execute_views(
        &self,
        program: &ir::Program,
        grid: &Grid,
        nlev: usize,
        args: &mut [field::FieldView],
        scalars: &[ir::Scalar],
    ) -> Result<()> {
        field::check_positional(program, grid, nlev, args, scalars)?;
        let decls: Vec<&ir::FieldDecl> = program
            .fields
            .iter()
            .filter(|d| d.role != ir::Role::Temp)
            .collect();
        let mut named = Args::new().with_nlev(nlev);
        for (d, v) in decls.iter().zip(args.iter()) {
            named.set_field(&d.name, v.to_field());
        }
        for (s, v) in program.scalars.iter().zip(scalars) {
            named.set_scalar(&s.name, *v);
        }
        self.execute(program, grid, &mut named)?;
        for (d, view) in decls.iter().zip(args.iter_mut()) {
            if d.role.writable() {
                view.copy_from(
                    named
                        .field(&d.name)
                        .expect("the backend keeps its arguments"),
                )?;
            }
        }
        Ok(())
    }

    /// Specialises one variant of `program` and runs it (see [`Backend::execute`]).
    fn run(
        &self,
        program: &ProgramDef,
        variant: &Variant,
        grid: &Grid,
        args: &mut Args,
    ) -> Result<()> {
        let ir = program.specialize(variant)?;
        self.execute(&ir, grid, args)
    }
}

/// What a program compiled with `schedule` for `sizes` is fixed to: the size identity
/// when the schedule fixes sizes (code generation refuses fixed sizes without a grid),
/// checked on every call.
pub(crate) fn fixed_for(schedule: &ir::Schedule, sizes: crate::codegen::Sizes) -> Option<String> {
    match (schedule.fixed_sizes, sizes.grid) {
        (true, Some(grid)) => Some(crate::codegen::size_identity(grid, sizes.nlev)),
        _ => None,
    }
}

/// Checks that a program compiled with fixed sizes (`fixed_for`, from
/// [`size_identity`]) is called on the grid and levels it was generated for.
pub(crate) fn check_fixed_size(
    program: &crate::ir::Program,
    fixed_for: Option<&str>,
    grid: &foehn_grid::Grid,
    nlev: usize,
) -> Result<()> {
    let Some(want) = fixed_for else {
        return Ok(());
    };
    let got = crate::codegen::size_identity(grid, nlev);
    if want != got {
        return Err(crate::Error::Runtime {
            program: program.name.clone(),
            stencil: "-".into(),
            message: format!("compiled for {want} (fixed sizes), called on {got}"),
        });
    }
    Ok(())
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
    ) -> Result<Option<KernelLaunch>> {
        let mut union: Option<crate::ir::ResolvedDomain> = None;
        let mut bounds = Vec::with_capacity(4 * members.len());
        for &m in members {
            match p.active_domain(&p.stencils[m], grid, nlev)? {
                Some(r) => {
                    bounds.extend([r.h.0, r.h.1, r.k.0, r.k.1].map(|x| x as i64));
                    union = Some(union.map_or(r, |u| u.union(r)));
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

/// The metrics key of a program variant: name, backend and static arguments.
pub fn program_key(program: &ir::Program, backend: &str) -> foehn_metrics::ProgramKey {
    program.variant.0.iter().fold(
        foehn_metrics::ProgramKey::new(&program.name, backend),
        |k, (n, v)| k.with_arg(n, v),
    )
}
