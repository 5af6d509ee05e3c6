//! Every KubeFleet string the placement engine writes, in one place (framework.go and
//! status.go templates, placement.md §4.6, §8).

use super::report::{Condition, FilterReason, TermMismatch};
use std::fmt::Write;

/// Plugin names.
pub fn plugin(reason: &FilterReason) -> &'static str {
    match reason {
        FilterReason::ClusterAffinityMismatch { .. } => "ClusterAffinity",
        FilterReason::Ineligible { .. } => "ClusterEligibility",
        FilterReason::TaintNotTolerated { .. } => "TaintToleration",
        FilterReason::TopologySpreadViolated { .. } => "TopologySpreadConstraints",
    }
}

/// The recorded `ClusterUnschedulable, <plugin reason>`.
pub fn filtered(reason: &FilterReason) -> String {
    let detail = match reason {
        FilterReason::ClusterAffinityMismatch { .. } => {
            "cluster does not match with any of the required cluster affinity terms".to_string()
        }
        FilterReason::Ineligible { reason } => reason.message(),
        FilterReason::TaintNotTolerated { key, value, effect } => {
            format!("taint &{{Key:{key} Value:{value} Effect:{effect}}} cannot be tolerated")
        }
        FilterReason::TopologySpreadViolated {
            topology_key,
            max_skew,
            ..
        } => format!(
            "violated doNotSchedule topology spread constraint \"{topology_key}\" (max skew {max_skew})"
        ),
    };
    format!("ClusterUnschedulable, {detail}")
}

/// Picked with scores (PickN, PickAll).
pub fn picked(cluster: &str, affinity: i32, topology: i32) -> String {
    format!(
        "Successfully scheduled resources for placement in \"{cluster}\" (affinity score: {affinity}, topology spread score: {topology}): picked by scheduling policy"
    )
}

/// Picked without scores (PickFixed).
pub fn picked_fixed(cluster: &str) -> String {
    format!("Successfully scheduled resources for placement in \"{cluster}\": picked by scheduling policy")
}

/// Scored, not picked.
pub fn not_picked(cluster: &str, affinity: i32, topology: i32) -> String {
    format!(
        "Cluster \"{cluster}\" does not score high enough (affinity score: {affinity}, topology spread score: {topology})"
    )
}

/// PickFixed target that is not eligible.
pub fn fixed_ineligible(cluster: &str, reason: &str) -> String {
    format!("Cluster \"{cluster}\" is not eligible for resource placement yet: {reason}")
}

/// PickFixed target that does not exist.
pub fn fixed_not_found(cluster: &str) -> String {
    format!("Specified cluster \"{cluster}\" is not found")
}

/// The Scheduled condition after a completed cycle.
pub fn condition(count: usize, fulfilled: bool) -> Condition {
    if fulfilled {
        Condition {
            status: "True".into(),
            reason: "SchedulingPolicyFulfilled".into(),
            message: format!(
                "found all cluster needed as specified by the scheduling policy, found {count} cluster(s)"
            ),
        }
    } else {
        Condition {
            status: "False".into(),
            reason: "SchedulingPolicyUnfulfilled".into(),
            message: format!(
                "could not find all clusters needed as specified by the scheduling policy, found {count} cluster(s) instead"
            ),
        }
    }
}

/// The CRP's condition while the scheduler has not written one (aborted cycle, nothing to do).
pub fn pending() -> Condition {
    Condition {
        status: "Unknown".into(),
        reason: "SchedulePending".into(),
        message: "Scheduling has not completed".into(),
    }
}

/// A one-line explanation of a filter reason for people (the table view).
pub fn explain(reason: &FilterReason) -> String {
    match reason {
        FilterReason::ClusterAffinityMismatch { terms } => {
            let mut s = String::new();
            for (n, t) in terms.iter().enumerate() {
                if n > 0 {
                    s.push_str("; ");
                }
                match t {
                    TermMismatch::Label { term, mismatch } => {
                        let _ = write!(s, "term {term}: {mismatch}");
                    }
                    TermMismatch::PropertyMissing { term, name, .. } => {
                        let _ = write!(s, "term {term}: property {name} is not available");
                    }
                    TermMismatch::Property {
                        term,
                        name,
                        operator,
                        required,
                        observed,
                        ..
                    } => {
                        let _ = write!(s, "term {term}: {name} is {observed}, required {operator} {required}");
                    }
                }
            }
            if s.is_empty() {
                s.push_str("no required term matched");
            }
            s
        }
        FilterReason::Ineligible { reason } => reason.message(),
        FilterReason::TaintNotTolerated { key, value, effect } => {
            format!("taint {key}={value}:{effect} is not tolerated")
        }
        FilterReason::TopologySpreadViolated {
            topology_key,
            max_skew,
            domain,
            domain_count,
            smallest,
            largest,
            ..
        } => format!(
            "{topology_key}={} has {} placement(s) (domains {smallest}..{largest}); one more exceeds max skew {max_skew}",
            domain.as_deref().unwrap_or("-"),
            domain_count.unwrap_or(0)
        ),
    }
}
