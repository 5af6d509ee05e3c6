//! A serde deserializer over [`Node`] trees whose errors carry the field path and line:column.
//!
//! Typing follows the Kubernetes API server: a string field given `4` or `true` unquoted is a
//! type error, a number field given `"4"` is too; unknown fields are errors where the model
//! type says `deny_unknown_fields` (kubectl's default strict field validation).

use super::diagnostics::Span;
use super::from_node::FromNode;
use super::node::{FieldPath, Node, PathSeg, Resolved, Value};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};
use std::fmt;

/// A decoding error: what, where (field path) and at which line:column.
///
/// Boxed: every decoder returns `Result<_, DeError>`, and a one-pointer error keeps those
/// results small, so propagating an error with `?` is a pointer copy instead of a copy of
/// the whole error at each of the thousands of call sites (a sixth of the wasm's decoder
/// code). The fields are reached through `Deref`.
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
/// floats are written by [`crate::float::Shortest`] rather than core's float formatting.
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
                let text = crate::float::Shortest(x).to_string();
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

/// Decodes a node into `T` through serde. [`from_node`] gives the same values and the same
/// errors (message, path, line:column) for the model types, with much less code; this path
/// remains for types without `FromNode` and as the reference of the differential test.
pub fn deserialize<T: DeserializeOwned>(node: &Node) -> Result<T, DeError> {
    T::deserialize(NodeDe(node))
}

/// Describes a node for "expected X, found Y" messages.
pub(crate) fn describe(node: &Node) -> String {
    match &node.value {
        Value::Null => "null".to_string(),
        Value::Seq(_) => "a list".to_string(),
        Value::Map(_) => "an object".to_string(),
        Value::Scalar(s) => match s.resolve() {
            Resolved::Null => "null".to_string(),
            Resolved::Bool(b) => format!("boolean {b}"),
            Resolved::Int(i) => format!("integer {i}"),
            Resolved::Float(_) => format!("number {}", s.text),
            Resolved::Str(t) => format!("string \"{t}\""),
        },
    }
}

#[derive(Clone, Copy)]
struct NodeDe<'a>(&'a Node);

impl<'a> NodeDe<'a> {
    fn mismatch(&self, expected: &str) -> DeError {
        DeError::new(
            FieldPath::root(),
            Some(self.0.span),
            format!("expected {expected}, found {}", describe(self.0)),
        )
    }

    fn int(&self, expected: &str) -> Result<i64, DeError> {
        match &self.0.value {
            Value::Scalar(s) => match s.resolve() {
                Resolved::Int(i) => Ok(i),
                _ => Err(self.mismatch(expected)),
            },
            _ => Err(self.mismatch(expected)),
        }
    }
}

macro_rules! de_int {
    ($method:ident, $visit:ident, $t:ty, $what:expr) => {
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            let i = self.int($what)?;
            let v = <$t>::try_from(i).map_err(|_| {
                DeError::new(
                    FieldPath::root(),
                    Some(self.0.span),
                    format!("{} is out of range for {}", i, $what),
                )
            })?;
            visitor.$visit(v).map_err(|e: DeError| e.at(self.0.span))
        }
    };
}

impl<'de, 'a> de::Deserializer<'de> for NodeDe<'a> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let span = self.0.span;
        let r = match &self.0.value {
            Value::Null => visitor.visit_unit(),
            Value::Scalar(s) => match s.resolve() {
                Resolved::Null => visitor.visit_unit(),
                Resolved::Bool(b) => visitor.visit_bool(b),
                Resolved::Int(i) => visitor.visit_i64(i),
                Resolved::Float(f) => visitor.visit_f64(f),
                Resolved::Str(t) => visitor.visit_str(t),
            },
            Value::Seq(items) => visitor.visit_seq(SeqDe {
                items: items.iter(),
                index: 0,
            }),
            Value::Map(entries) => visitor.visit_map(MapDe {
                entries: entries.iter(),
                pending: None,
            }),
        };
        r.map_err(|e: DeError| e.at(span))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match &self.0.value {
            Value::Scalar(s) => match s.resolve() {
                Resolved::Bool(b) => visitor
                    .visit_bool(b)
                    .map_err(|e: DeError| e.at(self.0.span)),
                _ => Err(self.mismatch("a boolean")),
            },
            _ => Err(self.mismatch("a boolean")),
        }
    }

    de_int!(deserialize_i8, visit_i8, i8, "an 8-bit integer");
    de_int!(deserialize_i16, visit_i16, i16, "a 16-bit integer");
    de_int!(deserialize_i32, visit_i32, i32, "a 32-bit integer");
    de_int!(deserialize_i64, visit_i64, i64, "an integer");
    de_int!(deserialize_u8, visit_u8, u8, "an unsigned 8-bit integer");
    de_int!(
        deserialize_u16,
        visit_u16,
        u16,
        "an unsigned 16-bit integer"
    );
    de_int!(
        deserialize_u32,
        visit_u32,
        u32,
        "an unsigned 32-bit integer"
    );
    de_int!(deserialize_u64, visit_u64, u64, "an unsigned integer");

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match &self.0.value {
            Value::Scalar(s) => match s.resolve() {
                Resolved::Int(i) => visitor.visit_f64(i as f64),
                Resolved::Float(f) => visitor.visit_f64(f),
                _ => Err(self.mismatch("a number")),
            },
            _ => Err(self.mismatch("a number")),
        }
        .map_err(|e: DeError| e.at(self.0.span))
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match &self.0.value {
            Value::Scalar(s) => match s.resolve() {
                Resolved::Str(t) => visitor.visit_str(t).map_err(|e: DeError| e.at(self.0.span)),
                _ => Err(self.mismatch("a string")),
            },
            _ => Err(self.mismatch("a string")),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if self.0.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if self.0.is_null() {
            visitor.visit_unit()
        } else {
            Err(self.mismatch("null"))
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match &self.0.value {
            Value::Seq(items) => visitor
                .visit_seq(SeqDe {
                    items: items.iter(),
                    index: 0,
                })
                .map_err(|e: DeError| e.at(self.0.span)),
            // Kubernetes treats an explicit null list as absent/empty.
            Value::Null => visitor
                .visit_seq(SeqDe {
                    items: [].iter(),
                    index: 0,
                })
                .map_err(|e: DeError| e.at(self.0.span)),
            _ => Err(self.mismatch("a list")),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match &self.0.value {
            Value::Map(entries) => visitor
                .visit_map(MapDe {
                    entries: entries.iter(),
                    pending: None,
                })
                .map_err(|e: DeError| e.at(self.0.span)),
            Value::Null => visitor
                .visit_map(MapDe {
                    entries: [].iter(),
                    pending: None,
                })
                .map_err(|e: DeError| e.at(self.0.span)),
            _ => Err(self.mismatch("an object")),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match &self.0.value {
            Value::Scalar(s) => match s.resolve() {
                Resolved::Str(t) => visitor
                    .visit_enum(t.into_deserializer())
                    .map_err(|e: DeError| e.at(self.0.span)),
                _ => Err(self.mismatch("a string")),
            },
            Value::Map(entries) if entries.len() == 1 => {
                let (k, v) = &entries[0];
                let tag = k.as_scalar().unwrap_or("");
                visitor
                    .visit_enum(EnumDe { tag, value: v })
                    .map_err(|e: DeError| e.at(self.0.span))
            }
            _ => Err(self.mismatch("a string")),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0.as_scalar() {
            Some(t) => visitor.visit_str(t).map_err(|e: DeError| e.at(self.0.span)),
            None => Err(self.mismatch("a field name")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }
}

struct SeqDe<'a> {
    items: std::slice::Iter<'a, Node>,
    index: usize,
}

impl<'de, 'a> de::SeqAccess<'de> for SeqDe<'a> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        match self.items.next() {
            None => Ok(None),
            Some(node) => {
                let i = self.index;
                self.index += 1;
                seed.deserialize(NodeDe(node))
                    .map(Some)
                    .map_err(|e: DeError| e.at(node.span).under(PathSeg::Index(i)))
            }
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct MapDe<'a> {
    entries: std::slice::Iter<'a, (Node, Node)>,
    pending: Option<(&'a Node, &'a Node)>,
}

impl<'de, 'a> de::MapAccess<'de> for MapDe<'a> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        match self.entries.next() {
            None => Ok(None),
            Some((k, v)) => {
                self.pending = Some((k, v));
                seed.deserialize(KeyDe(k))
                    .map(Some)
                    .map_err(|e: DeError| e.at(k.span).under(key_seg(k)))
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let Some((k, v)) = self.pending.take() else {
            return Err(de::Error::custom("value requested before key"));
        };
        seed.deserialize(NodeDe(v))
            .map_err(|e: DeError| e.at(v.span).under(key_seg(k)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// The path segment of a mapping key, made only on the error path (decoding allocates no
/// per-field strings when it succeeds).
fn key_seg(k: &Node) -> PathSeg {
    PathSeg::Key(k.as_scalar().unwrap_or("").to_string())
}

/// Mapping keys are strings whatever they look like (`1: x` has key "1"), as in JSON.
struct KeyDe<'a>(&'a Node);

impl<'de, 'a> de::Deserializer<'de> for KeyDe<'a> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.0.as_scalar() {
            Some(t) => visitor.visit_str(t),
            None if self.0.is_null() => visitor.visit_str(""),
            None => Err(DeError::new(
                FieldPath::root(),
                Some(self.0.span),
                format!("expected a string key, found {}", describe(self.0)),
            )),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct EnumDe<'a> {
    tag: &'a str,
    value: &'a Node,
}

impl<'de, 'a> de::EnumAccess<'de> for EnumDe<'a> {
    type Error = DeError;
    type Variant = NodeDe<'a>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), DeError> {
        let v = seed.deserialize(self.tag.into_deserializer())?;
        Ok((v, NodeDe(self.value)))
    }
}

impl<'de, 'a> de::VariantAccess<'de> for NodeDe<'a> {
    type Error = DeError;

    fn unit_variant(self) -> Result<(), DeError> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, DeError> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, DeError> {
        de::Deserializer::deserialize_seq(self, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        de::Deserializer::deserialize_map(self, visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Input;
    use fleet_policy_derive::FromNode;
    use serde::Deserialize;
    use std::collections::BTreeMap;

    #[derive(Debug, Deserialize, FromNode, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Spec {
        count: i32,
        #[serde(default)]
        labels: BTreeMap<String, String>,
        mode: Option<Mode>,
        #[serde(default)]
        items: Vec<Item>,
    }

    #[derive(Debug, Deserialize, FromNode, PartialEq)]
    enum Mode {
        Fast,
        #[serde(alias = "Slower")]
        Slow,
    }

    #[derive(Debug, Deserialize, FromNode, PartialEq)]
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
        // Both decoders, which must agree on values and errors alike.
        let new = from_node::<Spec>(node);
        assert_eq!(new, deserialize::<Spec>(node));
        new
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
