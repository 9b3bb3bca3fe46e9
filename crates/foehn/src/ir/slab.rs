//! When consecutive kernels may run slab by slab over the levels ([`SlabGroup`], ADR
//! 0034), and which of their temporaries can be held for one slab only.
//!
//! Run slab by slab, a kernel computes the levels of slab `s` after every kernel of the
//! group has computed slab `s − 1`, before any has computed slab `s + 1`. That gives the
//! results of the kernels run whole, one after another, when for every two kernels
//! `X` before `Y` of the group:
//! - what `X` writes, `Y` reads at its own level or below (offset ≤ 0): those levels
//!   are done;
//! - what `X` reads, `Y` writes, `X` reads at its own level or above (offset ≥ 0): `Y`
//!   has not overwritten those levels yet;
//! and no kernel reads its own output away from its point (a snapshot of the whole
//! field), or at a level that depends on data.

use super::{FieldId, KernelPlan, Program, Role, Schedule, SlabGroup};
use std::collections::{BTreeMap, BTreeSet};

/// Why a kernel cannot run slab by slab, or `None` when it can: every member has levels,
/// no scan, no data-dependent vertical offsets, and the kernel reads no snapshot.
pub fn kernel_refusal(p: &Program, k: &KernelPlan) -> Option<&'static str> {
    let members = k.stencils.iter().map(|&i| &p.stencils[i]);
    if members.clone().any(|st| st.vertical.is_none()) {
        return Some("a member has no levels");
    }
    if members.clone().any(|st| p.has_scan(st.root)) {
        return Some("a member scans its column");
    }
    if members
        .clone()
        .any(|st| p.has_data_dependent_offsets(st.root))
    {
        return Some("a member reads at data-dependent levels");
    }
    if !k.snapshots.is_empty() {
        return Some("it reads a snapshot of its own output");
    }
    None
}

/// What the kernel computing `stencils` reads (each field with its constant level
/// offsets, `None` where one is not constant) and writes.
fn kernel_access(
    p: &Program,
    stencils: &[usize],
) -> (BTreeMap<FieldId, Option<BTreeSet<i32>>>, BTreeSet<FieldId>) {
    let roots: Vec<_> = stencils.iter().map(|&i| p.stencils[i].root).collect();
    let reads = p.level_offsets(&roots, &BTreeSet::new());
    let writes = stencils
        .iter()
        .flat_map(|&i| p.stencils[i].outputs.iter().copied())
        .collect();
    (reads, writes)
}

/// Whether every offset of `read` satisfies `ok` (false for a non-constant one).
fn offsets_all(read: Option<&Option<BTreeSet<i32>>>, ok: impl Fn(i32) -> bool) -> bool {
    match read {
        None => true,
        Some(None) => false,
        Some(Some(set)) => set.iter().all(|&o| ok(o)),
    }
}

/// Why kernels `[first, end)` of `s` cannot run slab by slab in that order (the rules of
/// the module documentation), or `None` when they can.
pub fn order_refusal(p: &Program, s: &Schedule, first: usize, end: usize) -> Option<String> {
    let access: Vec<_> = (first..end)
        .map(|i| kernel_access(p, &s.kernels[i].stencils))
        .collect();
    for (x, (rx, wx)) in access.iter().enumerate() {
        for (ry, wy) in &access[x + 1..] {
            for &f in wx {
                if !offsets_all(ry.get(&f), |o| o <= 0) {
                    return Some(format!(
                        "`{}` is read above the level it is written at",
                        p.field(f).name
                    ));
                }
            }
            for &f in wy {
                if !offsets_all(rx.get(&f), |o| o >= 0) {
                    return Some(format!(
                        "`{}` is read below the level a later kernel writes it at",
                        p.field(f).name
                    ));
                }
            }
        }
    }
    None
}

/// The temporaries of kernels `[first, end)` of `s` that can be held for one slab: with
/// levels and a horizontal dimension and no local one, written by one stencil of the
/// group, read and written by no stencil outside it, and read only at their own level.
pub fn ring_fields(p: &Program, s: &Schedule, first: usize, end: usize) -> BTreeSet<FieldId> {
    let inside: BTreeSet<usize> = (first..end)
        .flat_map(|i| s.kernels[i].stencils.iter().copied())
        .collect();
    let mut writers: BTreeMap<FieldId, usize> = BTreeMap::new();
    for &i in &inside {
        for &f in &p.stencils[i].outputs {
            *writers.entry(f).or_default() += 1;
        }
    }
    let mut rings: BTreeSet<FieldId> = writers
        .into_iter()
        .filter(|&(f, n)| {
            let d = p.field(f);
            n == 1
                && d.role == Role::Temp
                && d.ty.dims.vertical.is_some()
                && d.ty.dims.horizontal.is_some()
                && d.ty.dims.local.is_none()
        })
        .map(|(f, _)| f)
        .collect();
    for (i, st) in p.stencils.iter().enumerate() {
        if inside.contains(&i) {
            for (f, offsets) in p.level_offsets(&[st.root], &BTreeSet::new()) {
                if offsets.is_none_or(|o| o.iter().any(|&o| o != 0)) {
                    rings.remove(&f);
                }
            }
        } else {
            for f in p.fields_read(st.root).iter().chain(&st.outputs) {
                rings.remove(f);
            }
        }
    }
    rings
}

/// Checks a slab group of `s` starting at or after kernel `after`: its kernels exist and
/// can run slab by slab in order, its slab is a multiple of their k-blocks, and its
/// rings are ring fields of the group. The message names what is wrong.
pub(crate) fn check_group(
    p: &Program,
    s: &Schedule,
    g: &SlabGroup,
    after: usize,
) -> Result<(), String> {
    let what = format!("slab group of kernels {}..{}", g.first, g.end);
    if g.first < after || g.end > s.kernels.len() || g.end < g.first + 2 {
        return Err(format!(
            "{what}: groups must be in order, inside the schedule's {} kernels, of at least two kernels",
            s.kernels.len()
        ));
    }
    if s.level_fastest || g.levels == 0 {
        return Err(format!(
            "{what}: no slabs of {} levels in this layout",
            g.levels
        ));
    }
    for i in g.first..g.end {
        let k = &s.kernels[i];
        if let Some(why) = kernel_refusal(p, k) {
            return Err(format!(
                "{what}: kernel `{}`: {why}",
                p.kernel_name(&k.stencils)
            ));
        }
        if g.levels % k.k_block != 0 {
            return Err(format!(
                "{what}: kernel `{}` walks {} levels a thread, not a divisor of the slab's {}",
                p.kernel_name(&k.stencils),
                k.k_block,
                g.levels
            ));
        }
    }
    if let Some(why) = order_refusal(p, s, g.first, g.end) {
        return Err(format!("{what}: {why}"));
    }
    let allowed = ring_fields(p, s, g.first, g.end);
    if !g.rings.is_subset(&allowed) {
        return Err(format!(
            "{what}: rings {:?}, but only {allowed:?} are written and read in the group alone at their own level",
            g.rings
        ));
    }
    Ok(())
}
