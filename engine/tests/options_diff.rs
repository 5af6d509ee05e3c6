//! Differential test of the two options readers: `FromJson` (used by the CLI, the wasm API and
//! the playground) against the types' serde `Deserialize` over the same `&serde_json::Value`
//! (the reference). Generated values — objects over the options' own keys and aliases, arrays
//! (serde also reads structs by position), and leaves that are valid and invalid times,
//! variant names, numbers at the integer bounds — must give the same value or the same error
//! text.

use fleet_policy::options_json::FromJson;
use fleet_policy::rollout::options::{AzureOptions, KubeFleetOptions, WhatIf};
use fleet_policy::{BudgetOptions, PlaceOptions, RolloutOptions};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
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
            json!(1.5),
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

fn same<T: FromJson + DeserializeOwned + Debug + PartialEq>(v: &Value) -> Result<(), String> {
    let ours = T::from_json(v).map_err(|e| e.to_string());
    let serde = T::deserialize(v).map_err(|e| e.to_string());
    if ours == serde {
        Ok(())
    } else {
        Err(format!(
            "{}: {v}\n  FromJson: {ours:?}\n  serde:    {serde:?}",
            std::any::type_name::<T>()
        ))
    }
}

fn all(v: &Value) -> Result<(), String> {
    same::<PlaceOptions>(v)?;
    same::<BudgetOptions>(v)?;
    same::<RolloutOptions>(v)?;
    same::<AzureOptions>(v)?;
    same::<KubeFleetOptions>(v)?;
    same::<WhatIf>(v)?;
    same::<Vec<WhatIf>>(v)
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
    let msg = |r: Result<BudgetOptions, serde_json::Error>| r.map_err(|e| e.to_string());
    assert!(BudgetOptions::from_json(&cases[0]).is_ok());
    assert_eq!(
        msg(BudgetOptions::from_json(&cases[1])),
        Err("invalid type: integer `24`, expected a string".to_string())
    );
    let events = RolloutOptions::from_json(&cases[8]).map_err(|e| e.to_string());
    assert_eq!(events, Err("duplicate field `member`".to_string()));
    let r = RolloutOptions::from_json(&json!({"at": "2026-01-01T00:00:00Z", "fail": "a, b",
        "azure.tieBreak": "bucket,name", "events": [{"action": "stop"}]}));
    assert!(r.is_ok_and(|o| o.fail == ["a", "b"] && o.extra.len() == 1 && o.events.len() == 1));
}
