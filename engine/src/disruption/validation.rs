//! What the v1 NodePool CRD admits (OpenAPI patterns matched with Go RE2 search semantics,
//! plus the CEL rules) and what Karpenter's runtime parsers then do (spec §1, §3.5).

use super::budget::nodes_value;
use super::crd_pattern::CrdPattern;
use super::schedule::CronSchedule;
use super::version::KarpenterVersion;
use crate::input::duration::GoDuration;
use serde::Serialize;

/// The verdicts for one field value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldCheck {
    /// Field path in the document.
    pub path: String,
    /// The value as written.
    pub value: String,
    /// Whether the API server would admit it.
    pub crd_accepts: bool,
    /// The admission rule it breaks, when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crd_rule: Option<String>,
    /// What Karpenter's runtime parser does with it, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Runtime>,
    /// What the value means or does if it gets in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
}

/// The runtime parser's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "result", rename_all = "camelCase")]
pub enum Runtime {
    /// Parsed.
    Ok,
    /// Rejected, with the parser's message.
    Error {
        /// The message.
        message: String,
    },
}

fn check(path: &str, value: &str, pattern: CrdPattern) -> FieldCheck {
    let ok = pattern.matches(value);
    FieldCheck {
        path: path.to_string(),
        value: value.to_string(),
        crd_accepts: ok,
        crd_rule: (!ok).then(|| format!("should match '{}'", pattern.regex())),
        runtime: None,
        effect: None,
    }
}

/// `budgets[].nodes`.
pub fn nodes(path: &str, value: &str) -> FieldCheck {
    let mut c = check(path, value, CrdPattern::Nodes);
    match nodes_value(value, 100) {
        Ok(_) => c.runtime = Some(Runtime::Ok),
        Err(message) => {
            c.runtime = Some(Runtime::Error { message });
            c.effect = Some("fail closed: 0 for every reason while the budget is active".into());
        }
    }
    c
}

/// `budgets[].schedule`.
pub fn schedule(path: &str, value: &str) -> FieldCheck {
    let mut c = check(path, value, CrdPattern::Schedule);
    match CronSchedule::parse(value) {
        Ok(s) => {
            c.runtime = Some(Runtime::Ok);
            if s.never_fires() {
                c.effect = Some(
                    "never fires: robfig returns the zero time, so the budget is always active"
                        .into(),
                );
            }
        }
        Err(e) => {
            c.runtime = Some(Runtime::Error {
                message: format!("invalid schedule {e}"),
            });
            c.effect = Some("fail closed: 0 for every reason".into());
        }
    }
    c
}

fn go_duration(c: &mut FieldCheck, value: &str) {
    match GoDuration::parse(value) {
        Ok(_) => c.runtime = Some(Runtime::Ok),
        Err(e) => c.runtime = Some(Runtime::Error { message: e.0 }),
    }
}

/// `budgets[].duration`.
pub fn duration(path: &str, value: &str) -> FieldCheck {
    let mut c = check(path, value, CrdPattern::BudgetDuration);
    go_duration(&mut c, value);
    c
}

/// `consolidateAfter` and `template.spec.expireAfter` (`Never` or a duration).
pub fn nillable_duration(path: &str, value: &str, version: KarpenterVersion) -> FieldCheck {
    let pattern = if version.at_least(4) {
        CrdPattern::Nillable
    } else {
        CrdPattern::NillableV1_0
    };
    let mut c = check(path, value, pattern);
    if value == "Never" {
        c.runtime = Some(Runtime::Ok);
    } else {
        go_duration(&mut c, value);
    }
    c
}

/// `template.spec.terminationGracePeriod`.
pub fn termination_grace_period(path: &str, value: &str) -> FieldCheck {
    let mut c = check(path, value, CrdPattern::TerminationGracePeriod);
    go_duration(&mut c, value);
    c
}

/// `consolidationPolicy` (enum; `Balanced` from v1.14.0).
pub fn consolidation_policy(path: &str, value: &str, version: KarpenterVersion) -> FieldCheck {
    let mut allowed = vec!["WhenEmpty", "WhenEmptyOrUnderutilized"];
    if version.at_least(14) {
        allowed.push("Balanced");
    }
    let ok = allowed.contains(&value);
    FieldCheck {
        path: path.to_string(),
        value: value.to_string(),
        crd_accepts: ok,
        crd_rule: (!ok).then(|| format!("supported values: {}", allowed.join(", "))),
        runtime: None,
        effect: None,
    }
}

/// One item of `budgets[].reasons` (enum).
pub fn reason(path: &str, value: &str) -> FieldCheck {
    let ok = ["Underutilized", "Empty", "Drifted"].contains(&value);
    FieldCheck {
        path: path.to_string(),
        value: value.to_string(),
        crd_accepts: ok,
        crd_rule: (!ok).then(|| "supported values: Underutilized, Empty, Drifted".to_string()),
        runtime: None,
        effect: (!ok).then(|| "matches no disruption reason".to_string()),
    }
}

/// A rule on a whole object or list (CEL, maxItems, listType=set).
pub fn rule(path: &str, ok: bool, rule: &str) -> FieldCheck {
    FieldCheck {
        path: path.to_string(),
        value: String::new(),
        crd_accepts: ok,
        crd_rule: (!ok).then(|| rule.to_string()),
        runtime: None,
        effect: None,
    }
}
