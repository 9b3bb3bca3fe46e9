//! ICON's nonhydrostatic dynamical core written in foehn. Each program has its DSL
//! definition, an independent plain-Rust reference written straight from the math, and
//! realistic random inputs; [`catalog()`] lists them for `foehn bench`, `explain`, `exec`
//! and `compile`.
//!
//! [`common`] holds what the dycore components share (vertical grid, physical constants,
//! the halo-exchange hook); [`diffusion`] is the first component, [`velocity_advection`]
//! the second; [`fields`] computes the interpolation and metric fields from the grid.
#![deny(missing_docs)]

pub mod catalog;
pub mod common;
pub mod diffusion;
pub mod fields;
pub mod solve_nonhydro;
pub mod velocity_advection;

pub use catalog::catalog;
