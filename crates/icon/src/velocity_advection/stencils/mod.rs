//! The velocity advection's programs in the DSL: one module per ICON4Py program.
