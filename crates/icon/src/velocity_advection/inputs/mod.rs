//! Realistic random inputs of the velocity advection's programs: one module per program.
