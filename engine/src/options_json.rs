//! [`FromJson`]: reading the engines' options from a JSON value without serde's visitors, and
//! [`Json`], that value.
//!
//! Why: serde's derive monomorphises a field enum, visitors and, for the internally tagged
//! `WhatIf` and the untagged one-or-many lists, a buffered `Content` path per type: about a
//! tenth of the npm wasm for a handful of small structs. Here each type is a short function
//! over `&Json` and the shared logic below is non-generic. [`Json`] replaces
//! `serde_json::Value` (a BTreeMap, its serializer and serde_json's parser: ~30 KB of wasm):
//! the options text is read by the YAML reader the engine has anyway (JSON is YAML flow
//! syntax).
//!
//! Acceptance and error texts are serde's derive over `&serde_json::Value` (the texts come
//! from serde's own `de::Error` constructors, with serde_json's wording of the unexpected
//! value). The option types keep `Deserialize` for library users; `tests/options_diff.rs`
//! checks that both readers agree on generated JSON texts.

use crate::input::de::DeError;
use crate::input::de::Unexpected;
use crate::input::node::{Node, Value as NodeValue};
use crate::sorted_map::SortedMap;
use chrono::{DateTime, Utc};
use serde::de::Error as _;
use std::fmt;

/// The error of a [`FromJson`] reader: its `Display` is the message alone, as
/// `serde_json::Error`'s for errors without a position.
pub type Error = DeError;

/// A JSON value as `serde_json::Value` holds it: numbers classified as serde_json's parser
/// does, objects in key order with a repeated key's last value winning (serde_json's `Map` is
/// a `BTreeMap`; the readers' "first error by position" depends on that order).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Json {
    /// `null`.
    #[default]
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer ≥ 0 that fits in a `u64`.
    U64(u64),
    /// A negative integer that fits in an `i64`.
    I64(i64),
    /// Any other number (a fraction, an exponent, `-0`, an integer beyond 64 bits).
    F64(f64),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, by key.
    Object(SortedMap<String, Json>),
}

impl Json {
    /// Reads JSON text (with the engine's YAML reader: JSON is YAML flow syntax). Quoted
    /// scalars are strings; plain ones must be `null`, `true`, `false` or a JSON number. An
    /// empty text is `null`. Errors carry line:column (YAML's texts for syntax errors).
    pub fn parse(text: &str) -> Result<Json, String> {
        match crate::input::documents::parse_yaml(text, 1) {
            Ok((Some(root), _)) => from_node(&root, 0),
            Ok((None, _)) => Ok(Json::Null),
            Err((span, msg)) => Err(format!("{}:{}: {msg}", span.line, span.column)),
        }
    }

    /// The value of `key` in an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(m) => m.get(key),
            _ => None,
        }
    }

    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }
}

/// How deep arrays and objects may nest (serde_json's limit): the reading below recurses.
const MAX_DEPTH: usize = 128;

/// A YAML node of JSON text as [`Json`], `depth` collections inside the root.
fn from_node(node: &Node, depth: usize) -> Result<Json, String> {
    let at = |what: &str| format!("{}:{}: {what}", node.span.line, node.span.column);
    if depth > MAX_DEPTH {
        return Err(at("recursion limit exceeded"));
    }
    Ok(match &node.value {
        NodeValue::Null => Json::Null,
        NodeValue::Scalar(s) if !s.plain => Json::Str(s.text.clone()),
        NodeValue::Scalar(s) => match s.text.as_str() {
            "true" => Json::Bool(true),
            "false" => Json::Bool(false),
            t => number(t).ok_or_else(|| at(&format!("not a JSON value: {t}")))?,
        },
        NodeValue::Seq(items) => Json::Array(
            items
                .iter()
                .map(|n| from_node(n, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        NodeValue::Map(entries) => {
            let mut out = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let Some(key) = k.as_scalar() else {
                    return Err(at("an object key must be a string"));
                };
                out.push((key.to_owned(), from_node(v, depth + 1)?));
            }
            Json::Object(SortedMap::from_entries(out))
        }
    })
}

/// A number per the JSON grammar, classified as serde_json's parser does: an integer ≥ 0
/// that fits in a `u64` is unsigned, a negative one that fits in an `i64` signed, anything
/// else (fraction, exponent, `-0`, too large) a float; a float out of range is `None`.
fn number(t: &str) -> Option<Json> {
    let b = t.as_bytes();
    let neg = b.first() == Some(&b'-');
    let mut i = usize::from(neg);
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let int_start = i;
    let n = digits(&mut i);
    if n == 0 || (n > 1 && b.get(int_start) == Some(&b'0')) {
        return None;
    }
    let mut integer = true;
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return None;
        }
        integer = false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return None;
        }
        integer = false;
    }
    if i != b.len() {
        return None;
    }
    if integer {
        let magnitude = t.get(int_start..).and_then(|m| m.parse::<u64>().ok());
        match (neg, magnitude) {
            (false, Some(u)) => return Some(Json::U64(u)),
            // serde_json: the magnitude's two's complement negated, kept when negative (so
            // -0 and magnitudes past 2^63 are floats).
            (true, Some(m)) if (m as i64).wrapping_neg() < 0 => {
                return Some(Json::I64((m as i64).wrapping_neg()))
            }
            _ => {}
        }
    }
    t.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .map(Json::F64)
}

impl From<&serde_json::Value> for Json {
    /// The same value (for native callers that hold a `serde_json::Value`).
    fn from(v: &serde_json::Value) -> Self {
        use serde_json::Value as V;
        match v {
            V::Null => Json::Null,
            V::Bool(b) => Json::Bool(*b),
            V::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => Json::U64(u),
                (None, Some(i), _) => Json::I64(i),
                (None, None, f) => Json::F64(f.unwrap_or(f64::NAN)),
            },
            V::String(s) => Json::Str(s.clone()),
            V::Array(a) => Json::Array(a.iter().map(Json::from).collect()),
            V::Object(m) => {
                Json::Object(m.iter().map(|(k, v)| (k.clone(), Json::from(v))).collect())
            }
        }
    }
}

impl<'de> serde::Deserialize<'de> for Json {
    /// As `serde_json::Value` deserializes (so the options' serde `Deserialize`, the reference
    /// of `tests/options_diff.rs`, reads the same values).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any valid JSON value")
            }
            fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
                Ok(Json::Bool(b))
            }
            fn visit_i64<E>(self, i: i64) -> Result<Json, E> {
                Ok(match u64::try_from(i) {
                    Ok(u) => Json::U64(u),
                    Err(_) => Json::I64(i),
                })
            }
            fn visit_u64<E>(self, u: u64) -> Result<Json, E> {
                Ok(Json::U64(u))
            }
            fn visit_f64<E>(self, f: f64) -> Result<Json, E> {
                // serde_json's `Value` has no non-finite numbers: they become null.
                Ok(if f.is_finite() {
                    Json::F64(f)
                } else {
                    Json::Null
                })
            }
            fn visit_str<E>(self, s: &str) -> Result<Json, E> {
                Ok(Json::Str(s.to_owned()))
            }
            fn visit_string<E>(self, s: String) -> Result<Json, E> {
                Ok(Json::Str(s))
            }
            fn visit_none<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
                serde::Deserialize::deserialize(d)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = a.next_element()? {
                    out.push(x);
                }
                Ok(Json::Array(out))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut out = Vec::new();
                while let Some(kv) = a.next_entry::<String, Json>()? {
                    out.push(kv);
                }
                Ok(Json::Object(SortedMap::from_entries(out)))
            }
        }
        d.deserialize_any(V)
    }
}

/// A type read from a JSON value with the rules of its serde `Deserialize` over
/// `&serde_json::Value`.
pub trait FromJson: Sized {
    /// Reads `v`; the error text is serde's.
    fn from_json(v: &Json) -> Result<Self, Error>;
}

/// What serde calls the value in "invalid type" errors.
fn unexpected(v: &Json) -> Unexpected<'_> {
    match v {
        Json::Null => Unexpected::Unit,
        Json::Bool(b) => Unexpected::Bool(*b),
        Json::U64(u) => Unexpected::Unsigned(*u),
        Json::I64(i) => Unexpected::Signed(*i),
        Json::F64(f) => Unexpected::Float(*f),
        Json::Str(s) => Unexpected::Str(s),
        Json::Array(_) => Unexpected::Seq,
        Json::Object(_) => Unexpected::Map,
    }
}

/// serde_json's wording of an unexpected value: `null`, and floats as serde_json writes them
/// (with its formatter: the shortest digits, `1.0`, `0.00001`, `1e+16`; of two shortest
/// candidates, its choice).
struct JsonUnexpected<'a>(Unexpected<'a>);

impl fmt::Display for JsonUnexpected<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Unexpected::Unit => f.write_str("null"),
            Unexpected::Float(x) => write!(f, "floating point `{}`", zmij::Buffer::new().format(x)),
            u => fmt::Display::fmt(&u, f),
        }
    }
}

/// serde_json's "invalid type: X, expected Y".
#[cold]
pub(crate) fn invalid_type(v: &Json, expected: &str) -> Error {
    Error::custom(format_args!(
        "invalid type: {}, expected {expected}",
        JsonUnexpected(unexpected(v))
    ))
}

/// serde_json's "invalid value: X, expected Y".
#[cold]
fn invalid_value(u: Unexpected<'_>, expected: &str) -> Error {
    Error::custom(format_args!(
        "invalid value: {}, expected {expected}",
        JsonUnexpected(u)
    ))
}

impl FromJson for String {
    fn from_json(v: &Json) -> Result<Self, Error> {
        match v {
            Json::Str(s) => Ok(s.clone()),
            _ => Err(invalid_type(v, "a string")),
        }
    }
}

impl FromJson for bool {
    fn from_json(v: &Json) -> Result<Self, Error> {
        match v {
            Json::Bool(b) => Ok(*b),
            _ => Err(invalid_type(v, "a boolean")),
        }
    }
}

/// An integer in `[min, max]` as serde's primitive visitors read it (`what`: "u32", "i64").
fn int(v: &Json, min: i64, max: u64, what: &str) -> Result<i128, Error> {
    match *v {
        Json::U64(u) if u <= max => Ok(i128::from(u)),
        Json::U64(u) => Err(invalid_value(Unexpected::Unsigned(u), what)),
        Json::I64(i) if i >= min => Ok(i128::from(i)),
        Json::I64(i) => Err(invalid_value(Unexpected::Signed(i), what)),
        _ => Err(invalid_type(v, what)),
    }
}

impl FromJson for u32 {
    fn from_json(v: &Json) -> Result<Self, Error> {
        let i = int(v, 0, u64::from(u32::MAX), "u32")?;
        u32::try_from(i).map_err(|_| Error::custom("u32"))
    }
}

impl FromJson for i64 {
    fn from_json(v: &Json) -> Result<Self, Error> {
        let i = int(v, i64::MIN, i64::MAX as u64, "i64")?;
        i64::try_from(i).map_err(|_| Error::custom("i64"))
    }
}

impl<T: FromJson> FromJson for Option<T> {
    fn from_json(v: &Json) -> Result<Self, Error> {
        match v {
            Json::Null => Ok(None),
            _ => T::from_json(v).map(Some),
        }
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(v: &Json) -> Result<Self, Error> {
        match v {
            Json::Array(a) => a.iter().map(T::from_json).collect(),
            _ => Err(invalid_type(v, "a sequence")),
        }
    }
}

impl FromJson for SortedMap<String, String> {
    fn from_json(v: &Json) -> Result<Self, Error> {
        match v {
            Json::Object(m) => {
                let mut out = Vec::with_capacity(m.len());
                for (k, v) in m {
                    out.push((k.clone(), String::from_json(v)?));
                }
                Ok(SortedMap::from_entries(out))
            }
            _ => Err(invalid_type(v, "a map")),
        }
    }
}

impl FromJson for DateTime<Utc> {
    /// chrono's serde impl: a string through `FromStr` (relaxed RFC 3339), its error text.
    fn from_json(v: &Json) -> Result<Self, Error> {
        match v {
            Json::Str(s) => crate::input::rfc3339::parse(s)
                .map(|t| t.with_timezone(&Utc))
                .map_err(Error::custom),
            _ => Err(invalid_type(
                v,
                "an RFC 3339 formatted date and time string",
            )),
        }
    }
}

/// The index of `name` among an enum's `variants`, or serde's "unknown variant".
fn variant_of(name: &str, variants: &'static [&'static str]) -> Result<usize, Error> {
    variants
        .iter()
        .position(|v| *v == name)
        .ok_or_else(|| Error::unknown_variant(name, variants))
}

/// A variant identifier (an internally tagged enum's tag): a string naming a variant.
pub(crate) fn variant_identifier(
    v: &Json,
    variants: &'static [&'static str],
) -> Result<usize, Error> {
    match v {
        Json::Str(s) => variant_of(s, variants),
        _ => Err(invalid_type(v, "variant identifier")),
    }
}

/// A unit variant, externally tagged: `"Name"` or `{"Name": null}`.
pub(crate) fn unit_variant(v: &Json, variants: &'static [&'static str]) -> Result<usize, Error> {
    let (name, value) = match v {
        Json::Str(s) => (s.as_str(), None),
        Json::Object(m) => {
            let mut it = m.iter();
            match (it.next(), it.next()) {
                (Some((k, value)), None) => (k.as_str(), Some(value)),
                _ => return Err(invalid_value(Unexpected::Map, "map with a single key")),
            }
        }
        _ => return Err(invalid_type(v, "string or map")),
    };
    let i = variant_of(name, variants)?;
    match value {
        Some(value) if !value.is_null() => Err(invalid_type(value, "unit")),
        _ => Ok(i),
    }
}

/// `FromJson` for an enum of unit variants: `unit_enum!(Type { Variant = "name", ... })`.
macro_rules! unit_enum {
    ($t:ty { $($v:ident = $name:literal),+ $(,)? }) => {
        impl $crate::options_json::FromJson for $t {
            fn from_json(
                v: &$crate::options_json::Json,
            ) -> Result<Self, $crate::options_json::Error> {
                const NAMES: &[&str] = &[$($name),+];
                const ALL: &[$t] = &[$(<$t>::$v),+];
                let i = $crate::options_json::unit_variant(v, NAMES)?;
                ALL.get(i).copied().ok_or_else(|| {
                    <$crate::options_json::Error as serde::de::Error>::custom("variant")
                })
            }
        }
    };
}
pub(crate) use unit_enum;

/// How serde reached a struct body: directly over `&Json`, or through its buffered `Content`
/// (the fields of an internally tagged variant). They word "too many elements" differently.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Via {
    /// `&Json`.
    Value,
    /// serde's `ContentDeserializer`.
    Content,
}

/// The fields of one struct, given as an object (by name) or as an array (by position, as
/// serde's derive also accepts), decoded one by one. serde stops at the first error in input
/// order (a bad value, a duplicate key via an alias, then missing fields in field order, then
/// extra array elements): each error is recorded with that position and the earliest wins.
pub(crate) struct Fields<'a> {
    /// Per field: its value and the position serde meets it at.
    slots: Vec<Option<(usize, &'a Json)>>,
    /// The first error, by position.
    err: Option<(usize, Error)>,
    /// Where absent-field checks happen: after the entries (object) or at the field (array).
    after: usize,
    /// Array form: the `invalid_length` expectation (`struct X with N elements`).
    seq: Option<String>,
}

impl<'a> Fields<'a> {
    /// Reads `v` as a struct named by `expecting` (`struct X`) with `fields` (each: its name,
    /// then its aliases). `seq`: whether (and how) an array is accepted.
    pub(crate) fn read(
        v: &'a Json,
        expecting: &str,
        fields: &[&[&'static str]],
        seq: Option<Via>,
    ) -> Result<Self, Error> {
        match v {
            Json::Object(m) => Ok(Self::entries(
                m.iter().map(|(k, v)| (k.as_str(), v)).collect(),
                fields,
            )),
            Json::Array(a) if seq.is_some() => Ok(Self::elements(
                a,
                expecting,
                fields.len(),
                seq == Some(Via::Content),
            )),
            _ => Err(invalid_type(v, expecting)),
        }
    }

    /// An object's (or a tagged variant's buffered) entries, in order.
    pub(crate) fn entries(entries: Vec<(&'a str, &'a Json)>, fields: &[&[&'static str]]) -> Self {
        let mut out = Fields {
            slots: vec![None; fields.len()],
            err: None,
            after: entries.len(),
            seq: None,
        };
        for (pos, (k, v)) in entries.into_iter().enumerate() {
            let Some(i) = fields.iter().position(|names| names.contains(&k)) else {
                continue;
            };
            match out.slots.get_mut(i) {
                Some(Some(_)) => {
                    let name = fields.get(i).and_then(|n| n.first()).copied().unwrap_or("");
                    out.fail(pos, Error::duplicate_field(name));
                    break;
                }
                Some(slot) => *slot = Some((pos, v)),
                None => {}
            }
        }
        out
    }

    /// An array's elements, by position; `content`: reached through serde's `Content`.
    pub(crate) fn elements(a: &'a [Json], expecting: &str, n: usize, content: bool) -> Self {
        let plural = if n == 1 { "" } else { "s" };
        let mut out = Fields {
            slots: (0..n).map(|i| a.get(i).map(|v| (i, v))).collect(),
            err: None,
            after: 0,
            seq: Some(format!("{expecting} with {n} element{plural}")),
        };
        if a.len() > n {
            let e = if content {
                let plural = if n == 1 { "element" } else { "elements" };
                Error::invalid_length(a.len(), &format!("{n} {plural} in sequence").as_str())
            } else {
                Error::invalid_length(a.len(), &"fewer elements in array")
            };
            out.fail(n, e);
        }
        out
    }

    fn fail(&mut self, pos: usize, e: Error) {
        if self.err.as_ref().is_none_or(|(p, _)| pos < *p) {
            self.err = Some((pos, e));
        }
    }

    fn value(&self, i: usize) -> Option<(usize, &'a Json)> {
        self.slots.get(i).copied().flatten()
    }

    /// Field `i` read with `f`, `None` when absent or bad (the error is recorded).
    pub(crate) fn with<T>(
        &mut self,
        i: usize,
        f: impl FnOnce(&Json) -> Result<T, Error>,
    ) -> Option<T> {
        let (pos, v) = self.value(i)?;
        match f(v) {
            Ok(x) => Some(x),
            Err(e) => {
                self.fail(pos, e);
                None
            }
        }
    }

    /// Field `i` with `#[serde(default)]`: `default` when absent (or bad: the error is
    /// recorded).
    pub(crate) fn or<T: FromJson>(&mut self, i: usize, default: T) -> T {
        self.with(i, T::from_json).unwrap_or(default)
    }

    /// Field `i` without a default: absent is "missing field `name`" (an array too short:
    /// "invalid length"); the placeholder returned then is never used (`finish` fails).
    pub(crate) fn req<T: FromJson + Default>(&mut self, i: usize, name: &'static str) -> T {
        self.req_with(i, name, T::from_json)
    }

    /// [`Fields::req`] with a reader.
    pub(crate) fn req_with<T: Default>(
        &mut self,
        i: usize,
        name: &'static str,
        f: fn(&Json) -> Result<T, Error>,
    ) -> T {
        if self.value(i).is_none() {
            self.absent(i, Some(name));
        }
        self.with(i, f).unwrap_or_default()
    }

    /// An `Option` field without `#[serde(default)]`: absent from an object is `None`
    /// (serde's implicit default), but an array must still hold it.
    pub(crate) fn opt<T: FromJson>(&mut self, i: usize) -> Option<T> {
        if self.value(i).is_none() {
            self.absent(i, None);
        }
        self.with(i, Option::<T>::from_json).flatten()
    }

    /// Records the error of absent field `i`: an array too short, or in an object the missing
    /// field `name` (`None`: an object may omit it).
    fn absent(&mut self, i: usize, name: Option<&'static str>) {
        match (&self.seq, name) {
            (Some(expecting), _) => {
                let e = Error::invalid_length(i, &expecting.as_str());
                self.fail(i, e);
            }
            (None, Some(name)) => self.fail(self.after + i, Error::missing_field(name)),
            (None, None) => {}
        }
    }

    /// The first error serde would have met, if any.
    pub(crate) fn finish(self) -> Result<(), Error> {
        match self.err {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }
}

/// The entries of an object whose keys none of `fields` names (a `#[serde(flatten)]` map).
pub(crate) fn rest(v: &Json, fields: &[&[&str]]) -> SortedMap<String, Json> {
    match v {
        Json::Object(m) => m
            .iter()
            .filter(|(k, _)| !fields.iter().any(|n| n.contains(&k.as_str())))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        _ => SortedMap::new(),
    }
}

/// The entries of `m` but `skip` (an internally tagged enum's buffered content).
pub(crate) fn entries_but<'a>(
    m: &'a SortedMap<String, Json>,
    skip: &str,
) -> Vec<(&'a str, &'a Json)> {
    m.iter()
        .filter(|(k, _)| k.as_str() != skip)
        .map(|(k, v)| (k.as_str(), v))
        .collect()
}
