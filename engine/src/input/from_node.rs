//! [`FromNode`]: decoding [`Node`] trees into the model types without serde's visitors.
//!
//! The model types derive it (`#[derive(FromNode)]` from `fleet-policy-derive`, reading the
//! same `#[serde(...)]` attributes). Typing rules, messages, field paths and line:column are
//! those of the serde deserializer in [`super::de`]: the shared error texts (unknown/missing/
//! duplicate field, unknown variant, invalid type) are serde's own `de::Error` constructors.
//! It exists for size and speed: serde monomorphises a field enum, a visitor and a
//! `visit_map`/`visit_seq` per type and deserializer, and buffers untagged enums; here the
//! per-type code is one match arm per field, and everything shared is in the non-generic
//! functions below.

use super::de::DeError;
use super::de::Unexpected;
use super::node::{resolve, FieldPath, Node, PathSeg, Resolved, Value};
use crate::sorted_map::SortedMap;
use chrono::{DateTime, Utc};
use serde::de::Error as _;
use std::collections::BTreeMap;

/// A type decodable from a YAML [`Node`].
pub trait FromNode: Sized {
    /// Decodes `node`. Errors carry the path relative to `node` and, where serde's path gives
    /// one, the line:column.
    fn from_node(node: &Node) -> Result<Self, DeError>;

    /// The value of an absent struct field without `#[serde(default)]`: `None` makes it a
    /// "missing field" error; `Option` answers `Some(None)` (serde's implicit `None`).
    fn absent() -> Option<Self> {
        None
    }
}

/// "expected X, found Y" at the node.
#[cold]
pub(crate) fn mismatch(node: &Node, expected: &str) -> DeError {
    DeError::new(
        FieldPath::root(),
        Some(node.span()),
        format!("expected {expected}, found {}", super::de::describe(node)),
    )
}

/// A custom (serde `Error::custom`) error at the node.
#[cold]
pub fn custom_at(node: &Node, msg: impl std::fmt::Display) -> DeError {
    DeError::custom(msg).at(node.span())
}

/// The string of a node that must be a string ("expected a string" otherwise).
pub fn str_of(node: &Node) -> Result<&str, DeError> {
    match &node.value {
        // Quoted scalars are strings whatever they look like: skip the typing rules.
        Value::Scalar(s) if !node.is_plain() => Ok(s),
        Value::Scalar(s) => match resolve(s, true) {
            Resolved::Str(t) => Ok(t),
            _ => Err(mismatch(node, "a string")),
        },
        _ => Err(mismatch(node, "a string")),
    }
}

impl FromNode for String {
    fn from_node(node: &Node) -> Result<Self, DeError> {
        str_of(node).map(str::to_owned)
    }
}

impl FromNode for bool {
    fn from_node(node: &Node) -> Result<Self, DeError> {
        match node.resolve() {
            Some(Resolved::Bool(b)) => Ok(b),
            _ => Err(mismatch(node, "a boolean")),
        }
    }
}

/// The integer of a node, in range for the type described by `what`.
fn int_in<T: TryFrom<i64>>(node: &Node, what: &str) -> Result<T, DeError> {
    let i = int_of(node, what)?;
    T::try_from(i).map_err(|_| out_of_range(node, i, what))
}

fn int_of(node: &Node, what: &str) -> Result<i64, DeError> {
    match node.resolve() {
        Some(Resolved::Int(i)) => Ok(i),
        // sigs.k8s.io/yaml writes a whole float (`2.0`, `1e3`) as a JSON integer, which Go
        // then reads into an integer field.
        Some(Resolved::Float(f)) if f.fract() == 0.0 && f.abs() < 9.2e18 => Ok(f as i64),
        _ => Err(mismatch(node, what)),
    }
}

#[cold]
fn out_of_range(node: &Node, i: i64, what: &str) -> DeError {
    DeError::new(
        FieldPath::root(),
        Some(node.span()),
        format!("{i} is out of range for {what}"),
    )
}

macro_rules! from_node_int {
    ($t:ty, $what:expr) => {
        impl FromNode for $t {
            fn from_node(node: &Node) -> Result<Self, DeError> {
                int_in(node, $what)
            }
        }
    };
}

from_node_int!(i8, "an 8-bit integer");
from_node_int!(i16, "a 16-bit integer");
from_node_int!(i32, "a 32-bit integer");
from_node_int!(i64, "an integer");
from_node_int!(u8, "an unsigned 8-bit integer");
from_node_int!(u16, "an unsigned 16-bit integer");
from_node_int!(u32, "an unsigned 32-bit integer");
from_node_int!(u64, "an unsigned integer");

impl FromNode for f64 {
    fn from_node(node: &Node) -> Result<Self, DeError> {
        match node.resolve() {
            Some(Resolved::Int(i)) => Ok(i as f64),
            Some(Resolved::Float(f)) => Ok(f),
            _ => Err(mismatch(node, "a number")),
        }
    }
}

impl<T: FromNode> FromNode for Option<T> {
    fn from_node(node: &Node) -> Result<Self, DeError> {
        if node.is_null() {
            Ok(None)
        } else {
            T::from_node(node).map(Some)
        }
    }

    fn absent() -> Option<Self> {
        Some(None)
    }
}

/// The items of a list node; null is the empty list (as Kubernetes treats it).
pub fn seq_items(node: &Node) -> Result<&[Node], DeError> {
    match &node.value {
        Value::Seq(items) => Ok(items),
        Value::Null => Ok(&[]),
        _ => Err(mismatch(node, "a list")),
    }
}

/// Places an error of item `i` under its index (and at the item when it has no position).
#[cold]
pub fn in_item(e: DeError, item: &Node, i: usize) -> DeError {
    e.at(item.span()).under(PathSeg::Index(i))
}

impl<T: FromNode> FromNode for Vec<T> {
    fn from_node(node: &Node) -> Result<Self, DeError> {
        let mut out = Vec::new();
        each_item(node, &mut |item| {
            out.push(T::from_node(item)?);
            Ok(())
        })?;
        Ok(out)
    }
}

/// Calls `f` with each item of a list node in order; stops at the first
/// error, placed under the item's index. The loop of every list type's decoder, compiled
/// once instead of once per item type.
fn each_item(node: &Node, f: &mut dyn FnMut(&Node) -> Result<(), DeError>) -> Result<(), DeError> {
    let items = seq_items(node)?;
    for (i, item) in items.iter().enumerate() {
        f(item).map_err(|e| in_item(e, item, i))?;
    }
    Ok(())
}

/// The entries of a mapping node; null is the empty mapping.
#[cfg_attr(optimize_hot, optimize(speed))]
pub fn map_entries(node: &Node) -> Result<&[(Node, Node)], DeError> {
    match &node.value {
        Value::Map(entries) => Ok(entries),
        Value::Null => Ok(&[]),
        _ => Err(mismatch(node, "an object")),
    }
}

/// A mapping key as a string: keys are strings whatever they look like (`1: x` has key "1"),
/// a null key is "" and a collection key is an error at the key.
#[cfg_attr(optimize_hot, optimize(speed))]
pub fn key_str(k: &Node) -> Result<&str, DeError> {
    match &k.value {
        Value::Scalar(s) => Ok(s),
        Value::Null => Ok(""),
        _ => Err(bad_key(k)),
    }
}

#[cold]
fn bad_key(k: &Node) -> DeError {
    DeError::new(
        FieldPath::root(),
        Some(k.span()),
        format!("expected a string key, found {}", super::de::describe(k)),
    )
    .under(key_seg(k))
}

/// The path segment of a mapping key, made only on the error path.
fn key_seg(k: &Node) -> PathSeg {
    PathSeg::Key(k.as_scalar().unwrap_or("").to_string())
}

/// Places an error of the value under key `k` (and at the value when it has no position).
#[cold]
pub fn in_entry(e: DeError, k: &Node, v: &Node) -> DeError {
    e.at(v.span()).under(key_seg(k))
}

/// Decodes the value of one mapping entry, errors placed under its key.
pub fn entry<T: FromNode>(k: &Node, v: &Node) -> Result<T, DeError> {
    T::from_node(v).map_err(|e| in_entry(e, k, v))
}

impl<T: FromNode> FromNode for BTreeMap<String, T> {
    fn from_node(node: &Node) -> Result<Self, DeError> {
        let mut out = BTreeMap::new();
        for (k, v) in map_entries(node)? {
            let key = key_str(k)?;
            out.insert(key.to_owned(), entry(k, v)?);
        }
        Ok(out)
    }
}

impl<T: FromNode> FromNode for SortedMap<String, T> {
    /// As `BTreeMap`'s: entries decoded in document order (the first error is the first bad
    /// entry's), a repeated key's last value wins.
    fn from_node(node: &Node) -> Result<Self, DeError> {
        let mut out = Vec::new();
        for (k, v) in map_entries(node)? {
            let key = key_string(k)?;
            match T::from_node(v) {
                Ok(value) => out.push((key, value)),
                Err(e) => return Err(in_entry(e, k, v)),
            }
        }
        Ok(SortedMap::from_entries(out))
    }
}

/// [`key_str`] owned: the key of a decoded map entry.
fn key_string(k: &Node) -> Result<String, DeError> {
    key_str(k).map(str::to_owned)
}

impl FromNode for DateTime<Utc> {
    /// RFC 3339, as chrono's serde impl reads it (its parse error text).
    fn from_node(node: &Node) -> Result<Self, DeError> {
        super::rfc3339::parse(str_of(node)?)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| custom_at(node, e))
    }
}

impl FromNode for crate::model::Opaque {
    /// Any value; the errors `serde_json::Value`'s decoding had (a collection as a mapping
    /// key), at the same path.
    fn from_node(node: &Node) -> Result<Self, DeError> {
        any_value(node).map(|()| crate::model::Opaque)
    }
}

/// Checks that `node` could be a JSON value: its mapping keys, at any depth, are scalars.
/// Entries and items in order, errors under their key or index (as the decoding of a
/// `serde_json::Value` it replaces).
fn any_value(node: &Node) -> Result<(), DeError> {
    match &node.value {
        Value::Null | Value::Scalar(_) => Ok(()),
        Value::Seq(_) => each_item(node, &mut any_value),
        Value::Map(entries) => {
            for (k, v) in entries {
                key_str(k)?;
                any_value(v).map_err(|e| in_entry(e, k, v))?;
            }
            Ok(())
        }
    }
}

/// Whether a key `#[from_node(ignore)]` names accepts `node` (what [`ignored`] checks).
pub(crate) fn accepts_ignored(node: &Node) -> bool {
    any_value(node).is_ok()
}

/// The error of a struct given the same field twice (under two of its aliases).
#[cold]
pub fn duplicate_field(map: &Node, name: &'static str) -> DeError {
    DeError::duplicate_field(name).at(map.span())
}

/// Decodes a struct field's value into its slot; a second value is a duplicate-field error.
pub fn set<T: FromNode>(
    slot: &mut Option<T>,
    map: &Node,
    name: &'static str,
    k: &Node,
    v: &Node,
) -> Result<(), DeError> {
    if slot.is_some() {
        return Err(duplicate_field(map, name));
    }
    // Decoded here, not through `entry`: one function per field type instead of two.
    match T::from_node(v) {
        Ok(x) => {
            *slot = Some(x);
            Ok(())
        }
        Err(e) => Err(in_entry(e, k, v)),
    }
}

/// A key `#[from_node(ignore)]` names: any value (as [`crate::model::Opaque`] accepts),
/// nothing kept.
pub fn ignored(k: &Node, v: &Node) -> Result<(), DeError> {
    any_value(v).map_err(|e| in_entry(e, k, v))
}

/// The entries of a struct's mapping: each key is looked up in `fields` (every accepted name,
/// aliases included) and `f` gets the index of the field it names (`slot_of`, parallel to
/// `fields`); a key no field has is [`other_field`]'s. The loop and the name lookup of every
/// derived decoder, compiled once: per type only a match on the field index remains.
#[cfg_attr(optimize_hot, optimize(speed))]
pub fn struct_entries(
    node: &Node,
    fields: &'static [&'static str],
    slot_of: &'static [u8],
    deny: bool,
    f: &mut dyn FnMut(usize, &Node, &Node) -> Result<(), DeError>,
) -> Result<(), DeError> {
    for (k, v) in map_entries(node)? {
        let key = key_str(k)?;
        match fields
            .iter()
            .position(|n| super::bytes::same(n, key))
            .and_then(|p| slot_of.get(p))
        {
            Some(&i) => f(usize::from(i), k, v)?,
            None => other_field(k, key, deny, fields)?,
        }
    }
    Ok(())
}

/// A key no field has: an error listing `fields` when the type denies unknown fields, else
/// ignored.
pub fn other_field(
    k: &Node,
    key: &str,
    deny: bool,
    fields: &'static [&'static str],
) -> Result<(), DeError> {
    if deny {
        Err(unknown_field(k, key, fields))
    } else {
        Ok(())
    }
}

#[cold]
fn unknown_field(k: &Node, key: &str, fields: &'static [&'static str]) -> DeError {
    DeError::unknown_field(key, fields)
        .at(k.span())
        .under(key_seg(k))
}

/// A required field's value: the decoded one, else the type's [`FromNode::absent`], else a
/// missing-field error at the mapping.
pub fn required<T: FromNode>(
    slot: Option<T>,
    map: &Node,
    name: &'static str,
) -> Result<T, DeError> {
    match slot {
        Some(v) => Ok(v),
        None => T::absent().ok_or_else(|| missing_field(map, name)),
    }
}

#[cold]
fn missing_field(map: &Node, name: &'static str) -> DeError {
    DeError::missing_field(name).at(map.span())
}

/// The variant name of a unit-variant enum: a string, or the key of a one-entry mapping (as
/// serde's externally tagged form reads it).
pub fn variant_tag(node: &Node) -> Result<&str, DeError> {
    match &node.value {
        Value::Map(entries) if entries.len() == 1 => Ok(entries
            .first()
            .and_then(|(k, _)| k.as_scalar())
            .unwrap_or("")),
        _ => str_of(node),
    }
}

/// An enum given a name none of its variants has.
#[cold]
pub fn unknown_variant(node: &Node, tag: &str, variants: &'static [&'static str]) -> DeError {
    DeError::unknown_variant(tag, variants).at(node.span())
}

/// "invalid type: …, expected {expected}" for a node a `deserialize_any`-based visitor does
/// not accept (serde's default visitor methods), at the node.
#[cold]
pub fn invalid_type(node: &Node, expected: &'static str) -> DeError {
    let unexpected = match &node.value {
        Value::Null => Unexpected::Unit,
        Value::Seq(_) => Unexpected::Seq,
        Value::Map(_) => Unexpected::Map,
        Value::Scalar(s) => match resolve(s, node.is_plain()) {
            Resolved::Null => Unexpected::Unit,
            Resolved::Bool(b) => Unexpected::Bool(b),
            Resolved::Int(i) => Unexpected::Signed(i),
            Resolved::Float(f) => Unexpected::Float(f),
            Resolved::Str(t) => Unexpected::Str(t),
        },
    };
    DeError::custom(format_args!(
        "invalid type: {unexpected}, expected {expected}"
    ))
    .at(node.span())
}

/// The error of an untagged enum no variant of which matches `node`. serde buffers the value
/// first, and that can fail on its own (a collection used as a mapping key); that error wins.
#[cold]
pub fn no_variant_matches(node: &Node, name: &str) -> DeError {
    match any_value(node) {
        Err(e) => e,
        Ok(()) => DeError::custom(format!(
            "data did not match any variant of untagged enum {name}"
        )),
    }
}

/// [`ArmResource`](crate::model::rollout::ArmResource) but its `properties`.
struct ArmHead {
    api_version: Option<String>,
    kind: Option<String>,
    metadata: Option<crate::model::ObjectMeta>,
    name: Option<Option<String>>,
    id: Option<Option<String>>,
    resource_type: Option<Option<String>>,
    e_tag: Option<Option<String>>,
    system_data: Option<Option<crate::model::Opaque>>,
    cluster: Option<Option<crate::model::rollout::ManagedClusterFacts>>,
}

/// The derive's decoding of an ARM resource (same order, names and errors), with
/// `properties` handed to `props`: the part that does not depend on the properties type is
/// compiled once instead of once per resource kind.
fn arm_head(
    node: &Node,
    props: &mut dyn FnMut(&Node, &Node) -> Result<(), DeError>,
) -> Result<ArmHead, DeError> {
    const FIELDS: &[&str] = &[
        "apiVersion",
        "kind",
        "metadata",
        "name",
        "id",
        "type",
        "eTag",
        "systemData",
        "properties",
        "cluster",
    ];
    let mut h = ArmHead {
        api_version: None,
        kind: None,
        metadata: None,
        name: None,
        id: None,
        resource_type: None,
        e_tag: None,
        system_data: None,
        cluster: None,
    };
    for (k, v) in map_entries(node)? {
        match key_str(k)? {
            "apiVersion" => set(&mut h.api_version, node, "apiVersion", k, v)?,
            "kind" => set(&mut h.kind, node, "kind", k, v)?,
            "metadata" => set(&mut h.metadata, node, "metadata", k, v)?,
            "name" => set(&mut h.name, node, "name", k, v)?,
            "id" => set(&mut h.id, node, "id", k, v)?,
            "type" => set(&mut h.resource_type, node, "type", k, v)?,
            "eTag" => set(&mut h.e_tag, node, "eTag", k, v)?,
            "systemData" => set(&mut h.system_data, node, "systemData", k, v)?,
            "properties" => props(k, v)?,
            "cluster" => set(&mut h.cluster, node, "cluster", k, v)?,
            other => other_field(k, other, true, FIELDS)?,
        }
    }
    Ok(h)
}

impl<P: FromNode> FromNode for crate::model::rollout::ArmResource<P> {
    fn from_node(node: &Node) -> Result<Self, DeError> {
        let mut properties: Option<P> = None;
        let h = arm_head(node, &mut |k, v| {
            set(&mut properties, node, "properties", k, v)
        })?;
        // Required fields in declaration order: the first missing one is the error.
        let api_version = required(h.api_version, node, "apiVersion")?;
        let kind = required(h.kind, node, "kind")?;
        let properties = required(properties, node, "properties")?;
        Ok(crate::model::rollout::ArmResource {
            api_version,
            kind,
            metadata: h.metadata.unwrap_or_default(),
            name: h.name.unwrap_or_default(),
            id: h.id.unwrap_or_default(),
            resource_type: h.resource_type.unwrap_or_default(),
            e_tag: h.e_tag.unwrap_or_default(),
            system_data: h.system_data.unwrap_or_default(),
            properties,
            cluster: h.cluster.unwrap_or_default(),
        })
    }
}

/// Decodes a whole node, errors relative to it.
pub fn decode<T: FromNode>(node: &Node) -> Result<T, DeError> {
    T::from_node(node)
}
