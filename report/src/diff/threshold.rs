//! `--threshold`: `10%`, `5.5%` or `0.1`.

use std::fmt;

use crate::percentile_label;

/// Why a `--threshold` was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThresholdError {
    /// Nothing was given: write a percentage such as `10%` or a fraction such as `0.1`.
    Empty,
    /// Not a finite number, with or without `%`.
    NotANumber(String),
    /// Below zero: a threshold is a size of change, give it without a sign.
    Negative(String),
    /// A bare number above 1 (a change of more than 100 %): probably a percentage
    /// without its `%`; write `10%`, or `1000%` if that is meant.
    Ambiguous(String),
}

impl fmt::Display for ThresholdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThresholdError::Empty => write!(
                f,
                "empty threshold: give a percentage such as 10% or a fraction such as 0.1"
            ),
            ThresholdError::NotANumber(s) => write!(
                f,
                "threshold {s:?} is not a number: give a percentage such as 10% or a fraction such as 0.1"
            ),
            ThresholdError::Negative(s) => write!(
                f,
                "threshold {s:?} is negative: give the size of change without a sign, such as 10%"
            ),
            ThresholdError::Ambiguous(s) => {
                let as_percent = s
                    .parse::<f64>()
                    .map_or_else(|_| s.clone(), |v| percentile_label(v * 100.0));
                write!(
                    f,
                    "threshold {s:?} is a fraction above 1 ({as_percent}%): write {s}% for a \
                     percentage, or {as_percent}% if that is meant"
                )
            }
        }
    }
}

impl std::error::Error for ThresholdError {}

/// Parses a relative threshold: `10%`, `5.5%` or `0.1` (a fraction) → `0.1`, `0.055`, `0.1`.
///
/// Zero is accepted (any change in a time counts). A bare number above 1 is refused as
/// ambiguous; a percentage above 100 % is accepted.
pub fn parse_threshold(s: &str) -> Result<f64, ThresholdError> {
    let t = s.trim();
    if t.is_empty() {
        return Err(ThresholdError::Empty);
    }
    let (number, percent) = match t.strip_suffix('%') {
        Some(n) => (n.trim_end(), true),
        None => (t, false),
    };
    let v: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| ThresholdError::NotANumber(t.to_string()))?;
    if v < 0.0 {
        return Err(ThresholdError::Negative(t.to_string()));
    }
    if percent {
        Ok(v / 100.0)
    } else if v > 1.0 {
        Err(ThresholdError::Ambiguous(t.to_string()))
    } else {
        Ok(v)
    }
}

/// Why a `--min-delta` was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MinDeltaError {
    /// A number other than 0 without a unit.
    NoUnit(String),
    /// A unit other than ns, us (µs), ms and s: the unit, and the whole value.
    UnknownUnit(String, String),
    /// The part before the unit is not a non-negative finite number.
    NotADuration(String),
}

impl fmt::Display for MinDeltaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MinDeltaError::NoUnit(t) => write!(
                f,
                "{t:?} has no unit: write for example 500ns, 20us, 1.5ms or 2s"
            ),
            MinDeltaError::UnknownUnit(unit, t) => {
                write!(
                    f,
                    "unknown unit {unit:?} in {t:?}: use ns, us (or µs), ms or s"
                )
            }
            MinDeltaError::NotADuration(t) => write!(
                f,
                "{t:?} is not a duration: write for example 500ns, 20us, 1.5ms or 2s"
            ),
        }
    }
}

impl std::error::Error for MinDeltaError {}

/// Parses an absolute time floor (`--min-delta`): `0`, `500ns`, `20us` (or `20µs`),
/// `1.5ms`, `2s` → nanoseconds. A bare number other than 0 is refused: the unit is part
/// of the value.
pub fn parse_min_delta(s: &str) -> Result<u64, MinDeltaError> {
    let t = s.trim();
    if t == "0" {
        return Ok(0);
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| MinDeltaError::NoUnit(t.to_string()))?;
    let (number, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        other => return Err(MinDeltaError::UnknownUnit(other.to_string(), t.to_string())),
    };
    let v: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| MinDeltaError::NotADuration(t.to_string()))?;
    Ok((v * scale).round() as u64)
}
