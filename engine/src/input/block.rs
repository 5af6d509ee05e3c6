//! YAML as kubectl prints it and as most manifests are written — block mappings and
//! sequences, one scalar per line, literal block scalars — read line by line into the same
//! [`Node`] tree the YAML reader builds: the same spans, the same typing, the same
//! repeated-key findings. yaml-rust2's scanner is generic over all of YAML's grammar and its
//! token queue costs most of every command on a large dump; this reader only looks at line
//! starts, keys and scalars.
//!
//! Anything beyond that subset returns `None` and the caller reads the document with
//! yaml-rust2, which reads it or reports the error in its words: flow collections other than
//! `{}` and `[]`, anchors, aliases, tags, directives, complex or quoted keys, plain or quoted
//! scalars over several lines, folded scalars and indentation indicators, tabs in the
//! indentation, a key without a value, control characters, and every syntax error. A
//! differential test holds the two readers equal on everything this one accepts.

use super::diagnostics::Span;
use super::documents::{RepeatedKeys, MAX_DEPTH};
use super::node::{Node, Value};

/// Repeated keys: where the repeat is, and the key.
pub(crate) type Duplicates = Vec<(Span, String)>;

/// Reads `text` (lines numbered from `first_line`) as one block-style YAML document, or
/// `None` when it uses anything outside the subset this reader handles.
#[cfg_attr(optimize_hot, optimize(speed))]
pub(crate) fn parse(text: &str, first_line: u32) -> Option<(Node, Duplicates)> {
    let mut r = Reader::new(text, first_line)?;
    r.skip_blank();
    let first = r.cur?;
    if first.text.starts_with("---") {
        // The chunk starts at its document marker: nothing may follow it on that line.
        let tail = &first.text[3..];
        if !(tail.is_empty() || tail.starts_with(' ') && is_blank(tail)) {
            return None;
        }
        r.next_line();
        r.skip_blank();
    }
    let indent = r.cur?.indent;
    r.off = indent;
    let root = r.block(indent)?;
    r.skip_blank();
    r.cur.is_none().then_some((root, r.duplicates))
}

#[derive(Clone, Copy)]
struct Line<'a> {
    /// The line without its line break.
    text: &'a str,
    /// Leading spaces.
    indent: usize,
}

struct Reader<'a> {
    text: &'a str,
    /// Whether line breaks may be CR LF.
    crs: bool,
    /// The current line (`None` past the end), and where the next one starts: lines are
    /// read as the reader reaches them, not kept (a large dump has millions).
    cur: Option<Line<'a>>,
    next: usize,
    /// Whether the whole text is ASCII (columns are then byte offsets).
    ascii: bool,
    /// Whether the text ends with a line break (a block scalar running to the end of a text
    /// without one is left to yaml-rust2).
    ends_with_break: bool,
    first_line: u32,
    /// The current line, and the byte offset in it where the node being read starts (past
    /// the indentation, or past `- ` on a sequence entry's line).
    i: usize,
    off: usize,
    depth: usize,
    duplicates: Duplicates,
    /// The entries and items of the open collections: a collection's children wait here and
    /// move into an exactly sized `Vec` when it ends (one allocation per collection).
    entries: Vec<(Node, Node)>,
    items: Vec<Node>,
}

/// How deep this reader goes; deeper documents (far past any manifest) go to yaml-rust2, which
/// applies [`MAX_DEPTH`] with its error.
const FAST_DEPTH: usize = if MAX_DEPTH < 100 { MAX_DEPTH } else { 100 };

impl<'a> Reader<'a> {
    fn new(text: &'a str, first_line: u32) -> Option<Reader<'a>> {
        // Control characters (a lone CR, NUL, escapes) and the other non-printables YAML
        // rejects or treats specially are yaml-rust2's to read. One vectorised pass over the
        // bytes, then a closer look only where something is not printable ASCII.
        let plain = super::bytes::plain_ascii(text.as_bytes());
        let ascii = plain || text.is_ascii();
        if !plain
            && text.chars().any(|c| {
                (c < ' ' && !matches!(c, '\t' | '\n' | '\r'))
                    || matches!(
                        c,
                        '\u{7f}'..='\u{9f}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                    )
            })
        {
            return None;
        }
        // A CR must end a line (CR LF): a lone one is yaml-rust2's.
        let b = text.as_bytes();
        let crs = memchr::memchr(b'\r', b).is_some();
        if crs && memchr::memchr_iter(b'\r', b).any(|i| b.get(i + 1) != Some(&b'\n')) {
            return None;
        }
        let mut reader = Reader {
            text,
            crs,
            cur: None,
            next: 0,
            ascii,
            ends_with_break: text.ends_with('\n'),
            first_line,
            i: 0,
            off: 0,
            depth: 0,
            duplicates: Vec::new(),
            entries: Vec::new(),
            items: Vec::new(),
        };
        reader.load();
        Some(reader)
    }

    /// Reads the line starting at `next` into `cur`.
    #[cfg_attr(optimize_hot, optimize(speed))]
    fn load(&mut self) {
        let b = self.text.as_bytes();
        if self.next >= b.len() {
            self.cur = None;
            return;
        }
        let start = self.next;
        // Most lines are short: `find` looks at their first bytes a word at a time.
        let end = super::bytes::find(b'\n', &b[start..]).map_or(b.len(), |e| start + e);
        self.next = end + 1;
        let mut text = &self.text[start..end];
        if self.crs {
            text = text.strip_suffix('\r').unwrap_or(text);
        }
        let indent = text.bytes().take_while(|b| *b == b' ').count();
        self.cur = Some(Line { text, indent });
    }

    fn next_line(&mut self) {
        self.i += 1;
        self.load();
    }

    /// The line:column of byte `off` in the current line.
    #[cfg_attr(optimize_hot, optimize(speed))]
    fn span(&self, off: usize) -> Span {
        let i = self.i;
        let text = self.cur.map_or("", |l| l.text);
        let before = text.get(..off).unwrap_or(text);
        let column = if self.ascii || before.is_ascii() {
            before.len()
        } else {
            before.chars().count()
        };
        Span {
            line: self.first_line + i as u32,
            column: column as u32 + 1,
        }
    }

    /// The rest of the current line from the current offset.
    #[cfg_attr(optimize_hot, optimize(speed))]
    fn rest(&self) -> &'a str {
        self.cur.and_then(|l| l.text.get(self.off..)).unwrap_or("")
    }

    /// Skips lines holding only spaces or a comment.
    fn skip_blank(&mut self) {
        while self
            .cur
            .is_some_and(|l| matches!(l.text.as_bytes().get(l.indent), None | Some(b'#')))
        {
            self.next_line();
        }
    }

    /// The indentation of the next line with content, after skipping blank ones.
    #[cfg_attr(optimize_hot, optimize(speed))]
    fn next_indent(&mut self) -> Option<usize> {
        self.skip_blank();
        let line = self.cur?;
        // A document marker (`---`, `...`) at the start of a line ends the document: never
        // content, and yaml-rust2's to judge.
        let t = line.text.as_bytes();
        if matches!(t.first(), Some(b'-' | b'.'))
            && (t.starts_with(b"---") || t.starts_with(b"..."))
            && matches!(t.get(3), None | Some(b' ' | b'\t'))
        {
            return Some(usize::MAX);
        }
        // A tab where the indentation ends is yaml-rust2's to judge.
        if t.get(line.indent) == Some(&b'\t') {
            return Some(usize::MAX);
        }
        Some(line.indent)
    }

    /// The block node starting at the current position, at column `indent`.
    fn block(&mut self, indent: usize) -> Option<Node> {
        if self.depth >= FAST_DEPTH {
            return None;
        }
        self.depth += 1;
        let node = if is_entry(self.rest()) {
            self.seq(indent, false)
        } else {
            self.map(indent)
        };
        self.depth -= 1;
        node
    }

    #[cfg_attr(optimize_hot, optimize(speed))]
    fn map(&mut self, indent: usize) -> Option<Node> {
        let start = self.entries.len();
        let mut keys = RepeatedKeys::default();
        loop {
            let rest = self.rest();
            let key_len = key_end(rest)?;
            // Whitespace before the colon is not part of the key (tabs included, as in YAML).
            let key_text = trim_end(&rest[..key_len], true);
            // A merge key (`<<`) is yaml-rust2's: its builder merges the mappings.
            if !plain_start(key_text) || key_text.len() > 1024 || key_text.as_bytes() == b"<<" {
                return None;
            }
            let key = plain_node(key_text, self.span(self.off));
            let after = &rest[key_len + 1..];
            let blanks = after
                .bytes()
                .take_while(|b| matches!(b, b' ' | b'\t'))
                .count();
            let value_text = &after[blanks..];
            let value = if is_blank(value_text) {
                // The value is on the following lines: a nested block, or a sequence at the
                // key's own indentation.
                self.next_line();
                let next = self.next_indent()?;
                if next != usize::MAX && next > indent {
                    self.off = next;
                    self.block(next)?
                } else if next == indent && self.cur.is_some_and(|l| is_entry(&l.text[next..])) {
                    self.off = next;
                    self.depth += 1;
                    let seq = self.seq(indent, true);
                    self.depth -= 1;
                    seq?
                } else {
                    // A key without a value: yaml-rust2 places its null.
                    return None;
                }
            } else {
                self.off += key_len + 1 + (after.len() - value_text.len());
                self.inline_value(indent)?
            };
            if let Some(k) = key.as_scalar() {
                if keys.check(&self.entries[start..], k) {
                    self.duplicates.push((key.span(), k.to_string()));
                }
            }
            let mut value = value;
            super::node::forget_unread(&key, &mut value);
            self.entries.push((key, value));
            match self.next_indent() {
                Some(next) if next == indent => {
                    self.off = next;
                    if is_entry(self.rest()) {
                        return None;
                    }
                }
                Some(next) if next != usize::MAX && next < indent => break,
                None => break,
                Some(_) => return None,
            }
        }
        let entries: Vec<(Node, Node)> = self.entries.drain(start..).collect();
        let span = entries.first().map(|(k, _)| k.span())?;
        Some(Node::new(Value::Map(entries.into()), span))
    }

    /// A sequence whose entries start at column `indent`; `indentless` when it is a mapping's
    /// value at the key's own column (yaml-rust2 then starts it at its first item).
    fn seq(&mut self, indent: usize, indentless: bool) -> Option<Node> {
        let mut span = self.span(self.off);
        let start = self.items.len();
        loop {
            let after = self.rest().get(1..)?;
            let item_text = after.trim_start_matches(' ');
            let item = if is_blank(item_text) {
                self.next_line();
                let next = self.next_indent()?;
                if next == usize::MAX || next <= indent {
                    return None;
                }
                self.off = next;
                self.block(next)?
            } else {
                if after.starts_with('\t') || is_entry(item_text) {
                    return None;
                }
                self.off += 1 + (after.len() - item_text.len());
                let column = self.off;
                if key_end(item_text).is_some() && !item_text.starts_with(['"', '\'']) {
                    // `- key: value`: a mapping whose keys line up under the first.
                    if self.depth >= FAST_DEPTH {
                        return None;
                    }
                    self.depth += 1;
                    let map = self.map(column);
                    self.depth -= 1;
                    map?
                } else {
                    self.inline_value(indent)?
                }
            };
            if indentless && self.items.len() == start {
                if is_blank(item_text) {
                    return None;
                }
                span = item.span();
            }
            self.items.push(item);
            match self.next_indent() {
                Some(next) if next == indent => {
                    self.off = next;
                    if !is_entry(self.rest()) {
                        break;
                    }
                }
                Some(next) if next != usize::MAX && next < indent => break,
                None => break,
                Some(_) => return None,
            }
        }
        Some(Node::new(
            Value::Seq(self.items.drain(start..).collect()),
            span,
        ))
    }

    /// A value written on the current line (after `key: ` or `- `), in a collection at
    /// column `parent`. Moves past it.
    #[cfg_attr(optimize_hot, optimize(speed))]
    fn inline_value(&mut self, parent: usize) -> Option<Node> {
        let rest = self.rest();
        let span = self.span(self.off);
        let node = match rest.as_bytes().first()? {
            b'"' => {
                let (text, len) = double_quoted(rest)?;
                trailer(&rest[len..])?;
                Node::scalar(text, false, span)
            }
            b'\'' => match single_quoted(rest) {
                Some((text, len)) => {
                    trailer(&rest[len..])?;
                    Node::scalar(text, false, span)
                }
                None => Node::scalar(self.single_quoted_lines(parent)?, false, span),
            },
            b'|' => return self.literal(parent),
            b'{' | b'[' => {
                let (empty, len) = if rest.starts_with("{}") {
                    (Value::Map(Box::default()), 2)
                } else if rest.starts_with("[]") {
                    (Value::Seq(Box::default()), 2)
                } else {
                    return None;
                };
                trailer(&rest[len..])?;
                Node::new(empty, span)
            }
            _ => {
                let text = plain_value(rest)?;
                plain_node(text, span)
            }
        };
        self.next_line();
        // A more indented line after a scalar continues it (or is an error): yaml-rust2's.
        match self.next_indent() {
            Some(next) if next > parent => None,
            _ => Some(node),
        }
    }

    /// A single-quoted scalar over several lines (as some YAML writers print a long value):
    /// line breaks fold to a space, empty lines to line breaks, the continuation lines'
    /// indentation is dropped. Leaves the position on the closing line.
    fn single_quoted_lines(&mut self, parent: usize) -> Option<String> {
        let first = self.rest().get(1..)?;
        if first.contains('\t') {
            return None;
        }
        let mut text = first.trim_end_matches(' ').replace("''", "'");
        let mut breaks = 0;
        loop {
            self.next_line();
            let line = self.cur?;
            if line.text.contains('\t') {
                return None;
            }
            let content = &line.text[line.indent..];
            let close = closing_quote(content);
            if content.is_empty() && close.is_none() {
                breaks += 1;
                continue;
            }
            if line.indent <= parent {
                return None;
            }
            if breaks == 0 {
                text.push(' ');
            }
            for _ in 0..breaks {
                text.push('\n');
            }
            breaks = 0;
            match close {
                Some(q) => {
                    text.push_str(&content[..q].replace("''", "'"));
                    trailer(&content[q + 1..])?;
                    return Some(text);
                }
                None => text.push_str(&content.trim_end_matches(' ').replace("''", "'")),
            }
        }
    }

    /// A literal block scalar (`|`, `|-`, `|+`) whose header is at the current position, in a
    /// collection at column `parent`.
    /// yaml-rust2 places the scalar where its text starts (the first line after the header).
    fn literal(&mut self, parent: usize) -> Option<Node> {
        let header = self.rest();
        let (chomp, tail) = match header.as_bytes().get(1) {
            Some(b'-') => (Chomp::Strip, &header[2..]),
            Some(b'+') => (Chomp::Keep, &header[2..]),
            _ => (Chomp::Clip, &header[1..]),
        };
        if !(tail.is_empty() || tail.starts_with(' ') && is_blank(tail)) {
            return None;
        }
        self.next_line();
        let mut body = String::new();
        let mut content_end = 0;
        let mut indent = None;
        let mut span = None;
        while let Some(line) = self.cur {
            let only_spaces = line.indent == line.text.len();
            let m = match indent {
                Some(m) => m,
                // Empty lines before the text: where yaml-rust2 then places the scalar is
                // its own.
                None if only_spaces => return None,
                None => {
                    if line.indent <= parent || line.text[line.indent..].starts_with('\t') {
                        return None;
                    }
                    span = Some(self.span(line.indent));
                    indent = Some(line.indent);
                    line.indent
                }
            };
            if only_spaces && line.indent <= m {
                body.push('\n');
            } else if line.indent >= m {
                body.push_str(&line.text[m..]);
                body.push('\n');
                content_end = body.len();
            } else {
                break;
            }
            self.next_line();
        }
        // A block scalar running into the end of a text without a final line break is
        // yaml-rust2's.
        let span = span?;
        if self.cur.is_none() && !self.ends_with_break {
            return None;
        }
        match chomp {
            Chomp::Strip => body.truncate(content_end.saturating_sub(1)),
            Chomp::Clip => body.truncate(content_end),
            Chomp::Keep => {}
        }
        match self.next_indent() {
            Some(next) if next > parent => None,
            _ => Some(Node::scalar(body, false, span)),
        }
    }
}

enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// Whether a line (or its rest) holds nothing but spaces and maybe a comment.
fn is_blank(text: &str) -> bool {
    // Bytes, not `trim_start_matches(' ')`: a pattern searcher per line in the wasm build.
    matches!(text.bytes().find(|&b| b != b' '), None | Some(b'#'))
}

/// Whether the text is a sequence entry (`-` alone or followed by a space).
fn is_entry(text: &str) -> bool {
    text == "-" || text.starts_with("- ") || text.starts_with("-\t")
}

/// Where the key of `key: value` (or `key:`) ends: the first `:` followed by a space, a tab
/// or the end of the line, before any comment. `None` when the text is not a plain key.
#[cfg_attr(optimize_hot, optimize(speed))]
fn key_end(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut from = 0;
    let end = loop {
        let i = from + super::bytes::find(b':', b.get(from..)?)?;
        match b.get(i + 1) {
            // go-yaml takes a tab after the colon as it takes a space (yaml-rust2 refuses
            // `key:\tvalue`).
            None | Some(b' ' | b'\t') => break i,
            _ => from = i + 1,
        }
    };
    // A comment before the colon: no key.
    let comment = super::bytes::find(b'#', &b[..end]).is_some()
        && memchr::memchr_iter(b'#', &b[..end])
            .any(|h| h > 0 && (b[h - 1] == b' ' || b[h - 1] == b'\t'));
    (!comment).then_some(end)
}

/// Whether a plain scalar may start this way (no YAML indicator this reader leaves to
/// yaml-rust2; `-` only before a non-space, as in `-1`).
fn plain_start(text: &str) -> bool {
    match text.as_bytes() {
        [] => false,
        [b'-', next, ..] => *next != b' ' && *next != b'\t',
        [first, ..] => !matches!(
            first,
            b'-' | b'?'
                | b':'
                | b','
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'#'
                | b'&'
                | b'*'
                | b'!'
                | b'|'
                | b'>'
                | b'\''
                | b'"'
                | b'%'
                | b'@'
                | b'`'
                | b' '
                | b'\t'
        ),
    }
}

/// A plain scalar value: the text up to a comment, without trailing spaces. `None` where
/// YAML would read more (`: ` inside makes it a mapping, which is an error here; tabs).
fn plain_value(rest: &str) -> Option<&str> {
    if !plain_start(rest) {
        return None;
    }
    let b = rest.as_bytes();
    let mut end = b.len();
    for i in 0..b.len() {
        match b[i] {
            b'#' if b[i - 1] == b' ' => {
                end = i;
                break;
            }
            b':' if i + 1 == b.len() || b[i + 1] == b' ' => return None,
            b'\t' => return None,
            _ => {}
        }
    }
    Some(trim_end(&rest[..end], false))
}

/// `text` without the spaces (and tabs, when `tabs`) that end it. A byte loop: `trim_end_matches`
/// builds a pattern searcher, a call per key and value in the size-optimised wasm build.
#[cfg_attr(optimize_hot, optimize(speed))]
fn trim_end(text: &str, tabs: bool) -> &str {
    let b = text.as_bytes();
    let mut end = b.len();
    while end > 0 && (b[end - 1] == b' ' || tabs && b[end - 1] == b'\t') {
        end -= 1;
    }
    text.get(..end).unwrap_or(text)
}

/// After a quoted scalar: nothing, or spaces and a comment.
fn trailer(rest: &str) -> Option<()> {
    (rest.is_empty() || rest.starts_with(' ') && is_blank(rest)).then_some(())
}

/// A single-quoted scalar closed on its line: its text and its length in bytes.
fn single_quoted(rest: &str) -> Option<(String, usize)> {
    let mut out = String::new();
    let body = &rest[1..];
    let mut i = 0;
    loop {
        let q = i + body[i..].find('\'')?;
        out.push_str(&body[i..q]);
        if body.as_bytes().get(q + 1) == Some(&b'\'') {
            out.push('\'');
            i = q + 2;
        } else {
            return Some((out, q + 2));
        }
    }
}

/// Where a single-quoted scalar closes in `text`: the first `'` that is not an escaped `''`.
fn closing_quote(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\'' {
            if b.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i);
        }
        i += 1;
    }
    None
}

/// A double-quoted scalar closed on its line: its text (escapes resolved) and its length in
/// bytes.
fn double_quoted(rest: &str) -> Option<(std::borrow::Cow<'_, str>, usize)> {
    let body = &rest[1..];
    let b = body.as_bytes();
    let mut out = String::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            // Without escapes (most quoted scalars) the text is borrowed: no copy to free.
            b'"' if start == 0 => return Some((body[..i].into(), i + 2)),
            b'"' => {
                out.push_str(&body[start..i]);
                return Some((out.into(), i + 2));
            }
            b'\\' => {
                out.push_str(&body[start..i]);
                let (c, len) = escape(&body[i + 1..])?;
                out.push(c);
                i += 1 + len;
                start = i;
            }
            _ => i += 1,
        }
    }
    None
}

/// One escape after `\` in a double-quoted scalar: the character and the escape's length.
fn escape(text: &str) -> Option<(char, usize)> {
    let hex = |n: usize| -> Option<(char, usize)> {
        let digits = text.get(1..1 + n)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let v = u32::from_str_radix(digits, 16).ok()?;
        Some((char::from_u32(v)?, 1 + n))
    };
    let c = match text.as_bytes().first()? {
        b'0' => '\0',
        b'a' => '\u{7}',
        b'b' => '\u{8}',
        b't' | b'\t' => '\t',
        b'n' => '\n',
        b'v' => '\u{b}',
        b'f' => '\u{c}',
        b'r' => '\r',
        b'e' => '\u{1b}',
        b' ' => ' ',
        b'"' => '"',
        b'/' => '/',
        b'\\' => '\\',
        b'N' => '\u{85}',
        b'_' => '\u{a0}',
        b'L' => '\u{2028}',
        b'P' => '\u{2029}',
        b'x' => return hex(2),
        b'u' => return hex(4),
        b'U' => return hex(8),
        _ => return None,
    };
    Some((c, 1))
}

/// A plain scalar's node: `null`, `~` and nothing are null, as the YAML reader builds them.
#[cfg_attr(optimize_hot, optimize(speed))]
fn plain_node(text: &str, span: Span) -> Node {
    if text.is_empty() || text == "~" || text == "null" {
        Node::new(Value::Null, span)
    } else {
        Node::scalar(super::node::text_of(text), true, span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::documents::{parse_yaml, split_documents};
    use proptest::prelude::*;
    use std::path::{Path, PathBuf};

    /// Every YAML file of the project's examples, corpus and cases, and the shared specs.
    fn files() -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .map(|e| e.path())
                .collect();
            entries.sort();
            for p in entries {
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                    out.push(p);
                }
            }
        }
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        for dir in ["../static", "tests", "../../shared/spec", "../wasm-tests"] {
            walk(&root.join(dir), &mut out);
        }
        out
    }

    /// Where the block reader takes a document, it builds what yaml-rust2 builds: the same
    /// nodes, spans, typing and repeated keys. Returns (documents taken, documents).
    fn agree(text: &str) -> Result<(usize, usize), String> {
        let (mut taken, mut all) = (0, 0);
        for chunk in split_documents(text) {
            all += 1;
            let Some((fast, fast_dups)) = parse(chunk.text, chunk.first_line) else {
                continue;
            };
            taken += 1;
            match parse_yaml(chunk.text, chunk.first_line) {
                Ok((Some(slow), slow_dups)) => {
                    if fast != slow {
                        let (f, s) = (format!("{fast:?}"), format!("{slow:?}"));
                        let at = f.bytes().zip(s.bytes()).take_while(|(a, b)| a == b).count();
                        return Err(format!(
                            "different trees for\n{}\nfast: …{}\nslow: …{}",
                            chunk.text,
                            &f[at.saturating_sub(300)..(at + 100).min(f.len())],
                            &s[at.saturating_sub(300)..(at + 100).min(s.len())]
                        ));
                    }
                    if fast_dups != slow_dups {
                        return Err(format!("repeated keys {fast_dups:?} vs {slow_dups:?}"));
                    }
                }
                // A tab after a key's colon: go-yaml reads it, yaml-rust2 does not (the Go
                // oracle's `ydoc` kind compares such documents with go-yaml).
                Err((_, e)) if e.starts_with("':' must be followed") => {}
                other => {
                    return Err(format!(
                        "the block reader took what yaml-rust2 reads as {other:?}:\n{}",
                        chunk.text
                    ))
                }
            }
        }
        Ok((taken, all))
    }

    #[test]
    fn real_files_read_the_same_and_kubectl_dumps_take_the_fast_path() {
        let files = files();
        assert!(files.len() > 20, "found {} YAML files", files.len());
        let (mut taken, mut all) = (0, 0);
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let (t, a) = agree(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            taken += t;
            all += a;
            if f.to_string_lossy().contains("corpus/kubectl") {
                assert_eq!(t, a, "{}: a kubectl dump is read line by line", f.display());
            }
        }
        // Hand-written examples mostly use flow collections (`labels: {env: prod}`), which
        // are yaml-rust2's; their trees are small.
        assert!(taken >= 9, "{taken} of {all} documents took the fast path");
    }

    #[test]
    fn scalars_of_every_style() {
        let text = "a: plain text # comment\nb: 'it''s'\nc: \"tab\\there \\u00e9\\x41\"\nd: |\n  one\n\n  two\n\ne: |-\n  kept\n    indented\nf: |+\n  keep\n\n\ng: ~\nh: null\ni: {}\nj: []\nk:\n- 1\n- -2\n- key: v\n  other: w\n-   spaced\nl:\n    - deep\n";
        let (node, dups) = parse(text, 1).expect("taken");
        assert!(dups.is_empty());
        let (slow, _) = parse_yaml(text, 1).expect("valid YAML");
        assert_eq!(Some(node), slow);
    }

    /// Found by the mutation test: a tab between a key and its colon.
    #[test]
    fn whitespace_before_the_colon_is_not_part_of_the_key() {
        for text in ["resourceVersion\t: \"\"\n", "a \t : b\nc  : d\n"] {
            let fast = parse(text, 1).map(|(n, _)| n);
            let (slow, _) = parse_yaml(text, 1).expect("valid YAML");
            assert_eq!(fast, slow, "{text:?}");
        }
    }

    /// go-yaml reads a tab after a key's colon as a space (yaml-rust2 refuses it): the tree
    /// is the one yaml-rust2 builds with each such tab written as a space, a column each.
    #[test]
    fn a_tab_after_a_colon_separates_as_a_space_does() {
        let text = "a:\tb\nc: \t d # x\ne:\t\n  f:\t\t\"q\"\ng:\t|\n  lit\nh:\t# c\n  - i:\t1\n    j:\t[]\n";
        let (fast, _) = parse(text, 1).expect("taken");
        let spaced = text.replace(":\t\t", ":  ").replace(":\t", ": ");
        let (slow, _) = parse_yaml(&spaced, 1).expect("valid YAML");
        assert_eq!(Some(fast), slow);
    }

    #[test]
    fn outside_the_subset_goes_to_yaml_rust2() {
        for text in [
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a: {b: 1}\n",
            "a: [1, 2]\n",
            "a: >\n  folded\n",
            "a: |2\n   x\n",
            "a: multi\n  line\n",
            "a: \"open\n  quote\"\n",
            "? complex\n: key\n",
            "\"quoted\": key\n",
            "a:\n",
            "- - nested\n",
            "a: b: c\n",
            "%YAML 1.1\n---\na: 1\n",
            "a: 1\n  b: 2\n",
            "a: x\u{0}\n",
            "a: |\n  no final break",
            "a: 1\n... b: 2\n",
            "a:\n  b: 1\n--- c: 2\n",
        ] {
            assert!(parse(text, 1).is_none(), "{text:?} is left to yaml-rust2");
        }
    }

    /// Line edits that reach the reader's edges: indentation, indicators, quotes, comments,
    /// block scalar headers, sequence entries.
    fn mutate(text: &str, edits: &[(usize, usize, usize)]) -> String {
        const TOKENS: &[&str] = &[
            ": ", ":", "#", " #x", "'", "''", "\"", "\\", "\\u00e9", "|", "|-", "|+", ">", "- ",
            "-", "{}", "[]", "{", "&a ", "*a", "!!str ", "\t", "~", "null", "é", " ", "  ", "? ",
            "%", "---", "...", "\r", "x: y", "\n", "\n  ", "\n- ", "\n    ", ",", "\"\"",
        ];
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        for &(which, op, arg) in edits {
            if lines.is_empty() {
                break;
            }
            let i = which % lines.len();
            let line = &mut lines[i];
            let at = (arg / 7) % (line.chars().count() + 1);
            let byte = line.char_indices().nth(at).map_or(line.len(), |(b, _)| b);
            match op % 7 {
                0 => line.insert_str(byte, TOKENS[arg % TOKENS.len()]),
                1 => line.insert_str(0, &" ".repeat(1 + arg % 3)),
                2 => {
                    let cut = line.len() - line.trim_start_matches(' ').len();
                    line.replace_range(..(arg % 3).min(cut), "");
                }
                3 => {
                    let end = line
                        .char_indices()
                        .nth(at + 1 + arg % 4)
                        .map_or(line.len(), |(b, _)| b);
                    line.replace_range(byte..end, "");
                }
                4 => {
                    let copy = line.clone();
                    lines.insert(i, copy);
                }
                5 => {
                    lines.remove(i);
                }
                _ => {
                    let j = arg % lines.len();
                    lines.swap(i, j);
                }
            }
        }
        let mut out = lines.join("\n");
        out.push('\n');
        out
    }

    fn seeds() -> Vec<String> {
        files()
            .iter()
            .filter_map(|f| std::fs::read_to_string(f).ok())
            .map(|t| t.chars().take(4000).collect())
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]
        #[test]
        fn mutated_files_read_the_same(
            seed in any::<usize>(),
            edits in proptest::collection::vec((any::<usize>(), any::<usize>(), any::<usize>()), 1..4),
        ) {
            thread_local!(static SEEDS: Vec<String> = seeds());
            let text = SEEDS.with(|s| s[seed % s.len()].clone());
            let mutated = mutate(&text, &edits);
            if let Err(e) = agree(&mutated) {
                prop_assert!(false, "{e}");
            }
        }
    }
}
