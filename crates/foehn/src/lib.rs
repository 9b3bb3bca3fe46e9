//! foehn: stencil DSL, IR, backends.
