//! chrono's relaxed RFC 3339 reading of timestamps (`str::parse::<DateTime<FixedOffset>>`,
//! which chrono's serde impl uses too), without chrono's generic format-item parser.
//!
//! Why: chrono's `FromStr` runs its strftime-style `parse_internal` over format items, which
//! brings that whole parser (RFC 2822, month and weekday names, …) into the wasm for the two
//! places that read timestamps (model fields, the `at` option). Same acceptance, values and
//! error texts: this follows chrono 0.4's `parse_rfc3339_relaxed` step by step, the fields go
//! through chrono's own `Parsed` setters and `to_datetime`, and the tests below compare the
//! two on generated strings.

use chrono::format::{ParseError, Parsed};
use chrono::{DateTime, FixedOffset};
use std::fmt;

/// Why a timestamp was rejected: chrono's own error, or one of its scanner's (same texts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeError {
    /// From chrono's `Parsed` (field ranges, impossible dates).
    Chrono(ParseError),
    /// "input is out of range".
    OutOfRange,
    /// "input contains invalid characters".
    Invalid,
    /// "premature end of input".
    TooShort,
    /// "trailing input".
    TooLong,
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeError::Chrono(e) => return e.fmt(f),
            TimeError::OutOfRange => "input is out of range",
            TimeError::Invalid => "input contains invalid characters",
            TimeError::TooShort => "premature end of input",
            TimeError::TooLong => "trailing input",
        })
    }
}

impl From<ParseError> for TimeError {
    fn from(e: ParseError) -> Self {
        TimeError::Chrono(e)
    }
}

/// `s` without its first `n` bytes (callers pass ASCII lengths).
fn skip(s: &str, n: usize) -> &str {
    s.get(n..).unwrap_or("")
}

/// chrono's `scan::number`: `min..=max` ASCII digits.
fn number(s: &mut &str, min: usize, max: usize) -> Result<i64, TimeError> {
    let bytes = s.as_bytes();
    if bytes.len() < min {
        return Err(TimeError::TooShort);
    }
    let mut n = 0i64;
    for (i, c) in bytes.iter().take(max).copied().enumerate() {
        if !c.is_ascii_digit() {
            if i < min {
                return Err(TimeError::Invalid);
            }
            *s = skip(s, i);
            return Ok(n);
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(i64::from(c - b'0')))
            .ok_or(TimeError::OutOfRange)?;
    }
    *s = skip(s, max.min(bytes.len()));
    Ok(n)
}

/// A numeric item: leading whitespace, then up to `width` digits (a year may carry a sign,
/// and then any number of digits).
fn numeric(s: &mut &str, width: usize, signed: bool) -> Result<i64, TimeError> {
    *s = s.trim_start();
    if signed {
        if let Some(rest) = s.strip_prefix('-') {
            *s = rest;
            return 0i64
                .checked_sub(number(s, 1, usize::MAX)?)
                .ok_or(TimeError::OutOfRange);
        }
        if let Some(rest) = s.strip_prefix('+') {
            *s = rest;
            return number(s, 1, usize::MAX);
        }
    }
    number(s, 1, width)
}

/// Optional whitespace, then the literal `c`.
fn literal(s: &mut &str, c: char) -> Result<(), TimeError> {
    *s = s.trim_start();
    match s.strip_prefix(c) {
        Some(rest) => {
            *s = rest;
            Ok(())
        }
        None if s.is_empty() => Err(TimeError::TooShort),
        None => Err(TimeError::Invalid),
    }
}

/// chrono's `scan::timezone_offset` as the relaxed parser calls it: `Z`, or a sign (`+`, `-`
/// or U+2212) and `hh`, separators (`:` or whitespace), `mm`. Seconds east of UTC.
fn offset(s: &mut &str) -> Result<i64, TimeError> {
    if let Some(b'Z' | b'z') = s.as_bytes().first() {
        *s = skip(s, 1);
        return Ok(0);
    }
    let mut chars = s.chars();
    let negative = match chars.next() {
        Some('+') => false,
        Some('-' | '\u{2212}') => true,
        Some(_) => return Err(TimeError::Invalid),
        None => return Err(TimeError::TooShort),
    };
    *s = chars.as_str();
    let two = |s: &str| match s.as_bytes() {
        [a, b, ..] => Ok((*a, *b)),
        _ => Err(TimeError::TooShort),
    };
    let hours = match two(s)? {
        (h1 @ b'0'..=b'9', h2 @ b'0'..=b'9') => i64::from((h1 - b'0') * 10 + (h2 - b'0')),
        _ => return Err(TimeError::Invalid),
    };
    *s = skip(s, 2).trim_start_matches(|c: char| c == ':' || c.is_whitespace());
    let minutes = match two(s)? {
        (m1 @ b'0'..=b'5', m2 @ b'0'..=b'9') => i64::from((m1 - b'0') * 10 + (m2 - b'0')),
        (b'6'..=b'9', b'0'..=b'9') => return Err(TimeError::OutOfRange),
        _ => return Err(TimeError::Invalid),
    };
    *s = skip(s, 2);
    let seconds = hours * 3600 + minutes * 60;
    Ok(if negative { -seconds } else { seconds })
}

/// Parses `s` exactly as chrono's `s.parse::<DateTime<FixedOffset>>()` does.
pub fn parse(s: &str) -> Result<DateTime<FixedOffset>, TimeError> {
    let mut p = Parsed::new();
    let mut s = s;
    let s = &mut s;
    p.set_year(numeric(s, 4, true)?)?;
    literal(s, '-')?;
    p.set_month(numeric(s, 2, false)?)?;
    literal(s, '-')?;
    p.set_day(numeric(s, 2, false)?)?;
    match s.as_bytes().first() {
        Some(b't' | b'T' | b' ') => *s = skip(s, 1),
        Some(_) => return Err(TimeError::Invalid),
        None => return Err(TimeError::TooShort),
    }
    p.set_hour(numeric(s, 2, false)?)?;
    literal(s, ':')?;
    p.set_minute(numeric(s, 2, false)?)?;
    literal(s, ':')?;
    p.set_second(numeric(s, 2, false)?)?;
    if let Some(rest) = s.strip_prefix('.') {
        *s = rest;
        let before = s.len();
        let digits = number(s, 1, 9)?;
        // Scaled by the digits read (at most 9); further digits are ignored.
        let scale = 10i64.pow(9u32.saturating_sub((before - s.len()) as u32));
        p.set_nanosecond(digits * scale)?;
        *s = s.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    *s = s.trim_start();
    let utc = s
        .as_bytes()
        .get(..3)
        .is_some_and(|b| b.eq_ignore_ascii_case(b"UTC"));
    let seconds = if utc {
        *s = skip(s, 3);
        0
    } else {
        offset(s)?
    };
    p.set_offset(seconds)?;
    if !s.trim_start().is_empty() {
        return Err(TimeError::TooLong);
    }
    Ok(p.to_datetime()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn chrono(s: &str) -> Result<DateTime<FixedOffset>, String> {
        s.parse::<DateTime<FixedOffset>>()
            .map_err(|e| e.to_string())
    }

    fn ours(s: &str) -> Result<DateTime<FixedOffset>, String> {
        parse(s).map_err(|e| e.to_string())
    }

    #[test]
    fn same_as_chrono_on_known_inputs() {
        for s in [
            "2026-01-01T00:00:00Z",
            "2026-01-01t09:30:00.123456789123+01:00",
            "2026-01-01 09:30:00 UTC",
            "2026-01-01 09:30:00 utc trailing",
            " 2026 - 1 -1T9: 5 : 7 .5 +0130",
            "+12026-01-01T00:00:00Z",
            "-0001-12-31T23:59:60.5-23:59",
            "99999999999-01-01T00:00:00Z",
            "-99999999999999999999-01-01T00:00:00Z",
            "2026-02-30T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T00:00:00+24:00",
            "2026-01-01T00:00:00+05:60",
            "2026-01-01T00:00:00+05:6",
            "2026-01-01T00:00:00+5",
            "2026-01-01T00:00:00\u{2212}05:00",
            "2026-01-01T00:00:00",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00Z",
            "2026-01-01",
            "2026-01-01X",
            "2026-01-01T00:00:00Zjunk",
            "2026-01-01T00:00:00Z  ",
            "",
            "yesterday",
            "2026-01-01T00:00:00é",
        ] {
            assert_eq!(ours(s), chrono(s), "{s}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

        #[test]
        fn same_as_chrono_on_generated(s in "[ +\\-−0-9TtZzUuCc:.é]{0,32}") {
            prop_assert_eq!(ours(&s), chrono(&s), "{}", s);
        }

        #[test]
        fn same_as_chrono_near_valid(
            parts in proptest::collection::vec("[0-9]{1,3}|[ ]?", 6),
            sep in "[Tt ]|X",
            frac in "(\\.[0-9]{0,12})?",
            tz in "Z|z|UTC|[+\\-−][0-9]{1,2}:?[0-9]{0,2}| ?",
        ) {
            let s = format!(
                "20{}-{}-{}{sep}{}:{}:{}{frac}{tz}",
                parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]
            );
            prop_assert_eq!(ours(&s), chrono(&s), "{}", s);
        }
    }
}
