//! JSON documents (`kubectl get -o json`, `az … -o json`) read at JSON speed into the same
//! [`Node`] tree the YAML reader builds: the same spans (line and column of each value, of
//! each key), the same typing (strings are quoted scalars, numbers and `true`/`false`
//! plain ones, `null` is null) and the same repeated-key findings. JSON is YAML flow syntax,
//! so the YAML reader would give the same tree; it is generic over YAML's grammar and several
//! times slower on large dumps. Anything this reader does not accept (a syntax error, YAML
//! beyond JSON, nesting past the limit) goes to the YAML reader, which reads it or reports
//! the error in its words.

use super::bytes::{string_stop, word_at};
use super::diagnostics::Span;
use super::documents::RepeatedKeys;
use super::documents::MAX_DEPTH;
use super::node::{Node, Value};
use compact_str::CompactString;

/// Repeated keys: where the repeat is, and the key.
pub(crate) type Duplicates = Vec<(Span, String)>;

/// Whether `text` looks like a JSON document (its first non-blank character opens one).
pub(crate) fn looks_like_json(text: &str) -> bool {
    matches!(
        text.trim_start_matches([' ', '\t', '\r', '\n', '\u{feff}'])
            .as_bytes()
            .first(),
        Some(b'{' | b'[')
    )
}

/// Reads `text` (lines numbered from `first_line`) as one JSON value, or `None` when it is not
/// exactly one JSON value (the caller then reads it as YAML).
pub(crate) fn parse(text: &str, first_line: u32) -> Option<(Node, Duplicates)> {
    parse_nested(text, first_line, 0)
}

/// [`parse`] for a value found `depth` collections deep in its document (an item of a
/// `kind: List` read on its own is two deep): the nesting limit counts them.
pub(crate) fn parse_nested(
    text: &str,
    first_line: u32,
    depth: usize,
) -> Option<(Node, Duplicates)> {
    let mut r = Reader::new(text, first_line, depth);
    let node = r.value()?;
    r.skip_ws();
    (r.pos == r.b.len()).then_some((node, r.duplicates))
}

/// Reads `text` as JSON values one after another, such as `kubectl get … -o json | jq
/// '.items[]'` prints (kubectl reads such a file as a stream of objects, each one a manifest),
/// handing each value and its repeated keys to `each` as it is read. `None` (and nothing
/// handed) unless the first value reads and something other than a comment or a document
/// end marker follows it (those are YAML's to read, as before). Else where a value that does
/// not read starts, if one does not: kubectl's JSON decoder stops there with an error, also
/// on text after a single value (`{…} garbage`, a stray `]`), which YAML's reader would drop.
pub(crate) fn parse_stream(
    text: &str,
    first_line: u32,
    mut each: impl FnMut(Node, Duplicates),
) -> Option<Option<Span>> {
    let mut r = Reader::new(text, first_line, 0);
    let first = r.value()?;
    r.skip_ws();
    match r.b.get(r.pos..) {
        None | Some([] | [b'#', ..] | [b'.', b'.', b'.', ..]) => return None,
        Some(_) => {}
    }
    each(first, std::mem::take(&mut r.duplicates));
    while r.pos < r.b.len() {
        let at = r.span();
        let node = match r.value() {
            Some(node) => node,
            None => return Some(Some(at)),
        };
        each(node, std::mem::take(&mut r.duplicates));
        r.skip_ws();
    }
    Some(None)
}

struct Reader<'a> {
    b: &'a [u8],
    text: &'a str,
    pos: usize,
    /// Line of `pos`, and the byte offset where that line starts.
    line: u32,
    line_start: usize,
    /// Whether the text is ASCII (a column is then a byte offset).
    ascii: bool,
    /// The last column counted, and where: columns count characters, and counting on from
    /// the last one keeps a long line (minified JSON) linear.
    col_at: (usize, u32),
    depth: usize,
    duplicates: Duplicates,
    /// The members and items of the open objects and arrays: they wait here and move into an
    /// exactly sized `Vec` when their object or array ends (one allocation each).
    entries: Vec<(Node, Node)>,
    items: Vec<Node>,
}

impl<'a> Reader<'a> {
    /// A reader at the first value of `text`, past blank space and a byte-order mark.
    fn new(text: &'a str, first_line: u32, depth: usize) -> Self {
        let mut r = Reader {
            b: text.as_bytes(),
            text,
            pos: 0,
            line: first_line,
            line_start: 0,
            ascii: super::bytes::ascii(text.as_bytes()),
            col_at: (0, 1),
            depth,
            duplicates: Vec::new(),
            entries: Vec::new(),
            items: Vec::new(),
        };
        r.skip_ws();
        if r.b.get(r.pos) == Some(&0xEF) {
            // A byte-order mark before the document.
            r.pos += 3;
            r.skip_ws();
        }
        r
    }
}

impl Reader<'_> {
    /// Where `pos` is. Columns are worked out here, not tracked byte by byte: most bytes of
    /// a pretty-printed dump are indentation and string contents no span points into.
    fn span(&mut self) -> Span {
        let column = if self.ascii {
            (self.pos - self.line_start) as u32 + 1
        } else {
            let (at, col) = if (self.line_start..=self.pos).contains(&self.col_at.0) {
                self.col_at
            } else {
                (self.line_start, 1)
            };
            let chars = self.b[at..self.pos]
                .iter()
                .filter(|&&c| c & 0xC0 != 0x80)
                .count();
            let col = col + chars as u32;
            self.col_at = (self.pos, col);
            col
        };
        Span {
            line: self.line,
            column,
        }
    }

    /// Moves past `n` bytes of one line (no newline among them).
    fn advance(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.b.len());
    }

    #[cfg_attr(optimize_hot, optimize(speed))]
    fn skip_ws(&mut self) {
        let b = self.b;
        let mut p = self.pos;
        loop {
            // Indentation first, eight bytes at a time: it is much of a pretty-printed dump.
            while let Some(word) = word_at(b, p) {
                let other = word ^ SPACES;
                if other != 0 {
                    p += (other.trailing_zeros() / 8) as usize;
                    break;
                }
                p += 8;
            }
            match b.get(p) {
                Some(b' ' | b'\t' | b'\r') => p += 1,
                Some(b'\n') => {
                    p += 1;
                    self.line += 1;
                    self.line_start = p;
                }
                _ => break,
            }
        }
        self.pos = p;
    }

    #[cfg_attr(optimize_hot, optimize(speed))]
    fn value(&mut self) -> Option<Node> {
        let span = self.span();
        match *self.b.get(self.pos)? {
            b'{' => self.object(span),
            b'[' => self.array(span),
            b'"' => {
                let text = self.string()?;
                Some(Node::scalar(text, false, span))
            }
            b't' => self.word("true", span),
            b'f' => self.word("false", span),
            b'n' => {
                self.literal("null")?;
                Some(Node::new(Value::Null, span))
            }
            b'-' | b'0'..=b'9' => self.number(span),
            _ => None,
        }
    }

    fn literal(&mut self, word: &str) -> Option<()> {
        let end = self.pos + word.len();
        (self.b.get(self.pos..end)? == word.as_bytes()).then(|| self.advance(word.len()))
    }

    fn word(&mut self, word: &str, span: Span) -> Option<Node> {
        self.literal(word)?;
        Some(Node::scalar(word, true, span))
    }

    /// A JSON number, kept as written (a plain scalar: typed as YAML types it).
    fn number(&mut self, span: Span) -> Option<Node> {
        let start = self.pos;
        let b = self.b;
        let mut i = start;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => {
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            _ => return None,
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            let digits = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == digits {
                return None;
            }
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let digits = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == digits {
                return None;
            }
        }
        let text = CompactString::from(self.text.get(start..i)?);
        self.advance(i - start);
        Some(Node::scalar(text, true, span))
    }

    /// A string after its opening quote is at `pos`; unescaped.
    fn string(&mut self) -> Option<CompactString> {
        self.string_kept(true)
    }

    /// A string, checked as [`Self::string`] checks it but with its text kept only when
    /// `keep` (the empty string otherwise): a value no engine reads ([`super::node::unread`]:
    /// the last-applied annotation, whose escapes were most of the unescaping of a `-o json`
    /// dump).
    #[cfg_attr(optimize_hot, optimize(speed))]
    fn string_kept(&mut self, keep: bool) -> Option<CompactString> {
        let b = self.b;
        let start = self.pos + 1;
        // The common case: no escapes. Control characters make it not JSON.
        let q = string_stop(b, start)?;
        if b[q] < 0x20 {
            return None;
        }
        let mut i = q;
        if b[q] == b'"' {
            let s = match keep {
                true => super::node::text_of(self.text.get(start..q)?),
                false => CompactString::default(),
            };
            self.advance(q + 1 - self.pos);
            return Some(s);
        }
        let mut out = String::new();
        if keep {
            out.push_str(self.text.get(start..i)?);
        }
        loop {
            let c = *b.get(i)?;
            match c {
                b'"' => {
                    self.advance(i + 1 - self.pos);
                    return Some(out.into());
                }
                b'\\' => {
                    let e = *b.get(i + 1)?;
                    i += 2;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = hex4(b.get(i..i + 4)?)?;
                            i += 4;
                            let lo = match b.get(i..i + 6) {
                                Some([b'\\', b'u', h @ ..]) if (0xD800..0xDC00).contains(&hi) => {
                                    hex4(h).filter(|lo| (0xDC00..0xE000).contains(lo))
                                }
                                _ => None,
                            };
                            match lo {
                                Some(lo) => {
                                    i += 6;
                                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                                }
                                // A surrogate outside a pair is U+FFFD, as Go's JSON decoder
                                // (kubectl's for `-o json`) reads it.
                                None => char::from_u32(hi).unwrap_or('\u{FFFD}'),
                            }
                        }
                        _ => return None,
                    };
                    if keep {
                        out.push(ch);
                    }
                }
                0..=0x1F => return None,
                _ => {
                    let run = b[i..]
                        .iter()
                        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
                        .unwrap_or(b.len() - i);
                    if keep {
                        out.push_str(self.text.get(i..i + run)?);
                    }
                    i += run;
                }
            }
        }
    }

    fn open(&mut self) -> Option<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        self.advance(1);
        self.skip_ws();
        Some(())
    }

    fn object(&mut self, span: Span) -> Option<Node> {
        self.open()?;
        let start = self.entries.len();
        let mut keys = RepeatedKeys::default();
        if self.b.get(self.pos) == Some(&b'}') {
            self.advance(1);
        } else {
            loop {
                let key_span = self.span();
                if self.b.get(self.pos) != Some(&b'"') {
                    return None;
                }
                let key = self.string()?;
                self.skip_ws();
                if self.b.get(self.pos) != Some(&b':') {
                    return None;
                }
                self.advance(1);
                self.skip_ws();
                let mut value = match self.b.get(self.pos) {
                    Some(b'"') if super::node::unread(&key) => {
                        let span = self.span();
                        let text = self.string_kept(false)?;
                        Node::scalar(text, false, span)
                    }
                    _ => self.value()?,
                };
                if keys.check(&self.entries[start..], &key) {
                    self.duplicates.push((key_span, key.to_string()));
                }
                let key = Node::scalar(key, false, key_span);
                super::node::forget_unread(&key, &mut value);
                self.entries.push((key, value));
                if self.separator(b'}')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        Some(Node::new(
            Value::Map(self.entries.drain(start..).collect()),
            span,
        ))
    }

    /// After a member: `,` (more follow: false) or `close` (the end: true); else not JSON.
    #[cfg_attr(optimize_hot, optimize(speed))]
    fn separator(&mut self, close: u8) -> Option<bool> {
        self.skip_ws();
        let c = *self.b.get(self.pos)?;
        self.advance(1);
        if c == close {
            return Some(true);
        }
        (c == b',').then(|| self.skip_ws()).map(|()| false)
    }

    fn array(&mut self, span: Span) -> Option<Node> {
        self.open()?;
        let start = self.items.len();
        if self.b.get(self.pos) == Some(&b']') {
            self.advance(1);
        } else {
            loop {
                let item = self.value()?;
                self.items.push(item);
                if self.separator(b']')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        Some(Node::new(
            Value::Seq(self.items.drain(start..).collect()),
            span,
        ))
    }
}

/// Eight spaces, as one little-endian word.
const SPACES: u64 = u64::from_le_bytes(*b"        ");

fn hex4(b: &[u8]) -> Option<u32> {
    // Four hex digits exactly (`from_str_radix` alone would take a sign).
    let s = std::str::from_utf8(b)
        .ok()
        .filter(|_| b.iter().all(u8::is_ascii_hexdigit))?;
    u32::from_str_radix(s, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::documents::parse_yaml;

    /// The JSON reader builds exactly the YAML reader's tree (values, spans, repeated keys)
    /// for every JSON text it accepts, and refuses what is not JSON.
    #[test]
    fn same_tree_as_the_yaml_reader() {
        let texts = [
            "{}",
            "[]",
            "{\"a\": 1, \"b\": [true, false, null, -0.5e3, \"x\"], \"c\": {\"d\": \"\\u00e9\\n\\\"q\\\"\"}}",
            "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\"kind\": \"MemberCluster\", \"metadata\": {\"name\": \"é-ü\", \"labels\": {\"a\": \"1\"}}}\n    ],\n    \"kind\": \"List\"\n}\n",
            "  [1, 2.5, \"3\", \"true\", \"null\", \"\", 0, -12]",
            "{\"a\": 1, \"a\": 2}",
            "{\"s\": \"\\u00e9 and \\t\"}",
            "{\"quantity\": \"500m\", \"n\": 123456789012345678901234567890}",
            // The last-applied annotation is checked but not kept, by either reader.
            "{\"metadata\": {\"annotations\": {\"kubectl.kubernetes.io/last-applied-configuration\": \"{\\\"a\\\":\\\"\\u00e9\\\"}\\n\", \"b\": \"c\"}}}",
        ];
        for t in texts {
            let json = parse(t, 3);
            let yaml = parse_yaml(t, 3).ok().and_then(|(n, d)| n.map(|n| (n, d)));
            assert!(json.is_some(), "{t}");
            assert_eq!(json, yaml, "{t}");
        }
        // JSON escapes the YAML reader refuses: `\/` and surrogate pairs (Go's JSON decoder,
        // which reads `-o json`, accepts both).
        let slash = parse("[\"a\\/b\", \"\\ud83d\\ude00\"]", 1).map(|(n, _)| n.to_json());
        assert_eq!(slash, Some(serde_json::json!(["a/b", "\u{1F600}"])));
        // A surrogate outside a pair: U+FFFD, the rest of the string kept (Go's decoder).
        let lone = parse(
            "[\"\\ud800\", \"\\udc00x\", \"\\ud800\\u0041\", \"\\ud800\\ud800\\udc00\"]",
            1,
        )
        .map(|(n, _)| n.to_json());
        assert_eq!(
            lone,
            Some(serde_json::json!([
                "\u{FFFD}",
                "\u{FFFD}x",
                "\u{FFFD}A",
                "\u{FFFD}\u{10000}"
            ]))
        );
        for not_json in [
            "{a: 1}",
            "[1, 2,]",
            "{\"a\" 1}",
            "[1] x",
            "{\"a\": 01}",
            "[\"\\x\"]",
            "[\"\\u+041\"]",
        ] {
            assert_eq!(parse(not_json, 1), None, "{not_json}");
        }
        // Not kept is not unchecked: a bad escape in the annotation is still not JSON.
        let bad = "{\"kubectl.kubernetes.io/last-applied-configuration\": \"{\\x}\"}";
        assert_eq!(parse(bad, 1), None);
        let good = bad.replace("\\x", "\\\"");
        let forgotten = parse(&good, 1).map(|(n, _)| n.to_json());
        assert_eq!(
            forgotten,
            Some(serde_json::json!({"kubectl.kubernetes.io/last-applied-configuration": ""}))
        );
    }

    /// Strings are scanned eight bytes at a time: a quote, a backslash, a control character
    /// or a non-ASCII character at every position of the first words and past them reads as
    /// serde_json reads it (or is refused where serde_json refuses it).
    #[test]
    fn strings_read_as_serde_json_reads_them_wherever_the_special_byte_is() {
        for special in [
            "\\\"", "\\\\", "\\n", "\\u00e9", "é", "\u{1}", "\u{1f}", "\t", " ", "\u{7f}",
        ] {
            for before in 0..40 {
                for after in [0, 1, 7, 8, 9, 40] {
                    let text =
                        format!("[\"{}{special}{}\"]", "a".repeat(before), "b".repeat(after));
                    let ours = parse(&text, 1).map(|(n, _)| n.to_json());
                    let theirs = serde_json::from_str::<serde_json::Value>(&text).ok();
                    assert_eq!(ours, theirs, "{text:?}");
                }
            }
        }
    }
}
