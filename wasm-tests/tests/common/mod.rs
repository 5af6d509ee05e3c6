//! Shared wasm-bindgen tests of the JS API: the same assertions run in Node and in Chromium.

use fleet_policy::wasm;

pub const FLEET: &str = "\
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: prod-east, labels: {env: prod, region: east}}
---
apiVersion: cluster.kubernetes-fleet.io/v1beta1
kind: MemberCluster
metadata: {name: prod-west, labels: {env: prod, region: west}}
---
apiVersion: cluster.kubernetes-fleet.io/v1
kind: MemberCluster
metadata: {name: dev-east, labels: {env: dev, region: east}}
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {name: app}
spec:
  policy:
    placementType: PickAll
    affinity:
      clusterAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          clusterSelectorTerms:
          - labelSelector:
              matchExpressions:
              - {key: env, operator: In, values: [prod]}
";

/// The options as the npm wrapper passes them: its options object as JSON text.
fn options() -> &'static str {
    r#"{"at": "2026-01-01T00:00:00Z"}"#
}

/// Parses a result through the JS engine's own JSON.parse (as the npm wrapper does) and back,
/// so the test sees exactly what a JavaScript caller sees.
fn json(text: &str) -> serde_json::Value {
    let text = js_sys::JSON::parse(text)
        .and_then(|v| js_sys::JSON::stringify(&v))
        .map(String::from)
        .unwrap_or_default();
    serde_json::from_str(&text).unwrap_or(serde_json::Value::Null)
}

pub fn place_returns_picks_and_reasons() {
    let r = wasm::place(wasm::put_text(FLEET.into()), options()).unwrap_or_default();
    let r = json(&r);
    let p = &r["placements"][0];
    assert_eq!(p["name"], "app");
    let picked: Vec<_> = p["picked"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["cluster"].clone())
        .collect();
    assert_eq!(picked, vec!["prod-east", "prod-west"]);
    assert_eq!(p["filtered"][0]["cluster"], "dev-east");
    assert_eq!(p["filtered"][0]["plugin"], "ClusterAffinity");
    assert_eq!(
        p["condition"]["message"],
        "found all cluster needed as specified by the scheduling policy, found 2 cluster(s)"
    );
    assert_eq!(r["errors"].as_array().map(Vec::len), Some(0));
}

pub fn bad_yaml_is_an_error_value_with_position() {
    let r = wasm::place(
        wasm::put_text("apiVersion: v1\nkind: MemberCluster\nmetadata: {name: [x}\n".into()),
        options(),
    )
    .unwrap_or_default();
    let r = json(&r);
    let e = &r["errors"][0];
    assert_eq!(e["line"], 3);
    assert_eq!(e["document"], 1);
    assert!(
        e["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("invalid YAML"),
        "{e}"
    );
}

pub fn options_need_at_and_misuse_throws() {
    // The npm wrapper passes the current time; the raw binding requires it.
    assert!(wasm::place(wasm::put_text(FLEET.into()), "").is_err());
    assert!(wasm::place(wasm::put_text(FLEET.into()), "{}").is_err());
    assert!(wasm::place(
        wasm::put_text(FLEET.into()),
        r#"{"at":"2025-06-02T00:00:00Z"}"#
    )
    .is_ok());
    assert!(wasm::place(wasm::put_text(FLEET.into()), r#"{"at":5}"#).is_err());
    assert!(wasm::place(wasm::put_text(FLEET.into()), "[]").is_err());
    assert!(wasm::place(wasm::put_text(FLEET.into()), "{\"at\":").is_err());
    // An unknown key is refused, naming the accepted ones.
    assert!(wasm::place(
        wasm::put_text(FLEET.into()),
        r#"{"at":"2025-06-02T00:00:00Z","nope":1}"#
    )
    .is_err());
    // The text comes as UTF-8 (the wrapper's TextEncoder); anything else is refused.
    assert!(wasm::place(
        wasm::put_text(vec![b'a', 0xff]),
        r#"{"at":"2025-06-02T00:00:00Z"}"#
    )
    .is_err());
    assert_eq!(wasm::version(), fleet_policy::VERSION);
}

/// A call answers before its input is freed: the input is kept until `release()` (which the
/// npm wrapper calls when the event loop is idle) or until the next call starts, which frees
/// it before reading its own text. The kept input does not change the next call's result.
pub fn a_call_keeps_its_input_until_released_or_the_next_call() {
    let first = wasm::place(wasm::put_text(FLEET.into()), options()).unwrap_or_default();
    assert!(wasm::retained());
    wasm::release();
    assert!(!wasm::retained());
    wasm::release();
    let again = wasm::place(wasm::put_text(FLEET.into()), options()).unwrap_or_default();
    assert!(wasm::retained());
    assert_eq!(json(&again), json(&first));
    assert_eq!(
        json(&first)["placements"][0]["picked"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    // The npm wrapper's first step of a call: the buffer for its text.
    wasm::text_buffer(16);
    assert!(!wasm::retained());
    // Options that do not decode: the call throws, and keeps nothing.
    let _ = wasm::place(wasm::put_text(FLEET.into()), options());
    assert!(wasm::place(wasm::put_text(FLEET.into()), "7").is_err());
    assert!(!wasm::retained());
}
