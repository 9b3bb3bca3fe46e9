//! The embedded DSL: field operators are Rust functions over [`Expr`] handles; a
//! [`ProgramDef`] declares fields, scalars, static arguments and stencils.
//!
//! ```
//! use foehn::dsl::prelude::*;
//!
//! /// Flux divergence: div(c, k) = Σ_{C2E} geofac_div(c, j) · vn(C2E[c, j], k).
//! fn divergence(vn: &Expr, geofac_div: &Expr) -> Expr {
//!     (vn.shift(C2E) * geofac_div).sum_over(C2E)
//! }
//!
//! let program = ProgramDef::new("divergence", |b| {
//!     let vn = b.input("vn", (EDGE, K), F64);
//!     let geofac_div = b.input("geofac_div", (CELL, C2E), F64);
//!     let div = b.output("div", (CELL, K), F64);
//!     b.stencil("divergence", &div, divergence(&vn, &geofac_div))
//!         .horizontal(start(Zone::Interior), end(Zone::Local));
//! });
//! let ir = program.specialize(&Variant::new()).unwrap();
//! println!("{ir}");
//! ```

mod decl;
mod expr;
mod lower;
mod ops;
mod print;
mod program;

pub use decl::{IntoOutputs, ProgramBuilder, StaticDecl, StaticValues, StencilDecl};
pub use expr::Expr;
pub use ops::*;
pub use program::ProgramDef;

/// Everything a stencil author needs: `use foehn::dsl::prelude::*;`.
pub mod prelude {
    pub use super::ops::*;
    pub use super::{Expr, ProgramBuilder, ProgramDef, StencilDecl};
    pub use crate::ir::{end, nlev, start, Bound, DType, Dim, ScanDir, VKind, Variant};
    pub use foehn_grid::Connectivity::{self, *};
    pub use foehn_grid::{Location, Zone};

    /// The Cell dimension.
    pub const CELL: Location = Location::Cell;
    /// The Edge dimension.
    pub const EDGE: Location = Location::Edge;
    /// The Vertex dimension.
    pub const VERTEX: Location = Location::Vertex;
    /// Full levels (GT4Py `KDim`).
    pub const K: VKind = VKind::Full;
    /// Half levels (`nlev + 1` interfaces).
    pub const KHALF: VKind = VKind::Half;
    /// 64-bit float.
    pub const F64: DType = DType::F64;
    /// 32-bit float.
    pub const F32: DType = DType::F32;
    /// 32-bit integer.
    pub const I32: DType = DType::I32;
    /// Boolean.
    pub const BOOL: DType = DType::Bool;
    /// Forward scan direction.
    pub const FORWARD: ScanDir = ScanDir::Forward;
    /// Backward scan direction.
    pub const BACKWARD: ScanDir = ScanDir::Backward;
}
