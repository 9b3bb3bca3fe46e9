//! `ProgramKey` and `Samples`: what metrics are grouped by, and the samples of one group.

use crate::variant::variant_label;

/// Identity of a compiled program variant: what samples are grouped by.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProgramKey {
    /// Program name, e.g. `compute_averaged_vn_and_fluxes`.
    pub program: String,
    /// Backend name, e.g. `cuda` or `cpu`.
    pub backend: String,
    /// Static (compile-time) arguments selecting the variant, in declaration order.
    pub variant: Vec<(String, String)>,
}

impl ProgramKey {
    /// A key for `program` on `backend`, default variant.
    pub fn new(program: impl Into<String>, backend: impl Into<String>) -> ProgramKey {
        ProgramKey {
            program: program.into(),
            backend: backend.into(),
            variant: Vec::new(),
        }
    }

    /// The same key with one more static argument appended.
    pub fn with_arg(mut self, name: impl Into<String>, value: impl ToString) -> ProgramKey {
        self.variant.push((name.into(), value.to_string()));
        self
    }

    /// The variant as text (`a=true,b=false`; empty for the default variant).
    pub fn variant_label(&self) -> String {
        variant_label(&self.variant)
    }
}

/// The samples of one program variant, in seconds, one per call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Samples {
    /// Host wall time per call ("total").
    pub total: Vec<f64>,
    /// Backend-measured kernel time per call ("compute"); empty below level 10.
    pub compute: Vec<f64>,
}
