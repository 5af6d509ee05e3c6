//! The combined result shapes, and rendering of results as JSON or YAML.

use crate::input::{Diagnostic, Input};
use crate::options_json::Json;
use crate::{disruption, placement, rollout};
use chrono::{DateTime, Utc};
use serde::Serialize;

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
    /// Builds every engine's options from one JSON object (`{"at": "...", ...}`); each engine
    /// reads the keys it knows.
    pub fn from_json(value: &Json) -> Result<Self, String> {
        Ok(EvaluateOptions {
            place: options_from_json(value)?,
            budgets: options_from_json(value)?,
            rollout: options_from_json(value)?,
        })
    }

    /// Default options of every engine at `at`.
    pub fn at(at: DateTime<Utc>) -> Self {
        let v = Json::Object(
            [("at".to_string(), Json::Str(at.to_rfc3339()))]
                .into_iter()
                .collect(),
        );
        // Every engine's options must be constructible from `at` alone.
        match Self::from_json(&v) {
            Ok(o) => o,
            Err(e) => unreachable!("options need more than `at`: {e}"),
        }
    }
}

/// Decodes an engine's options from a JSON object, with a message naming the bad option.
/// Reads the object in place: no copy of it per engine. Same acceptance and messages as the
/// types' serde `Deserialize` over a `serde_json::Value` (see [`crate::options_json`] for why
/// not serde). Callers holding JSON text read it with [`Json::parse`], callers holding a
/// `serde_json::Value` convert it with `Json::from`.
pub fn options_from_json<T: crate::options_json::FromJson>(value: &Json) -> Result<T, String> {
    T::from_json(value).map_err(|e| format!("invalid options: {e}"))
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
}

pub(crate) fn evaluate(input: &Input, options: &EvaluateOptions) -> EvaluateReport {
    let mut out = EvaluateReport::default();
    // Placement runs first: the rollouts of KubeFleet placements start from its decisions.
    let placed = placement::applies(input).then(|| placement::place(input, &options.place));
    if disruption::applies(input) {
        let r = disruption::budgets(input, &options.budgets);
        out.node_pools = r.node_pools;
        out.karpenter_version = Some(r.karpenter_version);
        out.horizon_end = r.horizon_end;
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
