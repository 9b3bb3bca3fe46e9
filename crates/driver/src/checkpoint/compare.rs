//! How two checkpoints differ, bit for bit: the identity's members, the clock, the
//! scalars and every field (elements that differ, the largest difference, the first),
//! for `foehn checkpoint diff` and the restart tests.

use super::{Checkpoint, ClockState, Identity, SavedField};
use foehn::runtime::field::FieldData;

impl Identity {
    /// Its members, named, as text.
    pub fn members(&self) -> [(&'static str, String); 9] {
        [
            ("grid", self.grid.clone()),
            ("cells", self.cells.to_string()),
            ("edges", self.edges.to_string()),
            ("vertices", self.vertices.to_string()),
            ("levels", self.levels.to_string()),
            ("settings", self.settings.clone()),
            ("solver", self.solver.clone()),
            ("constant fields (BLAKE3)", self.constants.clone()),
            ("run", self.run.clone()),
        ]
    }
}

/// The clock's members with the time as its bits.
fn clock_bits(c: &ClockState) -> (u64, u64, bool, usize) {
    (
        c.steps_done,
        c.time.to_bits(),
        c.cfl_watch_active,
        c.ndyn_substeps_var,
    )
}

impl Checkpoint {
    /// Every way `other` differs from this checkpoint bit for bit (NaNs alike), one line
    /// each, `this | other`; empty when they are identical.
    pub fn differences(&self, other: &Checkpoint) -> Vec<String> {
        let mut out = Vec::new();
        for ((name, x), (_, y)) in self
            .identity
            .members()
            .into_iter()
            .zip(other.identity.members())
        {
            if x != y {
                out.push(format!("{name}: {x} | {y}"));
            }
        }
        if clock_bits(&self.clock) != clock_bits(&other.clock) {
            out.push(format!("clock: {:?} | {:?}", self.clock, other.clock));
        }
        for (name, x, y) in [
            (
                "max_vertical_cfl",
                self.max_vertical_cfl,
                other.max_vertical_cfl,
            ),
            (
                "dtime_previous_substep",
                self.dtime_previous_substep,
                other.dtime_previous_substep,
            ),
        ] {
            if x.to_bits() != y.to_bits() {
                out.push(format!("{name}: {x:e} | {y:e}"));
            }
        }
        for f in &self.fields {
            match other.fields.iter().find(|g| g.name == f.name) {
                None => out.push(format!("field `{}`: only in the first", f.name)),
                Some(g) => {
                    if let Some(text) = field_difference(f, g) {
                        out.push(format!("field `{}`: {text}", f.name));
                    }
                }
            }
        }
        for g in &other.fields {
            if !self.fields.iter().any(|f| f.name == g.name) {
                out.push(format!("field `{}`: only in the second", g.name));
            }
        }
        let names = |c: &Checkpoint| c.fields.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
        if out.is_empty() && names(self) != names(other) {
            out.push("the fields are in another order".into());
        }
        out
    }
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
