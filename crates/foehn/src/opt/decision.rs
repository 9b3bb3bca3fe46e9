//! What the optimiser did, as data: every decision (applied or refused, with its
//! reason) in order; `foehn explain` prints them through `Display`, tests match on the
//! variants.

use crate::ir::{Bound, Region};
use foehn_grid::{Connectivity, Location};
use std::fmt;

/// What the optimiser did, in order, for `foehn explain`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OptReport {
    /// One entry per decision (applied or rejected, with the reason); each displays
    /// as one line of `foehn explain`.
    pub decisions: Vec<Decision>,
}

impl fmt::Display for OptReport {
    /// One decision per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.decisions.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

/// One decision of the optimiser. Names are those of the program being optimised
/// (stencils, fields); [`fmt::Display`] gives the line `foehn explain` prints.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// A temporary is recomputed in a consumer instead of being stored.
    Inlined {
        /// The temporary.
        temporary: String,
        /// The stencil that computed it.
        producer: String,
        /// The consumer it is inlined into.
        into: String,
        /// Work of one evaluation of the producer's expression.
        cost: usize,
        /// That work times the points at which one consumer point evaluates it.
        recompute_cost: usize,
        /// Recomputed after a scan instead of kept in a column array from before it
        /// (`OptOptions::recompute_after_scan`), whatever the load factor says.
        after_scan: bool,
    },
    /// A temporary is inlined into a consumer that reads it at neighbours, marked for
    /// the CUDA generator to compute it once per block in shared memory.
    Staged {
        /// The temporary.
        temporary: String,
        /// The stencil that computed it.
        producer: String,
        /// The consumer it is inlined into.
        into: String,
        /// Work of one evaluation of the producer's expression.
        cost: usize,
        /// The connectivity through which the consumer reads it.
        connectivity: Connectivity,
        /// Field loads of one evaluation of the producer.
        loads: usize,
        /// Field loads per consumer point were it recomputed at each neighbour.
        recomputed_loads: usize,
    },
    /// A temporary stays stored.
    InlineRejected {
        /// The temporary.
        temporary: String,
        /// Why.
        reason: InlineRejectReason,
    },
    /// A consumer reading an output at other levels of its own column evaluates the
    /// producer's expression there instead (the producer still stores it).
    Forwarded {
        /// The output field.
        output: String,
        /// The stencil that computes it.
        producer: String,
        /// The consumer.
        into: String,
        /// The level offsets the consumer read it at.
        offsets: Vec<i64>,
        /// The producer's work times the offsets.
        cost: usize,
    },
    /// A consumer keeps reading an output at other levels from memory.
    ForwardRejected {
        /// The output field.
        output: String,
        /// The consumer.
        into: String,
        /// Why, in words.
        reason: String,
    },
    /// A stencil is removed: its outputs are temporaries nobody reads.
    RemovedStencil {
        /// The stencil.
        stencil: String,
    },
    /// An unread temporary output is dropped from a stencil computing a tuple.
    DroppedOutput {
        /// The output field.
        output: String,
        /// The stencil.
        stencil: String,
    },
    /// A temporary no stencil uses any more is no longer allocated.
    RemovedTemporary {
        /// The temporary.
        temporary: String,
    },
    /// A stencil is split on a `concat_where` region into branch-free parts.
    Specialised {
        /// The stencil as it was.
        stencil: String,
        /// The region split on.
        region: Region,
        /// The parts' names, in order.
        parts: Vec<String>,
        /// How many sides of the interval are known to be empty (no part).
        empty_sides: usize,
    },
    /// A stencil keeps a `concat_where`.
    SpecialiseRejected {
        /// The stencil.
        stencil: String,
        /// Why.
        reason: SpecialiseRejectReason,
    },
    /// A stencil joins the kernel of the stencil before it.
    Fused {
        /// The stencil.
        stencil: String,
        /// The last stencil of the kernel it joins.
        into: String,
    },
    /// A stencil joins the column kernel of a scan stencil (a thread per column runs
    /// the members in order, see `opt::column`).
    ColumnJoined {
        /// The stencil.
        stencil: String,
        /// The scan stencil whose kernel it joins.
        scan: String,
    },
    /// A stencil next to a column kernel does not join it.
    ColumnRejected {
        /// The stencil.
        stencil: String,
        /// The scan stencil of the column kernel.
        scan: String,
        /// Why.
        reason: super::column::ColumnRejectReason,
    },
    /// A column kernel's members walk the levels together (ADR 0025).
    Lockstep {
        /// The kernel's stencils.
        kernel: String,
        /// Its level loops, entry by entry with their skews.
        loops: String,
    },
    /// A column kernel keeps its members one after another.
    LockstepRefused {
        /// The kernel's stencils.
        kernel: String,
        /// Why.
        reason: super::lockstep::LockstepRefusal,
    },
    /// A stencil starts a new kernel.
    FusionRejected {
        /// The stencil.
        stencil: String,
        /// Why it cannot join the kernel before it.
        reason: FusionRejectReason,
    },
}

/// Why a temporary stays stored ([`Decision::InlineRejected`]).
#[derive(Debug, Clone, PartialEq)]
pub enum InlineRejectReason {
    /// Written by this many stencils (not exactly one).
    Writers(usize),
    /// Its producer computes several outputs together without a tuple root.
    OutputsTogether {
        /// The producer.
        producer: String,
    },
    /// Its producer contains a scan.
    ProducerHasScan {
        /// The producer.
        producer: String,
    },
    /// It is read before or by its producer.
    ReadBeforeProduced,
    /// A stencil between producer and consumer overwrites one of the producer's inputs.
    InputOverwritten {
        /// The overwriting stencil.
        by: String,
        /// The producer.
        producer: String,
        /// The consumer.
        consumer: String,
    },
    /// Recomputing it in a consumer would cost more than the limit.
    CostExceeded {
        /// The consumer.
        consumer: String,
        /// The recompute cost.
        cost: usize,
        /// The limit ([`super::OptOptions::max_inline_cost`]).
        limit: usize,
    },
    /// Recomputing it in a consumer would load too many values per point.
    TooManyLoads {
        /// The consumer.
        consumer: String,
        /// Loads per consumer point, inlined.
        loads: usize,
        /// Loads per consumer point, stored (a write plus the reads).
        stored: usize,
        /// The limit factor ([`super::OptOptions::inline_load_factor`]).
        factor: usize,
        /// When staging was possible but for this field, which the consumer writes and
        /// the producer reads at neighbours.
        staging_blocked_by: Option<String>,
    },
}

/// Why a stencil keeps a `concat_where` ([`Decision::SpecialiseRejected`]).
#[derive(Debug, Clone, PartialEq)]
pub enum SpecialiseRejectReason {
    /// It reads these outputs of its own away from its own point (from a snapshot that
    /// parts would overwrite for each other).
    ReadsOwnOutputs(Vec<String>),
    /// On a region: the reason that region cannot be split on.
    Region {
        /// The region.
        region: Region,
        /// Why.
        why: RegionRejectReason,
    },
}

/// Why a stencil is not split on a region ([`SpecialiseRejectReason::Region`]).
#[derive(Debug, Clone, PartialEq)]
pub enum RegionRejectReason {
    /// A vertical region in a stencil with scans (they run over the whole column).
    Scans,
    /// A vertical region in a stencil that stages values in shared memory: a staging
    /// kernel computes one stencil, so each part would stage (and load) its tile again,
    /// while the level branch costs a uniform test per level of a k-block.
    Staged,
    /// A bound cannot be used on the region's dimension (the message says why).
    BoundMisuse(String),
    /// A bound is a zone of another location.
    ZoneOfOtherLocation,
    /// The stencil's domain is empty.
    EmptyDomain,
    /// The split would make more parts than allowed.
    TooManyParts {
        /// Parts there would be.
        parts: usize,
        /// The limit.
        limit: usize,
    },
    /// The clip would need a bound not known without the grid (which one).
    UnknownClip(String),
    /// A vertical split whose parts would together do more work than allowed.
    Duplicates {
        /// Work of one evaluation of the stencil.
        whole: usize,
        /// Work of one evaluation of each part, summed.
        parts: usize,
        /// The limit, in percent of `whole`.
        limit: usize,
    },
}

/// Why a stencil starts a new kernel ([`Decision::FusionRejected`]).
#[derive(Debug, Clone, PartialEq)]
pub enum FusionRejectReason {
    /// This stencil (it or one of the group) stages values in shared memory.
    Staged {
        /// The staging stencil.
        stencil: String,
    },
    /// Its iteration space differs from the group's first stencil's.
    IterationSpace {
        /// The group's first stencil.
        first: String,
        /// Its horizontal location.
        location: Option<Location>,
        /// The first stencil's.
        first_location: Option<Location>,
    },
    /// It contains a vertical scan.
    Scan,
    /// Data-dependent vertical offsets in one but not the other (k-blocking differs).
    KBlocking,
    /// Its domain clips differ from a member's.
    DomainClips {
        /// The member.
        member: String,
    },
    /// Its vertical domain leaves a gap to the group's levels.
    VerticalGap {
        /// Its vertical domain.
        domain: (Bound, Bound),
    },
    /// It reads a field written in the group away from its own point.
    ReadsWrittenAway {
        /// The field.
        field: String,
    },
    /// A field it reads or writes is read from a snapshot in the group.
    Snapshot {
        /// The field.
        field: String,
    },
    /// It writes a field the group reads away from its own point.
    WritesReadAway {
        /// The field.
        field: String,
    },
    /// It reads its own output from a snapshot, and the group uses that field.
    OwnSnapshotShared {
        /// The field.
        field: String,
    },
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Inlined {
                temporary,
                producer,
                into,
                cost,
                recompute_cost,
                after_scan,
            } => {
                write!(
                    f,
                    "inline `{temporary}` (stencil `{producer}`, cost {cost} per point) into `{into}` (recompute cost {recompute_cost})"
                )?;
                if *after_scan {
                    f.write_str(": read only after the scan of its column kernel, recomputed there instead of kept in a column array")?;
                }
                Ok(())
            }
            Decision::Staged {
                temporary,
                producer,
                into,
                cost,
                connectivity,
                loads,
                recomputed_loads,
            } => write!(
                f,
                "inline `{temporary}` (stencil `{producer}`, cost {cost} per point) into `{into}`, staged: on the GPU computed once per block for its points' {connectivity} neighbours in shared memory ({loads} loads per point instead of {recomputed_loads} recomputed at each neighbour)"
            ),
            Decision::Forwarded {
                output,
                producer,
                into,
                offsets,
                cost,
            } => write!(
                f,
                "forward output `{output}` (stencil `{producer}`) into `{into}` at level offsets {offsets:?}: evaluated there instead of read back (recompute cost {cost})"
            ),
            Decision::ForwardRejected {
                output,
                into,
                reason,
            } => write!(f, "`{into}` keeps reading output `{output}` at other levels: {reason}"),
            Decision::InlineRejected { temporary, reason } => {
                write!(f, "keep temporary `{temporary}`: {reason}")
            }
            Decision::RemovedStencil { stencil } => write!(
                f,
                "remove stencil `{stencil}`: its outputs are unused temporaries"
            ),
            Decision::DroppedOutput { output, stencil } => write!(
                f,
                "drop output `{output}` of `{stencil}`: an unused temporary"
            ),
            Decision::RemovedTemporary { temporary } => {
                write!(f, "remove temporary `{temporary}`: no longer stored")
            }
            Decision::Specialised {
                stencil,
                region,
                parts,
                empty_sides,
            } => {
                let names: Vec<String> = parts.iter().map(|s| format!("`{s}`")).collect();
                let sides = match empty_sides {
                    0 => String::new(),
                    1 => " (the other side is empty)".to_string(),
                    n => format!(" ({n} sides are empty)"),
                };
                write!(
                    f,
                    "specialise stencil `{stencil}` on `{region}`: {} part{} {}{sides}, without that branch",
                    parts.len(),
                    if parts.len() == 1 { "" } else { "s" },
                    names.join(", ")
                )
            }
            Decision::SpecialiseRejected { stencil, reason } => {
                write!(f, "keep `concat_where` in stencil `{stencil}`{reason}")
            }
            Decision::Fused { stencil, into } => write!(
                f,
                "fuse `{stencil}` into the kernel of `{into}`: every dependency is pointwise"
            ),
            Decision::FusionRejected { stencil, reason } => {
                write!(f, "new kernel for `{stencil}`: {reason}")
            }
            Decision::ColumnJoined { stencil, scan } => write!(
                f,
                "column kernel of `{scan}`: `{stencil}` joins (every dependency stays in the column)"
            ),
            Decision::ColumnRejected {
                stencil,
                scan,
                reason,
            } => write!(
                f,
                "column kernel of `{scan}`: `{stencil}` stays apart: {reason}"
            ),
            Decision::Lockstep { kernel, loops } => {
                write!(f, "lockstep column kernel `{kernel}`: {loops}")
            }
            Decision::LockstepRefused { kernel, reason } => write!(
                f,
                "column kernel `{kernel}` runs member by member: {reason}"
            ),
        }
    }
}

impl fmt::Display for InlineRejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InlineRejectReason::Writers(n) => write!(f, "written by {n} stencils"),
            InlineRejectReason::OutputsTogether { producer } => {
                write!(f, "`{producer}` computes its outputs together")
            }
            InlineRejectReason::ProducerHasScan { producer } => {
                write!(f, "`{producer}` contains a scan")
            }
            InlineRejectReason::ReadBeforeProduced => write!(f, "read before or by its producer"),
            InlineRejectReason::InputOverwritten {
                by,
                producer,
                consumer,
            } => write!(
                f,
                "stencil `{by}` overwrites an input of `{producer}` before `{consumer}`"
            ),
            InlineRejectReason::CostExceeded {
                consumer,
                cost,
                limit,
            } => write!(f, "recompute cost {cost} in `{consumer}` exceeds {limit}"),
            InlineRejectReason::TooManyLoads {
                consumer,
                loads,
                stored,
                factor,
                staging_blocked_by,
            } => {
                write!(
                    f,
                    "inlining into `{consumer}` loads {loads} values per point instead of {stored} (limit factor {factor})"
                )?;
                if let Some(field) = staging_blocked_by {
                    write!(
                        f,
                        "; staged it would read `{field}`, which `{consumer}` writes, at neighbours"
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for SpecialiseRejectReason {
    /// The text after the stencil's name (starting with `:` or ` on`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecialiseRejectReason::ReadsOwnOutputs(outputs) => write!(
                f,
                ": it reads its own output `{}` away from its own point (a snapshot from before the stencil), which parts would overwrite for each other",
                outputs.join("`, `")
            ),
            SpecialiseRejectReason::Region { region, why } => write!(f, " on `{region}`: {why}"),
        }
    }
}

impl fmt::Display for RegionRejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegionRejectReason::Scans => write!(f, "its scans run over the whole vertical range"),
            RegionRejectReason::Staged => write!(
                f,
                "it stages values in shared memory, which every part would stage again in a kernel of its own"
            ),
            RegionRejectReason::BoundMisuse(m) => write!(f, "{m}"),
            RegionRejectReason::ZoneOfOtherLocation => write!(f, "a zone of another location"),
            RegionRejectReason::EmptyDomain => write!(f, "the domain is empty"),
            RegionRejectReason::TooManyParts { parts, limit } => {
                write!(f, "{parts} parts would exceed {limit}")
            }
            RegionRejectReason::UnknownClip(why) => write!(f, "the clip would need {why}"),
            RegionRejectReason::Duplicates {
                whole,
                parts,
                limit,
            } => write!(
                f,
                "the parts would do {parts} work against {whole} unsplit (limit {limit} %); a level test is uniform in a k-blocked kernel"
            ),
        }
    }
}

impl fmt::Display for FusionRejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FusionRejectReason::Staged { stencil } => write!(
                f,
                "`{stencil}` stages values in shared memory (a kernel of its own)"
            ),
            FusionRejectReason::IterationSpace {
                first,
                location,
                first_location,
            } => write!(
                f,
                "different iteration space than `{first}` ({location:?} vs {first_location:?})"
            ),
            FusionRejectReason::Scan => {
                write!(f, "it contains a vertical scan (a thread per column)")
            }
            FusionRejectReason::KBlocking => {
                write!(f, "k-blocking differs (data-dependent vertical offsets)")
            }
            FusionRejectReason::DomainClips { member } => {
                write!(f, "domain clips differ from `{member}`")
            }
            FusionRejectReason::VerticalGap { domain } => write!(
                f,
                "vertical domain [{}, {}) leaves a gap to the group's levels: the union would idle threads",
                domain.0, domain.1
            ),
            FusionRejectReason::ReadsWrittenAway { field } => write!(
                f,
                "it reads `{field}`, written in the group, away from its own point"
            ),
            FusionRejectReason::Snapshot { field } => {
                write!(f, "`{field}` is read from a snapshot in the group")
            }
            FusionRejectReason::WritesReadAway { field } => write!(
                f,
                "it writes `{field}`, which the group reads away from its own point"
            ),
            FusionRejectReason::OwnSnapshotShared { field } => write!(
                f,
                "it reads its own output `{field}` (a snapshot) which the group also uses"
            ),
        }
    }
}
