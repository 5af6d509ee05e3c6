//! A YAML value tree in which every node remembers where it was written.

use super::diagnostics::Span;
use std::fmt;

/// A YAML node and the line:column where it starts.
///
/// 32 bytes: a dump of 10,000 clusters has 1.7 million nodes, which are most of what reading
/// it keeps. Whether a scalar was quoted is kept in the top bit of its column, and sequences
/// and mappings are boxed slices, so that [`Value`] fits in 24 bytes beside the 8 of the span.
#[derive(Clone, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Line, and column with [`QUOTED`] for a scalar written in quotes or as a block scalar.
    at: (u32, u32),
}

/// The column bit of a quoted scalar: columns are counted below it (a line of 2^31 characters
/// reports that column).
const QUOTED: u32 = 1 << 31;

/// The value of a YAML node.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`, `~` or nothing.
    Null,
    /// Any scalar, kept as written; see [`Node::resolve`] for its type.
    Scalar(compact_str::CompactString),
    /// A sequence.
    Seq(Box<[Node]>),
    /// A mapping, in source order.
    Map(Box<[(Node, Node)]>),
}

impl Node {
    /// A node of `value` starting at `span`.
    pub fn new(value: Value, span: Span) -> Node {
        Node {
            value,
            at: (span.line, span.column.min(QUOTED - 1)),
        }
    }

    /// A scalar node; `plain` when written without quotes (then it may be a number, a boolean
    /// or null). Most scalars of a manifest (names, times, quantities) are short and kept
    /// inline, without an allocation each.
    pub fn scalar(text: impl Into<compact_str::CompactString>, plain: bool, span: Span) -> Node {
        let mut node = Node::new(Value::Scalar(text.into()), span);
        if !plain {
            node.at.1 |= QUOTED;
        }
        node
    }

    /// Where the node starts in its source.
    pub fn span(&self) -> Span {
        Span {
            line: self.at.0,
            column: self.at.1 & !QUOTED,
        }
    }

    /// Moves the node to `span` (a piece read on its own, placed in its whole text).
    pub fn set_span(&mut self, span: Span) {
        self.at = (
            span.line,
            span.column.min(QUOTED - 1) | (self.at.1 & QUOTED),
        );
    }

    /// Whether the node is a scalar written without quotes (a plain scalar).
    pub fn is_plain(&self) -> bool {
        matches!(self.value, Value::Scalar(_)) && self.at.1 & QUOTED == 0
    }

    /// The type a scalar node resolves to; `None` for other nodes.
    #[cfg_attr(optimize_hot, optimize(speed))]
    pub fn resolve(&self) -> Option<Resolved<'_>> {
        match &self.value {
            Value::Scalar(text) => Some(resolve(text, self.at.1 & QUOTED == 0)),
            _ => None,
        }
    }
}

/// `items` with `item` added at the end. Sequences and mappings are boxed slices: read once
/// at their size, changed only by the few readers that build a node (ARM joins, leave-out).
pub(crate) fn push<T>(items: &mut Box<[T]>, item: T) {
    let mut v = Vec::from(std::mem::take(items));
    v.push(item);
    *items = v.into();
}

/// `items` without item `i` (which must exist).
pub(crate) fn remove<T>(items: &mut Box<[T]>, i: usize) {
    let mut v = Vec::from(std::mem::take(items));
    v.remove(i);
    *items = v.into();
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Node");
        d.field("value", &self.value);
        if matches!(self.value, Value::Scalar(_)) {
            d.field("plain", &self.is_plain());
        }
        d.field("span", &self.span()).finish()
    }
}

/// The type a scalar resolves to, as Kubernetes' YAML decoder (go-yaml, YAML 1.1 rules) sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Resolved<'a> {
    /// `null`, `~`, empty.
    Null,
    /// `true`, `yes`, `on`, `false`, `no`, `off`, …
    Bool(bool),
    /// A whole number that fits in 64 bits.
    Int(i64),
    /// A number with a fraction or an exponent.
    Float(f64),
    /// Anything else.
    Str(&'a str),
}

/// How a decoder following YAML 1.1 (like Kubernetes') types a scalar of text `t`, written
/// without quotes when `plain`.
#[cfg_attr(optimize_hot, optimize(speed))]
pub fn resolve(t: &str, plain: bool) -> Resolved<'_> {
    if !plain {
        return Resolved::Str(t);
    }
    // Every word below is at most 6 bytes long and starts with one of these bytes: most
    // scalars (names, times, quantities) skip the comparisons, which the size-optimised wasm
    // build makes one call each.
    let word = t.len() <= 6
        && matches!(
            t.as_bytes().first(),
            None | Some(b'~' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'y' | b'Y')
                | Some(b'o' | b'O' | b'.' | b'+' | b'-')
        );
    if word {
        if let Some(r) = keyword(t) {
            return r;
        }
    }
    // go-yaml v2 `resolve`: the first byte decides what a plain scalar may be.
    match t.as_bytes().first() {
        Some(b'.') => match super::go_float::parse_float(t) {
            Ok(f) => Resolved::Float(f),
            Err(_) => Resolved::Str(t),
        },
        // A timestamp (four digits and '-' first) stays a string when decoded into an
        // untyped value, which is also what the number rules below make of it.
        Some(b'0'..=b'9' | b'-' | b'+') => resolve_number(t),
        _ => Resolved::Str(t),
    }
}

/// The null, boolean and infinity/NaN words of YAML 1.1 as go-yaml v2 reads them.
fn keyword(t: &str) -> Option<Resolved<'static>> {
    Some(match t {
        "" | "~" | "null" | "Null" | "NULL" => Resolved::Null,
        "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "y" | "Y" | "on" | "On" | "ON" => {
            Resolved::Bool(true)
        }
        "false" | "False" | "FALSE" | "no" | "No" | "NO" | "n" | "N" | "off" | "Off" | "OFF" => {
            Resolved::Bool(false)
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Resolved::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Resolved::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => Resolved::Float(f64::NAN),
        _ => return None,
    })
}

/// The tag go-yaml v2 resolves a plain scalar to: `null`, `bool`, `int`, `float` or `str`. A
/// whole number beyond i64 is a uint64 there, an int (the engine keeps it as a float).
pub(crate) fn go_resolved_tag(text: &str) -> &'static str {
    match resolve(text, true) {
        Resolved::Null => "null",
        Resolved::Bool(_) => "bool",
        Resolved::Int(_) => "int",
        Resolved::Float(_) => {
            let digits: String = text.chars().filter(|c| *c != '_').collect();
            if text.as_bytes().first().is_some_and(u8::is_ascii_digit)
                && go_parse_uint_base0(&digits).is_some()
            {
                "int"
            } else {
                "float"
            }
        }
        Resolved::Str(_) => "str",
    }
}

/// go-yaml v2's number rules for plain scalars starting with a digit or a sign, on the text
/// without its underscores: Go's `ParseInt(s, 0, 64)` (0x, 0o, 0b and leading-0 octal),
/// then `ParseUint`, then a decimal float, then a `0b` retry that accepts a sign after it.
fn resolve_number(t: &str) -> Resolved<'_> {
    // Underscores are rare: most numbers are read in place, without a copy.
    let plain: std::borrow::Cow<str> = if t.contains('_') {
        t.chars().filter(|c| *c != '_').collect::<String>().into()
    } else {
        t.into()
    };
    if let Some(i) = go_parse_int(&plain) {
        return Resolved::Int(i);
    }
    if let Some(u) = go_parse_uint_base0(&plain) {
        // Beyond i64 go-yaml gives a uint64; no engine field takes such a value, so it is
        // kept as the nearest float (a number all the same).
        return Resolved::Float(u as f64);
    }
    if yaml_style_float(&plain) {
        if let Ok(f) = super::go_float::parse_float(&plain) {
            return Resolved::Float(f);
        }
    }
    if let Some(rest) = plain.strip_prefix("0b") {
        // strconv.ParseInt(rest, 2, 64) takes a sign.
        let (neg, digits) = match rest.as_bytes().first() {
            Some(b'-') => (true, &rest[1..]),
            Some(b'+') => (false, &rest[1..]),
            _ => (false, rest),
        };
        if let Some(u) = go_parse_digits(digits, 2) {
            if let Some(i) = signed(u, neg) {
                return Resolved::Int(i);
            }
            if !neg {
                return Resolved::Float(u as f64);
            }
        }
    } else if let Some(rest) = plain.strip_prefix("-0b") {
        if let Some(i) = go_parse_digits(rest, 2).and_then(|u| signed(u, true)) {
            return Resolved::Int(i);
        }
    }
    Resolved::Str(t)
}

/// `u` with its sign when it fits an i64.
fn signed(u: u64, neg: bool) -> Option<i64> {
    if neg {
        0i64.checked_sub_unsigned(u)
    } else {
        i64::try_from(u).ok()
    }
}

/// Digits of `base` (at least one), `None` on anything else or past u64.
#[cfg_attr(optimize_hot, optimize(speed))]
fn go_parse_digits(s: &str, base: u32) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    s.chars().try_fold(0u64, |acc, c| {
        let d = c.to_digit(36).filter(|d| *d < base)?;
        acc.checked_mul(u64::from(base))?.checked_add(u64::from(d))
    })
}

/// `strconv.ParseUint(s, 0, 64)` without underscores: the base from the prefix.
fn go_parse_uint_base0(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() {
        return None;
    }
    if b[0] != b'0' {
        return go_parse_digits(s, 10);
    }
    let base = match b.get(1).map(u8::to_ascii_lowercase) {
        Some(b'b') if b.len() >= 3 => 2,
        Some(b'o') if b.len() >= 3 => 8,
        Some(b'x') if b.len() >= 3 => 16,
        _ => {
            return if b.len() == 1 {
                Some(0)
            } else {
                go_parse_digits(&s[1..], 8)
            }
        }
    };
    go_parse_digits(&s[2..], base)
}

/// `strconv.ParseInt(s, 0, 64)` without underscores.
fn go_parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    signed(go_parse_uint_base0(body)?, neg)
}

/// go-yaml's `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn yaml_style_float(t: &str) -> bool {
    let b = t.strip_prefix(['-', '+']).unwrap_or(t).as_bytes();
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = digits(0);
    if i == 0 {
        // `.` and at least one digit.
        if b.first() != Some(&b'.') || digits(1) == 0 {
            return false;
        }
        i = 1 + digits(1);
    } else if b.get(i) == Some(&b'.') {
        i += 1 + digits(i + 1);
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return false;
        }
        i += n;
    }
    i == b.len()
}

/// The annotation kubectl writes on every object it applies: the whole object again, as one
/// JSON string. No engine reads it, and it is a sixth of a `kubectl get -o yaml` dump.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Names that recur in every manifest of a kubectl dump and are longer than a scalar kept
/// inline (12 bytes in wasm32, 24 natively): each occurrence points at the static text here
/// instead of holding a heap copy. In the wasm build this is a third of a MemberCluster's
/// allocations (its conditions alone have ten such keys).
const COMMON: &[&str] = &[
    // Keys.
    "creationTimestamp",
    "resourceVersion",
    "managedFields",
    "heartbeatPeriodSeconds",
    "lastTransitionTime",
    "observedGeneration",
    "lastReceivedHeartbeat",
    "observationTime",
    "resourceUsage",
    LAST_APPLIED,
    "fleet.azure.com/location",
    "kubernetes-fleet.io/node-count",
    "kubernetes.azure.com/per-cpu-core-cost",
    "kubernetes.azure.com/per-gb-memory-cost",
    // Values.
    "cluster.kubernetes-fleet.io/v1beta1",
    "MemberCluster",
    "MemberAgentJoined",
    "MemberAgentReportedHealthy",
    "MemberClusterReadyToJoin",
    "MemberClusterJoined",
    "kubernetes-fleet.io/membercluster-finalizer",
];

/// The text of a scalar, without an allocation when it is one of the [`COMMON`] names.
#[cfg_attr(optimize_hot, optimize(speed))]
pub(crate) fn text_of(text: &str) -> compact_str::CompactString {
    if text.len() > std::mem::size_of::<compact_str::CompactString>() {
        if let Some(common) = COMMON.iter().find(|c| super::bytes::same(c, text)) {
            return compact_str::CompactString::const_new(common);
        }
    }
    compact_str::CompactString::from(text)
}

/// Whether the value of mapping key `key` is one no engine reads: its quoted text is checked
/// but not kept (a reader may skip building it, as the JSON reader does).
#[inline]
pub(crate) fn unread(key: &str) -> bool {
    super::bytes::same(key, LAST_APPLIED)
}

/// Every reader calls this on each mapping entry it builds: the quoted (or literal) text of a
/// value no engine reads is not kept. The entry, its span and its type stay, so lookups,
/// repeated keys and every error read the same; only the memory of the copy is saved.
/// Plain scalars keep their text (their type depends on it).
#[inline]
#[cfg_attr(optimize_hot, optimize(speed))]
pub(crate) fn forget_unread(key: &Node, value: &mut Node) {
    let quoted = !value.is_plain();
    if let Value::Scalar(text) = &mut value.value {
        if quoted && !text.is_empty() && key.as_scalar().is_some_and(unread) {
            *text = compact_str::CompactString::default();
        }
    }
}

impl Node {
    /// The string of a scalar node (whatever its resolved type), or `None`.
    #[cfg_attr(optimize_hot, optimize(speed))]
    pub fn as_scalar(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar(text) => Some(text),
            _ => None,
        }
    }

    /// The string of a node that resolves to a string (quoted, or plain and not a number,
    /// boolean or null).
    pub fn as_str(&self) -> Option<&str> {
        match self.resolve() {
            Some(Resolved::Str(t)) => Some(t),
            _ => None,
        }
    }

    /// The entries of a mapping node.
    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The items of a sequence node.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// Whether the node is null.
    pub fn is_null(&self) -> bool {
        match &self.value {
            Value::Null => true,
            Value::Scalar(_) => self.resolve() == Some(Resolved::Null),
            _ => false,
        }
    }

    /// The value under `key` in a mapping node; the last one when the key is repeated (an
    /// error of its own), as the decoders and Go's JSON decoding take it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .rfind(|(k, _)| k.as_scalar() == Some(key))
            .map(|(_, v)| v)
    }

    /// [`Node::get`], to change the value.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        match &mut self.value {
            Value::Map(entries) => entries
                .iter_mut()
                .rfind(|(k, _)| k.as_scalar() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The key node of `key` in a mapping node (to point at the key rather than the value);
    /// the last one, as [`Node::get`].
    pub fn key_node(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .rfind(|(k, _)| k.as_scalar() == Some(key))
            .map(|(k, _)| k)
    }

    /// Follows a field path as far as it exists and returns the deepest node reached.
    pub fn locate(&self, path: &FieldPath) -> &Node {
        let mut node = self;
        for seg in &path.0 {
            let next = match seg {
                PathSeg::Key(k) => node.get(k),
                PathSeg::Index(i) => node.as_seq().and_then(|s| s.get(*i)),
            };
            match next {
                Some(n) => node = n,
                None => break,
            }
        }
        node
    }

    /// The node as JSON (scalars typed with [`Node::resolve`]; non-string keys stringified).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Scalar(text) => match resolve(text, self.is_plain()) {
                Resolved::Null => J::Null,
                Resolved::Bool(b) => J::Bool(b),
                Resolved::Int(i) => J::from(i),
                Resolved::Float(f) => serde_json::Number::from_f64(f)
                    .map(J::Number)
                    .unwrap_or_else(|| J::String(text.to_string())),
                Resolved::Str(t) => J::String(t.to_string()),
            },
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.as_scalar().unwrap_or("").to_string(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSeg {
    /// A mapping key.
    Key(String),
    /// A sequence index.
    Index(usize),
}

/// A path to a field, written `spec.policy.tolerations[0].key` (keys that are not plain
/// identifiers are quoted: `status.properties["kubernetes-fleet.io/node-count"].value`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FieldPath(pub Vec<PathSeg>);

impl FieldPath {
    /// The empty path (the document itself).
    pub fn root() -> Self {
        FieldPath(Vec::new())
    }

    /// This path followed by a key.
    pub fn key(&self, key: &str) -> Self {
        let mut p = self.clone();
        p.0.push(PathSeg::Key(key.to_string()));
        p
    }

    /// This path followed by an index.
    pub fn index(&self, i: usize) -> Self {
        let mut p = self.clone();
        p.0.push(PathSeg::Index(i));
        p
    }

    /// Parses the textual form produced by `Display`. Unparsable parts end the path.
    pub fn parse(text: &str) -> Self {
        let mut segs = Vec::new();
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'.' => i += 1,
                b'[' if b.get(i + 1) == Some(&b'"') => {
                    let rest = &text[i + 2..];
                    let Some(end) = rest.find("\"]") else { break };
                    segs.push(PathSeg::Key(rest[..end].to_string()));
                    i += 2 + end + 2;
                }
                b'[' => {
                    let rest = &text[i + 1..];
                    let Some(end) = rest.find(']') else { break };
                    let Ok(n) = rest[..end].parse::<usize>() else {
                        break;
                    };
                    segs.push(PathSeg::Index(n));
                    i += 1 + end + 1;
                }
                _ => {
                    let rest = &text[i..];
                    let end = rest.find(['.', '[']).unwrap_or(rest.len());
                    segs.push(PathSeg::Key(rest[..end].to_string()));
                    i += end;
                }
            }
        }
        FieldPath(segs)
    }
}

fn is_plain_key(k: &str) -> bool {
    !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, seg) in self.0.iter().enumerate() {
            match seg {
                PathSeg::Key(k) if is_plain_key(k) => {
                    if n > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                PathSeg::Key(k) => write!(f, "[\"{k}\"]")?,
                PathSeg::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

impl From<&str> for FieldPath {
    fn from(s: &str) -> Self {
        FieldPath::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(t: &str) -> Node {
        Node::scalar(t, true, Span { line: 1, column: 1 })
    }

    #[test]
    fn resolves_scalars_like_kubernetes() {
        assert_eq!(std::mem::size_of::<Node>(), 32);
        assert_eq!(plain("4").resolve(), Some(Resolved::Int(4)));
        assert_eq!(plain("-0x10").resolve(), Some(Resolved::Int(-16)));
        assert_eq!(plain("1.5").resolve(), Some(Resolved::Float(1.5)));
        assert_eq!(plain("1e3").resolve(), Some(Resolved::Float(1000.0)));
        assert_eq!(plain("yes").resolve(), Some(Resolved::Bool(true)));
        assert_eq!(plain("~").resolve(), Some(Resolved::Null));
        assert_eq!(plain("500m").resolve(), Some(Resolved::Str("500m")));
        assert_eq!(plain("4Gi").resolve(), Some(Resolved::Str("4Gi")));
        assert_eq!(plain("1.2.3").resolve(), Some(Resolved::Str("1.2.3")));
        assert_eq!(plain("10h5m").resolve(), Some(Resolved::Str("10h5m")));
        let quoted = Node::scalar("4", false, Span { line: 1, column: 1 });
        assert_eq!(quoted.resolve(), Some(Resolved::Str("4")));
        assert_eq!(quoted.span(), Span { line: 1, column: 1 });
        assert!(!quoted.is_plain() && plain("4").is_plain());
        // Moving a node keeps how its scalar was written; a column past the flag bit stops
        // below it instead of turning a plain scalar into a quoted one.
        let mut moved = quoted.clone();
        moved.set_span(Span { line: 7, column: 9 });
        assert_eq!(moved.span(), Span { line: 7, column: 9 });
        assert_eq!(moved.resolve(), Some(Resolved::Str("4")));
        let far = Node::scalar(
            "4",
            true,
            Span {
                line: 2,
                column: u32::MAX,
            },
        );
        assert_eq!(far.resolve(), Some(Resolved::Int(4)));
        assert_eq!(far.span().column, (1 << 31) - 1);
    }

    #[test]
    fn field_paths_round_trip() {
        let p = FieldPath::root()
            .key("status")
            .key("properties")
            .key("kubernetes-fleet.io/node-count")
            .key("value");
        let text = p.to_string();
        assert_eq!(
            text,
            "status.properties[\"kubernetes-fleet.io/node-count\"].value"
        );
        assert_eq!(FieldPath::parse(&text), p);
        let q = FieldPath::parse("spec.policy.tolerations[2].key");
        assert_eq!(q.to_string(), "spec.policy.tolerations[2].key");
        assert_eq!(q.0.len(), 5);
    }
}
