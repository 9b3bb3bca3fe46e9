//! What the dycore components share: the physical constants ([`constants`]), typed
//! states ([`state`]), the step runner of every component ([`runner`]), the halo-exchange
//! hook of a decomposed run ([`exchange`]), and the component layer every component is
//! built on: its plan ([`plan`]), its host side ([`component`]), its device side
//! ([`cuda`], tuned on request by [`tuning`]) and a device reduction ([`device_max`]). The vertical grid lives with the
//! other fields computed before a run, in [`crate::fields`].

pub mod component;
pub mod constants;
pub mod cuda;
pub mod device_max;
pub mod exchange;
pub mod plan;
pub mod runner;
pub mod state;
pub mod tuning;
