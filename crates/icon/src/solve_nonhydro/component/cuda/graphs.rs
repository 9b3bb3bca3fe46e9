//! Whole substeps recorded as CUDA graphs (ADR 0028): the first substep of a bound kind
//! with a set of scalar values is recorded (every program's kernels, the CFL
//! reductions, the exchanges if they only enqueue device work) and the later ones with
//! the same values replay it with one `cuGraphLaunch`, instead of one driver call per
//! program. The host time of a substep then no longer grows with its ~13 programs.
//!
//! A recording holds every argument by value: the kind's bindings fix the field
//! pointers (a swap selects another binding, ADR 0011's parity), and the recordings are
//! keyed by the substep's scalar values. At most [`MAX_RECORDINGS`] sets are kept per
//! binding; a further set (scalars that keep changing, as in the divergence-damping
//! spin-up) turns recording off for that binding, which then enqueues program by program.

use foehn::ir::Scalar;
use foehn_gpu::Graph;

/// Recordings kept per bound kind.
const MAX_RECORDINGS: usize = 4;

/// The recorded substeps of one bound kind.
#[derive(Default)]
pub(super) struct SubstepGraphs {
    /// (the scalars' key, the recording, whether it reduces the CFL).
    recorded: Vec<(Vec<u8>, Graph, bool)>,
    /// Recording was given up for this binding.
    off: bool,
}

impl SubstepGraphs {
    /// The recording for `key` and whether it reduces the CFL.
    pub(super) fn find(&self, key: &[u8]) -> Option<(&Graph, bool)> {
        self.recorded
            .iter()
            .find(|(k, ..)| k == key)
            .map(|(_, g, r)| (g, *r))
    }

    /// Whether a new set of scalars may be recorded; past [`MAX_RECORDINGS`] sets the
    /// recordings are dropped and recording stops for good.
    pub(super) fn may_record(&mut self) -> bool {
        if self.recorded.len() >= MAX_RECORDINGS {
            self.recorded.clear();
            self.off = true;
        }
        !self.off
    }

    /// Keeps `graph`, recorded for `key`.
    pub(super) fn push(&mut self, key: Vec<u8>, graph: Graph, reduces: bool) {
        self.recorded.push((key, graph, reduces));
    }
}

/// Whether substeps are recorded: unless `FOEHN_CUDA_GRAPHS=0`, and only while
/// per-program metrics are off (they time each program's call; a replay has none).
pub(super) fn wanted() -> bool {
    let off = matches!(std::env::var("FOEHN_CUDA_GRAPHS").as_deref(), Ok("0"));
    !off && foehn_metrics::level() == foehn_metrics::LEVEL_OFF
}

/// The key of a substep's scalar values (and whether it reduces before its first CFL
/// point, which changes what it enqueues).
pub(super) fn key(scalars: &[Scalar], reduce_first: bool) -> Vec<u8> {
    let mut k = Vec::with_capacity(9 * scalars.len() + 1);
    for s in scalars {
        let (tag, bits) = match *s {
            Scalar::F64(x) => (0u8, x.to_bits()),
            Scalar::F32(x) => (1, u64::from(x.to_bits())),
            Scalar::I32(x) => (2, x as u32 as u64),
            Scalar::Bool(x) => (3, u64::from(x)),
        };
        k.push(tag);
        k.extend_from_slice(&bits.to_le_bytes());
    }
    k.push(u8::from(reduce_first));
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_tell_values_types_and_the_first_reduction_apart() {
        let a = key(&[Scalar::F64(0.5), Scalar::I32(5)], false);
        assert_eq!(a, key(&[Scalar::F64(0.5), Scalar::I32(5)], false));
        assert_ne!(a, key(&[Scalar::F64(0.5), Scalar::I32(5)], true));
        assert_ne!(a, key(&[Scalar::F64(0.25), Scalar::I32(5)], false));
        assert_ne!(a, key(&[Scalar::F64(0.5), Scalar::F32(5.0)], false));
        // -0.0 and 0.0 are different arguments to a kernel.
        assert_ne!(
            key(&[Scalar::F64(0.0)], false),
            key(&[Scalar::F64(-0.0)], false)
        );
    }
}
