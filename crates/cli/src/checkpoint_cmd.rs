//! `foehn checkpoint …`: what a checkpoint holds, and how two differ, bit for bit and
//! field by field: for checking a restart, or the same run on another engine or machine
//! (the engines compute bit for bit alike: ADR 0035).

use anyhow::{Context, Result};
use clap::Subcommand;
use foehn::runtime::field::FieldData;
use foehn_driver::checkpoint::{Checkpoint, Identity, SavedField};
use std::path::{Path, PathBuf};

/// Checkpoint subcommands.
#[derive(Subcommand)]
pub enum CheckpointCommand {
    /// What a checkpoint holds: its run (grid, levels, settings), clock and fields.
    Info {
        /// A checkpoint written by `foehn run jw --checkpoint`.
        file: PathBuf,
    },
    /// Compare two checkpoints bit for bit, field by field. Exit status 0 when they are
    /// identical, 1 when they differ (or on an error, which says so).
    Diff {
        /// The first checkpoint.
        a: PathBuf,
        /// The second checkpoint.
        b: PathBuf,
    },
}

/// Runs a checkpoint subcommand.
pub fn run(cmd: CheckpointCommand) -> Result<()> {
    match cmd {
        CheckpointCommand::Info { file } => {
            info(&read(&file)?);
            Ok(())
        }
        CheckpointCommand::Diff { a, b } => {
            let differences = diff(&read(&a)?, &read(&b)?);
            if differences > 0 {
                println!("{differences} difference(s)");
                std::process::exit(1);
            }
            println!("identical, bit for bit");
            Ok(())
        }
    }
}

fn read(path: &Path) -> Result<Checkpoint> {
    Checkpoint::read(path).with_context(|| format!("reading {}", path.display()))
}

/// The identity's members, named.
fn members(i: &Identity) -> [(&'static str, String); 9] {
    [
        ("grid", i.grid.clone()),
        ("cells", i.cells.to_string()),
        ("edges", i.edges.to_string()),
        ("vertices", i.vertices.to_string()),
        ("levels", i.levels.to_string()),
        ("settings", i.settings.clone()),
        ("solver", i.solver.clone()),
        ("constant fields (BLAKE3)", i.constants.clone()),
        ("run", i.run.clone()),
    ]
}

fn info(c: &Checkpoint) {
    for (name, value) in members(&c.identity) {
        println!("{name}: {value}");
    }
    println!(
        "clock: {} steps done, t = {} s, CFL watch mode {}, {} substeps next",
        c.clock.steps_done,
        c.clock.time,
        if c.clock.cfl_watch_active {
            "on"
        } else {
            "off"
        },
        c.clock.ndyn_substeps_var
    );
    let bytes: usize = c.fields.iter().map(|f| byte_count(&f.data)).sum();
    println!("{} fields, {:.1} MB:", c.fields.len(), bytes as f64 / 1e6);
    for f in &c.fields {
        println!(
            "  {:<70} {:>4} {:?}",
            f.name,
            format!("{:?}", f.data.dtype()).to_lowercase(),
            f.shape
        );
    }
}

fn byte_count(d: &FieldData) -> usize {
    d.len() * d.dtype().size_bytes()
}

/// Prints every difference of `b` from `a`; returns how many there are.
fn diff(a: &Checkpoint, b: &Checkpoint) -> usize {
    let mut n = 0;
    for ((name, x), (_, y)) in members(&a.identity).into_iter().zip(members(&b.identity)) {
        if x != y {
            println!("{name}: {x} | {y}");
            n += 1;
        }
    }
    if a.clock != b.clock {
        println!("clock: {:?} | {:?}", a.clock, b.clock);
        n += 1;
    }
    for (name, x, y) in [
        ("max_vertical_cfl", a.max_vertical_cfl, b.max_vertical_cfl),
        (
            "dtime_previous_substep",
            a.dtime_previous_substep,
            b.dtime_previous_substep,
        ),
    ] {
        if x.to_bits() != y.to_bits() {
            println!("{name}: {x:e} | {y:e}");
            n += 1;
        }
    }
    for f in &a.fields {
        match b.fields.iter().find(|g| g.name == f.name) {
            None => {
                println!("field `{}`: only in the first", f.name);
                n += 1;
            }
            Some(g) => {
                if let Some(text) = field_difference(f, g) {
                    println!("field `{}`: {text}", f.name);
                    n += 1;
                }
            }
        }
    }
    for g in &b.fields {
        if !a.fields.iter().any(|f| f.name == g.name) {
            println!("field `{}`: only in the second", g.name);
            n += 1;
        }
    }
    n
}

/// How `g` differs from `f`, if it does: shape, type, or the elements that differ bit
/// for bit (NaNs alike), the largest difference and the first one.
fn field_difference(f: &SavedField, g: &SavedField) -> Option<String> {
    if f.shape != g.shape {
        return Some(format!("shape {:?} | {:?}", f.shape, g.shape));
    }
    if f.data.dtype() != g.data.dtype() {
        return Some(format!("type {:?} | {:?}", f.data.dtype(), g.data.dtype()));
    }
    let (mut count, mut first, mut worst, mut scale) = (0usize, None, 0.0f64, 0.0f64);
    for i in 0..f.data.len() {
        let (x, y) = (f.data.get(i).as_f64(), g.data.get(i).as_f64());
        scale = scale.max(x.abs());
        let same = match (&f.data, &g.data) {
            (FieldData::F64(p), FieldData::F64(q)) => {
                p[i].to_bits() == q[i].to_bits() || (p[i].is_nan() && q[i].is_nan())
            }
            (FieldData::F32(p), FieldData::F32(q)) => {
                p[i].to_bits() == q[i].to_bits() || (p[i].is_nan() && q[i].is_nan())
            }
            _ => x == y,
        };
        if !same {
            count += 1;
            first.get_or_insert((i, x, y));
            if (x - y).is_finite() {
                worst = worst.max((x - y).abs());
            }
        }
    }
    let (i, x, y) = first?;
    Some(format!(
        "{count} of {} elements differ; largest |a − b| {worst:e} ({:e} of max |a|); first at flat index {i}: {x:e} | {y:e}",
        f.data.len(),
        if scale > 0.0 { worst / scale } else { 0.0 }
    ))
}
