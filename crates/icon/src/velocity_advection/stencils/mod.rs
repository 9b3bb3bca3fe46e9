//! The velocity advection's programs in the DSL: one module per ICON4Py program.

pub mod compute_advection_in_corrector_vertical_momentum;
pub mod compute_advection_in_horizontal_momentum;
pub mod compute_advection_in_predictor_vertical_momentum;
pub mod compute_diagnostics_from_normal_wind;
