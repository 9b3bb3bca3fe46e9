//! CUDA graphs: a program's launches recorded once and replayed with one driver call,
//! so that the host time of a call no longer grows with its number of kernels.

use crate::device::{drv, Gpu, GpuError};
use cudarc::driver::safe::CudaGraph;
use cudarc::driver::sys;

/// Recorded work of the stream, replayed by [`Graph::launch`] (kernel arguments and
/// copies as they were when recorded).
pub struct Graph {
    graph: CudaGraph,
}

impl Gpu {
    /// Records the work `enqueue` puts on the stream into a [`Graph`] instead of running
    /// it (`None` when it put none); `map` turns driver errors into the caller's. The
    /// recording ends even when `enqueue` fails (its error is returned then).
    pub fn record<E>(
        &self,
        enqueue: impl FnOnce() -> Result<(), E>,
        map: impl Fn(GpuError) -> E,
    ) -> Result<Option<Graph>, E> {
        let stream = self.stream();
        drv(
            "cuStreamBeginCapture",
            stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
        )
        .map_err(&map)?;
        let recorded = enqueue();
        let ended = drv(
            "cuStreamEndCapture",
            stream.end_capture(sys::CUgraphInstantiate_flags(0)),
        );
        recorded?;
        Ok(ended.map_err(map)?.map(|graph| Graph { graph }))
    }
}

impl Graph {
    /// Enqueues the recorded work on the stream it was recorded from (asynchronous).
    pub fn launch(&self) -> Result<(), GpuError> {
        drv("cuGraphLaunch", self.graph.launch())
    }
}

/// Recordings keyed by the bytes of what they hold by value (a program's or a substep's
/// scalar arguments), made only for keys that come back: the first time a key is seen
/// the caller runs the work directly and [`Recordings::should_record`] remembers the
/// key; the second time it says to record. Work whose arguments change at every call
/// (a factor that ramps over a spin-up) is then never recorded, while settled arguments
/// are. The oldest recording and the oldest remembered key make room for new ones.
pub struct Recordings<T> {
    /// (key, recording), oldest first.
    recorded: Vec<(Vec<u8>, T)>,
    /// Keys seen once and not recorded, oldest first.
    seen: Vec<Vec<u8>>,
    max_recorded: usize,
    max_seen: usize,
}

impl<T> Recordings<T> {
    /// No recording yet; at most `max_recorded` kept and `max_seen` keys remembered.
    pub fn new(max_recorded: usize, max_seen: usize) -> Recordings<T> {
        Recordings {
            recorded: Vec::new(),
            seen: Vec::new(),
            max_recorded: max_recorded.max(1),
            max_seen: max_seen.max(1),
        }
    }

    /// The recording for `key`.
    pub fn find(&self, key: &[u8]) -> Option<&T> {
        self.recorded.iter().find(|(k, _)| k == key).map(|(_, r)| r)
    }

    /// Whether to record the work with `key` now: when the key was seen before (it is
    /// then forgotten); a key seen for the first time is remembered.
    pub fn should_record(&mut self, key: &[u8]) -> bool {
        if let Some(i) = self.seen.iter().position(|k| k == key) {
            self.seen.remove(i);
            return true;
        }
        if self.seen.len() >= self.max_seen {
            self.seen.remove(0);
        }
        self.seen.push(key.to_vec());
        false
    }

    /// Keeps `recording` for `key`, dropping the oldest one past the limit.
    pub fn push(&mut self, key: Vec<u8>, recording: T) {
        if self.recorded.len() >= self.max_recorded {
            self.recorded.remove(0);
        }
        self.recorded.push((key, recording));
    }

    /// Forgets every recording and key.
    pub fn clear(&mut self) {
        self.recorded.clear();
        self.seen.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::Recordings;

    #[test]
    fn a_key_is_recorded_when_it_comes_back() {
        let mut r: Recordings<u32> = Recordings::new(2, 3);
        assert!(!r.should_record(b"a"));
        assert!(!r.should_record(b"b"));
        assert!(r.should_record(b"a"));
        r.push(b"a".to_vec(), 1);
        assert_eq!(r.find(b"a"), Some(&1));
        // Seen again after being recorded for: remembered afresh.
        assert!(!r.should_record(b"a"));
        // Keys that never come back are forgotten, oldest first ("b" now).
        for k in [b"x", b"y", b"z"] {
            assert!(!r.should_record(k));
        }
        assert!(!r.should_record(b"b"));
        // The oldest recording makes room.
        r.push(b"c".to_vec(), 3);
        r.push(b"d".to_vec(), 4);
        assert_eq!((r.find(b"a"), r.find(b"d")), (None, Some(&4)));
        r.clear();
        assert_eq!(r.find(b"d"), None);
    }
}
