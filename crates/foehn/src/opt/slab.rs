//! Slab groups (ADR 0034): runs of consecutive kernels the GPU runs slab by slab over
//! the levels, so that what one kernel writes and the next reads (through neighbours,
//! across a change of location) is still in L2, and temporaries used only inside the
//! run are held for one slab (a ring, under a persisting L2 window).

use super::{Decision, OptOptions, OptReport};
use crate::ir::slab::{kernel_refusal, order_refusal, ring_fields};
use crate::ir::{Program, Schedule, SlabGroup};

/// Greatest common divisor.
fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Groups maximal runs of consecutive kernels that can go slab by slab with slabs of
/// `opts.slab_levels` levels, where some field passes between them; each member's
/// k-block becomes a divisor of the slab.
pub fn plan(p: &Program, s: &mut Schedule, opts: &OptOptions, report: &mut OptReport) {
    let Some(levels) = opts.slab_levels.filter(|&l| l > 0) else {
        return;
    };
    if s.level_fastest {
        return;
    }
    let n = s.kernels.len();
    let mut first = 0;
    while first < n {
        if let Some(why) = kernel_refusal(p, &s.kernels[first]) {
            if first + 1 < n {
                report.decisions.push(Decision::SlabsRefused {
                    kernel: p.kernel_name(&s.kernels[first].stencils),
                    reason: why.to_string(),
                });
            }
            first += 1;
            continue;
        }
        let mut end = first + 1;
        while end < n {
            let refusal = kernel_refusal(p, &s.kernels[end])
                .map(str::to_string)
                .or_else(|| order_refusal(p, s, first, end + 1));
            if let Some(reason) = refusal {
                report.decisions.push(Decision::SlabsRefused {
                    kernel: p.kernel_name(&s.kernels[end].stencils),
                    reason,
                });
                break;
            }
            end += 1;
        }
        if end - first >= 2 && passes_fields(p, s, first, end) {
            for k in &mut s.kernels[first..end] {
                k.k_block = gcd(k.k_block, levels);
            }
            let rings = ring_fields(p, s, first, end);
            report.decisions.push(Decision::Slabs {
                kernels: (first..end)
                    .map(|i| p.kernel_name(&s.kernels[i].stencils))
                    .collect(),
                levels,
                rings: rings.iter().map(|&f| p.field(f).name.clone()).collect(),
            });
            s.slabs.push(SlabGroup {
                first,
                end,
                levels,
                rings,
            });
        }
        first = end;
    }
}

/// Whether some kernel of `[first, end)` reads what an earlier one of them writes.
fn passes_fields(p: &Program, s: &Schedule, first: usize, end: usize) -> bool {
    let mut written = std::collections::BTreeSet::new();
    for k in &s.kernels[first..end] {
        let members = k.stencils.iter().map(|&i| &p.stencils[i]);
        if members
            .clone()
            .any(|st| p.fields_read(st.root).iter().any(|f| written.contains(f)))
        {
            return true;
        }
        written.extend(members.flat_map(|st| st.outputs.iter().copied()));
    }
    false
}
