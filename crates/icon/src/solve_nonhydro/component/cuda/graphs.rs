//! Whole substeps recorded as CUDA graphs (ADR 0028): a substep of a bound kind is
//! recorded (every program's kernels, the CFL reductions, the exchanges if they only
//! enqueue device work) when its set of scalar values comes back, and the later ones
//! with the same values replay it with one `cuGraphLaunch`, instead of one driver call
//! per program. The host time of a substep then no longer grows with its ~13 programs.
//!
//! A recording holds every argument by value: the kind's bindings fix the field
//! pointers (a swap selects another binding, ADR 0011's parity), and the recordings are
//! keyed by the substep's scalar values. Recording and instantiating a substep's graph
//! costs tens of milliseconds on the host, so a set of scalars is recorded only when it
//! comes back: the first time it is seen the substep goes program by program. Scalars
//! that change every step (the divergence-damping spin-up's factor over its first two
//! hours) are then never recorded, and the settled scalars after it are. At most
//! [`MAX_RECORDINGS`] recordings are kept per binding, the oldest dropped first
//! ([`foehn_gpu::Recordings`], which programs' own graphs use too).

use foehn::ir::Scalar;
use foehn::runtime::cuda::scalar_bits;
use foehn_gpu::{Graph, Recordings};

/// Recordings kept per bound kind.
const MAX_RECORDINGS: usize = 4;
/// Sets of scalars remembered per bound kind until they come back.
const MAX_SEEN: usize = 8;

/// The recorded substeps of one bound kind: the recording and whether it reduces the
/// CFL, by the substep's key ([`key`]).
pub(super) type SubstepGraphs = Recordings<(Graph, bool)>;

/// No recorded substep yet.
pub(super) fn none() -> SubstepGraphs {
    Recordings::new(MAX_RECORDINGS, MAX_SEEN)
}

/// Whether substeps are recorded: unless `FOEHN_CUDA_GRAPHS=0`, and only while
/// per-program metrics are off (they time each program's call; a replay has none).
pub(super) fn wanted() -> bool {
    // The environment is read once per process, not at every substep.
    static ALLOWED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let allowed =
        *ALLOWED.get_or_init(|| !matches!(std::env::var("FOEHN_CUDA_GRAPHS").as_deref(), Ok("0")));
    allowed && foehn_metrics::level() == foehn_metrics::LEVEL_OFF
}

/// The key of a substep's scalar values (and whether it reduces before its first CFL
/// point, which changes what it enqueues).
pub(super) fn key(scalars: &[Scalar], reduce_first: bool) -> Vec<u8> {
    let mut k: Vec<u8> = scalars
        .iter()
        .flat_map(|&s| scalar_bits(s).to_le_bytes())
        .collect();
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
