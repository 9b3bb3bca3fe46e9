//! Column groups (ADR 0019): a stencil with a vertical scan runs as a column kernel, a
//! thread per horizontal point walking the levels. Consecutive stencils before and
//! after it on the same location join its kernel when every dependency between the
//! members stays in the column: a member reads what another member writes only at its
//! own horizontal point (at any level), and no member writes a field another member
//! reads through a neighbour. The thread then runs the members in program order, each
//! over its own vertical range, so a member sees its column exactly as the program as
//! written leaves it; what other columns hold does not matter. Fields a member reads
//! from a snapshot (its own outputs read away from its point) are touched by no other
//! member. Temporaries the group alone uses stay in per-thread column arrays
//! ([`crate::ir::Program::column_locals`]). Groups without a scan keep the k-parallel
//! fusion of `opt::fuse`.

use super::{Decision, OptReport};
use crate::ir::{FieldId, Program};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::ops::Range;

/// Why a stencil does not join a column group ([`Decision::ColumnRejected`]).
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnRejectReason {
    /// It computes on another location, or without levels.
    IterationSpace,
    /// It stages values in shared memory (a kernel of its own).
    Staged,
    /// It belongs to the column group of an earlier scan.
    InEarlierGroup,
    /// One of the two reads through a neighbour a field the other writes: another
    /// thread may run the writer before or after the reader.
    AcrossColumns {
        /// The field.
        field: String,
    },
    /// One of the two reads this field from a snapshot (its own output read away from
    /// its point), which the other reads or writes.
    Snapshot {
        /// The field.
        field: String,
    },
}

impl fmt::Display for ColumnRejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ColumnRejectReason::IterationSpace => {
                write!(f, "another location, or no levels")
            }
            ColumnRejectReason::Staged => write!(f, "it stages values in shared memory"),
            ColumnRejectReason::InEarlierGroup => {
                write!(f, "it is in the column kernel of an earlier scan")
            }
            ColumnRejectReason::AcrossColumns { field } => write!(
                f,
                "`{field}` is written in one and read through a neighbour in the other"
            ),
            ColumnRejectReason::Snapshot { field } => write!(
                f,
                "`{field}` is read from a snapshot in one and used by the other"
            ),
        }
    }
}

/// What the members of a group touch.
#[derive(Default)]
struct Group {
    writes: BTreeSet<FieldId>,
    /// Fields read, with `true` while every read is in the reader's own column.
    reads: BTreeMap<FieldId, bool>,
    /// A member's own outputs it reads away from its point (from a snapshot).
    snapshots: BTreeSet<FieldId>,
}

/// What stencil `t` touches, as a one-member group.
fn accesses(p: &Program, t: usize) -> Group {
    let st = &p.stencils[t];
    let at_point = p.read_pattern(st.root);
    Group {
        writes: st.outputs.iter().copied().collect(),
        reads: p.column_read_pattern(st.root),
        snapshots: st
            .outputs
            .iter()
            .copied()
            .filter(|o| at_point.get(o) == Some(&false))
            .collect(),
    }
}

impl Group {
    fn absorb(&mut self, o: Group) {
        self.writes.extend(o.writes);
        self.snapshots.extend(o.snapshots);
        for (f, c) in o.reads {
            *self.reads.entry(f).or_insert(true) &= c;
        }
    }

    fn touches(&self, f: &FieldId) -> bool {
        self.writes.contains(f) || self.reads.contains_key(f)
    }

    /// The field that keeps `self` and `o` apart, if any. Symmetric: a neighbour read of
    /// a field the other side writes is wrong in either order (the other thread may run
    /// the writer before or after the reader).
    fn conflict(&self, o: &Group, p: &Program) -> Option<ColumnRejectReason> {
        let name = |f: &FieldId| p.field(*f).name.clone();
        for (a, b) in [(self, o), (o, self)] {
            if let Some(f) = a.reads.iter().find(|(f, &c)| !c && b.writes.contains(f)) {
                return Some(ColumnRejectReason::AcrossColumns { field: name(f.0) });
            }
            if let Some(f) = a.snapshots.iter().find(|f| b.touches(f)) {
                return Some(ColumnRejectReason::Snapshot { field: name(f) });
            }
        }
        None
    }
}

/// Why stencil `t` cannot share a column kernel with the scan stencil `scan`.
fn eligible(p: &Program, scan: usize, t: usize) -> Option<ColumnRejectReason> {
    let (s, ts) = (&p.stencils[scan], &p.stencils[t]);
    if ts.location != s.location || ts.vertical.is_none() || s.vertical.is_none() {
        return Some(ColumnRejectReason::IterationSpace);
    }
    if !p.staged_reads(ts.root).is_empty() {
        return Some(ColumnRejectReason::Staged);
    }
    None
}

/// The column groups of `p` (consecutive stencil ranges, in program order): one around
/// each scan stencil not in an earlier group, extended backwards and then forwards over
/// the stencils that may join it; reports every stencil that joins and the first one
/// refused on each side, with its reason.
pub fn column_groups(p: &Program, report: &mut OptReport) -> Vec<Range<usize>> {
    let mut groups: Vec<Range<usize>> = Vec::new();
    let n = p.stencils.len();
    for s in 0..n {
        if groups.last().is_some_and(|g| s < g.end) || !p.has_scan(p.stencils[s].root) {
            continue;
        }
        let floor = groups.last().map_or(0, |g| g.end);
        let mut g = accesses(p, s);
        let (mut lo, mut hi) = (s, s + 1);
        let scan = p.stencils[s].name.clone();
        let try_join = |t: usize, g: &mut Group, report: &mut OptReport| {
            let a = accesses(p, t);
            let why = eligible(p, s, t).or_else(|| g.conflict(&a, p));
            let stencil = p.stencils[t].name.clone();
            match why {
                None => {
                    g.absorb(a);
                    report.decisions.push(Decision::ColumnJoined {
                        stencil,
                        scan: scan.clone(),
                    });
                    true
                }
                Some(reason) => {
                    report.decisions.push(Decision::ColumnRejected {
                        stencil,
                        scan: scan.clone(),
                        reason,
                    });
                    false
                }
            }
        };
        while lo > floor && try_join(lo - 1, &mut g, report) {
            lo -= 1;
        }
        if lo == floor && floor > 0 {
            report.decisions.push(Decision::ColumnRejected {
                stencil: p.stencils[lo - 1].name.clone(),
                scan: scan.clone(),
                reason: ColumnRejectReason::InEarlierGroup,
            });
        }
        while hi < n && try_join(hi, &mut g, report) {
            hi += 1;
        }
        groups.push(lo..hi);
    }
    groups
}
