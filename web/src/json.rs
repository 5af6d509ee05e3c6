//! Small readers over engine results in their serialised (JSON) form.
//!
//! The views read results through their JSON shape (the same shape the CLI prints and the
//! npm package returns), so a field an engine adds shows up without a UI change and a field
//! it lacks renders as "—" instead of failing to compile.

use serde_json::Value;

/// `v[key]` as a string slice ("" when absent or not a string).
pub fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// `v[key]` as an optional string.
pub fn opt_s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// `v[key]` as an integer.
pub fn i(v: &Value, key: &str) -> Option<i64> {
    v.get(key).and_then(Value::as_i64)
}

/// `v[key]` as a float.
pub fn f(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

/// `v[key]` as a bool (false when absent).
pub fn b(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// `v[key]` as an array (empty when absent).
pub fn arr<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// An RFC 3339 instant at `v[key]`.
pub fn time(v: &Value, key: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    opt_s(v, key)
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.to_utc())
}

/// A compact one-line rendering of any value (for explanation objects the UI has no
/// dedicated layout for): `{"type":"X","a":1}` → `X (a: 1)`.
pub fn compact(v: &Value) -> String {
    match v {
        Value::Null => "—".into(),
        Value::String(x) => x.clone(),
        Value::Object(o) => {
            let head = o
                .get("type")
                .or_else(|| o.get("reason"))
                .or_else(|| o.get("kind"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let rest: Vec<String> = o
                .iter()
                .filter(|(k, _)| {
                    *k != "type" && (head.is_empty() || (*k != "reason" && *k != "kind"))
                })
                .map(|(k, v)| format!("{k}: {}", compact(v)))
                .collect();
            match (head.is_empty(), rest.is_empty()) {
                (true, _) => rest.join(", "),
                (false, true) => head.to_string(),
                (false, false) => format!("{head} ({})", rest.join(", ")),
            }
        }
        Value::Array(a) => a.iter().map(compact).collect::<Vec<_>>().join("; "),
        other => other.to_string(),
    }
}

/// A per-reason count as Karpenter reports it; Go's MaxInt32 means "no budget applies".
pub fn count(n: i64) -> String {
    if n >= 2_147_483_000 {
        "unlimited".into()
    } else {
        n.to_string()
    }
}
