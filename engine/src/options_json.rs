//! [`FromJson`]: reading the engines' options from a JSON value without serde's visitors.
//!
//! Why: serde's derive monomorphises a field enum, visitors and, for the internally tagged
//! `WhatIf` and the untagged one-or-many lists, a buffered `Content` path per type: about a
//! tenth of the npm wasm for a handful of small structs. Here each type is a short function
//! over `&serde_json::Value` and the shared logic below is non-generic.
//!
//! Acceptance and error texts are serde's derive over `&Value` (the texts come from serde's
//! own `de::Error` constructors). The option types keep `Deserialize` for library users;
//! `tests/options_diff.rs` checks that both readers agree on generated values.

use crate::sorted_map::SortedMap;
use chrono::{DateTime, Utc};
use serde::de::{Error as _, Unexpected};
use serde_json::{Error, Map, Value};
use std::collections::BTreeMap;

/// A type read from a JSON value with the rules of its serde `Deserialize` over `&Value`.
pub trait FromJson: Sized {
    /// Reads `v`; the error text is serde's.
    fn from_json(v: &Value) -> Result<Self, Error>;
}

/// What serde calls the value in "invalid type" errors.
fn unexpected(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (None, Some(i), _) => Unexpected::Signed(i),
            (None, None, f) => Unexpected::Float(f.unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// serde's "invalid type: X, expected Y".
#[cold]
pub(crate) fn invalid_type(v: &Value, expected: &str) -> Error {
    Error::invalid_type(unexpected(v), &expected)
}

impl FromJson for String {
    fn from_json(v: &Value) -> Result<Self, Error> {
        match v {
            Value::String(s) => Ok(s.clone()),
            _ => Err(invalid_type(v, "a string")),
        }
    }
}

impl FromJson for bool {
    fn from_json(v: &Value) -> Result<Self, Error> {
        match v {
            Value::Bool(b) => Ok(*b),
            _ => Err(invalid_type(v, "a boolean")),
        }
    }
}

/// An integer in `[min, max]` as serde's primitive visitors read it (`what`: "u32", "i64").
fn int(v: &Value, min: i64, max: u64, what: &str) -> Result<i128, Error> {
    let Value::Number(n) = v else {
        return Err(invalid_type(v, what));
    };
    if let Some(u) = n.as_u64() {
        return match u <= max {
            true => Ok(i128::from(u)),
            false => Err(Error::invalid_value(Unexpected::Unsigned(u), &what)),
        };
    }
    match n.as_i64() {
        Some(i) if i >= min => Ok(i128::from(i)),
        Some(i) => Err(Error::invalid_value(Unexpected::Signed(i), &what)),
        None => Err(invalid_type(v, what)),
    }
}

impl FromJson for u32 {
    fn from_json(v: &Value) -> Result<Self, Error> {
        let i = int(v, 0, u64::from(u32::MAX), "u32")?;
        u32::try_from(i).map_err(|_| Error::custom("u32"))
    }
}

impl FromJson for i64 {
    fn from_json(v: &Value) -> Result<Self, Error> {
        let i = int(v, i64::MIN, i64::MAX as u64, "i64")?;
        i64::try_from(i).map_err(|_| Error::custom("i64"))
    }
}

impl<T: FromJson> FromJson for Option<T> {
    fn from_json(v: &Value) -> Result<Self, Error> {
        match v {
            Value::Null => Ok(None),
            _ => T::from_json(v).map(Some),
        }
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(v: &Value) -> Result<Self, Error> {
        match v {
            Value::Array(a) => a.iter().map(T::from_json).collect(),
            _ => Err(invalid_type(v, "a sequence")),
        }
    }
}

impl FromJson for SortedMap<String, String> {
    fn from_json(v: &Value) -> Result<Self, Error> {
        match v {
            Value::Object(m) => {
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
    fn from_json(v: &Value) -> Result<Self, Error> {
        match v {
            Value::String(s) => crate::input::rfc3339::parse(s)
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
    v: &Value,
    variants: &'static [&'static str],
) -> Result<usize, Error> {
    match v {
        Value::String(s) => variant_of(s, variants),
        _ => Err(invalid_type(v, "variant identifier")),
    }
}

/// A unit variant, externally tagged: `"Name"` or `{"Name": null}`.
pub(crate) fn unit_variant(v: &Value, variants: &'static [&'static str]) -> Result<usize, Error> {
    let (name, value) = match v {
        Value::String(s) => (s.as_str(), None),
        Value::Object(m) => {
            let mut it = m.iter();
            match (it.next(), it.next()) {
                (Some((k, value)), None) => (k.as_str(), Some(value)),
                _ => {
                    return Err(Error::invalid_value(
                        Unexpected::Map,
                        &"map with a single key",
                    ))
                }
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
            fn from_json(v: &serde_json::Value) -> Result<Self, serde_json::Error> {
                const NAMES: &[&str] = &[$($name),+];
                const ALL: &[$t] = &[$(<$t>::$v),+];
                let i = $crate::options_json::unit_variant(v, NAMES)?;
                ALL.get(i).copied().ok_or_else(|| <serde_json::Error as serde::de::Error>::custom("variant"))
            }
        }
    };
}
pub(crate) use unit_enum;

/// How serde reached a struct body: directly over `&Value`, or through its buffered `Content`
/// (the fields of an internally tagged variant). They word "too many elements" differently.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Via {
    /// `&Value`.
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
    slots: Vec<Option<(usize, &'a Value)>>,
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
        v: &'a Value,
        expecting: &str,
        fields: &[&[&'static str]],
        seq: Option<Via>,
    ) -> Result<Self, Error> {
        match v {
            Value::Object(m) => Ok(Self::entries(
                m.iter().map(|(k, v)| (k.as_str(), v)).collect(),
                fields,
            )),
            Value::Array(a) if seq.is_some() => Ok(Self::elements(
                a,
                expecting,
                fields.len(),
                seq == Some(Via::Content),
            )),
            _ => Err(invalid_type(v, expecting)),
        }
    }

    /// An object's (or a tagged variant's buffered) entries, in order.
    pub(crate) fn entries(entries: Vec<(&'a str, &'a Value)>, fields: &[&[&'static str]]) -> Self {
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
    pub(crate) fn elements(a: &'a [Value], expecting: &str, n: usize, content: bool) -> Self {
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

    fn value(&self, i: usize) -> Option<(usize, &'a Value)> {
        self.slots.get(i).copied().flatten()
    }

    /// Field `i` read with `f`, `None` when absent or bad (the error is recorded).
    pub(crate) fn with<T>(
        &mut self,
        i: usize,
        f: impl FnOnce(&Value) -> Result<T, Error>,
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
        f: fn(&Value) -> Result<T, Error>,
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
pub(crate) fn rest(v: &Value, fields: &[&[&str]]) -> BTreeMap<String, Value> {
    match v {
        Value::Object(m) => m
            .iter()
            .filter(|(k, _)| !fields.iter().any(|n| n.contains(&k.as_str())))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        _ => BTreeMap::new(),
    }
}

/// The entries of `m` but `skip` (an internally tagged enum's buffered content).
pub(crate) fn entries_but<'a>(m: &'a Map<String, Value>, skip: &str) -> Vec<(&'a str, &'a Value)> {
    m.iter()
        .filter(|(k, _)| k.as_str() != skip)
        .map(|(k, v)| (k.as_str(), v))
        .collect()
}
