//! Runs the engine on the user's state. The only place the playground calls the engine, and
//! the only place it reads the clock ("now" is read here, at the UI boundary, and passed in).

use crate::state::State;
use chrono::{DateTime, SecondsFormat, Utc};
use fleet_policy::{Diagnostic, EvaluateOptions, RolloutOptions, Source};
use serde_json::{json, Value};

/// Editor (source) names; diagnostics carry them back to the right editor.
pub const FLEET: &str = "fleet";
/// See [`FLEET`].
pub const POLICY: &str = "policy";

/// One evaluation: the engine's combined report, as data and as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The instant evaluated at.
    pub at: DateTime<Utc>,
    /// Whether `at` was "now".
    pub at_is_now: bool,
    /// `EvaluateReport` in its serialised form (what the views and the export read).
    pub report: Value,
    /// Rollouts observed at the time slider's instant (when one is set).
    pub observed_rollouts: Option<Vec<Value>>,
    /// Errors.
    pub errors: Vec<Diagnostic>,
    /// Warnings.
    pub warnings: Vec<Diagnostic>,
    /// Wall time of the engine calls, in milliseconds.
    pub engine_ms: f64,
}

/// "Now", read at the boundary: the engine itself never reads the clock.
pub fn now() -> DateTime<Utc> {
    DateTime::from_timestamp_millis(js_sys::Date::now() as i64).unwrap_or_default()
}

/// Parses a stored instant.
pub fn parse_at(at: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(at).ok().map(|t| t.to_utc())
}

/// The engine options for a state at an instant (what-ifs included).
pub fn options_json(state: &State, at: DateTime<Utc>) -> Value {
    let w = &state.what_if;
    let events: Vec<Value> = w
        .approve
        .iter()
        .map(|r| json!({"action": "approve", "request": r}))
        .collect();
    json!({
        "at": at.to_rfc3339_opts(SecondsFormat::Secs, true),
        "fail": w.fail,
        "pending": w.pending,
        "skip": w.skip,
        "events": events,
    })
}

/// The sources, named after the editors.
pub fn sources(state: &State) -> [Source; 2] {
    [
        Source::new(FLEET, state.fleet.as_str()),
        Source::new(POLICY, state.policy.as_str()),
    ]
}

fn option_error(message: String) -> Diagnostic {
    Diagnostic::in_source(
        fleet_policy::Severity::Error,
        "options",
        0,
        Default::default(),
        message,
    )
}

/// Evaluates the state.
pub fn evaluate(state: &State) -> Evaluation {
    let started = js_sys::Date::now();
    let parsed = state.at.as_deref().and_then(parse_at);
    let at = parsed.unwrap_or_else(now);
    let sources = sources(state);
    let options = options_json(state, at);
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let report = match EvaluateOptions::from_json(&options) {
        Ok(o) => {
            let r = fleet_policy::evaluate(&sources, &o);
            errors = r.errors.clone();
            warnings = r.warnings.clone();
            serde_json::to_value(&r).unwrap_or(Value::Null)
        }
        Err(e) => {
            errors.push(option_error(e));
            Value::Null
        }
    };
    let observed_rollouts = state
        .what_if
        .observe
        .as_deref()
        .and_then(parse_at)
        .and_then(|t| {
            let mut o = options;
            o["observe"] = json!(t.to_rfc3339_opts(SecondsFormat::Secs, true));
            let opts: RolloutOptions = fleet_policy::report::options_from_json(&o).ok()?;
            let r = fleet_policy::rollout(&sources, &opts);
            let v = serde_json::to_value(&r).ok()?;
            v.get("rollouts").and_then(Value::as_array).cloned()
        });
    Evaluation {
        at,
        at_is_now: parsed.is_none(),
        report,
        observed_rollouts,
        errors,
        warnings,
        engine_ms: js_sys::Date::now() - started,
    }
}
