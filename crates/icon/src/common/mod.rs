//! What the dycore components share: ICON's vertical grid ([`vertical`]), the physical
//! constants ([`constants`]), typed states ([`state`]) and the halo-exchange hook of a
//! decomposed run ([`exchange`]).

pub mod constants;
pub mod exchange;
pub mod state;
pub mod vertical;
