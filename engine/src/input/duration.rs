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

impl GoDuration {
    /// Parses like Go's `time.ParseDuration`.
    pub fn parse(text: &str) -> Result<GoDuration, DurationError> {
        let bad = || DurationError(format!("time: invalid duration \"{text}\""));
        let (neg, mut s) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        if s == "0" {
            return Ok(GoDuration(0));
        }
        if s.is_empty() {
            return Err(bad());
        }
        let mut total: i128 = 0;
        while !s.is_empty() {
            let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
            let int_part = &s[..int_len];
            s = &s[int_len..];
            let mut frac_part = "";
            if let Some(rest) = s.strip_prefix('.') {
                let n = rest.bytes().take_while(u8::is_ascii_digit).count();
                frac_part = &rest[..n];
                s = &rest[n..];
            }
            if int_part.is_empty() && frac_part.is_empty() {
                return Err(bad());
            }
            let unit_len = s
                .char_indices()
                .find(|(_, c)| *c == '.' || c.is_ascii_digit())
                .map_or(s.len(), |(i, _)| i);
            let unit = &s[..unit_len];
            s = &s[unit_len..];
            if unit.is_empty() {
                return Err(DurationError(format!(
                    "time: missing unit in duration \"{text}\""
                )));
            }
            let Some(&(_, scale)) = NANOS.iter().find(|(u, _)| *u == unit) else {
                return Err(DurationError(format!(
                    "time: unknown unit \"{unit}\" in duration \"{text}\""
                )));
            };
            let whole: i128 = if int_part.is_empty() {
                0
            } else {
                int_part.parse::<i128>().map_err(|_| bad())?
            };
            let mut value = whole.checked_mul(scale as i128).ok_or_else(bad)?;
            if !frac_part.is_empty() {
                // Go truncates the fractional part to nanosecond precision.
                let mut f = scale as f64;
                let mut acc: f64 = 0.0;
                for d in frac_part.bytes() {
                    f /= 10.0;
                    acc += f64::from(d - b'0') * f;
                }
                value += acc as i128;
            }
            total += value;
            if total > i64::MAX as i128 {
                return Err(bad());
            }
        }
        let total = if neg { -total } else { total };
        i64::try_from(total).map(GoDuration).map_err(|_| bad())
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
