//! Timestamps as Kubernetes reads them: `metav1.Time` unmarshals with Go's
//! `time.Parse(time.RFC3339, s)`, so a timestamp the API server would refuse is refused here,
//! with Go's error text, and one it accepts means the same instant.
//!
//! Go's rules for the layout `2006-01-02T15:04:05Z07:00` (its general parser; the RFC 3339
//! fast path accepts a subset): a 4-digit year; 2-digit month, day, minute and second; a 1- or
//! 2-digit hour; an upper-case `T`; optional fractional seconds after `.` or `,` (digits past
//! the ninth are ignored); `Z` or `±hh:mm` (hour ≤ 24, minute ≤ 60); nothing after.

use super::duration::{time_quote, time_quote_bytes};
use chrono::{DateTime, FixedOffset, NaiveDate, TimeDelta};
use std::fmt;

/// Go's layout, quoted in its error texts.
const LAYOUT: &str = "2006-01-02T15:04:05Z07:00";

/// Why a timestamp was refused, in Go's words (`*time.ParseError`'s `Error()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeError(String);

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TimeError {}

/// `cannot parse "<rest>" as "<layout element>"` (`rest` is bytes: Go slices bytes, so it
/// may start inside a character).
fn cannot(value: &str, rest: impl AsRef<[u8]>, elem: &str) -> TimeError {
    TimeError(format!(
        "parsing time {} as {}: cannot parse {} as {}",
        time_quote(value),
        time_quote(LAYOUT),
        time_quote_bytes(rest.as_ref()),
        time_quote(elem)
    ))
}

/// A value out of its range (`month out of range`, …).
fn out_of_range(value: &str, what: &str) -> TimeError {
    TimeError(format!(
        "parsing time {}: {what} out of range",
        time_quote(value)
    ))
}

/// serde: an instant of the options, read as the input's timestamps are (Go's RFC 3339, with
/// Go's error text), so `at` means what a timestamp in the input means.
pub fn utc<'de, D: serde::Deserializer<'de>>(d: D) -> Result<DateTime<chrono::Utc>, D::Error> {
    instant(&<String as serde::Deserialize>::deserialize(d)?)
}

/// [`utc`] for an optional instant (`null` or absent: none).
pub fn utc_opt<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<DateTime<chrono::Utc>>, D::Error> {
    <Option<String> as serde::Deserialize>::deserialize(d)?
        .as_deref()
        .map(instant)
        .transpose()
}

/// `text` in UTC, or Go's error as a serde error.
fn instant<E: serde::de::Error>(text: &str) -> Result<DateTime<chrono::Utc>, E> {
    parse(text).map(|t| t.to_utc()).map_err(E::custom)
}

/// Go's `getnum`: one or two leading digits (`fixed`: exactly two).
fn getnum(s: &str, fixed: bool) -> Option<(u32, &str)> {
    let b = s.as_bytes();
    let d0 = b.first().filter(|c| c.is_ascii_digit())?;
    match b.get(1).filter(|c| c.is_ascii_digit()) {
        Some(d1) => Some((u32::from(d0 - b'0') * 10 + u32::from(d1 - b'0'), &s[2..])),
        None if fixed => None,
        None => Some((u32::from(d0 - b'0'), &s[1..])),
    }
}

/// Parses `s` as Go's `time.Parse(time.RFC3339, s)` does.
pub fn parse(s: &str) -> Result<DateTime<FixedOffset>, TimeError> {
    let value = s;
    // 2006
    // Go takes four bytes when there are four and the first is a digit, then fails on
    // them with the rest after them.
    let b = s.as_bytes();
    if b.len() < 4 || !b[0].is_ascii_digit() {
        return Err(cannot(value, s, "2006"));
    }
    let year_text = s.get(..4).filter(|y| y.bytes().all(|c| c.is_ascii_digit()));
    let Some(year_text) = year_text else {
        return Err(cannot(value, &b[4..], "2006"));
    };
    let year: i32 = year_text
        .parse()
        .map_err(|_| cannot(value, &b[4..], "2006"))?;
    let s = &s[4..];
    let lit = |s: &'_ str, c: char| -> Result<(), TimeError> {
        if s.starts_with(c) {
            Ok(())
        } else {
            Err(cannot(value, s, &c.to_string()))
        }
    };
    lit(s, '-')?;
    let s = &s[1..];
    let (month, s) = getnum(s, true).ok_or_else(|| cannot(value, s, "01"))?;
    if !(1..=12).contains(&month) {
        return Err(out_of_range(value, "month"));
    }
    lit(s, '-')?;
    let s = &s[1..];
    let (day, s) = getnum(s, true).ok_or_else(|| cannot(value, s, "02"))?;
    lit(s, 'T')?;
    let s = &s[1..];
    let (hour, s) = getnum(s, false).ok_or_else(|| cannot(value, s, "15"))?;
    if hour >= 24 {
        return Err(out_of_range(value, "hour"));
    }
    lit(s, ':')?;
    let s = &s[1..];
    let (minute, s) = getnum(s, true).ok_or_else(|| cannot(value, s, "04"))?;
    if minute >= 60 {
        return Err(out_of_range(value, "minute"));
    }
    lit(s, ':')?;
    let s = &s[1..];
    let (second, mut s) = getnum(s, true).ok_or_else(|| cannot(value, s, "05"))?;
    if second >= 60 {
        return Err(out_of_range(value, "second"));
    }
    // Fractional seconds the layout does not name are read anyway.
    let mut nanos = 0u32;
    let b = s.as_bytes();
    if b.len() >= 2 && (b[0] == b'.' || b[0] == b',') && b[1].is_ascii_digit() {
        let n = 1 + b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        for (i, c) in b[1..n].iter().take(9).enumerate() {
            nanos += u32::from(c - b'0') * 10u32.pow(8 - i as u32);
        }
        s = &s[n..];
    }
    // Z07:00
    let offset = if let Some(rest) = s.strip_prefix('Z') {
        s = rest;
        0
    } else {
        let b = s.as_bytes();
        if b.len() < 6 || b[3] != b':' {
            return Err(cannot(value, s, "Z07:00"));
        }
        // Go takes the six bytes first, so a bad offset reports the text after them; its
        // range errors win over its syntax errors.
        let after = &b[6..];
        let two = |i: usize| -> Option<u32> {
            let (a, b) = (*b.get(i)?, *b.get(i + 1)?);
            (a.is_ascii_digit() && b.is_ascii_digit())
                .then(|| u32::from(a - b'0') * 10 + u32::from(b - b'0'))
        };
        let hh = two(1);
        let mm = hh.and(two(4));
        if mm.is_some_and(|m| m > 60) {
            return Err(out_of_range(value, "time zone offset minute"));
        }
        if hh.is_some_and(|h| h > 24) {
            return Err(out_of_range(value, "time zone offset hour"));
        }
        let sign = match b[0] {
            b'+' => 1,
            b'-' => -1,
            _ => return Err(cannot(value, after, "Z07:00")),
        };
        let (Some(hh), Some(mm)) = (hh, mm) else {
            return Err(cannot(value, after, "Z07:00"));
        };
        s = &s[6..];
        sign * i32::try_from(hh * 3600 + mm * 60).unwrap_or(0)
    };
    if !s.is_empty() {
        return Err(TimeError(format!(
            "parsing time {}: extra text: {}",
            time_quote(value),
            time_quote(s)
        )));
    }
    let date =
        NaiveDate::from_ymd_opt(year, month, day).ok_or_else(|| out_of_range(value, "day"))?;
    let local = date
        .and_hms_nano_opt(hour, minute, second, nanos)
        .ok_or_else(|| out_of_range(value, "second"))?;
    // Go keeps offsets up to 24:60; chrono's FixedOffset stops short of a day, so such an
    // offset is applied to the instant and the result kept in UTC.
    match FixedOffset::east_opt(offset) {
        Some(tz) => local
            .and_local_timezone(tz)
            .single()
            .ok_or_else(|| out_of_range(value, "time zone offset hour")),
        None => {
            let utc = local - TimeDelta::seconds(i64::from(offset));
            Ok(utc.and_utc().fixed_offset())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> String {
        match parse(s) {
            Ok(t) => t
                .to_utc()
                .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
            Err(e) => panic!("{s}: {e}"),
        }
    }

    fn err(s: &str) -> String {
        match parse(s) {
            Ok(t) => panic!("{s} accepted as {t}"),
            Err(e) => e.to_string(),
        }
    }

    /// What Go's `time.Parse(time.RFC3339, s)` gives for each (Go 1.22).
    #[test]
    fn accepts_what_go_accepts() {
        assert_eq!(ok("2026-03-04T11:58:42Z"), "2026-03-04T11:58:42Z");
        assert_eq!(
            ok("2026-03-04T11:58:42.5+01:00"),
            "2026-03-04T10:58:42.500Z"
        );
        assert_eq!(ok("2026-03-04T11:58:42,25Z"), "2026-03-04T11:58:42.250Z");
        assert_eq!(
            ok("2026-03-04T11:58:42.1234567891234Z"),
            "2026-03-04T11:58:42.123456789Z"
        );
        assert_eq!(ok("2026-03-04T1:58:42Z"), "2026-03-04T01:58:42Z");
        assert_eq!(ok("2026-03-04T11:58:42-24:00"), "2026-03-05T11:58:42Z");
        assert_eq!(ok("0000-01-01T00:00:00Z"), "0000-01-01T00:00:00Z");
        assert_eq!(ok("2024-02-29T00:00:00Z"), "2024-02-29T00:00:00Z");
    }

    #[test]
    fn refuses_what_go_refuses_with_its_words() {
        for (s, go) in [
            ("2026-03-04 11:58:42Z", "parsing time \"2026-03-04 11:58:42Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \" 11:58:42Z\" as \"T\""),
            ("2026-03-04t11:58:42Z", "parsing time \"2026-03-04t11:58:42Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"t11:58:42Z\" as \"T\""),
            ("2026-03-04T11:58:42z", "parsing time \"2026-03-04T11:58:42z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"z\" as \"Z07:00\""),
            ("2026-03-04T11:58:42", "parsing time \"2026-03-04T11:58:42\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"Z07:00\""),
            ("2026-03-04T11:58Z", "parsing time \"2026-03-04T11:58Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"Z\" as \":\""),
            ("2026-3-04T11:58:42Z", "parsing time \"2026-3-04T11:58:42Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"3-04T11:58:42Z\" as \"01\""),
            // Go has taken the four bytes "26-0" before atoi fails on them (the Go oracle).
            ("26-03-04T11:58:42Z", "parsing time \"26-03-04T11:58:42Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"3-04T11:58:42Z\" as \"2006\""),
            ("2026-03-04T11:58:42+01:xx", "parsing time \"2026-03-04T11:58:42+01:xx\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"Z07:00\""),
            ("2026-03-04T11:58:42+25:xx", "parsing time \"2026-03-04T11:58:42+25:xx\": time zone offset hour out of range"),
            ("2026-03-04T11:58:42\u{2212}01:00", "parsing time \"2026-03-04T11:58:42\\xe2\\x88\\x9201:00\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\\xe2\\x88\\x9201:00\" as \"Z07:00\""),
            ("2026-13-04T11:58:42Z", "parsing time \"2026-13-04T11:58:42Z\": month out of range"),
            ("2026-02-30T11:58:42Z", "parsing time \"2026-02-30T11:58:42Z\": day out of range"),
            ("2026-03-04T24:00:00Z", "parsing time \"2026-03-04T24:00:00Z\": hour out of range"),
            ("2026-03-04T11:58:60Z", "parsing time \"2026-03-04T11:58:60Z\": second out of range"),
            ("2026-03-04T11:58:42+0100", "parsing time \"2026-03-04T11:58:42+0100\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"+0100\" as \"Z07:00\""),
            ("2026-03-04T11:58:42Z junk", "parsing time \"2026-03-04T11:58:42Z junk\": extra text: \" junk\""),
            ("yesterday", "parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"yesterday\" as \"2006\""),
            ("", "parsing time \"\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"2006\""),
        ] {
            assert_eq!(err(s), go, "{s}");
        }
    }
}
