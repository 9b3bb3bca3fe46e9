//! Per-program call metrics: a process-wide, thread-safe registry of timing samples keyed by
//! (program, backend, static-argument variant), switched on by `FOEHN_METRICS`.
//!
//! Levels (as GT4Py's `GT4PY_COLLECT_METRICS_LEVEL`): 0 off (default); ≥ 1 ([`LEVEL_TOTAL`]):
//! host wall time of every call ("total"); ≥ 10 ([`LEVEL_COMPUTE`]): also the kernel time the
//! backend measured ("compute", CUDA events on the GPU). Recording is a lock and a `Vec::push`;
//! hold a [`ProgramSlot`] per compiled program to skip the key lookup too.

use crate::error::{Error, Result};
pub use crate::key::{ProgramKey, Samples};
use crate::snapshot::MetricsSnapshot;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Instant;

/// Level 0: nothing is recorded.
pub const LEVEL_OFF: u32 = 0;
/// Level 1 (GT4Py "MINIMAL"): host time per call, metric "total".
pub const LEVEL_TOTAL: u32 = 1;
/// Level 10 (GT4Py "PERFORMANCE"): also kernel time per call, metric "compute".
pub const LEVEL_COMPUTE: u32 = 10;
/// Environment variable holding the level.
pub const ENV_LEVEL: &str = "FOEHN_METRICS";
/// Environment variable naming the JSON file [`finish`] writes.
pub const ENV_FILE: &str = "FOEHN_METRICS_FILE";
/// The JSON file [`finish`] writes when [`ENV_FILE`] is not set.
pub const DEFAULT_FILE: &str = "foehn_metrics.json";

/// Parse a metrics level: a non-negative integer, or a GT4Py level name (`off`/`disabled` 0,
/// `minimal`/`total` 1, `performance`/`compute` 10, `info` 30, `verbose` 50, `all` 100),
/// case-insensitive; empty text is 0.
pub fn parse_level(text: &str) -> Result<u32> {
    let t = text.trim().to_ascii_lowercase();
    let named = match t.as_str() {
        "" | "off" | "disabled" => Some(LEVEL_OFF),
        "minimal" | "total" => Some(LEVEL_TOTAL),
        "performance" | "compute" => Some(LEVEL_COMPUTE),
        "info" => Some(30),
        "verbose" => Some(50),
        "all" => Some(100),
        _ => None,
    };
    named
        .or_else(|| t.parse::<u32>().ok())
        .ok_or_else(|| Error::Level {
            value: text.to_string(),
        })
}

/// Appends one call's samples at collection level `level` to `s`.
fn push_call(s: &mut Samples, level: u32, total_s: f64, compute_s: Option<f64>) {
    if level < LEVEL_TOTAL {
        return;
    }
    s.total.push(total_s);
    if let (true, Some(c)) = (level >= LEVEL_COMPUTE, compute_s) {
        s.compute.push(c);
    }
}

type SlotMap = BTreeMap<ProgramKey, Arc<Mutex<Samples>>>;

/// The samples of `key`, created empty on first use (the only allocation per program).
fn samples_of(slots: &mut SlotMap, key: &ProgramKey) -> Arc<Mutex<Samples>> {
    match slots.get(key) {
        Some(s) => Arc::clone(s),
        None => Arc::clone(slots.entry(key.clone()).or_default()),
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[derive(Debug)]
struct Inner {
    level: AtomicU32,
    slots: Mutex<SlotMap>,
}

/// A registry of samples. The process-wide one is behind [`record`], [`snapshot`] and
/// [`finish`]; separate instances are useful in tests. Cloning shares the same data.
#[derive(Clone, Debug)]
pub struct Registry {
    inner: Arc<Inner>,
}

impl Registry {
    /// An empty registry collecting at `level`.
    pub fn new(level: u32) -> Registry {
        Registry {
            inner: Arc::new(Inner {
                level: AtomicU32::new(level),
                slots: Mutex::new(BTreeMap::new()),
            }),
        }
    }

    /// The collection level.
    pub fn level(&self) -> u32 {
        self.inner.level.load(Ordering::Relaxed)
    }

    /// Change the collection level (samples already taken are kept).
    pub fn set_level(&self, level: u32) {
        self.inner.level.store(level, Ordering::Relaxed);
    }

    /// A handle for `key` that records without looking the key up again (create it once per
    /// compiled program, next to its launch arguments).
    pub fn slot(&self, key: &ProgramKey) -> ProgramSlot {
        let samples = samples_of(&mut lock(&self.inner.slots), key);
        ProgramSlot {
            inner: Arc::clone(&self.inner),
            samples,
        }
    }

    /// Record one call of `key`: host time `total_s` and, at level ≥ 10, kernel time
    /// `compute_s`, both in seconds. Does nothing at level 0.
    pub fn record(&self, key: &ProgramKey, total_s: f64, compute_s: Option<f64>) {
        let level = self.level();
        if level < LEVEL_TOTAL {
            return;
        }
        let mut slots = lock(&self.inner.slots);
        match slots.get(key) {
            Some(s) => push_call(&mut lock(s), level, total_s, compute_s),
            None => {
                let s = samples_of(&mut slots, key);
                push_call(&mut lock(&s), level, total_s, compute_s);
            }
        }
    }

    /// A guard that times one call of `key` until it is dropped.
    pub fn timer<'a>(&'a self, key: &'a ProgramKey) -> CallTimer<'a> {
        CallTimer::new(Sink::Key(self, key), self.level())
    }

    /// A copy of all samples taken so far (program variants without samples left out).
    pub fn snapshot(&self) -> MetricsSnapshot {
        let slots = lock(&self.inner.slots);
        let programs = slots
            .iter()
            .map(|(k, s)| (k.clone(), lock(s).clone()))
            .filter(|(_, s)| !s.total.is_empty() || !s.compute.is_empty())
            .collect();
        MetricsSnapshot { programs }
    }

    /// Drop all samples (slots handed out stay valid).
    pub fn reset(&self) {
        for s in lock(&self.inner.slots).values() {
            *lock(s) = Samples::default();
        }
    }

    /// If the level is > 0: write the table of all samples to `out` and the GT4Py-layout JSON
    /// to `path` (atomically), returning `Some(path)`; at level 0 do nothing and return `None`.
    pub fn finish_to(&self, path: &Path, out: &mut dyn std::io::Write) -> Result<Option<PathBuf>> {
        if self.level() < LEVEL_TOTAL {
            return Ok(None);
        }
        let snap = self.snapshot();
        let text = format!("foehn metrics (level {}):\n{}", self.level(), snap.table());
        out.write_all(text.as_bytes())
            .map_err(|e| Error::io("<metrics table output>", e))?;
        snap.write_json(path)?;
        Ok(Some(path.to_path_buf()))
    }
}

/// A per-program handle into a [`Registry`]: recording through it costs an atomic load, an
/// uncontended lock and a push.
#[derive(Clone, Debug)]
pub struct ProgramSlot {
    inner: Arc<Inner>,
    samples: Arc<Mutex<Samples>>,
}

impl ProgramSlot {
    /// Record one call (see [`Registry::record`]).
    pub fn record(&self, total_s: f64, compute_s: Option<f64>) {
        let level = self.inner.level.load(Ordering::Relaxed);
        if level >= LEVEL_TOTAL {
            push_call(&mut lock(&self.samples), level, total_s, compute_s);
        }
    }

    /// A guard that times one call until it is dropped.
    pub fn timer(&self) -> CallTimer<'_> {
        CallTimer::new(Sink::Slot(self), self.inner.level.load(Ordering::Relaxed))
    }
}

#[derive(Debug)]
enum Sink<'a> {
    Key(&'a Registry, &'a ProgramKey),
    Slot(&'a ProgramSlot),
}

/// Times one program call from creation to drop (or [`CallTimer::stop`]) and records it as
/// "total"; a kernel time given with [`CallTimer::set_compute`] is recorded as "compute".
/// When metrics are off it does not read the clock.
#[derive(Debug)]
#[must_use = "the call is timed until the guard is dropped"]
pub struct CallTimer<'a> {
    sink: Sink<'a>,
    start: Option<Instant>,
    compute_s: Option<f64>,
}

impl<'a> CallTimer<'a> {
    fn new(sink: Sink<'a>, level: u32) -> CallTimer<'a> {
        let start = (level >= LEVEL_TOTAL).then(Instant::now);
        CallTimer {
            sink,
            start,
            compute_s: None,
        }
    }

    /// Start timing a call of `key` in the process-wide registry.
    pub fn start(key: &'a ProgramKey) -> CallTimer<'a> {
        global().timer(key)
    }

    /// Whether this call will be recorded (metrics are on).
    pub fn is_active(&self) -> bool {
        self.start.is_some()
    }

    /// Set the kernel ("compute") time of this call, in seconds.
    pub fn set_compute(&mut self, compute_s: f64) {
        self.compute_s = Some(compute_s);
    }

    /// Do not record this call (e.g. it failed).
    pub fn cancel(mut self) {
        self.start = None;
    }

    /// Record now; returns the host time in seconds (`None` when metrics are off).
    pub fn stop(mut self) -> Option<f64> {
        self.finish_call()
    }

    fn finish_call(&mut self) -> Option<f64> {
        let total = self.start.take()?.elapsed().as_secs_f64();
        match self.sink {
            Sink::Key(reg, key) => reg.record(key, total, self.compute_s),
            Sink::Slot(slot) => slot.record(total, self.compute_s),
        }
        Some(total)
    }
}

impl Drop for CallTimer<'_> {
    fn drop(&mut self) {
        self.finish_call();
    }
}

fn level_from_env() -> u32 {
    match std::env::var(ENV_LEVEL) {
        Err(_) => LEVEL_OFF,
        Ok(text) => parse_level(&text).unwrap_or_else(|e| {
            eprintln!("warning: {e}; metrics stay off");
            LEVEL_OFF
        }),
    }
}

/// The process-wide registry (level read from `FOEHN_METRICS` on first use).
pub fn global() -> &'static Registry {
    static GLOBAL: OnceLock<Registry> = OnceLock::new();
    GLOBAL.get_or_init(|| Registry::new(level_from_env()))
}

/// The process-wide collection level.
pub fn level() -> u32 {
    global().level()
}

/// Override the process-wide level (e.g. from a command-line flag).
pub fn set_level(level: u32) {
    global().set_level(level)
}

/// Record one call in the process-wide registry (see [`Registry::record`]).
pub fn record(key: &ProgramKey, total_s: f64, compute_s: Option<f64>) {
    global().record(key, total_s, compute_s)
}

/// A copy of the process-wide samples.
pub fn snapshot() -> MetricsSnapshot {
    global().snapshot()
}

/// The JSON path [`finish`] writes: `FOEHN_METRICS_FILE`, else `foehn_metrics.json`.
pub fn metrics_file_path() -> PathBuf {
    std::env::var_os(ENV_FILE)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_FILE))
}

/// Call at the end of a run: when metrics are on, print the table to stderr and write the
/// JSON to [`metrics_file_path`]; returns the path written, `None` when metrics are off.
pub fn finish() -> Result<Option<PathBuf>> {
    let path = metrics_file_path();
    let written = global().finish_to(&path, &mut std::io::stderr())?;
    if let Some(p) = &written {
        eprintln!("metrics written to {}", p.display());
    }
    Ok(written)
}
