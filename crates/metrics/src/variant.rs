//! Static-argument variants: how a program variant (an ordered list of `(name, value)` pairs
//! such as `at_first_substep=true`) is written, parsed, normalised, hashed and matched.

use serde_json::Value;
use std::collections::BTreeMap;

/// A variant as a name → normalised value map (what matching works on).
pub type VariantMap = BTreeMap<String, String>;

/// Normalise a static-argument value for comparison: Python/JSON spellings of booleans
/// (`True`, `TRUE`, `true`) become `true`/`false`; anything else is kept, trimmed.
pub fn normalize_value(value: &str) -> String {
    let v = value.trim();
    if v.eq_ignore_ascii_case("true") {
        "true".to_string()
    } else if v.eq_ignore_ascii_case("false") {
        "false".to_string()
    } else {
        v.to_string()
    }
}

/// The text form of a variant, `name=value` pairs joined by commas in the given order;
/// empty for the default (no static arguments).
pub fn variant_label(variant: &[(String, String)]) -> String {
    let parts: Vec<String> = variant.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parts.join(",")
}

/// Parse a variant label (the inverse of [`variant_label`], values normalised). Items are
/// separated by commas; an item without `=` is a flag (`name` → `name=true`); the empty
/// string, `-` and `default` are the default variant.
pub fn parse_variant(label: &str) -> VariantMap {
    let label = label.trim();
    if label.is_empty() || label == "-" || label == "default" {
        return VariantMap::new();
    }
    label
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| match item.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), normalize_value(v)),
            None => (item.to_string(), "true".to_string()),
        })
        .collect()
}

/// A static-argument value as GT4Py writes it in JSON: booleans and numbers as such, anything
/// else as a string (so `static_args.get("at_first_substep") == True` works in Python).
pub fn static_arg_to_json(value: &str) -> Value {
    match normalize_value(value).as_str() {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        v => {
            if let Ok(i) = v.parse::<i64>() {
                Value::from(i)
            } else if let Some(n) = v.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
                Value::Number(n)
            } else {
                Value::String(value.to_string())
            }
        }
    }
}

/// A JSON static-argument value as a normalised string (the inverse of [`static_arg_to_json`]).
pub fn json_to_static_arg(value: &Value) -> String {
    match value {
        Value::String(s) => normalize_value(s),
        Value::Bool(b) => b.to_string(),
        Value::Null => "none".to_string(),
        other => other.to_string(),
    }
}

/// A stable 64-bit FNV-1a hash of the variant's label, as 16 hex digits (the `[hash]` part of
/// a GT4Py metrics key). Independent of platform and run.
pub fn variant_hash(variant: &[(String, String)]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in variant_label(variant).bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Whether two variants can denote the same compiled program: every name present in both
/// has the same (normalised) value. A variant with no entries is compatible with any.
pub fn compatible(a: &VariantMap, b: &VariantMap) -> bool {
    a.iter().all(|(k, v)| b.get(k).is_none_or(|w| w == v))
}

/// Whether `variant` has every name of `filter`, with the same value.
pub fn contains_all(variant: &VariantMap, filter: &VariantMap) -> bool {
    filter.iter().all(|(k, v)| variant.get(k) == Some(v))
}
