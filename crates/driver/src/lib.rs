//! The model driver around foehn's ICON dycore (DESIGN.md's `driver/`): what a run needs
//! besides the dycore components.
//!
//! - [`initial`]: initial conditions on a grid and its static fields — the
//!   Jablonowski–Williamson baroclinic-wave test ([`initial::jw`]) and ICON's discrete
//!   hydrostatic adjustment ([`initial::hydrostatic`]);
//! - [`diagnostics`]: quantities diagnosed from a prognostic state (surface pressure);
//! - [`layout`]: row-major columns ↔ foehn fields.
//!
//! - [`time_loop`]: the dycore's time loop (substeps, diffusion, swaps, CFL watch mode);
//! - [`jw_run`]: a JW run assembled from the fields, the initial state and the components.
//! - [`checkpoint`]: checkpoint/restart of the time loop (bit-for-bit continuation).
//! - [`report`]: the JW baroclinic-wave report across resolutions (`foehn jw-report`).
//! - [`config`]: a run's configuration (TOML with ICON's JW defaults, every option
//!   validated, printed back for `foehn run jw --print-config`).
//!
//! The output (NetCDF) comes later.
#![deny(missing_docs)]

pub mod checkpoint;
pub mod config;
pub mod diagnostics;
pub mod initial;
pub mod jw_run;
pub mod layout;
pub mod output;
pub mod report;
pub mod time_loop;
