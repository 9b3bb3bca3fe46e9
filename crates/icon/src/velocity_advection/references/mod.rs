//! Plain-Rust references of the velocity advection's programs, written from the math: one module per program.
