//! `f64` → text exactly as Rust's `{}` and `{:.N}` write it.
//!
//! Why not `format!`: core's float formatting (Grisu with a Dragon4 fallback, its bignum and
//! tables) is about 9 KB of code before wasm-opt, and the engine already carries zmij, serde_json's
//! shortest-digit formatter. zmij and core agree on the shortest digits except where the value
//! lies exactly halfway between two 17-digit candidates: zmij takes the even one, core the
//! upper one, and [`Shortest`] follows core. `tests` checks both types against `format!`.

use super::big::Big;
use std::fmt;

/// An `f64` written as `format!("{}", v)` writes it: the shortest digits that read back to
/// the same value, never with an exponent (`1e21` is written out in full); `NaN`, `inf`, `-0`.
/// Width and precision flags are not supported.
#[derive(Debug, Clone, Copy)]
pub struct Shortest(pub f64);

/// An `f64` written as `format!("{:.N}", v)` writes it: rounded half to even, on its exact
/// binary value, to `N` digits after the point.
#[derive(Debug, Clone, Copy)]
pub struct Fixed(pub f64, pub u32);

impl fmt::Display for Shortest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if let Some(text) = special(v) {
            return f.write_str(text);
        }
        if v.is_sign_negative() {
            f.write_str("-")?;
        }
        if v == 0.0 {
            return f.write_str("0");
        }
        let (digits, exp) = shortest(v.abs());
        // value = 0.DIGITS × 10^exp
        let n = digits.len() as i32;
        let (int, frac, zeros) = if exp <= 0 {
            ("0".as_bytes(), &digits[..], -exp)
        } else if exp < n {
            (&digits[..exp as usize], &digits[exp as usize..], 0)
        } else {
            (&digits[..], &[][..], 0)
        };
        f.write_str(ascii(int))?;
        for _ in n..exp {
            f.write_str("0")?;
        }
        if !frac.is_empty() {
            f.write_str(".")?;
            for _ in 0..zeros {
                f.write_str("0")?;
            }
            f.write_str(ascii(frac))?;
        }
        Ok(())
    }
}

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Fixed(v, prec) = *self;
        if let Some(text) = special(v) {
            return f.write_str(text);
        }
        if v.is_sign_negative() {
            f.write_str("-")?;
        }
        // |v| × 10^prec = m × 5^prec × 2^(e + prec), rounded half to even to an integer.
        let (m, e) = decode(v.abs());
        let mut n = Big::from_u64(m);
        for _ in 0..prec {
            n.mul_small(5);
        }
        let shift = i64::from(e) + i64::from(prec);
        if shift >= 0 {
            n.shl(shift as usize);
        } else {
            n = round_shr(n, shift.unsigned_abs() as usize);
        }
        let digits = n.into_decimal();
        let prec = prec as usize;
        let pad = (prec + 1).saturating_sub(digits.len());
        let mut text = vec![b'0'; pad];
        text.extend_from_slice(&digits);
        let point = text.len() - prec;
        f.write_str(ascii(&text[..point]))?;
        if prec > 0 {
            f.write_str(".")?;
            f.write_str(ascii(&text[point..]))?;
        }
        Ok(())
    }
}

fn special(v: f64) -> Option<&'static str> {
    if v.is_nan() {
        Some("NaN")
    } else if v == f64::INFINITY {
        Some("inf")
    } else if v == f64::NEG_INFINITY {
        Some("-inf")
    } else {
        None
    }
}

fn ascii(b: &[u8]) -> &str {
    // Only ASCII digits reach here.
    std::str::from_utf8(b).unwrap_or_default()
}

/// A finite non-negative `v` as `m × 2^e` with an integer `m`.
fn decode(v: f64) -> (u64, i32) {
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), exp - 1075)
    }
}

/// `b / 2^t` rounded half to even.
fn round_shr(b: Big, t: usize) -> Big {
    let bit = |i: usize| b.0.get(i / 32).is_some_and(|l| (l >> (i % 32)) & 1 == 1);
    let (limbs, r) = (t / 32, t % 32);
    let src = b.0.get(limbs..).unwrap_or(&[]);
    let mut q = Big((0..src.len())
        .map(|i| {
            let hi = match (r, src.get(i + 1)) {
                (0, _) | (_, None) => 0,
                (_, Some(h)) => h << (32 - r),
            };
            (src[i] >> r) | hi
        })
        .collect());
    while q.0.last() == Some(&0) {
        q.0.pop();
    }
    if t > 0 && bit(t - 1) && (bit(t) || (0..t - 1).any(bit)) {
        q.add_small(1);
    }
    q
}

/// The shortest round-trip digits of a finite positive `v` and `exp` with
/// `v ≈ 0.DIGITS × 10^exp`, chosen as core chooses them.
fn shortest(v: f64) -> (Vec<u8>, i32) {
    let (mut digits, mut exp) = zmij_digits(v);
    if is_upper_tie(v, &digits, exp) {
        // Round the last digit up, carrying through nines.
        while digits.last() == Some(&b'9') {
            digits.pop();
        }
        match digits.last_mut() {
            Some(d) => *d += 1,
            None => {
                digits.push(b'1');
                exp += 1;
            }
        }
    }
    (digits, exp)
}

/// zmij's shortest digits of a finite positive `v`, as [`shortest`] returns them.
fn zmij_digits(v: f64) -> (Vec<u8>, i32) {
    let mut buf = zmij::Buffer::new();
    let text = buf.format_finite(v).as_bytes();
    // zmij writes `123.45`, `1e21`, `1.5e-7`: split off the exponent, then drop the point and
    // the leading and trailing zeros.
    let (mantissa, mut exp) = match text.iter().position(|&c| c == b'e') {
        Some(i) => (
            &text[..i],
            std::str::from_utf8(&text[i + 1..])
                .ok()
                .and_then(|e| e.parse::<i32>().ok())
                .unwrap_or(0),
        ),
        None => (text, 0),
    };
    let int_len = mantissa
        .iter()
        .position(|&c| c == b'.')
        .unwrap_or(mantissa.len());
    exp += int_len as i32;
    let mut digits: Vec<u8> = mantissa
        .iter()
        .copied()
        .filter(u8::is_ascii_digit)
        .collect();
    let lead = digits.iter().take_while(|&&c| c == b'0').count();
    digits.drain(..lead);
    exp -= lead as i32;
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    (digits, exp)
}

/// Whether `v` is exactly halfway between `D` and `D + 1` (in units of the last digit), where
/// `D` is `digits` and `v ≈ 0.DIGITS × 10^exp`: there core writes `D + 1`.
fn is_upper_tie(v: f64, digits: &[u8], exp: i32) -> bool {
    let k = exp - digits.len() as i32; // v ≈ D × 10^k
    if digits.len() > 17 {
        return false;
    }
    let d = digits
        .iter()
        .fold(0u64, |a, &c| a * 10 + u64::from(c - b'0'));
    // v = m × 2^e; a tie is m × 2^(e+1) = (2D + 1) × 5^k × 2^k. 2D + 1 and 5^k are odd, so the
    // powers of two must match first, then the odd parts.
    let (m, e) = decode(v);
    let tz = m.trailing_zeros() as i32;
    let odd = m >> tz;
    let two_d1 = 2 * d + 1;
    if k >= 0 {
        e + 1 + tz == k && pow5_times(two_d1, k as u32) == Some(odd)
    } else {
        e + 1 + tz - k == 0 && pow5_times(odd, (-k) as u32) == Some(two_d1)
    }
}

/// `x × 5^k`, if it fits.
fn pow5_times(mut x: u64, k: u32) -> Option<u64> {
    for _ in 0..k {
        x = x.checked_mul(5)?;
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::{Fixed, Shortest};

    fn values() -> impl Iterator<Item = f64> {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let specials = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            0.5,
            1.5,
            2.5,
            0.125,
            0.005,
            0.015,
            0.025,
            1e21,
            1e22,
            1e-7,
            123456789.125,
            18790940872590.0 + 0.3125,
            5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            9007199254740993.0,
            0.3,
            2.0f64.powi(70),
        ];
        specials.into_iter().chain((0..400_000).map(move |i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match i % 4 {
                0 => f64::from_bits(x),
                // Values with a short exact binary expansion: many decimal ties.
                1 => (x >> 40) as f64 / f64::from(1u32 << (x % 24)),
                2 => (x >> 11) as f64 * 2f64.powi((x % 60) as i32 - 30),
                _ => (x % 100_000) as f64 / 100.0 + 0.005,
            }
        }))
    }

    #[test]
    fn shortest_matches_core() {
        let mut ties = 0;
        for v in values() {
            assert_eq!(Shortest(v).to_string(), format!("{v}"), "{:e}", v);
            if v.is_finite() && v != 0.0 {
                let (digits, exp) = super::zmij_digits(v.abs());
                ties += usize::from(super::is_upper_tie(v.abs(), &digits, exp));
            }
        }
        // The values include many where zmij's digits differ from core's.
        assert!(ties > 100, "{ties} ties");
    }

    #[test]
    fn fixed_matches_core() {
        for (i, v) in values().enumerate() {
            let prec = [2, 9, 0, 1, 3][i % 5];
            assert_eq!(
                Fixed(v, prec).to_string(),
                format!("{v:.*}", prec as usize),
                "{v:e} .{prec}"
            );
        }
        for v in [1e300, -2.5e250, 5e-324, 1.0 / 3.0] {
            for prec in [0, 2, 25, 40] {
                assert_eq!(Fixed(v, prec).to_string(), format!("{v:.*}", prec as usize));
            }
        }
    }
}
