//! ICON grid files.
