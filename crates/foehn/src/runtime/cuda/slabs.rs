//! Slab groups on the GPU (ADR 0034): their ring temporaries hold one slab of levels,
//! in one allocation under a persisting L2 window, and their kernels' launches are
//! interleaved slab by slab.

use super::bound::BoundStencil;
use super::{CudaBackend, CudaCompiled};
use crate::error::Result;
use crate::ir::{self, FieldId};
use foehn_gpu::{DeviceBuffer, DevicePtr};
use std::collections::BTreeMap;

/// Alignment of each ring in the rings' allocation (bytes).
const RING_ALIGN: usize = 256;

/// Where the rings of a binding are: per field (declaration index), its first byte and
/// the bytes of one level; the allocation's window.
pub(super) struct Rings {
    /// Field index → (pointer to its ring, bytes per level, bytes of the ring).
    pub(super) fields: BTreeMap<usize, (DevicePtr, u64, usize)>,
    /// The allocation holding every ring, kept alive by the binding.
    pub(super) buffer: Option<DeviceBuffer>,
    /// The persisting window over the allocation: pointer, bytes, hit ratio.
    pub(super) window: Option<(DevicePtr, usize, f32)>,
}

impl CudaBackend {
    /// Allocates the rings of `compiled`'s slab groups: for each ring field (bytes per
    /// level from `level_bytes`), its group's slab of levels, all in one allocation.
    pub(super) fn allocate_rings(
        &self,
        program: &ir::Program,
        compiled: &CudaCompiled,
        level_bytes: impl Fn(FieldId) -> usize,
        ordinals: &mut BTreeMap<usize, usize>,
        pooled: &mut Vec<std::sync::Arc<DeviceBuffer>>,
    ) -> Result<Rings> {
        let fail = super::gpu_err(&program.name);
        let mut layout = Vec::new();
        let mut total = 0;
        for g in &compiled.slabs {
            for &f in &g.rings {
                let per_level = level_bytes(f);
                layout.push((f, total, per_level, g.levels * per_level));
                total += (g.levels * per_level).div_ceil(RING_ALIGN) * RING_ALIGN;
            }
        }
        if total == 0 {
            return Ok(Rings {
                fields: BTreeMap::new(),
                buffer: None,
                window: None,
            });
        }
        let buffer = self.work_buffer(total, ordinals, pooled).map_err(&fail)?;
        // `FOEHN_L2_PERSIST=0`: rings without a window; `reserve`: the set-aside L2
        // reserved, no window (diagnostics of ADR 0034).
        let persist = std::env::var("FOEHN_L2_PERSIST").unwrap_or_default();
        let reserved = match persist.as_str() {
            "0" => 0,
            "reserve" => {
                self.gpu.reserve_persisting_l2().map_err(&fail)?;
                0
            }
            _ => self.gpu.reserve_persisting_l2().map_err(&fail)?,
        };
        let base = buffer.ptr();
        let fields = layout
            .into_iter()
            .map(|(f, at, per_level, bytes)| {
                (f.0 as usize, (base + at as u64, per_level as u64, bytes))
            })
            .collect();
        let window =
            (reserved > 0).then(|| (base, total, (reserved as f32 / total as f32).min(1.0)));
        Ok(Rings {
            fields,
            buffer: Some(buffer),
            window,
        })
    }
}

/// The launches of `stencils` (one per kernel, in kernel order) with each slab group's
/// kernels interleaved slab by slab: per slab, each kernel over the slab's part of its
/// levels, its ring fields' pointers moved so that the slab's levels land in the ring.
/// `fields` is the number of field declarations (the argument block holds each field's
/// read pointer, then each one's write pointer).
pub(super) fn interleave(
    compiled: &CudaCompiled,
    stencils: Vec<BoundStencil>,
    rings: &Rings,
    fields: usize,
) -> Vec<BoundStencil> {
    let mut out = Vec::with_capacity(stencils.len());
    let mut rest = stencils.into_iter().peekable();
    for g in &compiled.slabs {
        while let Some(bs) = rest.next_if(|bs| bs.kernel < g.first) {
            out.push(bs);
        }
        let mut group = Vec::new();
        while let Some(bs) = rest.next_if(|bs| bs.kernel < g.end) {
            group.push(bs);
        }
        let top = group.iter().map(|bs| bs.range[3]).max().unwrap_or(0).max(0) as usize;
        let mine: Vec<(usize, (DevicePtr, u64))> = g
            .rings
            .iter()
            .filter_map(|f| {
                let &(ptr, per_level, _) = rings.fields.get(&(f.0 as usize))?;
                Some((f.0 as usize, (ptr, per_level)))
            })
            .collect();
        let before = out.len();
        for s in 0..top.div_ceil(g.levels) {
            let (a, b) = ((s * g.levels) as i64, ((s + 1) * g.levels) as i64);
            for bs in &group {
                let (k0, k1) = (bs.range[2].max(a), bs.range[3].min(b));
                if k0 >= k1 {
                    continue;
                }
                let ck = &compiled.kernels()[bs.kernel];
                let whole = ((bs.range[3] - bs.range[2]) as usize)
                    .div_ceil(ck.k_block)
                    .max(1);
                let gy = ((k1 - k0) as usize).div_ceil(ck.k_block);
                let grid = if ck.k_major {
                    let gx = bs.grid.0 as usize / whole;
                    ((gx * gy) as u32, 1, 1)
                } else {
                    (bs.grid.0, gy as u32, 1)
                };
                let mut block = bs.block.clone();
                for &(f, (ptr, per_level)) in &mine {
                    let moved = ptr.wrapping_sub(a as u64 * per_level).to_le_bytes();
                    for slot in [f, fields + f] {
                        block[8 * slot..8 * slot + 8].copy_from_slice(&moved);
                    }
                }
                out.push(BoundStencil {
                    kernel: bs.kernel,
                    block,
                    scalar_at: bs.scalar_at,
                    range: [bs.range[0], bs.range[1], k0, k1],
                    grid,
                    threads: bs.threads,
                    copies: Vec::new(),
                    shared: bs.shared,
                    window: rings.window,
                    reset_after: None,
                });
            }
        }
        // The group's last launch returns its persisting lines to normal.
        if let (true, Some((ptr, bytes, _))) = (out.len() > before, rings.window) {
            let last = out.last_mut().expect("a launch of the group");
            last.reset_after = Some((ptr, bytes));
        }
    }
    out.extend(rest);
    out
}
