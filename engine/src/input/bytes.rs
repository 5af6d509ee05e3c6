//! Byte scans shared by the readers, eight bytes at a time: most lines, keys and strings of a
//! dump are shorter than the setup of a vectorised search, so a word-at-a-time look at the
//! first bytes comes first and `memchr` takes what remains of a long one.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;
/// How many bytes are looked at a word at a time before `memchr` takes over.
const SHORT: usize = 32;

/// The eight bytes at `at` as a little-endian word (the first byte lowest).
#[inline(always)]
pub(crate) fn word_at(b: &[u8], at: usize) -> Option<u64> {
    let bytes: [u8; 8] = b.get(at..at + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(bytes))
}

/// High bit set in each byte of `w` equal to `byte`: exact up to the first one (borrows
/// only carry past it), which is all a search needs.
#[inline(always)]
fn equal(w: u64, byte: u8) -> u64 {
    let x = w ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & HIGH
}

/// High bit set in each byte of `w` below 0x20, exact up to the first one.
#[inline(always)]
fn control(w: u64) -> u64 {
    w.wrapping_sub(ONES * 0x20) & !w & HIGH
}

#[inline(always)]
fn first(found: u64) -> usize {
    (found.trailing_zeros() / 8) as usize
}

/// The first `needle` in `hay`.
#[inline]
#[cfg_attr(optimize_hot, optimize(speed))]
pub(crate) fn find(needle: u8, hay: &[u8]) -> Option<usize> {
    let mut p = 0;
    for _ in 0..SHORT / 8 {
        let Some(w) = word_at(hay, p) else {
            return hay[p..].iter().position(|&c| c == needle).map(|i| p + i);
        };
        let found = equal(w, needle);
        if found != 0 {
            return Some(p + first(found));
        }
        p += 8;
    }
    memchr::memchr(needle, &hay[p..]).map(|i| p + i)
}

/// Where a JSON string's text from `at` stops: the first `"`, `\` or control character.
#[inline]
pub(crate) fn string_stop(b: &[u8], at: usize) -> Option<usize> {
    let mut p = at;
    for _ in 0..SHORT / 8 {
        let Some(w) = word_at(b, p) else { break };
        let found = equal(w, b'"') | equal(w, b'\\') | control(w);
        if found != 0 {
            return Some(p + first(found));
        }
        p += 8;
    }
    let rest = b.get(p..)?;
    let q = p + memchr::memchr2(b'"', b'\\', rest)?;
    match rest[..q - p].iter().position(|&c| c < 0x20) {
        Some(c) => Some(p + c),
        None => Some(q),
    }
}

/// `a == b`, lengths first: most names that differ differ in length, and comparing bytes is a
/// call in the size-optimised wasm build.
#[inline(always)]
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a == b
}

/// Whether every byte is ASCII (`str::is_ascii`), eight bytes at a time in a `u64`: the
/// standard one goes a `usize` at a time, four bytes in wasm32.
pub(crate) fn ascii(b: &[u8]) -> bool {
    let mut words = b.chunks_exact(8);
    let high = words
        .by_ref()
        .fold(0, |found, w| found | (u64::from_le_bytes(word(w)) & HIGH));
    high == 0 && words.remainder().is_ascii()
}

/// Whether every byte is printable ASCII, a tab or a line break: then the text holds
/// nothing YAML refuses or reads specially. Eight bytes at a time in a `u64`, with no early exit
/// inside a block of 64: natively the compiler turns the blocks into vector compares, and in
/// wasm (built without SIMD) it is 2.5x faster than the byte-wise test was.
#[cfg_attr(optimize_hot, optimize(speed))]
pub(crate) fn plain_ascii(b: &[u8]) -> bool {
    let mut blocks = b.chunks_exact(64);
    let found = blocks.by_ref().fold(0, |found, block| {
        found
            | block
                .chunks_exact(8)
                .fold(0, |f, w| f | unusual(u64::from_le_bytes(word(w))))
    });
    if found != 0 {
        return false;
    }
    let mut rest = [b' '; 64];
    rest[..blocks.remainder().len()].copy_from_slice(blocks.remainder());
    rest.chunks_exact(8)
        .all(|w| unusual(u64::from_le_bytes(word(w))) == 0)
}

/// The eight bytes of a `chunks_exact(8)` chunk.
// Always inlined: the whole text goes through these eight bytes at a time, and the
// size-optimised wasm build otherwise makes each a call.
#[inline(always)]
fn word(w: &[u8]) -> [u8; 8] {
    let mut a = [0; 8];
    a.copy_from_slice(w);
    a
}

/// The high bit of each byte of `w` set where that byte is below 0x20 other than tab, LF and
/// CR, or 0x7f and above. Exact per byte: each sum stays below 0x100, so nothing carries into
/// the next byte.
#[inline(always)]
fn unusual(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    const LOW: u64 = ONES * 0x7f;
    let low = w & LOW;
    let at_least_7f = ((low + ONES) | w) & HIGH;
    let below_20 = !((low + ONES * 0x60) | w) & HIGH;
    let is = |k: u64| {
        let z = w ^ (ONES * k);
        !(((z & LOW) + LOW) | z) & HIGH
    };
    (below_20 & !(is(b'\t'.into()) | is(b'\n'.into()) | is(b'\r'.into()))) | at_least_7f
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of byte at every position of the words and of the remainder.
    #[test]
    fn ascii_is_the_standard_test() {
        for len in 0..40 {
            for at in 0..len {
                for byte in [0x00, b'a', 0x7f, 0x80, 0xc3, 0xff] {
                    let mut b = vec![b'x'; len];
                    b[at] = byte;
                    assert_eq!(ascii(&b), b.is_ascii(), "{byte:#x} at {at} of {len}");
                }
            }
        }
    }

    /// Every position of the word-at-a-time part and past it, with decoys after the byte.
    #[test]
    fn scans_find_the_first_byte_wherever_it_is() {
        for len in 0..80 {
            for at in 0..=len {
                let mut hay = vec![b'a'; len];
                if at < len {
                    hay[at] = b':';
                }
                hay.extend_from_slice(b"x:\"\\\x01");
                let want = if at < len { at } else { len + 1 };
                assert_eq!(find(b':', &hay), Some(want), "{len} {at}");
                assert_eq!(find(b'#', &hay), None);
                let mut s = vec![b'a'; len];
                s.extend_from_slice(b"\"");
                assert_eq!(string_stop(&s, 0), Some(len));
                if at < len {
                    s[at] = 0x1f;
                    assert_eq!(string_stop(&s, 0), Some(at));
                }
            }
        }
        assert!(plain_ascii(&b"a: \"b\"\t\r\n~ ".repeat(20)));
        // Every byte value, at every place in a word, a block and the tail, next to every
        // other kind of byte: the answer is the byte-wise one.
        let usual = |c: u8| (0x20..0x7f).contains(&c) || matches!(c, b'\t' | b'\n' | b'\r');
        for c in 0..=255u8 {
            for at in [0, 1, 7, 8, 63, 64, 65, 70, 127, 128, 131] {
                for fill in [b' ', b'~', b'\t', b'\n', b'\r', 0x1f, 0x7f, 0x80, 0xff] {
                    let mut t = vec![b'a'; 132];
                    t[(at + 1) % 132] = fill;
                    t[at] = c;
                    let want = t.iter().all(|&b| usual(b));
                    assert_eq!(plain_ascii(&t), want, "{c:#x} at {at} beside {fill:#x}");
                    assert_eq!(
                        plain_ascii(&t[..at + 1]),
                        t[..=at].iter().all(|&b| usual(b))
                    );
                }
            }
        }
        for bad in [0u8, 0x1f, 0x7f, 0x80, 0xc2, 0xff] {
            for at in [0, 63, 64, 130] {
                let mut t = vec![b' '; 131];
                t[at] = bad;
                assert!(!plain_ascii(&t), "{bad:#x} at {at}");
            }
        }
    }
}
