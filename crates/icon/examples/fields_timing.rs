//! Times every stage of the fields ICON computes before a run, on one grid:
//!
//! ```text
//! cargo run --release --example fields_timing -- r2b6 80 [threads]
//! ```
//!
//! The grid is generated first (timed apart: it does not belong to the fields), then
//! the vertical grid, the Jablonowski–Williamson topography, each interpolation field,
//! the SLEVE heights and each group of metric fields, and a table of the wall times
//! is printed, with the peak resident memory where the system reports it. With
//! `FIELDS_FINGERPRINT` set, a hash of every field's values is printed too (the same
//! hash: the same bits). With `FIELDS_SKIP_METRICS` set the metric fields are left out.
//!
//! With `FIELDS_STREAM` set, every field is computed instead as `foehn grid fields`
//! writes them, one by one ([`StaticFields::for_each_named`]: the metric fields in
//! groups, each freed once handed over), into a sink that only checksums them: the
//! wall and CPU time of the whole computation and the peak memory are printed, with a
//! checksum of every field's name, shape and bytes (R2B7 × 80 fits this way). With
//! `FIELDS_FINGERPRINT` the normal mode prints the same checksum over
//! [`StaticFields::named`], so that the two can be compared.

use foehn_grid::{Grid, GridSpec, Location};
use foehn_icon::fields::interpolation::{
    geofac, least_squares, nudging, rbf, tangent_plane, weights, InterpolationConfig,
    InterpolationFields,
};
use foehn_icon::fields::metrics::{MetricFields, MetricInputs, MetricsConfig};
use foehn_icon::fields::named::{FieldData, NamedField, StaticFields, StaticFieldsError};
use foehn_icon::fields::sleve::Heights;
use foehn_icon::fields::topography::{JwTopography, Topography};
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid};
use std::time::{Duration, Instant};

/// The rows of the table: stage, wall time, CPU time of the process (user + system,
/// every thread; `None` where unknown), whether it counts toward the total.
struct Table(Vec<(String, Duration, Option<f64>, bool)>);

impl Table {
    /// Runs `f`, records its time under `name` and returns its result.
    fn time<T>(&mut self, name: &str, counts: bool, f: impl FnOnce() -> T) -> T {
        let (start, cpu) = (Instant::now(), cpu_seconds());
        let out = f();
        let cpu = cpu_seconds().zip(cpu).map(|(b, a)| b - a);
        self.0
            .push((name.to_string(), start.elapsed(), cpu, counts));
        out
    }

    fn print(&self) {
        println!("{:<44} {:>10} {:>10}", "stage", "wall s", "cpu s");
        for (name, d, cpu, counts) in &self.0 {
            let mark = if *counts { "" } else { " (not in total)" };
            let cpu = cpu.map_or("-".into(), |c| format!("{c:.2}"));
            println!("{:<44} {:>10.3} {cpu:>10}{mark}", name, d.as_secs_f64());
        }
    }
}

/// CPU time of this process so far, user + system, in seconds (Linux
/// `/proc/self/stat`, at the kernel's 100 ticks per second).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Peak resident memory of this process (Linux `VmHWM`), if known.
fn peak_memory() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.trim_start_matches("VmHWM:").trim().to_string())
}

/// A hasher fed with the `Debug` text of a value, without keeping the text: the same
/// hash means the same values, bit for bit (floats print as the shortest text that
/// reads back to the same bits).
struct Fingerprint(std::collections::hash_map::DefaultHasher);

impl std::fmt::Write for Fingerprint {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        std::hash::Hasher::write(&mut self.0, s.as_bytes());
        Ok(())
    }
}

/// The fingerprint of a value's `Debug` text.
fn fingerprint(value: &impl std::fmt::Debug) -> u64 {
    let mut h = Fingerprint(Default::default());
    std::fmt::write(&mut h, format_args!("{value:?}")).expect("hashing never fails");
    std::hash::Hasher::finish(&h.0)
}

/// A checksum of named fields: each one's name, shape and value bits, in order
/// (values hashed in parallel blocks of 64 Ki, combined in order), and the time spent
/// on it.
#[derive(Default)]
struct Checksum {
    hash: u64,
    fields: usize,
    bytes: usize,
    time: Duration,
}

/// Mixes `x` into `h` (FNV-style multiply-xor on 64-bit words).
fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x100_0000_01b3).rotate_left(29)
}

/// The hash of `words`, computed in parallel blocks combined in order.
fn hash_words<T: Sync>(words: &[T], bits: impl Fn(&T) -> u64 + Sync) -> u64 {
    use rayon::prelude::*;
    let blocks: Vec<u64> = words
        .par_chunks(1 << 16)
        .map(|b| b.iter().fold(0xcbf2_9ce4_8422_2325, |h, x| mix(h, bits(x))))
        .collect();
    blocks.into_iter().fold(words.len() as u64, mix)
}

impl Checksum {
    fn add(&mut self, f: &NamedField<'_>) {
        let start = Instant::now();
        let mut h = f.name.bytes().fold(self.hash, |h, b| mix(h, b.into()));
        h = f.shape.iter().fold(h, |h, &n| mix(h, n as u64));
        let (values, size) = match &f.data {
            FieldData::F64(d) => (hash_words(d, |x| x.to_bits()), 8),
            FieldData::I32(d) => (hash_words(d, |&x| x as u32 as u64), 4),
            FieldData::Bool(d) => (hash_words(d, |&x| x as u64), 1),
        };
        self.hash = mix(h, values);
        self.fields += 1;
        self.bytes += f.data.len() * size;
        self.time += start.elapsed();
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

/// `FIELDS_STREAM`: every field through [`StaticFields::for_each_named`] into a
/// checksum, timed as a whole.
fn stream(grid: &Grid, nlev: usize) -> Result<(), Box<dyn std::error::Error>> {
    let topography = Topography::JablonowskiWilliamson(JwTopography {
        u0: 35.0,
        eta_0: 0.252,
    });
    let mut sum = Checksum::default();
    let (start, cpu) = (Instant::now(), cpu_seconds());
    StaticFields::for_each_named(grid, VerticalConfig::new(nlev), &topography, &mut |f| {
        sum.add(&f);
        Ok::<(), StaticFieldsError>(())
    })?;
    let wall = start.elapsed();
    let cpu = cpu_seconds().zip(cpu).map(|(b, a)| b - a);
    println!(
        "every field, streamed (StaticFields::for_each_named): {} fields, {:.2} GB",
        sum.fields,
        sum.bytes as f64 / 1e9
    );
    println!(
        "  wall {:.3} s, cpu {} s (without the grid), of which checksumming {:.3} s wall",
        wall.as_secs_f64(),
        cpu.map_or("-".into(), |c| format!("{c:.2}")),
        sum.time.as_secs_f64()
    );
    println!("stream checksum {:016x}", sum.finish());
    if let Some(cpu) = cpu_seconds() {
        println!("process CPU time (user + system, with the grid): {cpu:.2} s");
    }
    if let Some(peak) = peak_memory() {
        println!("peak resident memory: {peak}");
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map_or("r2b4", String::as_str).to_string();
    let nlev: usize = args.get(1).map_or(Ok(80), |s| s.parse())?;
    if let Some(threads) = args.get(2) {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.parse()?)
            .build_global()?;
    }
    let mut t = Table(Vec::new());

    let grid: Grid = t.time("grid generation", false, || GridSpec::parse(&name)?.build())?;
    println!(
        "grid {name}: {} cells, {} edges, {} vertices; {nlev} levels; {} threads",
        grid.size(Location::Cell),
        grid.size(Location::Edge),
        grid.size(Location::Vertex),
        rayon::current_num_threads()
    );
    if std::env::var_os("FIELDS_STREAM").is_some() {
        return stream(&grid, nlev);
    }
    let vertical = t.time("vertical grid", true, || {
        VerticalGrid::try_new(VerticalConfig::new(nlev))
    })?;
    let topography = Topography::JablonowskiWilliamson(JwTopography {
        u0: 35.0,
        eta_0: 0.252,
    });
    let surface = t.time("topography (JW)", true, || topography.at_cells(&grid))?;

    // The interpolation fields one by one (as InterpolationFields::compute makes them,
    // but in sequence, so that each one's time shows).
    let cfg = InterpolationConfig::default();
    let g = &grid;
    let c_lin_e = t.time("interp: c_lin_e", true, || weights::c_lin_e(g))?;
    t.time("interp: e_bln_c_s", true, || weights::e_bln_c_s(g));
    let c_bln_avg = t.time("interp: c_bln_avg", true, || weights::c_bln_avg(g, &cfg))?;
    let cells_aw_verts = t.time("interp: cells_aw_verts", true, || {
        weights::cells_aw_verts(g)
    })?;
    let div = t.time("interp: geofac_div", true, || geofac::div(g));
    t.time("interp: geofac_rot", true, || geofac::rot(g));
    let n2s = t.time("interp: geofac_n2s", true, || geofac::n2s(g, &div))?;
    t.time("interp: geofac_grg", true, || {
        geofac::grg(g, &div, &c_lin_e)
    })?;
    t.time("interp: geofac_grdiv", true, || geofac::grdiv(g, &div))?;
    t.time("interp: e_flx_avg", true, || {
        weights::e_flx_avg(g, &c_bln_avg, &div)
    })?;
    let scales = rbf::default_scales(g);
    t.time("interp: rbf_vec_coeff_e", true, || {
        rbf::edge_coefficients(g, cfg.rbf_kernel_edge, scales.edge)
    })?;
    t.time("interp: rbf_vec_coeff_v", true, || {
        rbf::vertex_coefficients(g, cfg.rbf_kernel_vertex, scales.vertex)
    })?;
    t.time("interp: rbf_vec_coeff_c", true, || {
        rbf::cell_coefficients(g, cfg.rbf_kernel_cell, scales.cell)
    })?;
    t.time("interp: pos_on_tplane_e", true, || {
        tangent_plane::pos_on_tplane_e(g)
    })?;
    t.time("interp: nudgecoeff_e", true, || {
        nudging::nudgecoeff_e(g, &cfg)
    })?;
    t.time("interp: lsq_pseudoinv", true, || {
        least_squares::lsq_pseudoinv(g)
    })?;
    let interp = t.time("InterpolationFields::compute (all)", false, || {
        InterpolationFields::compute(g, &cfg)
    })?;
    assert_eq!(interp.c_bln_avg, c_bln_avg);
    assert_eq!(interp.geofac_n2s, n2s);
    drop((c_lin_e, c_bln_avg, cells_aw_verts, div, n2s));

    let heights = t.time("SLEVE heights", true, || {
        Heights::on_grid(g, &vertical, &surface, interp.geofac_n2s.as_slice())
    })?;
    let inputs = MetricInputs {
        c_lin_e: interp.c_lin_e.as_slice(),
        cells_aw_verts: interp.cells_aw_verts.as_slice(),
        c_bln_avg: interp.c_bln_avg.as_slice(),
    };
    let skip_metrics = std::env::var_os("FIELDS_SKIP_METRICS").is_some();
    let (start, cpu) = (Instant::now(), cpu_seconds());
    let metrics = if skip_metrics {
        None
    } else {
        let (metrics, stages) = MetricFields::compute_timed(
            g,
            &vertical,
            &heights,
            &inputs,
            &MetricsConfig::default(),
        )?;
        for (stage, d) in stages {
            t.0.push((format!("metrics: {stage}"), d, None, true));
        }
        Some(metrics)
    };
    let metrics_time = start.elapsed();
    let metrics_cpu = cpu_seconds().zip(cpu).map(|(b, a)| b - a);
    if !skip_metrics {
        t.0.push((
            "MetricFields::compute (all)".into(),
            metrics_time,
            metrics_cpu,
            false,
        ));
    }
    t.print();
    // What a run needs: vertical grid, topography, the interpolation fields together,
    // the heights and the metric fields.
    let of = |name: &str| {
        t.0.iter()
            .find(|r| r.0 == name)
            .map_or(Duration::ZERO, |r| r.1)
    };
    let total = of("vertical grid")
        + of("topography (JW)")
        + of("InterpolationFields::compute (all)")
        + of("SLEVE heights")
        + metrics_time;
    let label = match skip_metrics {
        true => "TOTAL (without the grid and the metrics)",
        false => "TOTAL (every field, without the grid)",
    };
    println!("{:<44} {:>10.3}", label, total.as_secs_f64());
    if std::env::var_os("FIELDS_FINGERPRINT").is_some() {
        println!("fingerprint interpolation {:016x}", fingerprint(&interp));
        println!("fingerprint heights {:016x}", fingerprint(&heights));
        if let Some(metrics) = &metrics {
            println!("fingerprint metrics {:016x}", fingerprint(metrics));
        }
    }
    if let (Some(metrics), true) = (metrics, std::env::var_os("FIELDS_FINGERPRINT").is_some()) {
        let statics = StaticFields {
            topography: surface,
            vertical,
            interpolation: interp,
            heights,
            metrics,
        };
        let mut sum = Checksum::default();
        statics.named(g).iter().for_each(|f| sum.add(f));
        println!(
            "stream checksum {:016x} (StaticFields::named)",
            sum.finish()
        );
    }
    if let Some(cpu) = cpu_seconds() {
        println!("process CPU time (user + system, with the grid): {cpu:.2} s");
    }
    if let Some(peak) = peak_memory() {
        println!("peak resident memory: {peak}");
    }
    Ok(())
}
