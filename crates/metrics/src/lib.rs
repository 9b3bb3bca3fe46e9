//! Measuring and reporting for foehn, independent of the compiler.
//!
//! - [`registry`]: per-program call metrics (host "total" time, kernel "compute" time), switched
//!   on by `FOEHN_METRICS` and written at exit in GT4Py's metrics JSON layout ([`gt4py`]);
//!   samples are grouped by [`key::ProgramKey`].
//! - [`report`]: the benchmark report that `foehn bench` writes (JSON + table).
//! - [`timer_report`]: the end-of-run timer report of a model run (per component and
//!   program, % of the run, simulated days per day) and its progress bar; [`span`](mod@span): the
//!   component timers (and NVTX ranges, [`nvtx`]) around the dycore's components;
//!   [`run_timers`]: a run's timers file (GT4Py layout plus the components).
//! - [`compare`]: speedups between reports in three formats (our bench report, GT4Py metrics,
//!   ICON's OpenACC/Bencher timers; see [`load`] and [`openacc_map`]).
//! - [`plot`]: bar-chart PNGs drawn with an embedded font (no system fonts needed); [`map`]:
//!   lat/lon maps of a cell field (model output) with a colour bar.
//! - Small shared helpers: [`stats`], [`table`], [`fsio`], [`variant`].
#![deny(missing_docs)]

pub mod compare;
pub mod compare_row;
pub mod compare_run;
pub mod error;
pub mod fsio;
pub mod gt4py;
pub mod key;
pub mod lines;
pub mod load;
pub mod map;
pub mod nvtx;
pub mod openacc_map;
pub mod plot;
pub mod registry;
pub mod report;
pub mod run_timers;
pub mod snapshot;
pub mod span;
pub mod stats;
pub mod table;
pub mod timer_report;
pub mod variant;

pub use compare::{compare_columns, compare_files, Comparison, Row};
pub use error::{Error, Result};
pub use load::{detect_format, load_file, Column, Entry, Format};
pub use plot::{render_bench_png, render_comparison_png};
pub use registry::{
    finish, global, level, parse_level, record, set_level, snapshot, CallTimer, ProgramKey,
    ProgramSlot, Registry, Samples, LEVEL_COMPUTE, LEVEL_OFF, LEVEL_TOTAL,
};
pub use report::{gbs, pct_peak, BenchReport, BenchResult, GridInfo};
pub use run_timers::{RunInfo, RunTimers};
pub use snapshot::MetricsSnapshot;
pub use span::{component_timers, span, Span};
pub use stats::median;
