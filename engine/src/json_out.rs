//! [`ToJson`]: writing the results as JSON text without serde.
//!
//! Why: serde's `Serialize` impls monomorphised for `serde_json`'s serializer (one
//! `serialize_entry` per field type, one `collect_seq` per element type, one function per
//! struct) were about 6% of the npm wasm. Here every type's code is a short list of calls
//! into the non-generic [`JsonOut`] methods, which hold all the shared logic (commas,
//! indentation, escaping, numbers).
//!
//! The output is `serde_json::to_string` (compact) or `to_string_pretty` (2-space indent)
//! of the types' serde `Serialize`, byte for byte: `#[derive(ToJson)]` reads the same
//! `#[serde(...)]` attributes, and `tests/json_out_diff.rs` compares both writers. The types
//! keep `Serialize` for library users, YAML output and the TypeScript generator.

use crate::sorted_map::{SortedMap, SortedSet};
use chrono::{DateTime, Datelike, Timelike, Utc};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

pub use fleet_policy_derive::ToJson;

/// A value that can write itself as JSON into a [`JsonOut`].
pub trait ToJson {
    /// Writes the value (one JSON value) at the current position.
    fn to_json(&self, out: &mut JsonOut);

    /// Writes an object entry `key: value`. One call per field in the derived code (instead
    /// of two), one instance per field type.
    fn to_json_field(&self, key: &str, out: &mut JsonOut) {
        out.key(key);
        self.to_json(out);
    }
}

/// A struct whose fields can be written into an object that is already open: what
/// `#[serde(flatten)]` and internally tagged newtype variants need.
pub trait ToJsonFields {
    /// Writes the fields as `key: value` entries of the enclosing object.
    fn to_json_fields(&self, out: &mut JsonOut);
}

/// A map key: serde_json writes string keys as they are and integer keys in quotes.
pub trait JsonKey {
    /// Starts the entry with this key (see [`JsonOut::key`]).
    fn json_key(&self, out: &mut JsonOut);
}

/// The JSON text being written, with the state needed for commas and indentation.
#[derive(Debug, Default)]
pub struct JsonOut {
    buf: String,
    /// `Some(depth)` when pretty-printing (serde_json's `PrettyFormatter`, 2 spaces).
    pretty: Option<usize>,
    /// No value has been written yet in the innermost open container.
    first: bool,
}

impl JsonOut {
    /// Compact output, as `serde_json::to_string`.
    pub fn new() -> Self {
        JsonOut::default()
    }

    /// Indented output, as `serde_json::to_string_pretty`.
    pub fn pretty() -> Self {
        JsonOut {
            pretty: Some(0),
            ..JsonOut::default()
        }
    }

    /// The text written.
    pub fn finish(self) -> String {
        self.buf
    }

    /// `{`: the entries follow as [`Self::key`] + value.
    pub fn begin_object(&mut self) {
        self.open('{');
    }

    /// `}`.
    pub fn end_object(&mut self) {
        self.close('}');
    }

    /// `[`: each element follows as [`Self::item`] + value.
    pub fn begin_array(&mut self) {
        self.open('[');
    }

    /// `]`.
    pub fn end_array(&mut self) {
        self.close(']');
    }

    fn open(&mut self, c: char) {
        self.buf.push(c);
        if let Some(d) = &mut self.pretty {
            *d += 1;
        }
        self.first = true;
    }

    fn close(&mut self, c: char) {
        if let Some(d) = &mut self.pretty {
            *d = d.saturating_sub(1);
            // An empty container stays `[]` / `{}`.
            if !self.first {
                self.newline();
            }
        }
        self.buf.push(c);
        // The container just closed is a value of the enclosing one.
        self.first = false;
    }

    fn newline(&mut self) {
        if let Some(d) = self.pretty {
            self.buf.push('\n');
            for _ in 0..d {
                self.buf.push_str("  ");
            }
        }
    }

    /// Starts an array element (the comma before all but the first).
    pub fn item(&mut self) {
        if !self.first {
            self.buf.push(',');
        }
        self.first = false;
        self.newline();
    }

    /// Starts an object entry: the key, then its value follows.
    pub fn key(&mut self, key: &str) {
        self.item();
        self.str(key);
        self.colon();
    }

    /// Starts an object entry with an integer key, written in quotes as serde_json does.
    pub fn key_i64(&mut self, key: i64) {
        self.item();
        self.buf.push('"');
        self.i64(key);
        self.buf.push('"');
        self.colon();
    }

    fn colon(&mut self) {
        self.buf
            .push_str(if self.pretty.is_some() { ": " } else { ":" });
    }

    /// An object holding only `tag: name` (a unit variant of a tagged enum).
    pub fn tag_only(&mut self, tag: &str, name: &str) {
        self.begin_tagged(tag, name);
        self.end_object();
    }

    /// Opens an object and writes `tag: name` (a variant of a tagged enum); the fields follow.
    pub fn begin_tagged(&mut self, tag: &str, name: &str) {
        self.begin_object();
        self.key(tag);
        self.str(name);
    }

    /// A string, escaped as serde_json does: `"`, `\` and control characters only.
    pub fn str(&mut self, s: &str) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.buf.push('"');
        let mut start = 0;
        for (i, b) in s.bytes().enumerate() {
            let esc = match b {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                0x08 => "\\b",
                0x0c => "\\f",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0..=0x1f => "",
                _ => continue,
            };
            // Escapes are ASCII, so `i` is on a char boundary.
            self.buf.push_str(s.get(start..i).unwrap_or_default());
            if esc.is_empty() {
                self.buf.push_str("\\u00");
                self.buf.push(char::from(HEX[usize::from(b >> 4)]));
                self.buf.push(char::from(HEX[usize::from(b & 0xf)]));
            } else {
                self.buf.push_str(esc);
            }
            start = i + 1;
        }
        self.buf.push_str(s.get(start..).unwrap_or_default());
        self.buf.push('"');
    }

    /// An unsigned integer.
    pub fn u64(&mut self, v: u64) {
        self.digits(v, 1);
    }

    /// A signed integer.
    pub fn i64(&mut self, v: i64) {
        if v < 0 {
            self.buf.push('-');
        }
        self.u64(v.unsigned_abs());
    }

    /// A float as serde_json writes it (shortest round-trip form; `null` when not finite).
    pub fn f64(&mut self, v: f64) {
        if !v.is_finite() {
            return self.null();
        }
        // serde_json's own formatting (zmij), for this one primitive: core's shortest digits
        // differ from zmij's in the 17th digit for some values (1.3948654250235363e15 is
        // `...536.2` in serde_json), so the bytes would not be identical.
        match serde_json::to_string(&v) {
            Ok(s) => self.buf.push_str(&s),
            Err(_) => self.null(),
        }
    }

    /// `true` / `false`.
    pub fn bool(&mut self, v: bool) {
        self.buf.push_str(if v { "true" } else { "false" });
    }

    /// `null`.
    pub fn null(&mut self) {
        self.buf.push_str("null");
    }

    /// A timestamp as chrono's `Serialize` writes it: RFC 3339 with `Z` and 0, 3, 6 or 9
    /// fractional digits (the fewest that are exact).
    pub fn timestamp(&mut self, t: &DateTime<Utc>) {
        let n = t.naive_utc();
        let year = n.year();
        self.buf.push('"');
        if (0..=9999).contains(&year) {
            self.digits(u64::from(year.unsigned_abs()), 4);
        } else {
            // chrono's `{year:+05}`: a sign and at least four digits.
            self.buf.push(if year < 0 { '-' } else { '+' });
            self.digits(u64::from(year.unsigned_abs()), 4);
        }
        self.buf.push('-');
        self.digits(u64::from(n.month()), 2);
        self.buf.push('-');
        self.digits(u64::from(n.day()), 2);
        self.buf.push('T');
        self.digits(u64::from(n.hour()), 2);
        self.buf.push(':');
        self.digits(u64::from(n.minute()), 2);
        self.buf.push(':');
        // A leap second is stored as a nanosecond count past 1e9.
        let (mut sec, mut nano) = (n.second(), n.nanosecond());
        if nano >= 1_000_000_000 {
            sec += 1;
            nano -= 1_000_000_000;
        }
        self.digits(u64::from(sec), 2);
        if nano != 0 {
            self.buf.push('.');
            if nano % 1_000_000 == 0 {
                self.digits(u64::from(nano / 1_000_000), 3);
            } else if nano % 1_000 == 0 {
                self.digits(u64::from(nano / 1_000), 6);
            } else {
                self.digits(u64::from(nano), 9);
            }
        }
        self.buf.push_str("Z\"");
    }

    /// `v` in decimal, zero-padded to at least `width` digits (`width` ≥ 1: zero is "0").
    fn digits(&mut self, v: u64, width: usize) {
        let mut tmp = [b'0'; 20];
        let mut i = tmp.len();
        let mut v = v;
        while v > 0 || tmp.len() - i < width {
            i -= 1;
            tmp[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if i == 0 {
                break;
            }
        }
        for &d in &tmp[i..] {
            self.buf.push(char::from(d));
        }
    }
}

/// `value` as compact JSON text (as `serde_json::to_string`).
pub fn to_string<T: ToJson + ?Sized>(value: &T) -> String {
    let mut out = JsonOut::new();
    value.to_json(&mut out);
    out.finish()
}

/// `value` as indented JSON text (as `serde_json::to_string_pretty`).
pub fn to_string_pretty<T: ToJson + ?Sized>(value: &T) -> String {
    let mut out = JsonOut::pretty();
    value.to_json(&mut out);
    out.finish()
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json(&self, out: &mut JsonOut) {
                out.u64(*self as u64);
            }
        }
    )*};
}
unsigned!(u8, u16, u32, u64, usize);

macro_rules! signed {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json(&self, out: &mut JsonOut) {
                out.i64(*self as i64);
            }
        }
    )*};
}
signed!(i8, i16, i32, i64, isize);

impl ToJson for f64 {
    fn to_json(&self, out: &mut JsonOut) {
        out.f64(*self);
    }
}

impl ToJson for bool {
    fn to_json(&self, out: &mut JsonOut) {
        out.bool(*self);
    }
}

impl ToJson for str {
    fn to_json(&self, out: &mut JsonOut) {
        out.str(self);
    }
}

impl ToJson for String {
    fn to_json(&self, out: &mut JsonOut) {
        out.str(self);
    }
}

impl ToJson for () {
    fn to_json(&self, out: &mut JsonOut) {
        out.null();
    }
}

impl ToJson for DateTime<Utc> {
    fn to_json(&self, out: &mut JsonOut) {
        out.timestamp(self);
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn to_json(&self, out: &mut JsonOut) {
        (**self).to_json(out);
    }
}

impl<T: ToJson + ?Sized> ToJson for Box<T> {
    fn to_json(&self, out: &mut JsonOut) {
        (**self).to_json(out);
    }
}

impl<T: ToJson + ?Sized> ToJson for Rc<T> {
    fn to_json(&self, out: &mut JsonOut) {
        (**self).to_json(out);
    }
}

impl<T: ToJson + ?Sized> ToJson for Arc<T> {
    fn to_json(&self, out: &mut JsonOut) {
        (**self).to_json(out);
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self, out: &mut JsonOut) {
        match self {
            Some(v) => v.to_json(out),
            None => out.null(),
        }
    }
}

impl<T: ToJson> ToJson for [T] {
    fn to_json(&self, out: &mut JsonOut) {
        out.begin_array();
        for v in self {
            out.item();
            v.to_json(out);
        }
        out.end_array();
    }
}

impl<T: ToJson, const N: usize> ToJson for [T; N] {
    fn to_json(&self, out: &mut JsonOut) {
        self.as_slice().to_json(out);
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self, out: &mut JsonOut) {
        self.as_slice().to_json(out);
    }
}

impl<A: ToJson, B: ToJson> ToJson for (A, B) {
    fn to_json(&self, out: &mut JsonOut) {
        out.begin_array();
        out.item();
        self.0.to_json(out);
        out.item();
        self.1.to_json(out);
        out.end_array();
    }
}

impl JsonKey for str {
    fn json_key(&self, out: &mut JsonOut) {
        out.key(self);
    }
}

impl JsonKey for String {
    fn json_key(&self, out: &mut JsonOut) {
        out.key(self);
    }
}

impl JsonKey for i64 {
    fn json_key(&self, out: &mut JsonOut) {
        out.key_i64(*self);
    }
}

impl<K: JsonKey + ?Sized> JsonKey for &K {
    fn json_key(&self, out: &mut JsonOut) {
        (**self).json_key(out);
    }
}

/// An object of the entries, in their order.
fn map<'a, K: JsonKey + 'a, V: ToJson + 'a>(
    out: &mut JsonOut,
    entries: impl Iterator<Item = (&'a K, &'a V)>,
) {
    out.begin_object();
    for (k, v) in entries {
        k.json_key(out);
        v.to_json(out);
    }
    out.end_object();
}

impl<K: JsonKey, V: ToJson> ToJson for SortedMap<K, V> {
    /// An object in key order, as a `BTreeMap`.
    fn to_json(&self, out: &mut JsonOut) {
        map(out, self.iter());
    }
}

impl<K: JsonKey, V: ToJson> ToJson for BTreeMap<K, V> {
    fn to_json(&self, out: &mut JsonOut) {
        map(out, self.iter());
    }
}

impl<K: ToJson> ToJson for SortedSet<K> {
    /// An array in order, as a `BTreeSet`.
    fn to_json(&self, out: &mut JsonOut) {
        out.begin_array();
        for v in self.iter() {
            out.item();
            v.to_json(out);
        }
        out.end_array();
    }
}

impl ToJson for crate::input::quantity::Quantity {
    /// The text as written, as its `Serialize`.
    fn to_json(&self, out: &mut JsonOut) {
        out.str(self.as_str());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both<T: ToJson + serde::Serialize + ?Sized>(v: &T) {
        assert_eq!(to_string(v), serde_json::to_string(v).unwrap_or_default());
        assert_eq!(
            to_string_pretty(v),
            serde_json::to_string_pretty(v).unwrap_or_default()
        );
    }

    #[test]
    fn strings_escape_as_serde_json() {
        let all: String = (0u8..=0x7f).map(char::from).collect();
        both(all.as_str());
        both("quote \" backslash \\ slash / tab \t nl \n cr \r bs \u{8} ff \u{c}");
        both("unicode é ✓ 𝄞 \u{2028} \u{2029} DEL \u{7f} \u{80} \u{9f}");
        both("");
        assert_eq!(to_string("\u{1}\u{1f}\u{7f}"), "\"\\u0001\\u001f\u{7f}\"");
    }

    #[test]
    fn numbers_as_serde_json() {
        for v in [
            0.5,
            1e21,
            1e-7,
            -0.0,
            0.0,
            1.0,
            0.1 + 0.2,
            f64::MAX,
            f64::MIN_POSITIVE,
        ] {
            both(&v);
        }
        // serde_json's layout (zmij): exponent with a sign outside 1e-5..1e16.
        assert_eq!(
            to_string(&[1e21, 1e-7, 1e15, 1e16, 0.5, -0.0]),
            "[1e+21,1e-7,1000000000000000.0,1e+16,0.5,-0.0]"
        );
        assert_eq!(to_string(&f64::NAN), "null");
        assert_eq!(to_string(&f64::INFINITY), "null");
        both(&f64::NAN);
        both(&f64::NEG_INFINITY);
        both(&[i64::MIN, i64::MAX, 0, -1, 1]);
        both(&[u64::MAX, 0, 10, 9, 100]);
        both(&[i32::MIN, i32::MAX]);
        both(&[u8::MAX]);
        both(&[usize::MAX]);
        both(&(true, false));
    }

    #[test]
    fn timestamps_as_chrono() {
        for s in [
            "2025-06-02T00:00:00Z",
            "2025-06-02T00:00:00.5Z",
            "2025-06-02T00:00:00.123Z",
            "2025-06-02T00:00:00.000123Z",
            "2025-06-02T23:59:59.000000001Z",
            "2025-06-02T23:59:59.123456789Z",
            "2016-12-31T23:59:60Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
        ] {
            let Ok(t) = DateTime::parse_from_rfc3339(s) else {
                panic!("bad test timestamp {s}")
            };
            let t = t.with_timezone(&Utc);
            both(&t);
        }
        // Leap second, and years outside 0..=9999 (chrono writes a sign).
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
            .and_then(|d| d.and_hms_nano_opt(23, 59, 59, 1_500_000_000));
        let far = chrono::NaiveDate::from_ymd_opt(12345, 1, 2).and_then(|d| d.and_hms_opt(3, 4, 5));
        let neg = chrono::NaiveDate::from_ymd_opt(-44, 3, 15).and_then(|d| d.and_hms_opt(0, 0, 0));
        for n in [leap, far, neg] {
            let Some(n) = n else { panic!("bad test date") };
            both(&n.and_utc());
        }
        let t = DateTime::UNIX_EPOCH;
        assert_eq!(to_string(&t), "\"1970-01-01T00:00:00Z\"");
    }

    /// Every form the derive supports, including those the reports do not use today.
    mod derived {
        use super::super::ToJson;
        use serde::Serialize;

        #[derive(Serialize, ToJson, Clone)]
        #[serde(rename_all = "camelCase")]
        pub struct Inner {
            pub field_one: u32,
            #[serde(rename = "RENAMED")]
            pub field_two: &'static str,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub maybe: Option<i64>,
            #[serde(skip_serializing_if = "Vec::is_empty")]
            pub list: Vec<bool>,
            // Not written by either (and so never read).
            #[allow(dead_code)]
            #[serde(skip_serializing)]
            pub hidden: u8,
            #[serde(skip_serializing_if = "is_zero")]
            pub custom: u8,
        }

        fn is_zero(v: &u8) -> bool {
            *v == 0
        }

        #[derive(Serialize, ToJson)]
        #[serde(rename_all = "kebab-case")]
        pub struct Outer<T> {
            pub generic_value: T,
            #[serde(flatten)]
            pub inner: Inner,
            pub after_flatten: Option<String>,
        }

        #[derive(Serialize, ToJson)]
        pub struct Newtype(pub Vec<u8>);

        #[derive(Serialize, ToJson, Clone)]
        #[serde(into = "String")]
        pub struct Into_(pub u32);

        impl From<Into_> for String {
            fn from(v: Into_) -> String {
                format!("#{}", v.0)
            }
        }

        #[derive(Serialize, ToJson)]
        #[serde(rename_all = "snake_case", rename_all_fields = "camelCase")]
        pub enum External {
            UnitOne,
            #[serde(rename = "nt")]
            Newtype(Inner),
            StructVar {
                some_field: u8,
                #[serde(skip_serializing_if = "Option::is_none")]
                other_field: Option<u8>,
            },
        }

        #[derive(Serialize, ToJson)]
        #[serde(
            tag = "kind",
            rename_all = "SCREAMING_SNAKE_CASE",
            rename_all_fields = "PascalCase"
        )]
        pub enum Internal {
            UnitOne,
            Newtype(Inner),
            StructVar { some_field: u8, list_of: Vec<u8> },
        }

        #[derive(Serialize, ToJson)]
        #[serde(tag = "t", content = "c", rename_all = "camelCase")]
        pub enum Adjacent {
            UnitOne,
            Newtype(usize),
            StructVar { some_field: u8 },
        }

        #[derive(Serialize, ToJson)]
        #[serde(untagged)]
        pub enum Untagged {
            Unit,
            Newtype(String),
            StructVar { some_field: u8 },
        }

        #[derive(Serialize, ToJson)]
        pub enum Names {
            A,
            #[serde(rename = "b,c")]
            B,
        }
    }

    #[test]
    fn derived_forms_as_serde_json() {
        use derived::*;
        let inner = |maybe, list: Vec<bool>, custom| Inner {
            field_one: 1,
            field_two: "two \"q\"",
            maybe,
            list,
            hidden: 9,
            custom,
        };
        for i in [
            inner(None, vec![], 0),
            inner(Some(-3), vec![true, false], 4),
        ] {
            both(&i);
            both(&Outer {
                generic_value: vec![Some(1.5), None],
                inner: i.clone(),
                after_flatten: Some("x".into()),
            });
            both(&External::Newtype(i.clone()));
            both(&Internal::Newtype(i));
        }
        both(&Newtype(vec![1, 2]));
        both(&[Into_(7)]);
        both(&[
            External::UnitOne,
            External::StructVar {
                some_field: 1,
                other_field: None,
            },
            External::StructVar {
                some_field: 1,
                other_field: Some(2),
            },
        ]);
        both(&[
            Internal::UnitOne,
            Internal::StructVar {
                some_field: 1,
                list_of: vec![],
            },
        ]);
        both(&[
            Adjacent::UnitOne,
            Adjacent::Newtype(3),
            Adjacent::StructVar { some_field: 1 },
        ]);
        both(&[
            Untagged::Unit,
            Untagged::Newtype("n".into()),
            Untagged::StructVar { some_field: 1 },
        ]);
        both(&[Names::A, Names::B]);
    }

    #[test]
    fn containers_as_serde_json() {
        let empty: Vec<Vec<u32>> = vec![vec![], vec![1], vec![]];
        both(&empty);
        both(&Vec::<u32>::new());
        both(&Some(vec![Some(1), None]));
        let m: SortedMap<String, Vec<u32>> =
            [("b".to_string(), vec![1, 2]), ("a".to_string(), vec![])]
                .into_iter()
                .collect();
        both(&m);
        both(&SortedMap::<String, u32>::new());
        let s: SortedSet<String> = ["z", "a"].into_iter().map(String::from).collect();
        both(&s);
    }
}
