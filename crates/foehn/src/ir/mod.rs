//! The typed, dimension-checked IR: what the DSL produces and every backend consumes.
//!
//! A [`Program`] is one specialised variant of a DSL program: field and scalar
//! declarations, an arena of expression [`Node`]s (hash-consed and stored in
//! topological order: children before parents) with one [`Type`] per node, and a
//! list of [`Stencil`]s run in order. Each stencil writes one or more output fields
//! on a [`Domain`]; its root expression is evaluated *pointwise* at every
//! `(horizontal index, level)` of the domain, which lowers directly to a loop nest:
//!
//! ```text
//! for h in h_start..h_end { for k in k_start..k_end { out[h, k] = eval(root, h, k) } }
//! ```
//!
//! Neighbour shifts change the horizontal index through a neighbour table, vertical
//! shifts change `k`, reductions are fixed-width loops over a table row skipping −1,
//! and scans are sequential loops over the stencil's vertical range whose results are
//! materialised per column. See `docs/adr/0002-dsl-and-ir.md`.
//!
//! [`link::link`] builds one program from specialised programs called in turn (a
//! component's step from its program calls).

mod access;
mod canonical;
mod cost;
mod display;
pub mod domain;
mod hash;
pub mod layout;
pub mod link;
mod node;
pub mod portable_math;
mod program;
pub(crate) use canonical::canonicalize;
pub mod schedule;
pub mod semantics;
pub mod types;
mod variant;
pub mod verify;

pub use access::LevelRead;
pub use domain::{
    end, nlev, start, Bound, BoundBase, Domain, IndexDim, Interval, Region, ResolvedDomain,
};
pub use hash::ContentHash;
pub use node::{BinaryOp, ExprId, FieldId, Node, ReduceOp, ScalarId, ScanDir, UnaryOp};
pub use program::{FieldDecl, Program, Role, ScalarDecl, SrcLoc, Stencil};
pub use schedule::{KernelPlan, Lockstep, LockstepEntry, LockstepPart, Schedule, SelectHoist};
pub use types::{DType, Dim, Dims, DimsConflict, FieldType, Scalar, ShiftError, Type, VKind};
pub use variant::{StaticValue, Variant};
pub use verify::{verify, VerifyError, VerifyErrorKind};
