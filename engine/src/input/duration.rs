//! Go-style durations (`time.ParseDuration`): "10h5m", "1.5h", "300ms", "-2m3s", "0".

use std::fmt;

/// A duration in nanoseconds, as Go's `time.Duration` (an int64 of nanoseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct GoDuration(pub i64);

/// Why a duration string was rejected (the messages follow Go's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurationError(pub String);

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

const NANOS: [(&str, i64); 8] = [
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("μs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

/// Go's `leadingInt`: the leading digits, `None` past 2^63.
fn leading_int(s: &[u8]) -> Option<(u64, &[u8])> {
    let mut x: u64 = 0;
    let mut i = 0;
    while let Some(&c) = s.get(i).filter(|c| c.is_ascii_digit()) {
        if x > (1 << 63) / 10 {
            return None;
        }
        x = x * 10 + u64::from(c - b'0');
        if x > 1 << 63 {
            return None;
        }
        i += 1;
    }
    Some((x, &s[i..]))
}

/// Go's `leadingFraction`: the digits after the dot (those past the precision are skipped)
/// and their scale.
fn leading_fraction(s: &[u8]) -> (u64, f64, &[u8]) {
    let (mut x, mut scale, mut overflow) = (0u64, 1f64, false);
    let mut i = 0;
    while let Some(&c) = s.get(i).filter(|c| c.is_ascii_digit()) {
        i += 1;
        if overflow {
            continue;
        }
        if x > ((1u64 << 63) - 1) / 10 {
            overflow = true;
            continue;
        }
        let y = x * 10 + u64::from(c - b'0');
        if y > 1 << 63 {
            overflow = true;
            continue;
        }
        x = y;
        scale *= 10.0;
    }
    (x, scale, &s[i..])
}

/// Go's `time.quote` (the time package's error texts): ASCII kept (with `"` and `\\`
/// escaped), every byte of a control or non-ASCII character written as `\xNN`.
pub fn time_quote(s: &str) -> String {
    time_quote_bytes(s.as_bytes())
}

/// [`time_quote`] of bytes that may end inside a character (Go slices bytes).
pub fn time_quote_bytes(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for &b in s {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(char::from(b));
            }
            b' '..=0x7f => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
    out
}

impl GoDuration {
    /// A duration a simulated update may take: Go's syntax, zero or more; otherwise why not,
    /// in words (Go's parse error, or that it is negative).
    pub fn parse_non_negative(text: &str) -> Result<GoDuration, String> {
        match GoDuration::parse(text) {
            Ok(d) if d.0 >= 0 => Ok(d),
            Ok(_) => Err(format!("{text:?} is negative")),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Parses like Go's `time.ParseDuration` (a line-by-line port of its `ParseDuration`,
    /// `leadingInt` and `leadingFraction`: the same overflow points, the same order of
    /// checks, and so the same error for each input; checked against Go by
    /// `tests/go_oracle.rs`).
    pub fn parse(text: &str) -> Result<GoDuration, DurationError> {
        let bad = || DurationError(format!("time: invalid duration {}", time_quote(text)));
        let mut s = text.as_bytes();
        let mut neg = false;
        if let Some(&c @ (b'-' | b'+')) = s.first() {
            neg = c == b'-';
            s = &s[1..];
        }
        if s == b"0" {
            return Ok(GoDuration(0));
        }
        if s.is_empty() {
            return Err(bad());
        }
        let mut d: u64 = 0;
        while !s.is_empty() {
            let before = s.len();
            let (v, rest) = leading_int(s).ok_or_else(bad)?;
            let mut v = v;
            s = rest;
            let pre = before != s.len();
            let (mut f, mut scale, mut post) = (0u64, 1f64, false);
            if let Some(rest) = s.strip_prefix(b".") {
                let before = rest.len();
                let (ff, sc, rest) = leading_fraction(rest);
                (f, scale, s) = (ff, sc, rest);
                post = before != s.len();
            }
            if !pre && !post {
                return Err(bad());
            }
            let i = s
                .iter()
                .position(|c| *c == b'.' || c.is_ascii_digit())
                .unwrap_or(s.len());
            if i == 0 {
                return Err(DurationError(format!(
                    "time: missing unit in duration {}",
                    time_quote(text)
                )));
            }
            let unit = &s[..i];
            s = &s[i..];
            let Some(&(_, scale_ns)) = NANOS.iter().find(|(u, _)| u.as_bytes() == unit) else {
                return Err(DurationError(format!(
                    "time: unknown unit {} in duration {}",
                    time_quote_bytes(unit),
                    time_quote(text)
                )));
            };
            let unit = scale_ns as u64;
            if v > (1u64 << 63) / unit {
                return Err(bad());
            }
            v *= unit;
            if f > 0 {
                // Go: float64 is needed to be nanosecond accurate for fractions of hours.
                v += (f as f64 * (unit as f64 / scale)) as u64;
                if v > 1 << 63 {
                    return Err(bad());
                }
            }
            d += v;
            if d > 1 << 63 {
                return Err(bad());
            }
        }
        if neg {
            return Ok(GoDuration((d as i64).wrapping_neg()));
        }
        i64::try_from(d).map(GoDuration).map_err(|_| bad())
    }

    /// Whole seconds (truncated).
    pub fn seconds(self) -> i64 {
        self.0 / 1_000_000_000
    }

    /// As a chrono duration.
    pub fn to_chrono(self) -> chrono::Duration {
        chrono::Duration::nanoseconds(self.0)
    }
}

impl fmt::Display for GoDuration {
    /// Formats like Go's `Duration.String()` for whole seconds ("10h5m0s", "0s").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns == 0 {
            return f.write_str("0s");
        }
        let sign = if ns < 0 { "-" } else { "" };
        let abs = ns.unsigned_abs();
        if abs < 1_000_000_000 {
            return match abs {
                a if a < 1_000 => write!(f, "{sign}{a}ns"),
                a if a < 1_000_000 => write!(f, "{sign}{}µs", trim(a as f64 / 1e3)),
                a => write!(f, "{sign}{}ms", trim(a as f64 / 1e6)),
            };
        }
        let h = abs / 3_600_000_000_000;
        let m = (abs / 60_000_000_000) % 60;
        let s_ns = abs % 60_000_000_000;
        let secs = if s_ns.is_multiple_of(1_000_000_000) {
            format!("{}", s_ns / 1_000_000_000)
        } else {
            trim(s_ns as f64 / 1e9)
        };
        if h > 0 {
            write!(f, "{sign}{h}h{m}m{secs}s")
        } else if m > 0 {
            write!(f, "{sign}{m}m{secs}s")
        } else {
            write!(f, "{sign}{secs}s")
        }
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.9}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_go() {
        let h = 3_600_000_000_000i64;
        let m = 60_000_000_000i64;
        assert_eq!(GoDuration::parse("10h5m"), Ok(GoDuration(10 * h + 5 * m)));
        assert_eq!(GoDuration::parse("1.5h"), Ok(GoDuration(h + 30 * m)));
        assert_eq!(GoDuration::parse("300ms"), Ok(GoDuration(300_000_000)));
        assert_eq!(
            GoDuration::parse("-2m3s"),
            Ok(GoDuration(-(2 * m + 3_000_000_000)))
        );
        assert_eq!(GoDuration::parse("0"), Ok(GoDuration(0)));
        assert_eq!(GoDuration::parse(".5s"), Ok(GoDuration(500_000_000)));
        assert_eq!(
            GoDuration::parse("10"),
            Err(DurationError(
                "time: missing unit in duration \"10\"".into()
            ))
        );
        assert_eq!(
            GoDuration::parse("3d"),
            Err(DurationError(
                "time: unknown unit \"d\" in duration \"3d\"".into()
            ))
        );
        assert!(GoDuration::parse("").is_err());
        assert!(GoDuration::parse("h").is_err());
        assert!(GoDuration::parse("9999999999h").is_err());
    }

    /// Answers of Go's time.ParseDuration the Go oracle showed the earlier parser missed.
    #[test]
    fn errors_like_go() {
        let err = |s: &str| GoDuration::parse(s).map(|d| d.0).map_err(|e| e.0);
        // An integer past 2^63 is refused before its unit is looked at.
        assert_eq!(
            err("2645918059185343271046mss1s"),
            Err("time: invalid duration \"2645918059185343271046mss1s\"".into())
        );
        // Non-ASCII bytes quoted as \xNN (Go's time.quote), in the unit and the whole text.
        assert_eq!(
            err("52\u{b5}"),
            Err("time: unknown unit \"\\xc2\\xb5\" in duration \"52\\xc2\\xb5\"".into())
        );
        assert_eq!(err("2562047h47m16.854775807s"), Ok(i64::MAX));
        assert_eq!(
            err("2562047h47m16.854775808s"),
            Err("time: invalid duration \"2562047h47m16.854775808s\"".into())
        );
        assert_eq!(err("-9223372036854775808ns"), Ok(i64::MIN));
    }

    #[test]
    fn formats_like_go() {
        assert_eq!(
            GoDuration::parse("10h5m").map(|d| d.to_string()),
            Ok("10h5m0s".into())
        );
        assert_eq!(
            GoDuration::parse("90s").map(|d| d.to_string()),
            Ok("1m30s".into())
        );
        assert_eq!(GoDuration(0).to_string(), "0s");
        assert_eq!(GoDuration(1_500_000_000).to_string(), "1.5s");
    }
}
