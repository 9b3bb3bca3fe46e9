//! TOML errors as [`ConfigError`]s: the file and line, and for an unknown key its
//! section and the valid keys there (from serde's `deny_unknown_fields` message).

use super::ConfigError;

/// A TOML or serde error as a [`ConfigError`] naming the file and line (and, for an
/// unknown key, its section and the valid keys).
pub(super) fn parse_error(e: &toml::de::Error, text: &str, file: &str) -> ConfigError {
    let start = e.span().map_or(0, |s| s.start).min(text.len());
    let line = text[..start].matches('\n').count() + 1;
    let line_text = text.lines().nth(line - 1).unwrap_or("").to_string();
    let message = e.message().trim().to_string();
    if let Some((key, valid)) = unknown_field(&message) {
        let section = section_at(text, line)
            .filter(|s| *s != key)
            .map_or("the top level (sections)".to_string(), |s| format!("[{s}]"));
        return ConfigError::UnknownKey {
            file: file.to_string(),
            line,
            section,
            key,
            valid,
        };
    }
    ConfigError::Syntax {
        file: file.to_string(),
        line,
        text: line_text,
        message,
    }
}

/// The key and the valid keys of serde's "unknown field `k`, expected one of `a`, `b`".
pub(super) fn unknown_field(message: &str) -> Option<(String, Vec<String>)> {
    let rest = message.strip_prefix("unknown field `")?;
    let (key, rest) = rest.split_once('`')?;
    let valid = rest
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    Some((key.to_string(), valid))
}

/// The name of the last `[section]` header at or before `line` (from 1).
pub(super) fn section_at(text: &str, line: usize) -> Option<&str> {
    text.lines()
        .take(line)
        .filter_map(|l| {
            let l = l.trim();
            let name = l.strip_prefix('[')?.split(']').next()?;
            Some(name.trim())
        })
        .last()
}
