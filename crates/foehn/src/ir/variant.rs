//! Static argument values and the [`Variant`] they select.

use std::collections::BTreeMap;
use std::fmt;

/// A value of a static (compile-time) argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StaticValue {
    /// A boolean switch.
    Bool(bool),
    /// An integer (level indices such as `nflatlev`).
    I32(i32),
}

impl fmt::Display for StaticValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StaticValue::Bool(b) => write!(f, "{b}"),
            StaticValue::I32(i) => write!(f, "{i}"),
        }
    }
}

/// The static argument values selecting one variant of a program.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Variant(pub BTreeMap<String, StaticValue>);

impl Variant {
    /// The empty variant (programs without static arguments).
    pub fn new() -> Variant {
        Variant::default()
    }

    /// Adds or replaces a value (builder style).
    pub fn with(mut self, name: &str, value: impl Into<StaticValue>) -> Variant {
        self.0.insert(name.to_string(), value.into());
        self
    }

    /// The value of a static argument.
    pub fn get(&self, name: &str) -> Option<StaticValue> {
        self.0.get(name).copied()
    }
}

impl From<bool> for StaticValue {
    fn from(b: bool) -> StaticValue {
        StaticValue::Bool(b)
    }
}

impl From<i32> for StaticValue {
    fn from(i: i32) -> StaticValue {
        StaticValue::I32(i)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("default");
        }
        let parts: Vec<String> = self.0.iter().map(|(k, v)| format!("{k}={v}")).collect();
        f.write_str(&parts.join(", "))
    }
}
