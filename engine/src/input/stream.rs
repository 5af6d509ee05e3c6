//! What the YAML reader of the reference (go-yaml, behind `kubectl` and the API server's
//! `sigs.k8s.io/yaml`) refuses in the text itself, before any parsing: characters YAML does
//! not allow, and `%YAML` directives of another major version. Our parser is more lenient
//! (it ends a document silently at a NUL), so without this check such text would be read as
//! something it is not.

use super::diagnostics::{Diagnostic, Span};
use super::node::{FieldPath, Node, PathSeg, Value};

/// The first character `text` may not hold, with its line:column (`first_line` is the line
/// the text starts on): C0 controls other than tab, line feed and carriage return, DEL, C1
/// controls other than NEL, a byte order mark past the start of the stream, and the
/// non-characters U+FFFE and U+FFFF (go-yaml's "control characters are not allowed").
pub fn forbidden_char(text: &str, first_line: u32) -> Option<(Span, char)> {
    // A byte scan first: most text is printable ASCII, and this check runs on every
    // document (a C1 control or a non-character is not ASCII; the exact check follows).
    if super::bytes::plain_ascii(text.as_bytes()) {
        return None;
    }
    let (mut line, mut column) = (first_line, 1u32);
    for c in text.chars() {
        let forbidden = match c {
            '\t' | '\n' | '\r' | '\u{85}' => false,
            '\u{feff}' | '\u{fffe}' | '\u{ffff}' => true,
            c => c.is_control(),
        };
        if forbidden {
            return Some((Span { line, column }, c));
        }
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    None
}

/// A `%YAML` directive of a version go-yaml does not read (major version other than 1), with
/// its line:column and the version as written.
pub fn unsupported_version(text: &str, first_line: u32) -> Option<(Span, String)> {
    // `%` is rare: finding it first is several times faster than a substring search.
    let b = text.as_bytes();
    if !memchr::memchr_iter(b'%', b).any(|i| b[i..].starts_with(b"%YAML")) {
        return None;
    }
    (first_line..).zip(text.lines()).find_map(|(line, l)| {
        let version = l.strip_prefix("%YAML")?;
        let version = version.split('#').next().unwrap_or("").trim();
        let major = version.split('.').next().unwrap_or("");
        (major != "1").then(|| (Span { line, column: 1 }, version.to_string()))
    })
}

/// The diagnostic message for a character found by [`forbidden_char`].
pub fn forbidden_message(c: char) -> String {
    format!(
        "control character U+{:04X} is not allowed in YAML (the document is not read)",
        c as u32
    )
}

/// Names the manifest (kind, `metadata.name`) and the field path of duplicate-key errors
/// located at their second key (each one's line:column), as decoding errors are named.
pub fn name_duplicates(ds: &mut [Diagnostic], root: &Node) {
    if ds.is_empty() {
        return;
    }
    let scalar = |n: Option<&Node>| n.and_then(Node::as_scalar).map(str::to_string);
    let kind = scalar(root.get("kind")).filter(|k| !k.is_empty());
    let name = scalar(root.get("metadata").and_then(|m| m.get("name")));
    let mut wanted: std::collections::HashMap<Span, Vec<usize>> = Default::default();
    for (i, d) in ds.iter_mut().enumerate() {
        d.kind.clone_from(&kind);
        d.name.clone_from(&name);
        let span = Span {
            line: d.line,
            column: d.column,
        };
        wanted.entry(span).or_default().push(i);
    }
    // One walk for all of them, depth-first with an explicit stack (documents nest up to
    // 1,000 levels); each step records its segment and its parent's, so a path is rebuilt
    // only for a key that matches (no path copied per node).
    let mut steps: Vec<(PathSeg, usize)> = Vec::new();
    let mut stack: Vec<(&Node, usize)> = vec![(root, usize::MAX)];
    let path_of = |steps: &Vec<(PathSeg, usize)>, mut at: usize| {
        let mut segs = Vec::new();
        while let Some((seg, parent)) = steps.get(at) {
            segs.push(seg.clone());
            at = *parent;
        }
        segs.reverse();
        FieldPath(segs).to_string()
    };
    while let Some((node, parent)) = stack.pop() {
        match &node.value {
            Value::Map(entries) => {
                for (k, v) in entries {
                    let key = k.as_scalar().unwrap_or_default().to_string();
                    steps.push((PathSeg::Key(key), parent));
                    let here = steps.len() - 1;
                    if let Some(found) = wanted.remove(&k.span()) {
                        let path = path_of(&steps, here);
                        for i in found {
                            if let Some(d) = ds.get_mut(i) {
                                d.path.clone_from(&path);
                            }
                        }
                        if wanted.is_empty() {
                            return;
                        }
                    }
                    stack.push((v, here));
                }
            }
            Value::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    steps.push((PathSeg::Index(i), parent));
                    stack.push((item, steps.len() - 1));
                }
            }
            _ => {}
        }
    }
}

/// The `kind` of a document that could not be parsed, read from its text: a top-level
/// `kind: X` line (at column 1, a plain or quoted word). Lets a syntax error still say which
/// manifest it is in.
pub fn kind_in_text(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let v = l.strip_prefix("kind:")?.split(" #").next()?.trim();
        let v = v.trim_matches(|c| c == '"' || c == '\'');
        (!v.is_empty() && v.chars().all(|c| c.is_ascii_alphanumeric())).then(|| v.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_found_with_their_line_and_column() {
        assert_eq!(forbidden_char("a: 1\nb: \"x\ty\"\r\n", 1), None);
        assert_eq!(forbidden_char("a: é ✓ \u{85}\n", 1), None);
        assert_eq!(
            forbidden_char("a: 1\nname: \"a\0b\"\n", 7),
            Some((Span { line: 8, column: 9 }, '\0'))
        );
        assert_eq!(
            forbidden_char("é: \u{7f}", 1),
            Some((Span { line: 1, column: 4 }, '\u{7f}'))
        );
        assert_eq!(
            forbidden_char("a: \u{9b}31m", 1),
            Some((Span { line: 1, column: 4 }, '\u{9b}'))
        );
        assert_eq!(
            forbidden_char("x: 1\n\u{feff}y: 2", 1),
            Some((Span { line: 2, column: 1 }, '\u{feff}'))
        );
        assert_eq!(
            forbidden_message('\0'),
            "control character U+0000 is not allowed in YAML (the document is not read)"
        );
    }

    #[test]
    fn the_kind_of_an_unparsable_document_is_read_from_its_text() {
        assert_eq!(
            kind_in_text("apiVersion: v1\nkind: MemberCluster # c\nmetadata: {x: [}\n").as_deref(),
            Some("MemberCluster")
        );
        assert_eq!(
            kind_in_text("kind: \"NodePool\"\n").as_deref(),
            Some("NodePool")
        );
        assert_eq!(kind_in_text("  kind: Nested\nkind: {a\n"), None);
    }

    #[test]
    fn yaml_directives_of_another_major_version_are_found() {
        assert_eq!(unsupported_version("%YAML 1.1\n---\n", 1), None);
        assert_eq!(unsupported_version("%YAML 1.2\n", 1), None);
        assert_eq!(unsupported_version("a: 1\n", 1), None);
        assert_eq!(
            unsupported_version("# c\n%YAML 9.9 # new\n", 3),
            Some((Span { line: 4, column: 1 }, "9.9".to_string()))
        );
        assert_eq!(
            unsupported_version("%YAML 2.0\n", 1),
            Some((Span { line: 1, column: 1 }, "2.0".to_string()))
        );
    }
}
