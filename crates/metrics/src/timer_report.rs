//! The end-of-run timer report of a model run, in the manner of ICON's timer report:
//! per component (wall time of each call the driver timed: initialisation, the dycore's
//! components, output) and per program (the samples [`crate::registry`] collects, the
//! variants of a program merged), grouped by component, with
//!
//! ```text
//! calls, total s, per call ms = 1000·total/calls   (host; kernel when measured)
//! % of the run = 100·host total/run wall time
//! simulated days per day = simulated seconds/wall seconds of the run
//! ```
//!
//! and a progress line for the time loop ([`progress_message`], [`RunProgress`]). The
//! formatting is fixed (decimals, row order: components as first timed, programs by
//! host time then name), so that reports of two runs compare line by line.

use crate::key::Samples;
use crate::snapshot::MetricsSnapshot;
use crate::table::{fmt_num, Align, Table};
use std::collections::BTreeMap;
use std::fmt;
use std::time::Instant;

/// Seconds per day.
const DAY: f64 = 86_400.0;

/// Wall-clock timers of a run's components (`initialisation`, `solve_nonhydro`,
/// `diffusion`, `output`, …): the seconds of every call, in the order first timed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timers {
    order: Vec<String>,
    samples: BTreeMap<String, Vec<f64>>,
}

impl Timers {
    /// No timer yet.
    pub fn new() -> Timers {
        Timers::default()
    }

    /// Records one call of `name` that took `seconds`.
    pub fn record(&mut self, name: &str, seconds: f64) {
        if !self.samples.contains_key(name) {
            self.order.push(name.to_string());
        }
        self.samples
            .entry(name.to_string())
            .or_default()
            .push(seconds);
    }

    /// Runs `f`, recording its wall time as one call of `name`.
    pub fn time<T>(&mut self, name: &str, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.record(name, start.elapsed().as_secs_f64());
        out
    }

    /// The seconds of every call of `name` (empty if never timed).
    pub fn samples(&self, name: &str) -> &[f64] {
        self.samples.get(name).map_or(&[], Vec::as_slice)
    }

    /// The timers' names, in the order first timed.
    pub fn names(&self) -> &[String] {
        &self.order
    }

    /// Appends every call of `other`'s timers (new names after the existing ones).
    pub fn merge(&mut self, other: &Timers) {
        for name in other.names() {
            for &s in other.samples(name) {
                self.record(name, s);
            }
        }
    }
}

/// The programs of one component (e.g. `solve_nonhydro` and its programs' names).
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramGroup {
    /// The component.
    pub component: String,
    /// Its programs' names.
    pub programs: Vec<String>,
}

impl ProgramGroup {
    /// The group of `component`'s `programs`.
    pub fn new<S: AsRef<str>>(component: &str, programs: &[S]) -> ProgramGroup {
        ProgramGroup {
            component: component.to_string(),
            programs: programs.iter().map(|p| p.as_ref().to_string()).collect(),
        }
    }
}

/// The name of the group holding programs no [`ProgramGroup`] lists.
pub const OTHER_PROGRAMS: &str = "other";

/// One line of the report: calls and summed times of a timer or program.
#[derive(Clone, Debug, PartialEq)]
pub struct TimerRow {
    /// The timer or program.
    pub name: String,
    /// Number of calls.
    pub calls: usize,
    /// Summed host (wall) time, s.
    pub host_s: f64,
    /// Summed kernel time, s, and its number of calls, when measured.
    pub kernel: Option<(f64, usize)>,
    /// Median host time of one call, s (rows of one timer's samples; not for sums,
    /// where calls of different programs mix).
    pub host_median_s: Option<f64>,
}

impl TimerRow {
    fn of_samples(name: &str, total: &[f64], compute: &[f64]) -> TimerRow {
        TimerRow {
            name: name.to_string(),
            calls: total.len(),
            host_s: total.iter().sum(),
            kernel: (!compute.is_empty()).then(|| (compute.iter().sum(), compute.len())),
            host_median_s: crate::median(total),
        }
    }

    fn add(&mut self, other: &TimerRow) {
        self.calls += other.calls;
        self.host_s += other.host_s;
        self.host_median_s = None;
        self.kernel = match (self.kernel, other.kernel) {
            (Some((a, n)), Some((b, m))) => Some((a + b, n + m)),
            (a, b) => a.or(b),
        };
    }

    /// Host milliseconds per call.
    pub fn host_ms_per_call(&self) -> Option<f64> {
        (self.calls > 0).then(|| 1e3 * self.host_s / self.calls as f64)
    }

    /// Kernel milliseconds per call, when measured.
    pub fn kernel_ms_per_call(&self) -> Option<f64> {
        self.kernel
            .filter(|(_, n)| *n > 0)
            .map(|(s, n)| 1e3 * s / n as f64)
    }

    fn cells(&self, name: String, run_s: f64) -> Vec<String> {
        let pct = (run_s > 0.0).then(|| 100.0 * self.host_s / run_s);
        vec![
            name,
            self.calls.to_string(),
            fmt_num(Some(self.host_s), 3),
            fmt_num(self.host_ms_per_call(), 3),
            fmt_num(self.host_median_s.map(|s| 1e3 * s), 3),
            fmt_num(self.kernel.map(|(s, _)| s), 3),
            fmt_num(self.kernel_ms_per_call(), 3),
            fmt_num(pct, 1),
        ]
    }
}

/// The programs of one component in the report, most expensive first.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupRows {
    /// The component.
    pub component: String,
    /// Its programs (variants merged).
    pub programs: Vec<TimerRow>,
}

impl GroupRows {
    /// The sum over the group's programs.
    pub fn total(&self) -> TimerRow {
        let mut t = TimerRow {
            name: format!("{} programs", self.component),
            calls: 0,
            host_s: 0.0,
            kernel: None,
            host_median_s: None,
        };
        for p in &self.programs {
            t.add(p);
        }
        t
    }
}

/// A run's timer report (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct TimerReport {
    /// Wall time of the whole run, s.
    pub run_s: f64,
    /// Simulated time of the run, s.
    pub simulated_s: f64,
    /// The component timers, in the order first timed.
    pub components: Vec<TimerRow>,
    /// The programs per component, in the order of the groups given, then
    /// [`OTHER_PROGRAMS`]; groups without a call are left out.
    pub groups: Vec<GroupRows>,
}

/// Program name → merged samples of all its variants and backends.
fn merged_programs(metrics: &MetricsSnapshot) -> BTreeMap<&str, Samples> {
    let mut out: BTreeMap<&str, Samples> = BTreeMap::new();
    for (key, s) in &metrics.programs {
        let m = out.entry(key.program.as_str()).or_default();
        m.total.extend_from_slice(&s.total);
        m.compute.extend_from_slice(&s.compute);
    }
    out
}

impl TimerReport {
    /// The report of a run that took `run_s` wall seconds for `simulated_s` simulated
    /// seconds, from its component `timers` and program `metrics`, the programs grouped
    /// by `groups` (a program in several groups counts in the first).
    pub fn new(
        timers: &Timers,
        metrics: &MetricsSnapshot,
        groups: &[ProgramGroup],
        run_s: f64,
        simulated_s: f64,
    ) -> TimerReport {
        let components = timers
            .names()
            .iter()
            .map(|n| TimerRow::of_samples(n, timers.samples(n), &[]))
            .collect();
        let mut rows: Vec<GroupRows> = groups
            .iter()
            .map(|g| GroupRows {
                component: g.component.clone(),
                programs: Vec::new(),
            })
            .chain(std::iter::once(GroupRows {
                component: OTHER_PROGRAMS.to_string(),
                programs: Vec::new(),
            }))
            .collect();
        for (program, s) in merged_programs(metrics) {
            let group = groups
                .iter()
                .position(|g| g.programs.iter().any(|p| p == program))
                .unwrap_or(groups.len());
            rows[group]
                .programs
                .push(TimerRow::of_samples(program, &s.total, &s.compute));
        }
        for g in &mut rows {
            g.programs.sort_by(|a, b| {
                b.host_s
                    .total_cmp(&a.host_s)
                    .then_with(|| a.name.cmp(&b.name))
            });
        }
        rows.retain(|g| !g.programs.is_empty());
        TimerReport {
            run_s,
            simulated_s,
            components,
            groups: rows,
        }
    }

    /// Simulated days per wall-clock day (`None` for a run of no time).
    pub fn simulated_days_per_day(&self) -> Option<f64> {
        (self.run_s > 0.0).then(|| self.simulated_s / self.run_s)
    }

    /// The table: the run, its components, then each component's programs with their
    /// sum.
    pub fn table(&self) -> Table {
        let mut t = Table::new(&[
            ("timer", Align::Left),
            ("calls", Align::Right),
            ("total s", Align::Right),
            ("ms/call", Align::Right),
            ("median ms", Align::Right),
            ("kernel s", Align::Right),
            ("kernel ms/call", Align::Right),
            ("% run", Align::Right),
        ]);
        let run = TimerRow {
            name: "total".into(),
            calls: 1,
            host_s: self.run_s,
            kernel: None,
            host_median_s: None,
        };
        t.push(run.cells(run.name.clone(), self.run_s));
        for c in &self.components {
            t.push(c.cells(format!("  {}", c.name), self.run_s));
        }
        for g in &self.groups {
            t.separator();
            let total = g.total();
            t.push(total.cells(total.name.clone(), self.run_s));
            for p in &g.programs {
                t.push(p.cells(format!("  {}", p.name), self.run_s));
            }
        }
        t
    }
}

impl fmt::Display for TimerReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "timer report (host wall time; kernel time where measured):"
        )?;
        write!(f, "{}", self.table())?;
        write!(
            f,
            "simulated {:.3} days in {:.3} s",
            self.simulated_s / DAY,
            self.run_s
        )?;
        match self.simulated_days_per_day() {
            Some(r) => writeln!(f, ": {r:.1} simulated days per day"),
            None => writeln!(f),
        }
    }
}

/// The progress line of a time loop after `step` of `total` steps of `dtime` seconds
/// in `elapsed_s` wall seconds: step, simulated day, simulated days per day and the
/// estimated time left.
pub fn progress_message(step: u64, total: u64, dtime: f64, elapsed_s: f64) -> String {
    let day = step as f64 * dtime / DAY;
    let mut m = format!(
        "step {step}/{total}, day {day:.2}/{:.2}",
        total as f64 * dtime / DAY
    );
    if step > 0 && elapsed_s > 0.0 {
        let rate = step as f64 * dtime / elapsed_s;
        let left = elapsed_s / step as f64 * total.saturating_sub(step) as f64;
        m.push_str(&format!(
            ", {rate:.1} simulated days/day, {} left",
            clock(left)
        ));
    }
    m
}

/// Seconds as `1h02m03s`, `2m03s` or `3s`.
fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, sec) => format!("{sec}s"),
        (0, min, sec) => format!("{min}m{sec:02}s"),
        (h, min, sec) => format!("{h}h{min:02}m{sec:02}s"),
    }
}

/// A progress bar for a time loop (on stderr, hidden when that is not a terminal):
/// step/total and simulated days per day ([`progress_message`]).
#[derive(Debug)]
pub struct RunProgress {
    bar: indicatif::ProgressBar,
    total: u64,
    dtime: f64,
    start: Instant,
}

impl RunProgress {
    /// A bar for `total` steps of `dtime` seconds.
    pub fn new(total: u64, dtime: f64) -> RunProgress {
        RunProgress::with_bar(indicatif::ProgressBar::new(total), total, dtime)
    }

    /// The same, drawing nowhere (tests, quiet runs).
    pub fn hidden(total: u64, dtime: f64) -> RunProgress {
        RunProgress::with_bar(indicatif::ProgressBar::hidden(), total, dtime)
    }

    fn with_bar(bar: indicatif::ProgressBar, total: u64, dtime: f64) -> RunProgress {
        bar.set_length(total);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {msg}") {
            bar.set_style(style);
        }
        RunProgress {
            bar,
            total,
            dtime,
            start: Instant::now(),
        }
    }

    /// `step` steps are done.
    pub fn set_step(&self, step: u64) {
        self.bar.set_position(step);
        let elapsed = self.start.elapsed().as_secs_f64();
        self.bar
            .set_message(progress_message(step, self.total, self.dtime, elapsed));
    }

    /// The message shown now.
    pub fn message(&self) -> String {
        self.bar.message()
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::ProgramKey;

    fn snapshot() -> MetricsSnapshot {
        let mut programs = BTreeMap::new();
        let mut put = |program: &str, variant: &str, total: &[f64], compute: &[f64]| {
            let key = ProgramKey::new(program, "cpu").with_arg("v", variant);
            programs.insert(
                key,
                Samples {
                    total: total.to_vec(),
                    compute: compute.to_vec(),
                },
            );
        };
        put(
            "vertically_implicit_solver_at_predictor_step",
            "a",
            &[0.5, 0.5],
            &[0.4, 0.4],
        );
        put(
            "vertically_implicit_solver_at_predictor_step",
            "b",
            &[1.0],
            &[0.8],
        );
        put(
            "compute_rho_theta_pgrad_and_update_vn",
            "a",
            &[0.25; 4],
            &[],
        );
        put("apply_diffusion_to_vn", "a", &[0.1, 0.3], &[0.05, 0.15]);
        put(
            "compute_advection_in_horizontal_momentum",
            "a",
            &[0.2; 5],
            &[],
        );
        put("mystery_program", "a", &[0.125], &[]);
        MetricsSnapshot { programs }
    }

    fn groups() -> Vec<ProgramGroup> {
        vec![
            ProgramGroup::new(
                "solve_nonhydro",
                &[
                    "compute_rho_theta_pgrad_and_update_vn",
                    "vertically_implicit_solver_at_predictor_step",
                ],
            ),
            ProgramGroup::new(
                "velocity_advection",
                &["compute_advection_in_horizontal_momentum"],
            ),
            ProgramGroup::new("diffusion", &["apply_diffusion_to_vn"]),
            ProgramGroup::new("output", &[] as &[&str]),
        ]
    }

    fn report() -> TimerReport {
        let mut timers = Timers::new();
        timers.record("initialisation", 2.0);
        timers.record("solve_nonhydro", 1.5);
        timers.record("solve_nonhydro", 2.5);
        timers.record("diffusion", 0.5);
        timers.record("output", 0.25);
        TimerReport::new(&timers, &snapshot(), &groups(), 10.0, 86_400.0)
    }

    #[test]
    fn rows_sum_calls_and_times_per_program_and_component() {
        let r = report();
        let names: Vec<&str> = r.components.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["initialisation", "solve_nonhydro", "diffusion", "output"]
        );
        assert_eq!(r.components[1].calls, 2);
        assert_eq!(r.components[1].host_s, 4.0);
        assert_eq!(r.components[1].host_ms_per_call(), Some(2000.0));
        let groups: Vec<&str> = r.groups.iter().map(|g| g.component.as_str()).collect();
        assert_eq!(
            groups,
            ["solve_nonhydro", "velocity_advection", "diffusion", "other"]
        );
        let nh = &r.groups[0];
        // Variants merged; most expensive first.
        assert_eq!(
            nh.programs[0].name,
            "vertically_implicit_solver_at_predictor_step"
        );
        assert_eq!((nh.programs[0].calls, nh.programs[0].host_s), (3, 2.0));
        assert_eq!(nh.programs[0].kernel, Some((1.6, 3)));
        let k = nh.programs[0].kernel_ms_per_call().unwrap();
        assert!((k - 1600.0 / 3.0).abs() < 1e-9);
        assert_eq!(nh.programs[1].kernel_ms_per_call(), None);
        let t = nh.total();
        assert_eq!((t.calls, t.host_s, t.kernel), (7, 3.0, Some((1.6, 3))));
        assert_eq!(r.groups[3].programs[0].name, "mystery_program");
        assert_eq!(r.simulated_days_per_day(), Some(8640.0));
    }

    #[test]
    fn report_text_is_fixed() {
        let expected = "\
timer report (host wall time; kernel time where measured):
timer                                           calls  total s    ms/call  median ms  kernel s  kernel ms/call  % run
---------------------------------------------------------------------------------------------------------------------
total                                               1   10.000  10000.000          -         -               -  100.0
  initialisation                                    1    2.000   2000.000   2000.000         -               -   20.0
  solve_nonhydro                                    2    4.000   2000.000   2000.000         -               -   40.0
  diffusion                                         1    0.500    500.000    500.000         -               -    5.0
  output                                            1    0.250    250.000    250.000         -               -    2.5
---------------------------------------------------------------------------------------------------------------------
solve_nonhydro programs                             7    3.000    428.571          -     1.600         533.333   30.0
  vertically_implicit_solver_at_predictor_step      3    2.000    666.667    500.000     1.600         533.333   20.0
  compute_rho_theta_pgrad_and_update_vn             4    1.000    250.000    250.000         -               -   10.0
---------------------------------------------------------------------------------------------------------------------
velocity_advection programs                         5    1.000    200.000          -         -               -   10.0
  compute_advection_in_horizontal_momentum          5    1.000    200.000    200.000         -               -   10.0
---------------------------------------------------------------------------------------------------------------------
diffusion programs                                  2    0.400    200.000          -     0.200         100.000    4.0
  apply_diffusion_to_vn                             2    0.400    200.000    200.000     0.200         100.000    4.0
---------------------------------------------------------------------------------------------------------------------
other programs                                      1    0.125    125.000          -         -               -    1.2
  mystery_program                                   1    0.125    125.000    125.000         -               -    1.2
simulated 1.000 days in 10.000 s: 8640.0 simulated days per day
";
        assert_eq!(report().to_string(), expected);
        assert_eq!(report().to_string(), report().to_string());
    }

    #[test]
    fn empty_run_has_no_rate() {
        let r = TimerReport::new(&Timers::new(), &MetricsSnapshot::default(), &[], 0.0, 0.0);
        assert!(r.groups.is_empty());
        assert_eq!(r.simulated_days_per_day(), None);
        let text = r.to_string();
        assert!(
            text.contains("total") && text.ends_with("in 0.000 s\n"),
            "{text}"
        );
    }

    #[test]
    fn timers_time_closures() {
        let mut t = Timers::new();
        let x = t.time("output", || 7);
        assert_eq!(x, 7);
        assert_eq!(t.samples("output").len(), 1);
        assert!(t.samples("output")[0] >= 0.0);
        assert!(t.samples("none").is_empty());
    }

    #[test]
    fn progress_shows_steps_days_and_rate() {
        assert_eq!(
            progress_message(0, 2592, 300.0, 0.0),
            "step 0/2592, day 0.00/9.00"
        );
        assert_eq!(
            progress_message(288, 2592, 300.0, 60.0),
            "step 288/2592, day 1.00/9.00, 1440.0 simulated days/day, 8m00s left"
        );
        assert_eq!(
            progress_message(1, 2, 300.0, 4000.0),
            "step 1/2, day 0.00/0.01, 0.1 simulated days/day, 1h06m40s left"
        );
        let p = RunProgress::hidden(10, 300.0);
        p.set_step(0);
        assert_eq!(p.message(), "step 0/10, day 0.00/0.03");
        p.set_step(10);
        assert!(
            p.message().starts_with("step 10/10, day 0.03/0.03"),
            "{}",
            p.message()
        );
        p.finish();
    }
}
