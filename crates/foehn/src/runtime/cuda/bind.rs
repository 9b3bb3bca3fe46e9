//! Binding a compiled program to device arguments: domains resolved, temporaries and
//! snapshots allocated, each kernel's argument block and launch shape built once.

use super::bound::{scalar_bits, BoundStencil};
use super::*;
use crate::runtime::{check_fixed_size, program_key, KernelLaunch};

impl CudaBackend {
    /// Prepares launches of `compiled` on `grid` with device arguments: resolves domains,
    /// allocates temporaries and snapshots, and builds every kernel's argument block.
    pub fn bind<'a>(
        &'a self,
        program: &ir::Program,
        compiled: &'a CudaCompiled,
        grid: &Grid,
        nlev: usize,
        dev: &DeviceArgs,
    ) -> Result<Bound<'a>> {
        let fail = gpu_err(&program.name);
        let dgrid = self.device_grid(grid)?;
        let code = compiled.code();
        // Temporaries live in the binding's workspace, allocated once (or shared between
        // bindings, see `share_work_buffers`).
        let mut temps = BTreeMap::new();
        let (mut ordinals, mut pooled) = (BTreeMap::new(), Vec::new());
        for d in program.fields.iter().filter(|d| d.role == Role::Temp) {
            let shape = Field::grid_shape(grid, nlev, d.ty.dims);
            let bytes = shape.iter().product::<usize>() * d.ty.dtype.size_bytes();
            let buf = self
                .work_buffer(bytes, &mut ordinals, &mut pooled)
                .map_err(&fail)?;
            temps.insert(
                d.name.clone(),
                DeviceField {
                    buf,
                    dims: d.ty.dims,
                    shape,
                    dtype: d.ty.dtype,
                },
            );
        }
        // A temporary is the binding's own even where an argument of the same name is
        // on the device (a component's slots hold every program's arguments).
        let field = |d: &ir::FieldDecl| match d.role {
            Role::Temp => &temps[&d.name],
            _ => dev.fields.get(&d.name).expect("argument"),
        };
        let decls: Vec<&DeviceField> = program.fields.iter().map(field).collect();
        if compiled.idx32 {
            if let Some(f) = decls
                .iter()
                .find(|f| f.shape.iter().product::<usize>() >= i32::MAX as usize)
            {
                return Err(Error::Runtime {
                    program: program.name.clone(),
                    stencil: "-".into(),
                    message: format!(
                        "a field of shape {:?} is too large for 32-bit indices",
                        f.shape
                    ),
                });
            }
        }
        check_fixed_size(program, compiled.fixed_for.as_deref(), grid, nlev)?;
        let bounds = crate::codegen::c::resolve_bounds(&compiled.bounds, program, grid, nlev)?;
        let err = DeviceBuffer::from_slice(&self.gpu, &[0i32]).map_err(&fail)?;
        let max_members = code.max_members();
        let sms = self.gpu.multiprocessors().map_err(&fail)?.max(1) as usize;
        let mut snapshots = Vec::new();
        let mut stage_tables = Vec::new();
        let mut stencils = Vec::new();
        for (i, ck) in code.kernels.iter().enumerate() {
            let first = &program.stencils[ck.members[0]];
            let Some(launch) = KernelLaunch::resolve(program, &ck.members, grid, nlev)? else {
                continue;
            };
            let dom = launch.union;
            if ck.per_column && dom.k.1 - dom.k.0 > compiled.max_levels {
                return Err(program.runtime_error(
                    first,
                    format!(
                        "vertical range {} exceeds the {} levels the kernel was compiled for",
                        dom.k.1 - dom.k.0,
                        compiled.max_levels
                    ),
                ));
            }
            let mut copies = Vec::new();
            let mut rd: Vec<u64> = decls.iter().map(|f| f.buf.ptr()).collect();
            for f in &ck.snapshot {
                let src = decls[f.0 as usize];
                let snap = self
                    .work_buffer(src.buf.bytes(), &mut ordinals, &mut pooled)
                    .map_err(&fail)?;
                rd[f.0 as usize] = snap.ptr();
                copies.push((f.0 as usize, snapshots.len()));
                snapshots.push(snap);
            }
            // The argument block: every member 8 bytes (see `cuda_ctx` in the C emitter).
            let mut w: Vec<u64> = Vec::new();
            w.extend(&rd);
            w.extend(decls.iter().map(|f| f.buf.ptr()));
            for sel in 0..3 {
                w.extend(decls.iter().map(|f| {
                    let s = f.strides();
                    [s.0, s.1, s.2][sel] as u64
                }));
            }
            w.extend(decls.iter().map(|f| f.levels() as u64));
            if decls.is_empty() {
                w.extend([0; 6]);
            }
            w.extend(dgrid.tables.iter().map(|t| t.ptr()));
            let scalar_at = 8 * w.len();
            w.extend(
                program
                    .scalars
                    .iter()
                    .map(|s| scalar_bits(dev.scalars[&s.name])),
            );
            if program.scalars.is_empty() {
                w.push(0);
            }
            w.extend(bounds.iter().map(|&b| b as u64));
            if bounds.is_empty() {
                w.push(0);
            }
            w.push(err.ptr());
            let mut member_domains = launch.members.clone();
            member_domains.resize(4 * max_members, 0);
            w.extend(member_domains.iter().map(|&b| b as u64));
            let k_range = if first.vertical.is_some() {
                (dom.k.0 as i64, dom.k.1 as i64)
            } else {
                (0, 1)
            };
            let nh = dom.h.1 - dom.h.0;
            // A warp per column (ADR 0032): 32 threads per point (fewer with several
            // columns a warp), in a one-dimensional grid of blocks of `warps` warps.
            let gy = if ck.warps.is_some() {
                ck.lanes as usize
            } else if ck.per_column {
                1
            } else {
                ((k_range.1 - k_range.0) as usize)
                    .div_ceil(ck.k_block)
                    .max(1)
            };
            let mut threads = match (ck.warps, compiled.blocks[i]) {
                (Some(w), _) => 32 * w,
                (None, Some(b)) => b,
                (None, None) => model_block(&compiled.functions()[i], nh, gy, sms),
            };
            // A requested block larger than the kernel's registers allow would fail to
            // launch: the largest whole number of warps that fits.
            let most = compiled.functions()[i]
                .max_threads_per_block()
                .map_err(&fail)?;
            if threads > most {
                threads = (most - most % 32).max(32);
            }
            // Staged values: the block lists for this block size (halved while the
            // tiles would exceed the shared memory a block gets without opting in).
            let mut shared = 0;
            match ck.stage {
                Some((conn, tiles)) => {
                    let table = grid.topology.table(conn).as_slice();
                    let per_entry = tiles * ck.k_block * std::mem::size_of::<f64>();
                    let mut t = StageTables::new(table, conn.width(), dom.h, threads as usize);
                    while t.m * per_entry > MAX_STATIC_SHARED && threads > 32 {
                        threads /= 2;
                        t = StageTables::new(table, conn.width(), dom.h, threads as usize);
                    }
                    if t.m * per_entry > MAX_STATIC_SHARED {
                        return Err(program.runtime_error(
                            first,
                            format!(
                                "staged values need {} bytes of shared memory per block",
                                t.m * per_entry
                            ),
                        ));
                    }
                    shared = (t.m * per_entry) as u32;
                    for v in [&t.list, &t.count, &t.pos] {
                        let buf = DeviceBuffer::from_slice(&self.gpu, v).map_err(&fail)?;
                        w.push(buf.ptr());
                        stage_tables.push(buf);
                    }
                    w.push(t.m as u64);
                }
                None => w.extend([0; 4]),
            }
            let block: Vec<u8> = w.iter().flat_map(|v| v.to_le_bytes()).collect();
            stencils.push(BoundStencil {
                kernel: i,
                block,
                scalar_at,
                range: [dom.h.0 as i64, dom.h.1 as i64, k_range.0, k_range.1],
                grid: launch_grid(
                    program,
                    first,
                    nh.div_ceil(threads as usize),
                    gy,
                    ck.k_major || ck.warps.is_some(),
                )?,
                threads,
                copies,
                shared,
            });
        }
        let key = program_key(program, "cuda");
        let metrics = (foehn_metrics::level() > 0).then(|| foehn_metrics::global().slot(&key));
        // Kernel timing events are created once per binding, not per call.
        let timer = if foehn_metrics::level() >= foehn_metrics::LEVEL_COMPUTE {
            Some(self.gpu.timer().map_err(&fail)?)
        } else {
            None
        };
        let replays = super::bound::Replays::new(&stencils);
        Ok(Bound {
            metrics,
            timer,
            backend: self,
            compiled,
            program: program.name.clone(),
            range_name: nvtx_name(&key),
            kernel_names: code
                .kernels
                .iter()
                .map(|k| program.kernel_name(&k.members))
                .collect(),
            scalar_names: program.scalars.iter().map(|s| s.name.clone()).collect(),
            field_ptrs: decls.iter().map(|f| (f.buf.ptr(), f.buf.bytes())).collect(),
            stencils,
            snapshots,
            _temps: temps,
            _pooled: pooled,
            _stage_tables: stage_tables,
            err,
            replays,
        })
    }
}

/// `program [a=true,b=false]`: the NVTX range of a call of the variant `key`.
fn nvtx_name(key: &foehn_metrics::ProgramKey) -> String {
    match key.variant_label() {
        v if v.is_empty() => key.program.clone(),
        v => format!("{} [{v}]", key.program),
    }
}

/// Shared memory a block may use without opting in to more (48 KiB on every CUDA GPU).
const MAX_STATIC_SHARED: usize = 48 * 1024;

/// What a staging kernel's blocks read (see `codegen/c/stage.rs`): per block of
/// `block` consecutive points of `[h.0, h.1)`, the distinct neighbours its points reach
/// through a table of `width` columns (padded to `m` per block), their count, and per
/// point and slot the neighbour's position in its block's list (0 where missing).
struct StageTables {
    list: Vec<i32>,
    count: Vec<i32>,
    pos: Vec<i32>,
    m: usize,
}

impl StageTables {
    fn new(table: &[i32], width: usize, h: (usize, usize), block: usize) -> StageTables {
        let (h0, h1) = h;
        let blocks: Vec<Vec<i32>> = (h0..h1)
            .step_by(block.max(1))
            .map(|b0| {
                let rows = &table[b0 * width..(b0 + block).min(h1) * width];
                let mut needed: Vec<i32> = rows.iter().copied().filter(|&n| n >= 0).collect();
                needed.sort_unstable();
                needed.dedup();
                needed
            })
            .collect();
        let m = blocks.iter().map(Vec::len).max().unwrap_or(0).max(1);
        let mut list = vec![0; blocks.len() * m];
        let mut pos = vec![0; (h1 - h0) * width];
        for (b, needed) in blocks.iter().enumerate() {
            list[b * m..b * m + needed.len()].copy_from_slice(needed);
            for point in (h0 + b * block)..(h0 + (b + 1) * block).min(h1) {
                for j in 0..width {
                    let n = table[point * width + j];
                    if n >= 0 {
                        let at = needed.binary_search(&n).expect("listed");
                        pos[(point - h0) * width + j] = at as i32;
                    }
                }
            }
        }
        StageTables {
            count: blocks.iter().map(|b| b.len() as i32).collect(),
            list,
            pos,
            m,
        }
    }
}

/// The grid of blocks: `(horizontal blocks, level blocks)`, or in k-major order one
/// dimension of their product (the kernel splits it, level block fastest).
fn launch_grid(
    program: &ir::Program,
    st: &ir::Stencil,
    gx: usize,
    gy: usize,
    k_major: bool,
) -> Result<(u32, u32, u32)> {
    let too_many =
        |n: usize| program.runtime_error(st, format!("{n} blocks exceed the CUDA grid limit"));
    if k_major {
        let n = gx * gy;
        if n > i32::MAX as usize {
            return Err(too_many(n));
        }
        Ok((n as u32, 1, 1))
    } else {
        if gx > i32::MAX as usize || gy > 65535 {
            return Err(too_many(gx * gy));
        }
        Ok((gx as u32, gy as u32, 1))
    }
}

/// The launch model's block size: the occupancy calculator's choice for the kernel's
/// registers, at most [`MODEL_MAX_BLOCK`], halved while the launch would have fewer
/// than two blocks per multiprocessor (small domains, e.g. a few levels).
fn model_block(kernel: &foehn_gpu::Kernel, nh: usize, gy: usize, sms: usize) -> u32 {
    let mut b = kernel
        .occupancy_block_size(MODEL_MAX_BLOCK)
        .unwrap_or(128)
        .clamp(MODEL_MIN_BLOCK, MODEL_MAX_BLOCK);
    b -= b % 32;
    while b > MODEL_MIN_BLOCK && nh.div_ceil(b as usize) * gy < 2 * sms {
        b /= 2;
    }
    b
}

#[cfg(test)]
mod tests {
    use super::StageTables;
    use foehn_grid::{Connectivity, Grid, EARTH_RADIUS};

    #[test]
    fn stage_tables_list_every_neighbour_a_block_reaches_once() {
        let grid = Grid::icosahedral(2, 2, EARTH_RADIUS).unwrap();
        let conn = Connectivity::C2E2CO;
        let table = grid.topology.table(conn).as_slice();
        let w = conn.width();
        let n = table.len() / w;
        let (h0, h1, block) = (7, n - 5, 64);
        let t = StageTables::new(table, w, (h0, h1), block);
        assert_eq!(t.count.len(), (h1 - h0).div_ceil(block));
        for (b, &count) in t.count.iter().enumerate() {
            let listed = &t.list[b * t.m..b * t.m + count as usize];
            assert!(listed.windows(2).all(|p| p[0] < p[1]), "sorted, distinct");
            for point in h0 + b * block..(h0 + (b + 1) * block).min(h1) {
                for j in 0..w {
                    let nb = table[point * w + j];
                    if nb >= 0 {
                        assert_eq!(listed[t.pos[(point - h0) * w + j] as usize], nb);
                    }
                }
            }
        }
        // Consecutive cells are neighbours of each other: far fewer than 4 per point.
        let listed: i32 = t.count.iter().sum();
        assert!((listed as usize) < 2 * (h1 - h0), "{listed}");
    }
}
