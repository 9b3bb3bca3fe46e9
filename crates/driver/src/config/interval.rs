//! Durations of a run's configuration: `"9d"`, `"12h"`, `"30m"`, `"300s"` (simulated
//! time) or `"10 steps"` (model time steps), written back in the same form.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Seconds per simulated day.
pub const SECONDS_PER_DAY: f64 = 86_400.0;

/// A span of simulated time, or a number of model time steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Interval {
    /// Simulated seconds (`"9d"`, `"12h"`, `"30m"`, `"300s"`).
    Seconds(f64),
    /// Model time steps (`"10 steps"`, `"1 step"`).
    Steps(u64),
}

/// The units an [`Interval`] is written in, largest first, with their seconds.
const UNITS: [(&str, f64); 4] = [
    ("d", SECONDS_PER_DAY),
    ("h", 3600.0),
    ("m", 60.0),
    ("s", 1.0),
];

/// What an interval looks like, for error messages.
pub const INTERVAL_HINT: &str =
    "a number with a unit, d (days), h (hours), m (minutes) or s (seconds), e.g. \"6h\", \
     \"1.5d\", \"300s\", or a number of time steps, e.g. \"10 steps\"";

impl FromStr for Interval {
    type Err = String;

    fn from_str(text: &str) -> Result<Interval, String> {
        let bad = |why: &str| format!("`{text}` is not a duration ({why}): give {INTERVAL_HINT}");
        let t = text.trim();
        if let Some(n) = t.strip_suffix("steps").or_else(|| t.strip_suffix("step")) {
            let n: u64 = n
                .trim()
                .parse()
                .map_err(|_| bad("the number of steps must be a whole number"))?;
            if n == 0 {
                return Err(bad("at least one step"));
            }
            return Ok(Interval::Steps(n));
        }
        let (unit, seconds) = UNITS
            .iter()
            .find(|(u, _)| t.ends_with(u))
            .ok_or_else(|| bad("no unit"))?;
        let number = t[..t.len() - unit.len()].trim();
        let x: f64 = number.parse().map_err(|_| bad("not a number"))?;
        let s = x * seconds;
        if !(s.is_finite() && s > 0.0) {
            return Err(bad("it must be positive"));
        }
        Ok(Interval::Seconds(s))
    }
}

impl fmt::Display for Interval {
    /// The largest unit that holds the span a whole number of times (seconds otherwise).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Interval::Steps(1) => write!(f, "1 step"),
            Interval::Steps(n) => write!(f, "{n} steps"),
            Interval::Seconds(s) => {
                let (unit, per) = UNITS
                    .iter()
                    .find(|(_, per)| (s / per).fract() == 0.0)
                    .unwrap_or(&("s", 1.0));
                write!(f, "{}{unit}", s / per)
            }
        }
    }
}

impl Interval {
    /// The whole number of time steps of `dtime` seconds this interval spans, or why
    /// not (`what` names the option in the message).
    pub fn steps(&self, dtime: f64, what: &str) -> Result<u64, String> {
        match *self {
            Interval::Steps(n) => Ok(n),
            Interval::Seconds(s) => whole_steps(s, dtime).ok_or_else(|| {
                format!(
                    "{what} of {self} is {} time steps of {dtime} s: make it a multiple \
                         of dtime, or give it in steps (\"N steps\")",
                    fraction(s / dtime)
                )
            }),
        }
    }
}

/// A number of steps for a message: at most four decimals, trailing zeros dropped.
pub(crate) fn fraction(x: f64) -> String {
    let t = format!("{x:.4}");
    let t = t.trim_end_matches('0').trim_end_matches('.');
    t.to_string()
}

/// `seconds/dtime` when it is a whole number ≥ 1 (to 1e-9 relative, so that `"1.5d"`
/// of 300 s steps counts), else `None`.
pub fn whole_steps(seconds: f64, dtime: f64) -> Option<u64> {
    let n = seconds / dtime;
    let r = n.round();
    ((n - r).abs() <= 1e-9 * n.max(1.0) && r >= 1.0 && r < u64::MAX as f64).then_some(r as u64)
}

impl Serialize for Interval {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Interval {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Interval, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
