//! Differential test of the two options readers: the JSON text read as `Json` (by the YAML
//! reader) then `FromJson` (used by the CLI, the wasm API and the playground) against the same
//! text parsed by serde_json into a `serde_json::Value`, then the types' serde `Deserialize`
//! (the reference). Generated values — objects over the options' own keys and aliases, arrays
//! (serde also reads structs by position), and leaves that are valid and invalid times,
//! variant names, numbers at the integer bounds, floats, strings YAML would read otherwise —
//! written compact and pretty, must give the same `Json` as the serde_json value, and the
//! same options or the same error text. `RolloutOptions::resolved` (dotted keys) is compared
//! with the serde_json merge it replaced.

use fleet_policy::options_json::{FromJson, Json};
use fleet_policy::rollout::options::{AzureOptions, KubeFleetOptions, WhatIf};
use fleet_policy::{BudgetOptions, PlaceOptions, RolloutOptions};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::fmt::Debug;

const KEYS: &[&str] = &[
    "at",
    "start",
    "observe",
    "defaultDuration",
    "durations",
    "events",
    "fail",
    "pending",
    "skip",
    "approveAll",
    "horizonDays",
    "azure",
    "kubefleet",
    "azure.tieBreak",
    "kubefleet.stuckThreshold",
    "source",
    "horizon",
    "karpenterVersion",
    "action",
    "request",
    "type",
    "name",
    "member",
    "cluster",
    "condition",
    "status",
    "state",
    "fourHourBoundaryInclusive",
    "tieBreak",
    "reevaluateBucketsEachPick",
    "siblingGroupsOnFailure",
    "ungroupedMembers",
    "allStagesSkippedRunState",
    "emptyGroups",
    "afterStageWaitWarnSeconds",
    "rejectDuplicateStageNames",
    "stuckThreshold",
    "rollingChange",
    "untrackableResources",
    "zzz",
    "azure.fourHourBoundaryInclusive",
    "azure.afterStageWaitWarnSeconds",
    "azure.noSuchSwitch",
    "azure.tieBreak.x",
    "azure.",
    "kubefleet.rollingChange",
    "kubefleet.untrackableResources",
    "",
    "a: b",
    "#x",
    "weird \"key\"",
];

const STRINGS: &[&str] = &[
    "2026-01-01T00:00:00Z",
    "2026-01-01 09:30:00.25+01:00",
    "2026-02-30T00:00:00Z",
    "2026-01-01T00:00:00",
    "yesterday",
    "",
    "a, b,,c",
    "5m",
    "True",
    "Applied",
    "Member",
    "Group",
    "Stage",
    "AfterStageWait",
    "exclude",
    "error",
    "warning",
    "Stopped",
    "Failed",
    "Skipped",
    "Completed",
    "bucket,name",
    "bucket,windowStart,name",
    "inPlace",
    "firstPlacement",
    "stop",
    "start",
    "approve",
    "skip",
    "fail",
    "pending",
    "binding-condition",
    "binding-spec-change",
    "Stop",
    // Strings that YAML would read otherwise if they were not quoted.
    "true",
    "null",
    "~",
    "12",
    "-1.5e3",
    "0x10",
    " lead, trail ",
    "a: b",
    "# not a comment",
    "- x",
    "[x]",
    "{x: y}",
    "&anchor *alias !tag %d @ `",
    "quote \" back\\slash / tab\t nl\n cr\r \u{1} \u{7f}",
    "é ✓ 😀",
    "\u{85} \u{a0} \u{2028} \u{2029} \u{feff}",
    "'single'",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        prop::sample::select(vec![
            json!(0),
            json!(24),
            json!(366),
            json!(-1),
            json!(4_294_967_296u64),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(i64::MAX),
            json!(i64::MAX as u64 + 1),
            json!(1.5),
            json!(-0.0),
            json!(1.0),
            json!(1e15),
            json!(1e16),
            json!(1e21),
            json!(0.00001),
            json!(1.234e-7),
            json!(-123456.789),
            json!(1.7976931348623157e308),
        ]),
        prop::sample::select(STRINGS).prop_map(|s| Value::String(s.to_string())),
        prop::sample::select(STRINGS).prop_map(|s| json!({ s: null })),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

/// An options-shaped object: mostly a valid `at`, plus generated entries.
fn object() -> impl Strategy<Value = Value> {
    (
        prop::option::weighted(0.8, prop::sample::select(&STRINGS[..3])),
        prop::collection::vec((prop::sample::select(KEYS), value()), 0..5),
    )
        .prop_map(|(at, kv)| {
            let mut m = Map::new();
            if let Some(at) = at {
                m.insert("at".to_string(), json!(at));
            }
            for (k, v) in kv {
                m.insert(k.to_string(), v);
            }
            Value::Object(m)
        })
}

/// A what-if-shaped value: an action (usually a known one) and generated fields.
fn what_if() -> impl Strategy<Value = Value> {
    (
        prop::option::weighted(0.9, prop::sample::select(&STRINGS[25..])),
        prop::collection::vec((prop::sample::select(&KEYS[18..27]), value()), 0..4),
        any::<bool>(),
    )
        .prop_map(|(action, kv, as_array)| {
            if as_array {
                let mut a: Vec<Value> = action.map(|s| json!(s)).into_iter().collect();
                a.extend(kv.into_iter().map(|(_, v)| v));
                return Value::Array(a);
            }
            let mut m = Map::new();
            if let Some(a) = action {
                m.insert("action".to_string(), json!(a));
            }
            for (k, v) in kv {
                m.insert(k.to_string(), v);
            }
            Value::Object(m)
        })
}

/// `Json` as a `serde_json::Value` (for the reference merge of dotted keys).
fn to_value(j: &Json) -> Value {
    match j {
        Json::Null => Value::Null,
        Json::Bool(b) => json!(b),
        Json::U64(u) => json!(u),
        Json::I64(i) => json!(i),
        Json::F64(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        Json::Str(s) => json!(s),
        Json::Array(a) => Value::Array(a.iter().map(to_value).collect()),
        Json::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), to_value(v))).collect()),
    }
}

/// `RolloutOptions::resolved` as it was: the switches serialized to a `serde_json::Value`, the
/// dotted keys written over them, the result read back by serde.
fn old_resolved(o: &RolloutOptions) -> Result<RolloutOptions, String> {
    let mut out = o.clone();
    let mut azure = serde_json::to_value(&o.azure).map_err(|e| e.to_string())?;
    let mut kf = serde_json::to_value(&o.kubefleet).map_err(|e| e.to_string())?;
    for (k, v) in &o.extra {
        let (target, key) = if let Some(k) = k.strip_prefix("azure.") {
            (&mut azure, k)
        } else if let Some(k) = k.strip_prefix("kubefleet.") {
            (&mut kf, k)
        } else {
            continue;
        };
        match target.as_object_mut() {
            Some(m) if m.contains_key(key) => {
                m.insert(key.to_string(), to_value(v));
            }
            _ => return Err(format!("unknown rollout option \"{k}\"")),
        }
    }
    out.azure =
        AzureOptions::deserialize(&azure).map_err(|e| format!("invalid rollout option: {e}"))?;
    out.kubefleet =
        KubeFleetOptions::deserialize(&kf).map_err(|e| format!("invalid rollout option: {e}"))?;
    out.extra = Default::default();
    Ok(out)
}

/// Both readers of `text` as `T`.
fn same<T: FromJson + DeserializeOwned + Debug + PartialEq>(
    text: &str,
    json: &Json,
    value: &Value,
) -> Result<(), String> {
    let ours = T::from_json(json).map_err(|e| e.to_string());
    let serde = T::deserialize(value).map_err(|e| e.to_string());
    if ours == serde {
        Ok(())
    } else {
        Err(format!(
            "{}: {text}\n  FromJson: {ours:?}\n  serde:    {serde:?}",
            std::any::type_name::<T>()
        ))
    }
}

/// Every options type read from `text` both ways; `resolved` against the old merge.
fn all_text(text: &str) -> Result<(), String> {
    let json = Json::parse(text).map_err(|e| format!("{text}: not read: {e}"))?;
    let value: Value = serde_json::from_str(text).map_err(|e| format!("{text}: not JSON: {e}"))?;
    if json != Json::from(&value) {
        return Err(format!("{text}: read as {json:?}, serde_json: {value:?}"));
    }
    same::<PlaceOptions>(text, &json, &value)?;
    same::<BudgetOptions>(text, &json, &value)?;
    same::<RolloutOptions>(text, &json, &value)?;
    same::<AzureOptions>(text, &json, &value)?;
    same::<KubeFleetOptions>(text, &json, &value)?;
    same::<WhatIf>(text, &json, &value)?;
    same::<Vec<WhatIf>>(text, &json, &value)?;
    if let Ok(o) = RolloutOptions::from_json(&json) {
        let (new, old) = (o.resolved(), old_resolved(&o));
        if new != old {
            return Err(format!("{text}: resolved\n  new: {new:?}\n  old: {old:?}"));
        }
    }
    Ok(())
}

/// [`all_text`] of `v` written compact (as `JSON.stringify`) and pretty.
fn all(v: &Value) -> Result<(), String> {
    all_text(&v.to_string())?;
    all_text(&serde_json::to_string_pretty(v).map_err(|e| e.to_string())?)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn generated_values(v in value()) {
        all(&v).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn generated_options(v in object()) {
        all(&v).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn generated_what_ifs(v in what_if()) {
        all(&v).map_err(TestCaseError::fail)?;
        all(&json!({"at": "2026-01-01T00:00:00Z", "events": [v.clone()]})).map_err(TestCaseError::fail)?;
        all(&json!({"at": "2026-01-01T00:00:00Z", "azure": v})).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn hand_picked() {
    let cases = [
        json!({"at": "2026-01-01T00:00:00Z"}),
        json!({"at": "2026-01-01T00:00:00Z", "horizon": 24}),
        json!({"at": "2026-01-01T00:00:00Z", "horizonDays": 4_294_967_296u64}),
        json!({"at": "2026-01-01T00:00:00Z", "horizonDays": -1, "fail": 3}),
        json!({"at": "2026-01-01T00:00:00Z", "fail": "a, b", "skip": ["x"], "pending": [1]}),
        json!({"at": "2026-01-01T00:00:00Z", "azure": {"tieBreak": "bucket,name", "emptyGroups": {"warning": null}}}),
        json!({"at": "2026-01-01T00:00:00Z", "azure": [true, "bucket,name"], "kubefleet": [true, "1m", "inPlace", false, 1]}),
        json!({"at": "2026-01-01T00:00:00Z", "kubefleet": {"rollingChange": {"inPlace": 1}}}),
        json!({"at": "2026-01-01T00:00:00Z", "events": [
            {"action": "fail", "cluster": "a", "member": "b"},
            {"action": "skip", "type": "Group", "name": "g"},
            {"action": "binding-condition", "cluster": "c", "condition": {"type": "Applied", "status": "False"}},
            {"action": "binding-condition", "cluster": "c", "condition": ["Applied", "False", "x"]},
        ]}),
        json!({"at": "2026-01-01T00:00:00Z", "events": [["approve", null, "r"], ["approve", null, "r", 1], ["stop"]]}),
        json!(["2026-01-01T00:00:00Z"]),
        json!(["2026-01-01T00:00:00Z", "24h", "v1.0", 4]),
        json!([]),
        json!("x"),
        json!({}),
    ];
    for v in &cases {
        if let Err(e) = all(v) {
            panic!("{e}");
        }
    }
    // The comparison sees both outcomes, with serde's texts.
    let read = |v: &Value| Json::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let msg =
        |r: Result<BudgetOptions, fleet_policy::options_json::Error>| r.map_err(|e| e.to_string());
    assert!(BudgetOptions::from_json(&read(&cases[0])).is_ok());
    assert_eq!(
        msg(BudgetOptions::from_json(&read(&cases[1]))),
        Err("invalid type: integer `24`, expected a string".to_string())
    );
    let events = RolloutOptions::from_json(&read(&cases[8])).map_err(|e| e.to_string());
    assert_eq!(events, Err("duplicate field `member`".to_string()));
    let r = RolloutOptions::from_json(&read(&json!({"at": "2026-01-01T00:00:00Z", "fail": "a, b",
        "azure.tieBreak": "bucket,name", "events": [{"action": "stop"}]})));
    assert!(r.is_ok_and(|o| o.fail == ["a", "b"] && o.extra.len() == 1 && o.events.len() == 1));
}

/// Reads `text` as `RolloutOptions`, then resolves it: the value or the message.
fn rollout(text: &str) -> Result<RolloutOptions, String> {
    all_text(text).unwrap_or_else(|e| panic!("{e}"));
    let json = Json::parse(text)?;
    RolloutOptions::from_json(&json)
        .map_err(|e| e.to_string())?
        .resolved()
}

const AT: &str = r#""at":"2026-01-01T00:00:00Z""#;

/// Texts no `serde_json::Value` writes (repeated keys, numbers as written), with the outcome
/// checked as well as the agreement of both readers.
#[test]
fn texts() {
    // Two bad keys: the first in key order is reported (serde_json's map is sorted), whatever
    // the order in the text.
    for t in [
        format!(r#"{{"skip":3,"approveAll":"x",{AT}}}"#),
        format!(r#"{{"approveAll":"x","skip":3,{AT}}}"#),
    ] {
        assert_eq!(
            rollout(&t).err().as_deref(),
            Some("invalid type: string \"x\", expected a boolean")
        );
    }
    // A repeated key: the last value wins.
    let t = format!(r#"{{{AT},"horizonDays":1,"horizonDays":"x"}}"#);
    assert_eq!(
        rollout(&t).err().as_deref(),
        Some("invalid type: string \"x\", expected u32")
    );
    let t = format!(r#"{{"horizonDays":"x",{AT},"horizonDays":7}}"#);
    assert_eq!(rollout(&t).map(|o| o.horizon_days), Ok(7));
    // Integers at the bounds, floats as serde_json writes them in messages.
    let horizon =
        |n: &str| rollout(&format!(r#"{{{AT},"horizonDays":{n}}}"#)).map(|o| o.horizon_days);
    assert_eq!(horizon("4294967295"), Ok(u32::MAX));
    for (n, m) in [
        (
            "4294967296",
            "invalid value: integer `4294967296`, expected u32",
        ),
        (
            "18446744073709551615",
            "invalid value: integer `18446744073709551615`, expected u32",
        ),
        (
            "18446744073709551616",
            "invalid type: floating point `1.8446744073709552e+19`, expected u32",
        ),
        ("-1", "invalid value: integer `-1`, expected u32"),
        (
            "-9223372036854775808",
            "invalid value: integer `-9223372036854775808`, expected u32",
        ),
        (
            "-9223372036854775809",
            "invalid type: floating point `-9.223372036854776e+18`, expected u32",
        ),
        ("-0", "invalid type: floating point `-0.0`, expected u32"),
        ("1.0", "invalid type: floating point `1.0`, expected u32"),
        ("1e3", "invalid type: floating point `1000.0`, expected u32"),
        (
            "2.5E-7",
            "invalid type: floating point `2.5e-7`, expected u32",
        ),
        ("1e16", "invalid type: floating point `1e+16`, expected u32"),
        ("null", "invalid type: null, expected u32"),
    ] {
        assert_eq!(horizon(n).err().as_deref(), Some(m), "{n}");
    }
    let wait = |n: &str| {
        rollout(&format!(
            r#"{{{AT},"azure.afterStageWaitWarnSeconds":{n}}}"#
        ))
        .map(|o| o.azure.after_stage_wait_warn_seconds)
    };
    assert_eq!(wait("-9223372036854775808"), Ok(i64::MIN));
    assert_eq!(wait("9223372036854775807"), Ok(i64::MAX));
    assert_eq!(
        wait("9223372036854775808").err().as_deref(),
        Some("invalid rollout option: invalid value: integer `9223372036854775808`, expected i64")
    );
    // Dotted keys: merged over the nested object, unknown ones (nested dots too) named.
    let t = format!(
        r#"{{{AT},"azure":{{"tieBreak":"bucket,name","emptyGroups":"warning"}},"azure.emptyGroups":"error","kubefleet.stuckThreshold":"1m"}}"#
    );
    let o = rollout(&t).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (
            o.azure.tie_break,
            o.azure.empty_groups,
            o.kubefleet.stuck_threshold.as_str(),
            o.extra.len()
        ),
        (
            fleet_policy::rollout::options::TieBreak::BucketName,
            fleet_policy::rollout::options::EmptyGroups::Error,
            "1m",
            0
        )
    );
    for (k, m) in [
        (
            "azure.tieBreak.x",
            "unknown rollout option \"azure.tieBreak.x\"",
        ),
        (
            "azure.noSuchSwitch",
            "unknown rollout option \"azure.noSuchSwitch\"",
        ),
        ("kubefleet.", "unknown rollout option \"kubefleet.\""),
    ] {
        let t = format!(r#"{{{AT},"azure.tieBreak":"bucket,name","{k}":1}}"#);
        assert_eq!(rollout(&t).err().as_deref(), Some(m));
    }
    // Bad dotted values: the first in key order, azure before kubefleet.
    let t =
        format!(r#"{{{AT},"kubefleet.rollingChange":1,"azure.tieBreak":2,"azure.emptyGroups":3}}"#);
    assert_eq!(
        rollout(&t).err().as_deref(),
        Some("invalid rollout option: invalid type: integer `3`, expected string or map")
    );
    // Escapes and whitespace as JSON writes them (not surrogate pairs as `\uXXXX\uXXXX`, which
    // the YAML reader rejects: JSON.stringify writes those characters as they are).
    let t =
        format!("{{ {AT} ,\n \"durations\" : {{ \"a\\\"b\\\\c\\/d\\u00e9😀\\n\" : \"1m\" }} }}");
    let o = rollout(&t).unwrap_or_else(|e| panic!("{e}"));
    assert!(o.durations.contains_key("a\"b\\c/dé😀\n"));
}

/// Numbers classified as serde_json's parser does.
#[test]
fn numbers() {
    for t in [
        "0",
        "-0",
        "7",
        "-7",
        "18446744073709551615",
        "18446744073709551616",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "100000000000000000000000",
        "1.5",
        "-1.5",
        "1e3",
        "1E+3",
        "1e-3",
        "0.1",
        "5e-324",
        "1.7976931348623157e308",
        "[1, -1, 1.0]",
    ] {
        let value: Value = serde_json::from_str(t).unwrap_or_else(|e| panic!("{t}: {e}"));
        assert_eq!(Json::parse(t), Ok(Json::from(&value)), "{t}");
    }
    // Not JSON numbers (YAML would read some as numbers or strings): errors.
    for t in [
        "01", "1.", ".5", "+1", "0x10", "1e", "-1-", "yes", "1e400", "abc",
    ] {
        assert!(Json::parse(t).is_err(), "{t}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Floats in messages are written as serde_json writes them (same value on both sides:
    /// serde_json's parser may round the last digit of long texts differently).
    #[test]
    fn floats(bits in any::<u64>(), scale in -30i32..30) {
        let x = f64::from_bits(bits);
        let x = if x.is_finite() { x } else { 1.5 * 10f64.powi(scale) };
        for x in [x, 10f64.powi(scale), -1.5 * 10f64.powi(scale), (x * 1e6).trunc()] {
            if !x.is_finite() {
                continue;
            }
            let ours = u32::from_json(&Json::F64(x)).map_err(|e| e.to_string());
            let serde = u32::deserialize(&Value::from(x)).map_err(|e| e.to_string());
            prop_assert_eq!(ours, serde);
        }
    }

    #[test]
    fn integers(u in any::<u64>(), i in any::<i64>()) {
        for t in [u.to_string(), i.to_string()] {
            let value: Value = serde_json::from_str(&t).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(Json::parse(&t), Ok(Json::from(&value)));
        }
    }
}

/// Long keys and values (YAML limits implicit keys to 1024 characters; JSON has no limit).
#[test]
fn long_texts() {
    let key = "k".repeat(5000);
    let value = "v".repeat(100_000);
    let t = format!(r#"{{{AT},"durations":{{"{key}":"{value}","a":"1m"}}}}"#);
    let o = rollout(&t).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.durations.get(&key).map(String::len), Some(100_000));
}

/// Nesting deeper than serde_json's limit is an error, as it was (not a stack overflow).
#[test]
fn deep_nesting() {
    let deep = |n: usize| format!("{{{AT},\"x\":{}1{}}}", "[".repeat(n), "]".repeat(n));
    assert!(rollout(&deep(100)).is_ok());
    for n in [200, 10_000] {
        let t = deep(n);
        assert!(serde_json::from_str::<Value>(&t).is_err());
        assert!(Json::parse(&t).is_err_and(|e| e.contains("recursion limit exceeded")));
    }
}

/// A float whose two shortest texts differ in the last digit: serde_json's choice.
#[test]
fn float_last_digit() {
    let x: f64 = "193935277217162.12".parse().unwrap_or_default();
    let ours = u32::from_json(&Json::F64(x)).map_err(|e| e.to_string());
    let serde = u32::deserialize(&Value::from(x)).map_err(|e| e.to_string());
    assert_eq!(ours, serde);
    assert_eq!(x.to_string(), "193935277217162.13");
}
