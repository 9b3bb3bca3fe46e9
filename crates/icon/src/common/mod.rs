//! What the dycore components share: the physical constants ([`constants`]), typed
//! states ([`state`]), the step runner of every component ([`runner`]) and the
//! halo-exchange hook of a decomposed run ([`exchange`]). The vertical grid lives with
//! the other fields computed before a run, in [`crate::fields`].

pub mod constants;
pub mod exchange;
pub mod runner;
pub mod state;
