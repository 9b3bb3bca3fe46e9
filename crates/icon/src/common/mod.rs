//! What the dycore components share: ICON's vertical grid ([`vertical`]), the physical
//! constants ([`constants`]), typed states ([`state`]), the step runner of every
//! component ([`runner`]) and the halo-exchange hook of a decomposed run ([`exchange`]).

pub mod constants;
pub mod exchange;
pub mod runner;
pub mod state;
pub mod vertical;
