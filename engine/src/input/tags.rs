//! Explicitly tagged scalars (`!!int 10`, `!!binary aGk=`, `!foo x`), read as go-yaml v2 reads
//! them into an untyped value (what sigs.k8s.io/yaml, kubectl and the API server do): the tag
//! decides the type, and a value that does not resolve to it fails the document with go-yaml's
//! message. Collections' tags change nothing there, so they are not read.

use super::diagnostics::Span;
use super::node::{go_resolved_tag, resolve, Node, Resolved, Value};
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;

const YAML_TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// The node a scalar with the tag `handle` + `suffix` at `span` stands for, or go-yaml's error.
pub(super) fn tagged_scalar(
    handle: &str,
    suffix: &str,
    text: String,
    span: Span,
) -> Result<Node, String> {
    let string = |text: String| Node::scalar(text, false, span);
    let full = format!("{handle}{suffix}");
    let Some(name) = full.strip_prefix(YAML_TAG_PREFIX) else {
        // go-yaml resolves only its own tags; any other is kept as the text.
        return Ok(string(text));
    };
    match name {
        "str" => Ok(string(text)),
        "binary" => binary(&text).map(string),
        "null" | "bool" | "int" | "float" | "timestamp" => {
            let resolved = if name == "timestamp" && go_timestamp(&text) {
                "timestamp"
            } else {
                go_resolved_tag(&text)
            };
            if name == "float" && resolved == "int" {
                // go-yaml makes an int64 a float64 where a float is asked for (a uint64 it
                // refuses below).
                if let Resolved::Int(i) = resolve(&text, true) {
                    return Ok(Node::scalar(format!("{:e}", i as f64), true, span));
                }
            }
            if resolved != name {
                return Err(format!("cannot decode !!{resolved} `{text}` as a !!{name}"));
            }
            Ok(match resolved {
                "null" => Node::new(Value::Null, span),
                // Into an untyped value go-yaml keeps a timestamp as written.
                "timestamp" => string(text),
                _ => Node::scalar(text, true, span),
            })
        }
        // `!!seq x`, `!!map x`, `!!merge x`, unknown `!!foo x`: not resolvable, the text.
        _ => Ok(string(text)),
    }
}

/// Go's `base64.StdEncoding.DecodeString`: padding required, line breaks skipped, trailing bits
/// not checked; the bytes become a Go string, whose invalid UTF-8 bytes JSON writes as U+FFFD
/// one by one.
fn binary(text: &str) -> Result<String, String> {
    const GO_STD: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
    );
    let compact: String = text.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
    let bytes = GO_STD
        .decode(compact)
        .map_err(|_| "!!binary value contains invalid base64 data".to_string())?;
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(chunk.invalid().iter().map(|_| char::REPLACEMENT_CHARACTER));
    }
    Ok(out)
}

/// go-yaml v2's `parseTimestamp`: four digits and `-` first, then Go's `time.Parse` with one of
/// `2006-1-2T15:4:5.999999999Z07:00`, the same with `t`, `2006-1-2 15:4:5.999999999`, `2006-1-2`.
fn go_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    [Some(b'T'), Some(b't'), Some(b' '), None]
        .into_iter()
        .any(|sep| go_parse_layout(b, sep).is_some())
}

/// One of the layouts above (`sep`: the date-time separator, `None` for the date alone).
fn go_parse_layout(b: &[u8], sep: Option<u8>) -> Option<()> {
    let year: i32 = std::str::from_utf8(&b[..4]).ok()?.parse().ok()?;
    let rest = b.get(5..)?;
    let (month, rest) = getnum(rest)?;
    let rest = rest.strip_prefix(b"-")?;
    let (day, mut rest) = getnum(rest)?;
    if let Some(sep) = sep {
        rest = if sep == b' ' {
            // A space in a Go layout matches any run of spaces, or the end of the value.
            if rest.first().is_some_and(|c| *c != b' ') {
                return None;
            }
            trim_spaces(rest)
        } else {
            rest.strip_prefix(&[sep])?
        };
        let (hour, r) = getnum(rest)?;
        let (minute, r) = getnum(r.strip_prefix(b":")?)?;
        let (second, mut r) = getnum(r.strip_prefix(b":")?)?;
        if hour >= 24 || minute >= 60 || second >= 60 {
            return None;
        }
        // `.999999999`: an optional fraction of at most nine digits (`.` or `,`).
        if r.len() >= 2 && matches!(r[0], b'.' | b',') && r[1].is_ascii_digit() {
            let digits = r[1..]
                .iter()
                .take(9)
                .take_while(|c| c.is_ascii_digit())
                .count();
            r = &r[1 + digits..];
        }
        if sep != b' ' {
            // `Z07:00`: `Z`, or a sign, two characters, `:`, two characters (Go's atoi each).
            r = match r.first()? {
                b'Z' => &r[1..],
                b'+' | b'-' if r.len() >= 6 && r[3] == b':' => {
                    // Go 1.20 and later (what Kubernetes is built with) refuse an offset
                    // past 24 hours or 60 minutes.
                    if go_atoi(&r[1..3])? > 24 || go_atoi(&r[4..6])? > 60 {
                        return None;
                    }
                    &r[6..]
                }
                _ => return None,
            };
        }
        rest = r;
    }
    // Go checks the day against the month's length, leap years included.
    (rest.is_empty() && chrono::NaiveDate::from_ymd_opt(year, month, day).is_some()).then_some(())
}

/// Go's `getnum(s, false)`: one or two digits.
fn getnum(s: &[u8]) -> Option<(u32, &[u8])> {
    let d = |i: usize| {
        s.get(i)
            .filter(|c| c.is_ascii_digit())
            .map(|c| u32::from(c - b'0'))
    };
    let first = d(0)?;
    match d(1) {
        Some(second) => Some((first * 10 + second, &s[2..])),
        None => Some((first, &s[1..])),
    }
}

/// Go's `time.atoi` on two bytes: an optional sign, then only digits (none is 0).
fn go_atoi(s: &[u8]) -> Option<i64> {
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut n = 0i64;
    for c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        n = n * 10 + i64::from(c - b'0');
    }
    Some(if neg { -n } else { n })
}

fn trim_spaces(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|c| **c == b' ').count();
    &s[n..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(tag: &str, text: &str) -> Result<serde_json::Value, String> {
        let (handle, suffix) = match tag.strip_prefix("!!") {
            Some(s) => (YAML_TAG_PREFIX, s),
            None => ("!", &tag[1..]),
        };
        tagged_scalar(handle, suffix, text.to_string(), Span::default()).map(|n| n.to_json())
    }

    // Each answer is what sigs.k8s.io/yaml (go-yaml v2) gives for `a: <tag> <text>`.
    #[test]
    fn tags_type_scalars_as_go_yaml_does() {
        use serde_json::json;
        assert_eq!(read("!!binary", "aGVsbG8="), Ok(json!("hello")));
        assert_eq!(read("!!binary", "aGVs\nbG8=\n"), Ok(json!("hello")));
        assert_eq!(read("!!binary", "/w=="), Ok(json!("\u{fffd}")));
        assert_eq!(read("!!binary", ""), Ok(json!("")));
        for bad in ["aGVsbG8", "aGVs bG8=", "%%%"] {
            assert_eq!(
                read("!!binary", bad),
                Err("!!binary value contains invalid base64 data".into())
            );
        }
        assert_eq!(
            read("!!int", "abc"),
            Err("cannot decode !!str `abc` as a !!int".into())
        );
        assert_eq!(
            read("!!int", "1.5"),
            Err("cannot decode !!float `1.5` as a !!int".into())
        );
        assert_eq!(
            read("!!bool", "1"),
            Err("cannot decode !!int `1` as a !!bool".into())
        );
        assert_eq!(
            read("!!int", "~"),
            Err("cannot decode !!null `~` as a !!int".into())
        );
        assert_eq!(
            read("!!timestamp", "x"),
            Err("cannot decode !!str `x` as a !!timestamp".into())
        );
        assert_eq!(read("!!int", "0x1F"), Ok(json!(31)));
        assert_eq!(read("!!float", "1"), Ok(json!(1.0)));
        assert_eq!(read("!!bool", "on"), Ok(json!(true)));
        assert_eq!(read("!!null", ""), Ok(json!(null)));
        assert_eq!(read("!!str", "10"), Ok(json!("10")));
        assert_eq!(read("!foo", "10"), Ok(json!("10")));
        assert_eq!(read("!!seq", "x"), Ok(json!("x")));
        assert_eq!(read("!!timestamp", "2001-1-2"), Ok(json!("2001-1-2")));
        assert_eq!(
            read("!!timestamp", "2001-01-02T03:04:05.5+01:00"),
            Ok(json!("2001-01-02T03:04:05.5+01:00"))
        );
        assert!(read("!!timestamp", "2001-02-29").is_err());
        assert!(read("!!timestamp", "2001-1-2T25:00:00Z").is_err());
    }
}
