//! ICON's nonhydrostatic dynamical core written in foehn. Each program has its DSL
//! definition, an independent plain-Rust reference written straight from the math, and
//! realistic random inputs; [`catalog`] lists them for `foehn bench`, `explain`, `exec`.
#![deny(missing_docs)]

pub mod diffusion;
pub mod vertical;

use foehn_testkit::catalog::Entry;

/// Every ICON program foehn provides.
pub fn catalog() -> Vec<Entry> {
    diffusion::catalog()
}
