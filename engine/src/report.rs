//! The combined result shapes, and rendering of results as JSON or YAML.

use crate::input::documents::MAX_DIAGNOSTICS;
use crate::input::{Diagnostic, Input, Severity};
use crate::{disruption, placement, rollout};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// Options for [`crate::evaluate`]: the evaluation instant plus each engine's options.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluateOptions {
    /// Placement options.
    pub place: placement::PlaceOptions,
    /// Disruption options.
    pub budgets: disruption::BudgetOptions,
    /// Rollout options.
    pub rollout: rollout::RolloutOptions,
}

impl EvaluateOptions {
    /// Builds every engine's options from one JSON object (`{"at": "...", ...}`): each engine
    /// takes the keys it knows; a key no engine knows is an error that lists the accepted ones.
    pub fn from_value(value: &Value) -> Result<Self, String> {
        let value = nest_dotted(value);
        let Value::Object(map) = &value else {
            return Err("invalid options: expected an object".to_string());
        };
        let place = option_keys::<placement::PlaceOptions>();
        let budgets = option_keys::<disruption::BudgetOptions>();
        let rollout = option_keys::<rollout::RolloutOptions>();
        if let Some(k) = map.keys().find(|k| {
            ![place, budgets, rollout]
                .iter()
                .any(|keys| keys.contains(&k.as_str()))
        }) {
            return Err(unknown_option(k, &accepted_keys()));
        }
        let only = |keys: &[&str]| {
            Value::Object(
                map.iter()
                    .filter(|(k, _)| keys.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            )
        };
        Ok(EvaluateOptions {
            place: options_from_value(&only(place))?,
            budgets: options_from_value(&only(budgets))?,
            rollout: options_from_value(&only(rollout))?,
        })
    }

    /// Default options of every engine at `at`.
    pub fn at(at: DateTime<Utc>) -> Self {
        EvaluateOptions {
            place: placement::PlaceOptions::at(at),
            budgets: disruption::BudgetOptions::at(at),
            rollout: rollout::RolloutOptions::at(at),
        }
    }
}

/// The top-level keys an options type accepts, from its serde definition.
pub fn option_keys<T: DeserializeOwned>() -> &'static [&'static str] {
    serde_aux::serde_introspection::serde_introspect::<T>()
}

/// Every option key of every engine, sorted (for messages and `--help`).
pub fn accepted_keys() -> Vec<&'static str> {
    let mut keys: Vec<&str> = [
        option_keys::<placement::PlaceOptions>(),
        option_keys::<disruption::BudgetOptions>(),
        option_keys::<rollout::RolloutOptions>(),
    ]
    .concat();
    keys.sort_unstable();
    keys.dedup();
    keys
}

fn unknown_option(key: &str, accepted: &[&str]) -> String {
    format!(
        "invalid options: unknown option \"{key}\"; accepted: {}",
        accepted.join(", ")
    )
}

/// `{"azure.tieBreak": x}` (how `--set azure.tieBreak=x` reads) as `{"azure": {"tieBreak": x}}`,
/// merged with an `azure` object given as well.
pub fn nest_dotted(value: &Value) -> Value {
    let Value::Object(map) = value else {
        return value.clone();
    };
    let mut out = serde_json::Map::new();
    for (k, v) in map {
        match k.split_once('.') {
            Some((group, key)) if !group.is_empty() && !key.is_empty() => {
                let entry = out
                    .entry(group.to_string())
                    .or_insert_with(|| Value::Object(serde_json::Map::new()));
                if let Value::Object(inner) = entry {
                    inner.insert(key.to_string(), v.clone());
                }
            }
            _ => match (out.get_mut(k), v) {
                (Some(Value::Object(inner)), Value::Object(given)) => {
                    for (ik, iv) in given {
                        inner.entry(ik.clone()).or_insert_with(|| iv.clone());
                    }
                }
                _ => {
                    out.insert(k.clone(), v.clone());
                }
            },
        }
    }
    Value::Object(out)
}

/// Decodes one engine's options from a JSON object, with a message naming the bad option.
pub fn options_from_value<T: DeserializeOwned>(value: &Value) -> Result<T, String> {
    let nested = nest_dotted(value);
    let Value::Object(map) = &nested else {
        return serde_json::from_value(nested).map_err(|e| format!("invalid options: {e}"));
    };
    // The groups of switches are objects: serde's derive would also take a list, its items
    // given to the fields in order.
    if let Some(group) = ["azure", "kubefleet"]
        .into_iter()
        .find(|g| map.get(*g).is_some_and(|v| !v.is_object()))
    {
        return Err(format!(
            "invalid options: {group} must be an object of its options"
        ));
    }
    serde_json::from_value(nested.clone()).map_err(|e| {
        let reads = |rest: Value| serde_json::from_value::<T>(rest).is_ok();
        invalid_option(map, e.to_string(), &reads)
    })
}

/// serde's message for options that do not read, with the option it is about: the one
/// without which the rest `reads` (serde's message does not say which).
fn invalid_option(
    map: &serde_json::Map<String, Value>,
    e: String,
    reads: &dyn Fn(Value) -> bool,
) -> String {
    let culprit = map.keys().find(|left_out| {
        let rest = map.iter().filter(|(key, _)| key != left_out);
        reads(Value::Object(
            rest.map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        ))
    });
    match culprit {
        Some(k) if !e.contains(k.as_str()) => format!("invalid options: {k}: {e}"),
        _ => format!("invalid options: {e}"),
    }
}

/// Result of [`crate::evaluate`]: whichever engines applied.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateReport {
    /// Placement results (empty when the input has no placement).
    pub placements: Vec<placement::PlacementResult>,
    /// NodePool results.
    pub node_pools: Vec<disruption::report::NodePoolResult>,
    /// The Karpenter rules used for `nodePools` (absent when no NodePool was evaluated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub karpenter_version: Option<String>,
    /// End of the disruption timeline horizon (absent when no NodePool was evaluated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub horizon_end: Option<DateTime<Utc>>,
    /// One disruption-controller pass over all NodePools (absent when none was evaluated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disruption_pass: Option<disruption::pass::DisruptionPass>,
    /// Rollout results.
    pub rollouts: Vec<rollout::plan::Rollout>,
    /// All errors.
    pub errors: Vec<Diagnostic>,
    /// All warnings.
    pub warnings: Vec<Diagnostic>,
    /// Facts about the input as a whole (hand-written clusters, ignored kinds, stale
    /// heartbeats), each stated once.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<crate::notice::Notice>,
}

/// Result of [`crate::validate`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidateReport {
    /// True when there is no error.
    pub valid: bool,
    /// Errors.
    pub errors: Vec<Diagnostic>,
    /// Warnings.
    pub warnings: Vec<Diagnostic>,
    /// Facts about the input as a whole (hand-written clusters, ignored kinds, stale
    /// heartbeats), each stated once.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<crate::notice::Notice>,
}

/// Puts what reading the input found before an engine's own findings.
pub(crate) fn prepend_input(
    input: &Input,
    errors: &mut Vec<Diagnostic>,
    warnings: &mut Vec<Diagnostic>,
    notices: &mut Vec<crate::notice::Notice>,
) {
    let (e, w) = crate::input::diagnostics::partition(input.diagnostics.clone());
    errors.splice(0..0, e);
    warnings.splice(0..0, w);
    notices.splice(0..0, input.notices());
    cap(errors, input.omitted_errors, Severity::Error);
    cap(warnings, input.omitted_warnings, Severity::Warning);
}

/// Keeps the first [`MAX_DIAGNOSTICS`] of a list and says how many more there were.
fn cap(list: &mut Vec<Diagnostic>, omitted: usize, severity: Severity) {
    let more = omitted + list.len().saturating_sub(MAX_DIAGNOSTICS);
    if more == 0 {
        return;
    }
    list.truncate(MAX_DIAGNOSTICS);
    let what = if severity == Severity::Error {
        "errors"
    } else {
        "warnings"
    };
    list.push(Diagnostic::in_source(
        severity,
        "input",
        0,
        crate::input::Span::default(),
        format!("… and {more} more {what} (only the first {MAX_DIAGNOSTICS} are listed)"),
    ));
}

pub(crate) fn evaluate(input: &Input, options: &EvaluateOptions) -> EvaluateReport {
    evaluate_with(input, options, None)
}

/// [`evaluate`], with the placement input already decoded when `prepared` is given (the
/// session keeps the decoded fleet across edits of the policy).
pub(crate) fn evaluate_with(
    input: &Input,
    options: &EvaluateOptions,
    prepared: Option<&placement::Prepared>,
) -> EvaluateReport {
    let mut out = EvaluateReport::default();
    // Placement runs first: the rollouts of KubeFleet placements start from its decisions.
    let placed = placement::applies(input).then(|| match prepared {
        Some(p) => placement::evaluate(p),
        None => placement::place(input, &options.place),
    });
    if disruption::applies(input) {
        let r = disruption::budgets(input, &options.budgets);
        out.node_pools = r.node_pools;
        out.karpenter_version = Some(r.karpenter_version);
        out.horizon_end = r.horizon_end;
        out.disruption_pass = Some(r.pass);
        out.errors.extend(r.errors);
        out.warnings.extend(r.warnings);
    }
    if rollout::applies(input) {
        let decided = placed.as_ref().map_or(&[][..], |p| p.placements.as_slice());
        let r = rollout::rollout(input, &options.rollout, decided);
        out.rollouts = r.rollouts;
        out.errors.extend(r.errors);
        out.warnings.extend(r.warnings);
    }
    // Every document is decoded and its errors reported, whichever engine applies: a broken
    // MemberCluster with no placement beside it, or a Pod with no NodePool, is still an error
    // (what `validate` in a CI gate relies on).
    if placed.is_none() {
        let (e, w) = crate::input::diagnostics::partition(match prepared {
            Some(p) => p.diagnostics.clone(),
            None => placement::prepare(input, &options.place).diagnostics,
        });
        out.errors.extend(e);
        out.warnings.extend(w);
    }
    if !disruption::applies(input) {
        let (e, w) =
            crate::input::diagnostics::partition(disruption::prepare(input).diagnostics().to_vec());
        out.errors.extend(e);
        out.warnings.extend(w);
        // A value an option refuses is an error whichever engines apply (the CLI exits 2).
        disruption::read_options(&options.budgets, &mut out.errors);
    }
    if !rollout::applies(input) {
        out.errors.extend(rollout::option_errors(&options.rollout));
    }
    if let Some(r) = placed {
        out.placements = r.placements;
        // Placement findings first, as before: the reader meets the fleet's problems first.
        out.errors.splice(0..0, r.errors);
        out.warnings.splice(0..0, r.warnings);
        out.notices = r.notices;
    }
    prepend_input(input, &mut out.errors, &mut out.warnings, &mut out.notices);
    out
}

/// Renders any result as pretty JSON (the bytes of `serde_json::to_string_pretty`).
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string_pretty(value)
        .unwrap_or_else(|e| format!("{{\"error\": {:?}}}", e.to_string()))
}

/// Renders any result as YAML (through its JSON form, so both carry the same content).
pub fn to_yaml<T: Serialize>(value: &T) -> String {
    let json = match serde_json::to_value(value) {
        Ok(v) => v,
        Err(e) => return format!("error: {e}\n"),
    };
    let yaml = json_to_yaml(&json);
    let mut out = String::new();
    let mut emitter = yaml_rust2::YamlEmitter::new(&mut out);
    if emitter.dump(&yaml).is_err() {
        return "error: could not render YAML\n".to_string();
    }
    out.push('\n');
    out
}

fn json_to_yaml(v: &serde_json::Value) -> yaml_rust2::Yaml {
    use yaml_rust2::Yaml;
    match v {
        serde_json::Value::Null => Yaml::Null,
        serde_json::Value::Bool(b) => Yaml::Boolean(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Yaml::Integer(i),
            None => Yaml::Real(n.to_string()),
        },
        serde_json::Value::String(s) => Yaml::String(s.clone()),
        serde_json::Value::Array(a) => Yaml::Array(a.iter().map(json_to_yaml).collect()),
        serde_json::Value::Object(o) => Yaml::Hash(
            o.iter()
                .map(|(k, v)| (Yaml::String(k.clone()), json_to_yaml(v)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_engine_takes_its_keys_and_an_unknown_key_lists_the_accepted_ones() {
        let o = EvaluateOptions::from_value(&json!({
            "at": "2026-03-04T12:00:00Z",
            "horizon": "24h",
            "approveAll": true,
            "kubefleet.stuckThreshold": "10m",
            "clusterHeartbeatCheckTimeout": "15m",
        }));
        let Ok(o) = o else { panic!("{o:?}") };
        assert_eq!(o.place.timeouts().heartbeat.0, 15 * 60 * 1_000_000_000);
        assert_eq!(o.budgets.horizon.as_deref(), Some("24h"));
        assert!(o.rollout.approve_all);
        assert_eq!(o.rollout.kubefleet.stuck_threshold, "10m");
        let e = EvaluateOptions::from_value(&json!({"at": "2026-03-04T12:00:00Z", "horizn": "1h"}));
        assert_eq!(
            e.err().as_deref(),
            Some("invalid options: unknown option \"horizn\"; accepted: approveAll, at, azure, clusterHealthCheckTimeout, clusterHeartbeatCheckTimeout, defaultDuration, durations, events, fail, horizon, horizonDays, karpenterVersion, kubefleet, observe, pending, skip, start")
        );
    }

    /// The options' instants are read as the input's timestamps are (Go's RFC 3339, as
    /// `metav1.Time` reads them), with Go's error text: `at` means what a time in the input
    /// means, in every engine and in what-if events.
    #[test]
    fn instants_in_options_are_read_as_go_reads_timestamps() {
        let o = EvaluateOptions::from_value(&json!({
            "at": "2026-03-04T12:00:00,5+01:00",
            "start": null,
            "observe": "2026-03-05T00:00:00Z",
            "events": [{"action": "stop", "at": "2026-03-04T13:00:00Z"}, {"action": "start"}],
        }));
        let Ok(o) = o else { panic!("{o:?}") };
        let at = "2026-03-04T11:00:00.500Z".parse::<DateTime<Utc>>().ok();
        assert_eq!(Some(o.place.at), at);
        assert_eq!(Some(o.budgets.at), at);
        assert_eq!(Some(o.rollout.at), at);
        assert_eq!(o.rollout.start, None);
        assert_eq!(
            o.rollout.observe.map(|t| t.to_rfc3339()).as_deref(),
            Some("2026-03-05T00:00:00+00:00")
        );
        assert_eq!(o.rollout.events.len(), 2);
        let e = EvaluateOptions::from_value(&json!({"at": "2026-03-04 12:00:00Z"}));
        assert_eq!(
            e.err().as_deref(),
            Some("invalid options: parsing time \"2026-03-04 12:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \" 12:00:00Z\" as \"T\"")
        );
        let e = EvaluateOptions::from_value(&json!({
            "at": "2026-03-04T12:00:00Z",
            "events": [{"action": "stop", "at": "2026-03-04T25:00:00Z"}],
        }));
        let e = e.err().unwrap_or_default();
        assert!(
            e.starts_with(
                "invalid options: events: parsing time \"2026-03-04T25:00:00Z\": hour out of range"
            ),
            "{e}"
        );
    }
}
