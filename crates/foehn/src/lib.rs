//! foehn: a stencil DSL and optimising compiler for ICON's dynamical core on
//! icosahedral grids.
//!
//! Stages, one module each, each with one input and one output type:
//! [`dsl`] (the embedded language; `ProgramDef`) → [`ir`] (typed, dimension-checked
//! `Program`s with a kernel `Schedule`) → [`opt`] (passes: program → program, schedule
//! and decisions) → [`codegen`] (program + schedule + target + sizes → source text and
//! a kernel table) → [`runtime`] (host fields, the `Backend` trait, the reference
//! interpreter, the CPU and CUDA backends that compile, load, bind and launch).
//!
//! ```
//! use foehn::dsl::prelude::*;
//! use foehn::runtime::field::{Args, Field};
//! use foehn::runtime::{interp::Interpreter, Backend};
//! use foehn_grid::Grid;
//!
//! let program = ProgramDef::new("divergence", |b| {
//!     let vn = b.input("vn", (EDGE, K), F64);
//!     let geofac_div = b.input("geofac_div", (CELL, C2E), F64);
//!     let div = b.output("div", (CELL, K), F64);
//!     b.stencil("divergence", &div, (vn.shift(C2E) * &geofac_div).sum_over(C2E));
//! });
//! let grid = Grid::icosahedral(2, 0, foehn_grid::EARTH_RADIUS).unwrap();
//! let nlev = 3;
//! let mut args = Args::new()
//!     .with_field("vn", Field::from_fn_f64(&grid, nlev, (EDGE, K), |i| 1.0 + i as f64))
//!     .with_field("geofac_div", Field::from_fn_f64(&grid, nlev, (CELL, C2E), |_| 0.5))
//!     .with_field("div", Field::zeros(&grid, nlev, (CELL, K), F64));
//! Interpreter.run(&program, &Variant::new(), &grid, &mut args).unwrap();
//! assert!(args.field("div").unwrap().as_f64().unwrap().iter().all(|&x| x > 0.0));
//! ```
#![deny(missing_docs)]

pub mod codegen;
pub mod dsl;
pub mod error;
pub mod ir;
pub mod opt;
pub mod runtime;

pub use error::{CheckError, CheckErrorKind, Error, Result};
