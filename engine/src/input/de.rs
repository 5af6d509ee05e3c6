//! Decoding errors with the field path and line:column, in serde's words (the model types'
//! decoder, [`FromNode`], uses serde's `de::Error` constructors for the shared texts).
//!
//! Typing follows the Kubernetes API server: a string field given `4` or `true` unquoted is a
//! type error, a number field given `"4"` is too; unknown fields are errors where the model
//! type says `deny_unknown_fields` (kubectl's default strict field validation).

use super::diagnostics::Span;
use super::from_node::FromNode;
use super::node::{resolve, FieldPath, Node, PathSeg, Resolved, Value};
use serde::de;
use std::fmt;

/// A decoding error: what, where (field path) and at which line:column.
///
/// Boxed: every decoder returns `Result<_, DeError>`, and a one-pointer error keeps those
/// results small, so propagating an error with `?` is a pointer copy instead of a copy of
/// the whole error at each of the thousands of call sites. The fields are reached through
/// `Deref`.
#[derive(Clone, PartialEq)]
pub struct DeError(Box<DeErrorData>);

/// The contents of a [`DeError`].
#[derive(Debug, Clone, PartialEq)]
pub struct DeErrorData {
    /// Path of the offending field, relative to the decoded node.
    pub path: FieldPath,
    /// Where the offending node starts, when known.
    pub span: Option<Span>,
    /// What is wrong.
    pub message: String,
}

/// What a type error calls the value, in the words of `serde::de::Unexpected`. Ours so that
/// floats are written as serde writes them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Unexpected<'a> {
    /// `null`, `~` or nothing.
    Unit,
    /// A boolean.
    Bool(bool),
    /// A non-negative integer (JSON options only).
    Unsigned(u64),
    /// An integer.
    Signed(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(&'a str),
    /// A sequence.
    Seq,
    /// A mapping.
    Map,
}

impl fmt::Display for Unexpected<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Unexpected::Bool(b) => write!(f, "boolean `{b}`"),
            Unexpected::Unsigned(i) => write!(f, "integer `{i}`"),
            Unexpected::Signed(i) => write!(f, "integer `{i}`"),
            Unexpected::Float(x) => {
                // serde's `WithDecimalPoint`: `.0` after a finite value written without a point.
                let text = x.to_string();
                let point = if x.is_finite() && !text.contains('.') {
                    ".0"
                } else {
                    ""
                };
                write!(f, "floating point `{text}{point}`")
            }
            Unexpected::Str(s) => write!(f, "string {s:?}"),
            Unexpected::Unit => f.write_str("unit value"),
            Unexpected::Seq => f.write_str("sequence"),
            Unexpected::Map => f.write_str("map"),
        }
    }
}

impl DeError {
    /// An error with these parts.
    #[cold]
    pub fn new(path: FieldPath, span: Option<Span>, message: String) -> Self {
        DeError(Box::new(DeErrorData {
            path,
            span,
            message,
        }))
    }

    /// The error's parts, moved out.
    pub fn into_data(self) -> DeErrorData {
        *self.0
    }
}

impl std::ops::Deref for DeError {
    type Target = DeErrorData;
    fn deref(&self) -> &DeErrorData {
        &self.0
    }
}

impl std::ops::DerefMut for DeError {
    fn deref_mut(&mut self) -> &mut DeErrorData {
        &mut self.0
    }
}

impl fmt::Debug for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.0.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError::new(FieldPath::root(), None, msg.to_string())
    }
}

impl DeError {
    /// Sets the position when the error has none yet (the innermost node that knows wins).
    pub(crate) fn at(mut self, span: Span) -> Self {
        if self.span.is_none() {
            self.span = Some(span);
        }
        self
    }

    /// Prefixes the path with the segment of the enclosing key or index.
    pub(crate) fn under(mut self, seg: PathSeg) -> Self {
        self.path.0.insert(0, seg);
        self
    }
}

/// Decodes a node into `T` (the model types' [`FromNode`] decoder).
pub fn from_node<T: FromNode>(node: &Node) -> Result<T, DeError> {
    T::from_node(node)
}

/// Describes a node for "expected X, found Y" messages.
pub(crate) fn describe(node: &Node) -> String {
    match &node.value {
        Value::Null => "null".to_string(),
        Value::Seq(_) => "a list".to_string(),
        Value::Map(_) => "an object".to_string(),
        Value::Scalar(s) => match resolve(s, node.is_plain()) {
            Resolved::Null => "null".to_string(),
            Resolved::Bool(b) => format!("boolean {b}"),
            Resolved::Int(i) => format!("integer {i}"),
            Resolved::Float(_) => format!("number {s}"),
            Resolved::Str(t) => format!("string \"{t}\""),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Input;
    use fleet_policy_derive::FromNode;
    use std::collections::BTreeMap;

    #[derive(Debug, FromNode, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Spec {
        count: i32,
        #[serde(default)]
        labels: BTreeMap<String, String>,
        mode: Option<Mode>,
        #[serde(default)]
        items: Vec<Item>,
    }

    #[derive(Debug, FromNode, PartialEq)]
    enum Mode {
        Fast,
        #[serde(alias = "Slower")]
        Slow,
    }

    #[derive(Debug, FromNode, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Item {
        name: String,
    }

    fn decode(yaml: &str) -> Result<Spec, DeError> {
        let input = Input::parse_str(&format!(
            "apiVersion: cluster.kubernetes-fleet.io/v1\nkind: MemberCluster\nspec:\n{yaml}"
        ));
        let root = &input.documents[0].root;
        let node = root.locate(&"spec".into());
        from_node::<Spec>(node)
    }

    #[test]
    fn decodes_typed_values() {
        let s = decode("  count: 3\n  labels: {a: b}\n  mode: Slow\n  items:\n  - name: x\n")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.count, 3);
        assert_eq!(s.mode, Some(Mode::Slow));
        assert_eq!(s.items[0].name, "x");
        assert_eq!(s.labels.get("a").map(String::as_str), Some("b"));
    }

    #[test]
    fn errors_name_the_field_and_position() {
        let e = decode("  count: 3\n  items:\n  - name: x\n  - name: 5\n").err();
        let e = e.unwrap_or_else(|| panic!("expected an error"));
        assert_eq!(e.path.to_string(), "items[1].name");
        assert_eq!(e.message, "expected a string, found integer 5");
        assert_eq!(
            e.span,
            Some(Span {
                line: 7,
                column: 11
            })
        );

        let e = decode("  count: \"3\"\n").err().unwrap_or_else(|| panic!());
        assert_eq!(e.path.to_string(), "count");
        assert_eq!(e.message, "expected a 32-bit integer, found string \"3\"");

        let e = decode("  count: 3\n  colour: red\n")
            .err()
            .unwrap_or_else(|| panic!());
        assert_eq!(e.path.to_string(), "colour");
        assert!(
            e.message.starts_with("unknown field `colour`"),
            "{}",
            e.message
        );
        assert_eq!(e.span, Some(Span { line: 5, column: 3 }));

        let e = decode("  labels: {}\n").err().unwrap_or_else(|| panic!());
        assert_eq!(e.message, "missing field `count`");
        assert_eq!(e.span, Some(Span { line: 4, column: 3 }));

        let e = decode("  count: 1\n  mode: Medium\n")
            .err()
            .unwrap_or_else(|| panic!());
        assert_eq!(e.path.to_string(), "mode");
        assert!(
            e.message.starts_with("unknown variant `Medium`"),
            "{}",
            e.message
        );
        assert_eq!(e.span, Some(Span { line: 5, column: 9 }));

        // Agreement only (decode compares the two decoders).
        for doc in [
            "  count: 1\n  mode: {Slower: 1}\n",
            "  count: 1\n  mode: Slower\n",
            "  count: 1\n  mode: 5\n",
            "  count: 1\n  mode: ~\n",
            "  count: 1\n  labels: [a]\n",
            "  count: 1\n  labels: ~\n  items: ~\n",
            "  count: 1\n  items: [{name: a}, {}]\n",
            "  count: 1\n  items: [{name: a, x: 1}]\n",
            "  count: 1\n  ? [a]\n  : b\n",
            "  count: 1\n  labels: {? [a] : b}\n",
            "  count: 1.5\n",
            "  count: -0x10\n",
        ] {
            let _ = decode(doc);
        }

        let e = decode("  count: 99999999999\n")
            .err()
            .unwrap_or_else(|| panic!());
        assert_eq!(
            e.message,
            "99999999999 is out of range for a 32-bit integer"
        );
    }
}
