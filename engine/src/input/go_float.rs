//! Go's `strconv.ParseFloat(s, 64)`, which Karpenter applies to the pod deletion cost and
//! go-yaml to plain scalars: Go's float literal syntax (decimal and `0x…p…` hexadecimal,
//! `_` between digits, `inf`/`infinity`/`nan` in any case), no surrounding spaces, and ±Inf
//! with a range error past the largest float. Checked against Go itself by
//! `tests/go_oracle.rs`.

/// Why Go refuses the text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FloatError {
    /// `ErrSyntax`.
    Syntax,
    /// `ErrRange`: the value Go returns with it (±Inf).
    Range(f64),
}

/// `strconv.ParseFloat(s, 64)`.
pub fn parse_float(s: &str) -> Result<f64, FloatError> {
    if let Some((v, n)) = special(s) {
        return if n == s.len() {
            Ok(v)
        } else {
            Err(FloatError::Syntax)
        };
    }
    let r = read_float(s.as_bytes()).ok_or(FloatError::Syntax)?;
    if r.end != s.len() {
        return Err(FloatError::Syntax);
    }
    if r.hex {
        return atof_hex(r.mantissa, r.exp, r.neg, r.trunc);
    }
    // The syntax is Go's (checked above); the value is the correctly rounded one, which
    // Rust's parser also gives once the underscores are gone.
    let clean: String = s.chars().filter(|c| *c != '_').collect();
    let v: f64 = clean.parse().map_err(|_| FloatError::Syntax)?;
    if v.is_infinite() {
        Err(FloatError::Range(v))
    } else {
        Ok(v)
    }
}

/// `special`: a signed `inf`/`infinity` or an unsigned `nan`, any case; the length read.
fn special(s: &str) -> Option<(f64, usize)> {
    let b = s.as_bytes();
    let prefix = |t: &[u8], word: &[u8]| {
        t.iter()
            .zip(word)
            .take_while(|(a, w)| a.to_ascii_lowercase() == **w)
            .count()
    };
    let (sign, nsign, rest) = match b.first()? {
        b'+' => (1.0, 1, &b[1..]),
        b'-' => (-1.0, 1, &b[1..]),
        b'n' | b'N' => {
            return (prefix(b, b"nan") == 3).then_some((f64::NAN, 3));
        }
        _ => (1.0, 0, b),
    };
    if !matches!(rest.first(), Some(b'i' | b'I')) {
        return None;
    }
    let mut n = prefix(rest, b"infinity");
    // Anything between "inf" and "infinity" reads as "inf" (the rest is then a syntax error).
    if 3 < n && n < 8 {
        n = 3;
    }
    (n == 3 || n == 8).then_some((sign * f64::INFINITY, nsign + n))
}

struct Read {
    mantissa: u64,
    exp: i64,
    neg: bool,
    trunc: bool,
    hex: bool,
    end: usize,
}

/// `readFloat`: Go's float grammar, the leading mantissa digits and the decimal (or, for
/// hexadecimal, binary) exponent.
fn read_float(s: &[u8]) -> Option<Read> {
    let mut i = 0;
    let mut underscores = false;
    let mut neg = false;
    match s.first()? {
        b'+' => i += 1,
        b'-' => {
            neg = true;
            i += 1;
        }
        _ => {}
    }
    let mut base: u64 = 10;
    let mut max_mant_digits = 19;
    let mut exp_char = b'e';
    let mut hex = false;
    if i + 2 < s.len() && s[i] == b'0' && s[i + 1].eq_ignore_ascii_case(&b'x') {
        base = 16;
        max_mant_digits = 16;
        i += 2;
        exp_char = b'p';
        hex = true;
    }
    let (mut sawdot, mut sawdigits) = (false, false);
    let (mut nd, mut nd_mant, mut dp) = (0i64, 0i64, 0i64);
    let mut mantissa: u64 = 0;
    let mut trunc = false;
    while let Some(&c) = s.get(i) {
        let lc = c.to_ascii_lowercase();
        if c == b'_' {
            underscores = true;
        } else if c == b'.' {
            if sawdot {
                break;
            }
            sawdot = true;
            dp = nd;
        } else if c.is_ascii_digit() {
            sawdigits = true;
            if c == b'0' && nd == 0 {
                dp -= 1;
            } else {
                nd += 1;
                if nd_mant < max_mant_digits {
                    mantissa = mantissa * base + u64::from(c - b'0');
                    nd_mant += 1;
                } else if c != b'0' {
                    trunc = true;
                }
            }
        } else if base == 16 && (b'a'..=b'f').contains(&lc) {
            sawdigits = true;
            nd += 1;
            if nd_mant < max_mant_digits {
                mantissa = mantissa * 16 + u64::from(lc - b'a' + 10);
                nd_mant += 1;
            } else {
                trunc = true;
            }
        } else {
            break;
        }
        i += 1;
    }
    if !sawdigits {
        return None;
    }
    if !sawdot {
        dp = nd;
    }
    if base == 16 {
        dp *= 4;
        nd_mant *= 4;
    }
    if s.get(i).map(u8::to_ascii_lowercase) == Some(exp_char) {
        i += 1;
        let mut esign = 1;
        match s.get(i)? {
            b'+' => i += 1,
            b'-' => {
                i += 1;
                esign = -1;
            }
            _ => {}
        }
        if !s.get(i)?.is_ascii_digit() {
            return None;
        }
        let mut e: i64 = 0;
        while let Some(&c) = s.get(i).filter(|c| c.is_ascii_digit() || **c == b'_') {
            if c == b'_' {
                underscores = true;
            } else if e < 10000 {
                e = e * 10 + i64::from(c - b'0');
            }
            i += 1;
        }
        dp += e * esign;
    } else if base == 16 {
        // A hexadecimal mantissa needs its p exponent.
        return None;
    }
    let exp = if mantissa != 0 { dp - nd_mant } else { 0 };
    if underscores && !underscore_ok(&s[..i]) {
        return None;
    }
    Some(Read {
        mantissa,
        exp,
        neg,
        trunc,
        hex,
        end: i,
    })
}

/// `underscoreOK`: underscores only between digits (a base prefix counts as a digit).
fn underscore_ok(s: &[u8]) -> bool {
    let mut saw = b'^';
    let s = match s.first() {
        Some(b'-' | b'+') => &s[1..],
        _ => s,
    };
    let mut i = 0;
    let mut hex = false;
    if s.len() >= 2 && s[0] == b'0' && matches!(s[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = s[1].eq_ignore_ascii_case(&b'x');
    }
    for &c in &s[i..] {
        if c.is_ascii_digit() || hex && (b'a'..=b'f').contains(&c.to_ascii_lowercase()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else if saw == b'_' {
            return false;
        } else {
            saw = b'!';
        }
    }
    saw != b'_'
}

/// `atofHex` for float64: round the binary mantissa to 53 bits, half to even.
fn atof_hex(mut mantissa: u64, mut exp: i64, neg: bool, trunc: bool) -> Result<f64, FloatError> {
    const MANTBITS: u32 = 52;
    const BIAS: i64 = -1023;
    const MAX_EXP: i64 = (1 << 11) + BIAS - 2;
    const MIN_EXP: i64 = BIAS + 1;
    exp += i64::from(MANTBITS);
    while mantissa != 0 && mantissa >> (MANTBITS + 2) == 0 {
        mantissa <<= 1;
        exp -= 1;
    }
    if trunc {
        mantissa |= 1;
    }
    while mantissa >> (1 + MANTBITS + 2) != 0 {
        mantissa = (mantissa >> 1) | (mantissa & 1);
        exp += 1;
    }
    while mantissa > 1 && exp < MIN_EXP - 2 {
        mantissa = (mantissa >> 1) | (mantissa & 1);
        exp += 1;
    }
    let mut round = mantissa & 3;
    mantissa >>= 2;
    round |= mantissa & 1;
    exp += 2;
    if round == 3 {
        mantissa += 1;
        if mantissa == 1 << (1 + MANTBITS) {
            mantissa >>= 1;
            exp += 1;
        }
    }
    if mantissa >> MANTBITS == 0 {
        exp = BIAS;
    }
    let mut range = false;
    if exp > MAX_EXP {
        mantissa = 1 << MANTBITS;
        exp = MAX_EXP + 1;
        range = true;
    }
    let mut bits = mantissa & ((1 << MANTBITS) - 1);
    bits |= (((exp - BIAS) & ((1 << 11) - 1)) as u64) << MANTBITS;
    if neg {
        bits |= 1 << 63;
    }
    let v = f64::from_bits(bits);
    if range {
        Err(FloatError::Range(v))
    } else {
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers Go 1.19 gives (recorded from the oracle); the oracle test covers the rest.
    #[test]
    fn go_answers() {
        assert_eq!(parse_float("1_000.5"), Ok(1000.5));
        assert_eq!(parse_float("0x1p-2"), Ok(0.25));
        assert_eq!(parse_float("+0XcP-23"), Ok(12.0 / 8_388_608.0));
        assert_eq!(parse_float("1e400"), Err(FloatError::Range(f64::INFINITY)));
        assert_eq!(
            parse_float("-1e400"),
            Err(FloatError::Range(f64::NEG_INFINITY))
        );
        assert_eq!(parse_float(" 1"), Err(FloatError::Syntax));
        assert_eq!(parse_float("1_"), Err(FloatError::Syntax));
        assert_eq!(parse_float("0x1"), Err(FloatError::Syntax));
        assert_eq!(parse_float("+nan"), Err(FloatError::Syntax));
        assert_eq!(parse_float("infinit"), Err(FloatError::Syntax));
        assert_eq!(parse_float("-Infinity"), Ok(f64::NEG_INFINITY));
        assert!(parse_float("NaN").is_ok_and(f64::is_nan));
    }
}
