//! Kubernetes resource quantities (`"100m"`, `"4Gi"`, `"1e3"`), parsed exactly as
//! `k8s.io/apimachinery/pkg/api/resource.ParseQuantity` does.
//!
//! Two views of a value are kept because KubeFleet uses both: the exact decimal (selectors
//! compare with `Quantity.Cmp`) and Go's `AsApproximateFloat64` (sorters interpolate floats,
//! placement.md §2.4). The float is computed from the same internal representation Go would
//! hold (the int64 fast path or the rounded `inf.Dec`), so values such as `"0.3"` and
//! `"300m"` convert to different floats here exactly as they do in the scheduler.

use serde::{Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;

/// Why a string is not a quantity (the three errors `ParseQuantity` returns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum QuantityError {
    /// The text does not have the shape `<sign><digits>.<digits><suffix>`.
    FormatWrong,
    /// The numeric part has no digits.
    Numeric,
    /// The suffix is not one of `n u m k M G T P E Ki Mi Gi Ti Pi Ei e<int> E<int>`.
    Suffix,
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QuantityError::FormatWrong => {
                "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            }
            QuantityError::Numeric => "unable to parse numeric part of quantity",
            QuantityError::Suffix => "unable to parse quantity's suffix",
        })
    }
}

impl std::error::Error for QuantityError {}

/// A parsed quantity: an exact decimal plus the float the scheduler would derive from it.
#[derive(Debug, Clone)]
pub struct Quantity {
    /// As written: inline, without an allocation, as quantities nearly always are short (a
    /// fleet has several per cluster).
    text: compact_str::CompactString,
    neg: bool,
    /// Significant digits (values 0-9), no leading or trailing zeros; empty for zero.
    digits: Box<[u8]>,
    /// The value is `0.d1d2…dn × 10^exp`.
    exp: i64,
    approx: f64,
}

/// 2^63 − 1: `ParseQuantity` caps binary-suffixed values there.
const MAX_ALLOWED: &str = "9223372036854775807";

impl Quantity {
    /// Parses a quantity the way `resource.ParseQuantity` does.
    pub fn parse(text: &str) -> Result<Quantity, QuantityError> {
        if text.is_empty() {
            return Err(QuantityError::FormatWrong);
        }
        if text == "0" {
            return Ok(Quantity::zero(text));
        }
        let parts = scan(text)?;
        let (base, exponent, binary) =
            interpret_suffix(parts.suffix).ok_or(QuantityError::Suffix)?;

        // The int64 fast path of ParseQuantity decides which representation Go keeps, and with
        // it the float that AsApproximateFloat64 returns.
        let fast = fast_path(&parts, base, exponent, binary);

        if fast.is_none() && !parts.value.bytes().any(|b| b.is_ascii_digit()) {
            return Err(QuantityError::Numeric);
        }

        // Exact value: digits of num+denom scaled by the suffix.
        let mut le: Vec<u8> = parts
            .num
            .bytes()
            .chain(parts.denom.bytes())
            .rev()
            .map(|b| b - b'0')
            .collect();
        let mut e10: i64 = -(parts.denom.len() as i64);
        if base == 10 {
            e10 += i64::from(exponent);
        } else {
            let mut left = exponent.max(0);
            while left > 0 {
                let step = left.min(10);
                mul_small(&mut le, 1u32 << step);
                left -= step;
            }
        }
        trim_high_zeros(&mut le);
        let mut rounded_up = false;
        if !le.is_empty() && e10 < -9 {
            // Round up (away from zero) to the nano scale.
            let drop = (-9 - e10) as u64;
            let dropped_nonzero = if drop >= le.len() as u64 {
                let nz = le.iter().any(|d| *d != 0);
                le.clear();
                nz
            } else {
                let d = drop as usize;
                let nz = le[..d].iter().any(|x| *x != 0);
                le.drain(..d);
                nz
            };
            if dropped_nonzero {
                add_one(&mut le);
                rounded_up = true;
            }
            e10 = -9;
        }
        let _ = rounded_up;
        let (digits, exp) = normalize(le, e10);
        let mut q = Quantity {
            text: text.into(),
            neg: !parts.positive && !digits.is_empty(),
            digits,
            exp,
            approx: 0.0,
        };
        let mut capped = false;
        if binary && fast.is_none() {
            let max = Quantity::from_decimal_digits(MAX_ALLOWED);
            if q.magnitude_cmp(&max) == Ordering::Greater {
                q.digits = max.digits;
                q.exp = max.exp;
                capped = true;
            }
        }
        q.approx = match fast {
            Some(f) => f,
            None if capped => {
                let v = 9_223_372_036_854_775_807_i64 as f64;
                if q.neg {
                    -v
                } else {
                    v
                }
            }
            None if q.digits.is_empty() => {
                // inf.Dec zero keeps its scale: len(denom) − exponent for decimal suffixes.
                let scale =
                    parts.denom.len() as i64 - if base == 10 { i64::from(exponent) } else { 0 };
                0.0 * go_pow10(-scale)
            }
            None => {
                // inf.Dec rounded to scale 9: unscaled integer × Pow10(-9).
                let s: String = q.digits.iter().map(|d| char::from(b'0' + d)).collect();
                let unscaled_exp = q.exp - q.digits.len() as i64 + 9;
                let base = format!("{s}e{unscaled_exp}")
                    .parse::<f64>()
                    .unwrap_or(f64::INFINITY);
                let base = if q.neg { -base } else { base };
                base * go_pow10(-9)
            }
        };
        Ok(q)
    }

    fn zero(text: &str) -> Quantity {
        Quantity {
            text: text.into(),
            neg: false,
            digits: Box::new([]),
            exp: 0,
            approx: 0.0,
        }
    }

    fn from_decimal_digits(s: &str) -> Quantity {
        let le: Vec<u8> = s.bytes().rev().map(|b| b - b'0').collect();
        let (digits, exp) = normalize(le, 0);
        Quantity {
            text: s.into(),
            neg: false,
            digits,
            exp,
            approx: 0.0,
        }
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Go's `Quantity.AsApproximateFloat64()` of this value (placement.md §2.4).
    pub fn as_approximate_f64(&self) -> f64 {
        self.approx
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// Exact numeric comparison (`Quantity.Cmp`).
    pub fn cmp_exact(&self, other: &Quantity) -> Ordering {
        match (self.sign(), other.sign()) {
            (a, b) if a != b => a.cmp(&b),
            (0, _) => Ordering::Equal,
            (1, _) => self.magnitude_cmp(other),
            _ => other.magnitude_cmp(self),
        }
    }

    fn sign(&self) -> i8 {
        if self.digits.is_empty() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }

    fn magnitude_cmp(&self, other: &Quantity) -> Ordering {
        match (self.digits.is_empty(), other.digits.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        self.exp
            .cmp(&other.exp)
            .then_with(|| self.digits.cmp(&other.digits))
    }
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.cmp_exact(other) == Ordering::Equal
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

/// The pieces `parseQuantityString` returns.
struct Parts<'a> {
    positive: bool,
    value: &'a str,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// A port of apimachinery's `parseQuantityString` (including its quirks: `"-"` and `"."`
/// read as zero, `"1."` is accepted).
fn scan(s: &str) -> Result<Parts<'_>, QuantityError> {
    let b = s.as_bytes();
    let end = b.len();
    let mut positive = true;
    let mut pos = 0;
    match b.first() {
        Some(b'-') => {
            positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    // Leading zeros.
    loop {
        match b.get(pos) {
            None => {
                return Ok(Parts {
                    positive,
                    value: "0",
                    num: "0",
                    denom: "",
                    suffix: "",
                })
            }
            Some(b'0') => pos += 1,
            Some(_) => break,
        }
    }
    let num_start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos >= end {
        return Ok(Parts {
            positive,
            value: s,
            num: nonempty_or_zero(&s[num_start..]),
            denom: "",
            suffix: "",
        });
    }
    let num = nonempty_or_zero(&s[num_start..pos]);
    let mut denom = "";
    if b[pos] == b'.' {
        pos += 1;
        let d_start = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[d_start..pos];
        if pos >= end {
            return Ok(Parts {
                positive,
                value: s,
                num,
                denom,
                suffix: "",
            });
        }
    }
    let value = &s[..pos];
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    while pos < end {
        if !b[pos].is_ascii_digit() {
            return Err(QuantityError::FormatWrong);
        }
        pos += 1;
    }
    Ok(Parts {
        positive,
        value,
        num,
        denom,
        suffix: &s[suffix_start..],
    })
}

fn nonempty_or_zero(s: &str) -> &str {
    if s.is_empty() {
        "0"
    } else {
        s
    }
}

/// `quantitySuffixer.interpret`: (base, exponent, is BinarySI).
fn interpret_suffix(suffix: &str) -> Option<(u32, i32, bool)> {
    let dec = match suffix {
        "n" => Some(-9),
        "u" => Some(-6),
        "m" => Some(-3),
        "" => Some(0),
        "k" => Some(3),
        "M" => Some(6),
        "G" => Some(9),
        "T" => Some(12),
        "P" => Some(15),
        "E" => Some(18),
        _ => None,
    };
    if let Some(e) = dec {
        return Some((10, e, false));
    }
    let bin = match suffix {
        "Ki" => Some(10),
        "Mi" => Some(20),
        "Gi" => Some(30),
        "Ti" => Some(40),
        "Pi" => Some(50),
        "Ei" => Some(60),
        _ => None,
    };
    if let Some(e) = bin {
        return Some((2, e, true));
    }
    let rest = suffix
        .strip_prefix('e')
        .or_else(|| suffix.strip_prefix('E'))?;
    if rest.is_empty() {
        return None;
    }
    // strconv.ParseInt(…, 10, 64) then int32(…): the truncation is Go's, kept on purpose.
    let parsed = go_parse_int64(rest)?;
    Some((10, parsed as i32, false))
}

fn go_parse_int64(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: i128 = body.parse().ok()?;
    let v = if neg { -v } else { v };
    i64::try_from(v).ok()
}

/// The int64 fast path of `ParseQuantity`; returns the float Go would later compute from the
/// resulting `int64Amount`, or `None` when Go falls back to `inf.Dec`.
fn fast_path(p: &Parts<'_>, _base: u32, exponent: i32, binary: bool) -> Option<f64> {
    let mut mantissa: i64 = 1;
    let mut scale: i32;
    let precision: i32;
    if !binary {
        scale = exponent;
        precision = 18 - (p.num.len() + p.denom.len()) as i32;
    } else {
        scale = 0;
        if exponent >= 0 && p.denom.is_empty() {
            mantissa = 1i64.checked_shl(exponent as u32)?;
            precision = 15 - p.num.len() as i32 - ((exponent as f32) * 3.0 / 10.0) as i32 - 1;
        } else {
            precision = -1;
        }
    }
    if precision < 0 {
        return None;
    }
    scale = scale.checked_sub(p.denom.len() as i32)?;
    if scale < -9 {
        return None;
    }
    let shifted_len = p.num.len() + p.denom.len();
    if shifted_len == 0 {
        return None;
    }
    let mut value: i64 = 0;
    for b in p.num.bytes().chain(p.denom.bytes()) {
        value = value.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
    }
    let mut result = value.checked_mul(mantissa)?;
    if !p.positive {
        result = -result;
    }
    let base = result as f64;
    Some(if scale == 0 {
        base
    } else {
        base * go_pow10(i64::from(scale))
    })
}

/// Go's `math.Pow10`, table for table (negative powers are `1e-32k / 10^r`).
pub(crate) fn go_pow10(n: i64) -> f64 {
    const TAB: [f64; 32] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
    ];
    const POS32: [f64; 10] = [
        1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    ];
    const NEG32: [f64; 11] = [
        1e0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    ];
    if (0..=308).contains(&n) {
        let n = n as usize;
        return POS32[n / 32] * TAB[n % 32];
    }
    if (-323..=0).contains(&n) {
        let m = (-n) as usize;
        return NEG32[m / 32] / TAB[m % 32];
    }
    if n > 0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// Little-endian digit vector × small factor.
fn mul_small(le: &mut Vec<u8>, factor: u32) {
    let mut carry: u64 = 0;
    for d in le.iter_mut() {
        let v = u64::from(*d) * u64::from(factor) + carry;
        *d = (v % 10) as u8;
        carry = v / 10;
    }
    while carry > 0 {
        le.push((carry % 10) as u8);
        carry /= 10;
    }
}

fn add_one(le: &mut Vec<u8>) {
    for d in le.iter_mut() {
        if *d == 9 {
            *d = 0;
        } else {
            *d += 1;
            return;
        }
    }
    le.push(1);
}

fn trim_high_zeros(le: &mut Vec<u8>) {
    while le.last() == Some(&0) {
        le.pop();
    }
}

/// Little-endian digits × 10^e10 → (big-endian significant digits, exponent of `0.ddd`).
fn normalize(mut le: Vec<u8>, e10: i64) -> (Box<[u8]>, i64) {
    trim_high_zeros(&mut le);
    if le.is_empty() {
        return (Box::new([]), 0);
    }
    let exp = le.len() as i64 + e10;
    let low_zeros = le.iter().take_while(|d| **d == 0).count();
    let digits: Vec<u8> = le[low_zeros..].iter().rev().copied().collect();
    (digits.into_boxed_slice(), exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Quantity {
        match Quantity::parse(s) {
            Ok(q) => q,
            Err(e) => panic!("{s}: {e}"),
        }
    }

    #[test]
    fn equal_values_written_differently_compare_equal() {
        for s in [
            "100m",
            "0.1",
            "1e-1",
            "0.10",
            "+0.1",
            "100000u",
            "100000000n",
        ] {
            assert_eq!(q(s).cmp_exact(&q("0.1")), Ordering::Equal, "{s}");
        }
        assert_eq!(q("1G").cmp_exact(&q("1000M")), Ordering::Equal);
        assert_eq!(q("1Gi").cmp_exact(&q("1G")), Ordering::Greater);
        assert_eq!(q("1Gi").cmp_exact(&q("1073741824")), Ordering::Equal);
        assert_eq!(q("1.5Gi").cmp_exact(&q("1536Mi")), Ordering::Equal);
        assert_eq!(q("-1").cmp_exact(&q("0")), Ordering::Less);
        assert_eq!(q("-2").cmp_exact(&q("-1")), Ordering::Less);
        assert_eq!(q("0.11").cmp_exact(&q("0.1")), Ordering::Greater);
        assert_eq!(q("36Gi").cmp_exact(&q("40Gi")), Ordering::Less);
        assert_eq!(q("12").cmp_exact(&q("12e0")), Ordering::Equal);
    }

    #[test]
    fn sub_nano_values_round_up_away_from_zero() {
        assert_eq!(q("1e-10").cmp_exact(&q("1n")), Ordering::Equal);
        assert_eq!(q("0.0000000001").cmp_exact(&q("1n")), Ordering::Equal);
        assert_eq!(q("-1e-10").cmp_exact(&q("-1n")), Ordering::Equal);
        assert_eq!(
            q("1.0000000001").cmp_exact(&q("1000000001n")),
            Ordering::Equal
        );
        assert!(q("0.0000000000").is_zero());
    }

    #[test]
    fn binary_values_are_capped_at_int64_max() {
        assert_eq!(
            q("100000Ei").cmp_exact(&q("9223372036854775807")),
            Ordering::Equal
        );
        assert_eq!(
            q("100000E").cmp_exact(&q("100000000000000000000000")),
            Ordering::Equal
        );
    }

    #[test]
    fn invalid_suffixes_and_formats_are_errors() {
        for s in [
            "1K", "1kb", "1gi", "abc", "1.2.3", "v1.30.1", "1e", "", "1 Gi",
        ] {
            assert!(Quantity::parse(s).is_err(), "{s}");
        }
        assert_eq!(Quantity::parse("1K").err(), Some(QuantityError::Suffix));
        assert_eq!(
            Quantity::parse("1.2.3").err(),
            Some(QuantityError::FormatWrong)
        );
    }

    #[test]
    fn approximate_floats_follow_go() {
        // "0.3" is 3 × Pow10(-1) = 3 × (1/10) in Go; "300m" is 300 × (1/1000).
        assert_eq!(q("0.3").as_approximate_f64(), 3.0 * (1.0 / 10.0));
        assert_eq!(q("0.3").as_approximate_f64(), 0.30000000000000004);
        assert_eq!(q("300m").as_approximate_f64(), 0.3);
        assert_eq!(q("4Gi").as_approximate_f64(), 4294967296.0);
        assert_eq!(q("1e3").as_approximate_f64(), 1000.0);
        assert_eq!(q("0.060").as_approximate_f64(), 60.0 * (1.0 / 1000.0));
        assert_eq!(q("-5").as_approximate_f64(), -5.0);
        // Slow path (inf.Dec at scale 9).
        assert_eq!(
            q("1.5Gi").as_approximate_f64(),
            1610612736000000000.0 * (1.0 / 1e9)
        );
        assert_eq!(q("0").as_approximate_f64(), 0.0);
    }

    #[test]
    fn go_pow10_matches_tables() {
        assert_eq!(go_pow10(0), 1.0);
        assert_eq!(go_pow10(-1), 1.0 / 10.0);
        assert_eq!(go_pow10(-40), 1e-32 / 1e8);
        assert_eq!(go_pow10(400), f64::INFINITY);
        assert_eq!(go_pow10(-400), 0.0);
    }
}
