//! Runs the engine on the user's state. The only place the playground calls the engine, and
//! the only place it reads the clock ("now" is read here, at the UI boundary, and passed in).

use crate::state::State;
use chrono::{DateTime, SecondsFormat, Utc};
use fleet_policy::rollout::options::WhatIf as RolloutEvent;
use fleet_policy::rollout::plan::Rollout;
use fleet_policy::session::{Session, Unchanged};
use fleet_policy::{EvaluateOptions, EvaluateReport};
use serde_json::{json, Value};
use std::rc::Rc;

/// Editor (source) names; diagnostics carry them back to the right editor.
pub const FLEET: &str = "fleet";
/// See [`FLEET`].
pub const POLICY: &str = "policy";

/// One evaluation: the engine's combined report, typed and shared (views, markers, the
/// compare view and the export all read this one copy).
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// The instant evaluated at.
    pub at: DateTime<Utc>,
    /// Whether `at` was "now".
    pub at_is_now: bool,
    /// Whether `at` is the input's snapshot instant (its newest heartbeat or observation).
    pub at_is_snapshot: bool,
    /// The input's snapshot instant, when it carries times.
    pub snapshot: Option<DateTime<Utc>>,
    /// The engine's report (errors, warnings and notices included).
    pub report: Rc<EvaluateReport>,
    /// Rollouts observed at the time slider's instant (when one is set).
    pub observed_rollouts: Option<Rc<Vec<Rollout>>>,
    /// Wall time of the engine calls, in milliseconds.
    pub engine_ms: f64,
}

impl Default for Evaluation {
    fn default() -> Self {
        Evaluation {
            at: DateTime::default(),
            at_is_now: true,
            at_is_snapshot: false,
            snapshot: None,
            report: Rc::default(),
            observed_rollouts: None,
            engine_ms: 0.0,
        }
    }
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
pub fn options(state: &State, at: DateTime<Utc>) -> EvaluateOptions {
    let w = &state.what_if;
    let mut o = EvaluateOptions::at(at);
    o.rollout.fail = w.fail.clone();
    o.rollout.pending = w.pending.clone();
    o.rollout.skip = w.skip.clone();
    o.rollout.events = w
        .approve
        .iter()
        .map(|r| RolloutEvent::Approve {
            at: None,
            request: r.clone(),
        })
        .collect();
    o
}

/// The same options as the CLI and the npm package read them (`--set`, the options object):
/// what an exported result records so that it can be replayed.
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

/// Evaluates the state. The session re-reads only the documents (and list items) whose text
/// changed, and hands back the last report while neither the input nor the options changed;
/// `known` is what the editors' edits left of the texts it read last (fleet, policy).
pub fn evaluate(state: &State, session: &mut Session, known: &[Unchanged; 2]) -> Evaluation {
    let started = js_sys::Date::now();
    // The editors' texts are shared, not copied: an editor not typed in gives the same text.
    session.update_edited(
        &[(FLEET, state.fleet.clone()), (POLICY, state.policy.clone())],
        known,
    );
    // No instant chosen: a dump is evaluated when it was taken (its snapshot), hand-written
    // input now. "now" and "snapshot" are the two buttons; anything else is an instant.
    let snapshot = session.snapshot();
    let (at, at_is_now, at_is_snapshot) = match state.at.as_deref() {
        Some("now") => (now(), true, false),
        Some(fleet_policy::AT_SNAPSHOT) | None => match snapshot {
            Some(t) => (t, false, true),
            None => (now(), true, false),
        },
        Some(t) => match parse_at(t) {
            Some(t) => (t, false, false),
            None => (now(), true, false),
        },
    };
    let observe = state.what_if.observe.as_deref().and_then(parse_at);
    let report = session.evaluate(&options(state, at));
    // The time slider views the same rollouts at another instant: no new run.
    let observed_rollouts = observe.map(|t| {
        Rc::new(
            report
                .rollouts
                .iter()
                .map(|ro| {
                    let mut ro = ro.clone();
                    fleet_policy::rollout::observe(&mut ro, t);
                    ro
                })
                .collect(),
        )
    });
    Evaluation {
        at,
        at_is_now,
        at_is_snapshot,
        snapshot,
        report,
        observed_rollouts,
        engine_ms: js_sys::Date::now() - started,
    }
}
