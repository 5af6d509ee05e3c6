//! Decimal text → `f64`, correctly rounded (round half to even), accepting exactly the syntax of
//! Rust's `f64::from_str`: an optional sign, then `inf`, `infinity` or `nan` (any case), or
//! digits with an optional `.` and an optional `e`/`E` exponent.
//!
//! Why not `str::parse::<f64>`: core's parser carries a 10 KB table of 128-bit powers of five
//! (Eisel–Lemire) that gzip cannot shrink, about 5% of the npm `.wasm`. Floats are rare in our
//! input (YAML scalars that look like floats, a few annotations, quantities past 18 digits), so
//! this parser keeps only Clinger's exact fast path and, for everything else, exact big-integer
//! division. `tests::matches_core` checks it bit for bit against `str::parse::<f64>`.

use super::big::Big;

/// Significant digits kept. A halfway point between two doubles has at most 767 of them, so
/// 800 digits plus one sticky digit for any nonzero digits cut off round the same way.
const MAX_DIGITS: usize = 800;

/// `10^k` for the fast path; every one is exact in an `f64`.
const POW10: [f64; 23] = {
    let mut p = [1.0; 23];
    let mut k = 1;
    while k < 23 {
        p[k] = p[k - 1] * 10.0;
        k += 1;
    }
    p
};

/// The value of `s`, or `None` where `str::parse::<f64>` fails.
pub fn parse_f64(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let (neg, body) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    let v = if body.eq_ignore_ascii_case(b"inf") || body.eq_ignore_ascii_case(b"infinity") {
        f64::INFINITY
    } else if body.eq_ignore_ascii_case(b"nan") {
        f64::NAN
    } else {
        magnitude(body)?
    };
    Some(if neg { -v } else { v })
}

/// An unsigned decimal number: `digits [. digits] [(e|E) [sign] digits]`, some digit first.
fn magnitude(b: &[u8]) -> Option<f64> {
    let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = int_len;
    let mut frac_len = 0;
    if b.get(i) == Some(&b'.') {
        frac_len = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += 1 + frac_len;
    }
    if int_len + frac_len == 0 {
        return None;
    }
    let mantissa = &b[..i];
    let mut exp: i64 = 0;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        let neg = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            // Saturated: past ±10^6 the value is 0 or ∞ whatever the digits.
            exp = (exp * 10 + i64::from(c - b'0')).min(1_000_000);
            i += 1;
        }
        if i == start {
            return None;
        }
        if neg {
            exp = -exp;
        }
    }
    if i != b.len() {
        return None;
    }

    // The significant digits (no leading or trailing zeros) and the power of ten they scale by.
    let mut digits: Vec<u8> = Vec::new();
    let mut sticky = false;
    let mut scale = exp - frac_len as i64;
    for &c in mantissa.iter().filter(|c| c.is_ascii_digit()) {
        if digits.is_empty() && c == b'0' {
            continue;
        }
        if digits.len() < MAX_DIGITS {
            digits.push(c - b'0');
        } else {
            sticky |= c != b'0';
            scale += 1;
        }
    }
    if sticky {
        digits.push(1);
        scale -= 1;
    }
    while digits.last() == Some(&0) {
        digits.pop();
        scale += 1;
    }
    let n = digits.len() as i64;
    if n == 0 || n + scale < -324 {
        // Below 10^-325, under half the smallest subnormal.
        return Some(0.0);
    }
    if n + scale > 310 {
        return Some(f64::INFINITY);
    }
    if n <= 15 && scale.abs() <= 22 {
        // Clinger: the digits and the power of ten are exact, so one IEEE operation rounds.
        let d = digits.iter().fold(0u64, |a, &c| a * 10 + u64::from(c)) as f64;
        let p = POW10[scale.unsigned_abs() as usize];
        return Some(if scale < 0 { d / p } else { d * p });
    }
    Some(divide(&digits, scale))
}

/// `digits × 10^scale` rounded to nearest even, by long division of exact integers.
fn divide(digits: &[u8], scale: i64) -> f64 {
    let mut num = Big::from_digits(digits);
    let mut den = Big(vec![1]);
    for _ in 0..scale.max(0) {
        num.mul_small(10);
    }
    for _ in 0..(-scale).max(0) {
        den.mul_small(10);
    }
    // Scale num/den into [2^53, 2^55) so the quotient has 54 or 55 bits: one or two to round on.
    let shift = 54 - (num.bits() as i64 - den.bits() as i64);
    if shift >= 0 {
        num.shl(shift as usize);
    } else {
        den.shl((-shift) as usize);
    }
    den.shl(54);
    let mut q: u64 = 0;
    for _ in 0..55 {
        q <<= 1;
        if num.cmp(&den).is_ge() {
            num.sub(&den);
            q |= 1;
        }
        num.shl(1);
    }
    let sticky = !num.is_zero();

    // q × 2^-shift; keep 53 bits, or fewer where the result is subnormal (lsb 2^-1074).
    let q_bits = i64::from(64 - q.leading_zeros());
    let drop = (q_bits - 53).max(shift - 1074);
    if drop >= 64 {
        return 0.0;
    }
    let mut m = q >> drop;
    let rest = q & ((1u64 << drop) - 1);
    let half = 1u64 << (drop - 1);
    if rest > half || (rest == half && (sticky || m & 1 == 1)) {
        m += 1;
    }
    let mut lsb_exp = drop - shift;
    if m == 1 << 53 {
        m >>= 1;
        lsb_exp += 1;
    }
    if m < 1 << 52 {
        return f64::from_bits(m);
    }
    let biased = lsb_exp + 52 + 1023;
    if biased >= 2047 {
        return f64::INFINITY;
    }
    f64::from_bits(((biased as u64) << 52) | (m & ((1 << 52) - 1)))
}

#[cfg(test)]
mod tests {
    use super::parse_f64;

    fn same(s: &str) {
        let ours = parse_f64(s).map(f64::to_bits);
        let core = s.parse::<f64>().ok().map(f64::to_bits);
        assert_eq!(ours, core, "{s:?}");
    }

    #[test]
    fn hard_cases_match_core() {
        for s in [
            "0", "-0", "+0.0", "0e999999999", "1", "1.", ".5", "-.5e-3", "1e", "e5", ".", "", "+",
            "-", "1e+", "1e-", "1.5e+3", "1_0", "0x10", " 1", "1 ", "inf", "-Infinity", "NaN",
            "-nan", "infin", "nan1", "1.29", "4.5", "0.1", "0.3", "123456789012345",
            "1234567890123456", "9007199254740993", "9007199254740992.5", "1e23", "8.5e-1",
            "2.2250738585072011e-308", "2.2250738585072014e-308", "4.9406564584124654e-324",
            "2.4703282292062327e-324", "2.4703282292062328e-324", "2.4703282292062327e-324000",
            "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
            "1.797693134862315807e308", "1e308", "1e309", "1e-400", "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999999999999999999999999999999999999999999999999999999999999999999999",
            "0.000000000000000000000000000000000000000000001e-280",
            "7.038531e-26", "3.4028235677973366e38", "5e-324", "1e-323", "3e-324",
            "123456789e-30", "9999999999999999999", "18446744073709551616e-5",
            "0.1000000000000000055511151231257827021181583404541015625",
            "0.10000000000000000555111512312578270211815834045410156250000000000000000001",
            "0.1000000000000000055511151231257827021181583404541015624",
            // Exactly halfway between 1 and the next double (ties to even: 1), and just above.
            "1.00000000000000011102230246251565404236316680908203125",
            "1.000000000000000111022302462515654042363166809082031250000000001",
            "1.00000000000000033306690738754696212708950042724609375",
        ] {
            same(s);
        }
        let long = format!("0.{}1", "0".repeat(2000));
        same(&long);
        let many = format!("{}e-1700", "9".repeat(1500));
        same(&many);
    }

    #[test]
    fn matches_core() {
        // A fixed xorshift stream: texts built from the characters and shapes floats take.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..150_000 {
            let r = next();
            let s = match r % 4 {
                // Random bit patterns written shortest and with 17 digits, plus halfway points.
                0 => {
                    let f = f64::from_bits(next());
                    match r >> 8 & 3 {
                        0 => format!("{f:e}"),
                        1 => format!("{f:.17e}"),
                        2 => format!("{:.30e}", f),
                        _ => format!("{f}"),
                    }
                }
                // Digit strings with a point and an exponent anywhere.
                1 | 2 => {
                    let len = 1 + (next() % 40) as usize;
                    let mut s: String = (0..len)
                        .map(|_| char::from(b'0' + (next() % 10) as u8))
                        .collect();
                    if next() % 2 == 0 {
                        let at = (next() % (len as u64 + 1)) as usize;
                        s.insert(at, '.');
                    }
                    if next() % 2 == 0 {
                        let e = (next() % 700) as i64 - 350;
                        s.push_str(&format!("e{e}"));
                    }
                    s
                }
                // Short texts over the grammar's alphabet, mostly invalid.
                _ => {
                    let len = (next() % 8) as usize;
                    (0..len)
                        .map(|_| char::from(b"0123456789.eE+-in"[(next() % 17) as usize]))
                        .collect()
                }
            };
            same(&s);
            same(&format!("-{s}"));
        }
    }
}
