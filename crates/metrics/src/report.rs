//! The benchmark report `foehn bench` writes: device, grid, and per program variant and
//! schedule the median kernel time, host overhead, minimal bytes, GB/s and % of the copy
//! bandwidth measured in the same run. Fields may be added to this format, never removed.

use crate::error::Result;
use crate::stats::median;
use crate::table::{fmt_count, fmt_num, Align, Table};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Achieved bandwidth in GB/s (10⁹ bytes/s) of moving `bytes` in `median_ms`; 0 when the
/// time is not positive.
pub fn gbs(bytes: u64, median_ms: f64) -> f64 {
    if median_ms > 0.0 {
        bytes as f64 / (median_ms * 1e-3) / 1e9
    } else {
        0.0
    }
}

/// `gbs` as a percentage of `peak_gbs`; 0 when the peak is not positive (unknown).
pub fn pct_peak(gbs: f64, peak_gbs: f64) -> f64 {
    if peak_gbs > 0.0 {
        100.0 * gbs / peak_gbs
    } else {
        0.0
    }
}

/// The grid a benchmark ran on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GridInfo {
    /// Grid name (e.g. `r2b6`, `torus_...`, a file name).
    pub name: String,
    /// Number of cells.
    pub cells: u64,
    /// Number of edges.
    pub edges: u64,
    /// Number of vertices.
    pub vertices: u64,
    /// Number of full vertical levels.
    pub levels: u64,
}

/// Time of one kernel of a program (optional detail of a [`BenchResult`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelTiming {
    /// Kernel name.
    pub name: String,
    /// Median time per launch, ms.
    pub median_ms: f64,
    /// Minimal bytes the kernel moves, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

/// One measured program variant under one schedule and backend.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchResult {
    /// Program name.
    pub program: String,
    /// Static-argument variant (`a=true,b=false`; empty for the default; see
    /// [`crate::variant::variant_label`]).
    pub variant: String,
    /// Schedule, e.g. `optimised` or `unfused`.
    pub schedule: String,
    /// Backend, e.g. `cuda` or `cpu`.
    pub backend: String,
    /// Median kernel time per call, ms.
    pub median_ms: f64,
    /// Host overhead per call (launch path), µs.
    pub host_us: f64,
    /// Minimal bytes moved per call (each field read once, written once).
    pub bytes: u64,
    /// Achieved bandwidth, GB/s ([`gbs`]).
    pub gbs: f64,
    /// `gbs` as % of the report's `peak_copy_gbs` ([`pct_peak`]).
    pub pct_peak: f64,
    /// Whether the outputs were checked (written, and equal to the reference where run).
    pub verified: bool,
    /// All timed samples, ms (optional).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples_ms: Vec<f64>,
    /// How often one model time step calls this variant: the weight in `compare` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls_per_step: Option<f64>,
    /// Per-kernel times (optional).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kernels: Vec<KernelTiming>,
    /// Bytes the schedule's kernels move by the cost model (temporaries between kernels
    /// and every kernel's own reads and writes counted, and for a lockstep column kernel
    /// its per-thread columns and the fields it reads again going down; optional): against
    /// [`bytes`](Self::bytes), what the schedule costs beyond the minimum; against the time, how
    /// close its kernels run to the copy bandwidth ([`schedule_pct_peak`](Self::schedule_pct_peak)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_bytes: Option<u64>,
    /// Registers per thread of each GPU kernel of the schedule, in launch order (CUDA
    /// only; what limits a kernel's occupancy when two schedules move the same bytes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub registers: Vec<i32>,
    /// Where the verification failed: the output that differs from the reference beyond
    /// the tolerance, and by how much. The time was still measured, but the result is
    /// wrong (`verified` is false; the summary says `DIFFERS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<String>,
}

impl BenchResult {
    /// A result for this program variant with no timing yet (zero times, not verified).
    pub fn new(program: &str, variant: &str, schedule: &str, backend: &str) -> BenchResult {
        BenchResult {
            program: program.to_string(),
            variant: variant.to_string(),
            schedule: schedule.to_string(),
            backend: backend.to_string(),
            median_ms: 0.0,
            host_us: 0.0,
            bytes: 0,
            gbs: 0.0,
            pct_peak: 0.0,
            verified: false,
            samples_ms: Vec::new(),
            calls_per_step: None,
            kernels: Vec::new(),
            schedule_bytes: None,
            registers: Vec::new(),
            mismatch: None,
        }
    }

    /// The bandwidth on the schedule's bytes as % of `peak_copy_gbs` (`None` without
    /// [`schedule_bytes`](Self::schedule_bytes) or a time).
    pub fn schedule_pct_peak(&self, peak_copy_gbs: f64) -> Option<f64> {
        let b = self.schedule_bytes?;
        (self.median_ms > 0.0).then(|| pct_peak(gbs(b, self.median_ms), peak_copy_gbs))
    }

    /// Fill in the timing from kernel-time samples (ms): median, then GB/s for `bytes` and %
    /// of `peak_copy_gbs`; `host_us` is the host overhead per call.
    pub fn timed(
        mut self,
        samples_ms: Vec<f64>,
        host_us: f64,
        bytes: u64,
        peak_copy_gbs: f64,
    ) -> Self {
        self.median_ms = median(&samples_ms).unwrap_or(0.0);
        self.host_us = host_us;
        self.bytes = bytes;
        self.gbs = gbs(bytes, self.median_ms);
        self.pct_peak = pct_peak(self.gbs, peak_copy_gbs);
        self.samples_ms = samples_ms;
        self
    }

    /// A one-line label: `program [variant] schedule/backend`.
    pub fn label(&self) -> String {
        let variant = if self.variant.is_empty() {
            String::new()
        } else {
            format!(" [{}]", self.variant)
        };
        format!(
            "{}{variant} {}/{}",
            self.program, self.schedule, self.backend
        )
    }
}

/// A benchmark run: where it ran and what each program variant achieved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// Device name (GPU model, or CPU model and thread count).
    pub device: String,
    /// Device-to-device copy bandwidth measured in the same run, GB/s.
    pub peak_copy_gbs: f64,
    /// The grid.
    pub grid: GridInfo,
    /// foehn version that produced the report.
    pub foehn_version: String,
    /// When the run happened, ISO 8601 UTC.
    pub date: String,
    /// One entry per program variant, schedule and backend.
    pub results: Vec<BenchResult>,
}

impl BenchReport {
    /// An empty report dated now, with this crate's version.
    pub fn new(device: &str, peak_copy_gbs: f64, grid: GridInfo) -> BenchReport {
        BenchReport {
            device: device.to_string(),
            peak_copy_gbs,
            grid,
            foehn_version: env!("CARGO_PKG_VERSION").to_string(),
            date: utc_now_iso8601(),
            results: Vec::new(),
        }
    }

    /// The results as an aligned table.
    pub fn table(&self) -> Table {
        let mut t = Table::new(&[
            ("program", Align::Left),
            ("variant", Align::Left),
            ("schedule", Align::Left),
            ("backend", Align::Left),
            ("median ms", Align::Right),
            ("host us", Align::Right),
            ("MB", Align::Right),
            ("GB/s", Align::Right),
            ("% peak", Align::Right),
            ("sched MB", Align::Right),
            ("% peak sched", Align::Right),
            ("calls/step", Align::Right),
            ("ok", Align::Left),
        ]);
        for r in &self.results {
            t.push(vec![
                r.program.clone(),
                r.variant.clone(),
                r.schedule.clone(),
                r.backend.clone(),
                fmt_num(Some(r.median_ms), 4),
                fmt_num(Some(r.host_us), 1),
                fmt_num(Some(r.bytes as f64 / 1e6), 1),
                fmt_num(Some(r.gbs), 0),
                fmt_num(Some(r.pct_peak), 1),
                fmt_num(r.schedule_bytes.map(|b| b as f64 / 1e6), 1),
                fmt_num(r.schedule_pct_peak(self.peak_copy_gbs), 1),
                r.calls_per_step
                    .map(fmt_count)
                    .unwrap_or_else(|| "-".into()),
                match (&r.mismatch, r.verified) {
                    (Some(_), _) => "DIFFERS",
                    (None, true) => "yes",
                    (None, false) => "NO",
                }
                .to_string(),
            ]);
        }
        t
    }

    /// A heading (device, peak, grid, version, date) followed by the table.
    pub fn summary(&self) -> String {
        let g = &self.grid;
        format!(
            "device: {} (copy {:.0} GB/s)\ngrid: {} ({} cells, {} edges, {} vertices, {} levels)\nfoehn {} at {}\n{}",
            self.device, self.peak_copy_gbs, g.name, g.cells, g.edges, g.vertices, g.levels,
            self.foehn_version, self.date, self.table()
        )
    }

    /// Write the report as JSON to `path`, atomically.
    pub fn write(&self, path: &Path) -> Result<()> {
        crate::fsio::write_json_atomic(path, self)
    }

    /// Read a report from `path`.
    pub fn read(path: &Path) -> Result<BenchReport> {
        crate::fsio::read_json(path)
    }
}

/// Now as `YYYY-MM-DDTHH:MM:SSZ` (UTC), without a date library.
pub fn utc_now_iso8601() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    iso8601_from_unix(secs)
}

/// Unix seconds as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian calendar, UTC).
pub fn iso8601_from_unix(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (H. Hinnant's algorithm), days since 1970-01-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}
