//! Every KubeFleet string the placement engine writes, in one place (framework.go and
//! status.go templates, placement.md §4.6, §8).

use super::eligibility::Ineligible;
use super::report::{Condition, FilterReason, TermMismatch};
use crate::model::placement::Taint;
use serde::Serialize;
use std::fmt::{self, Write};
use std::sync::{Arc, OnceLock};

/// Plugin names.
pub fn plugin(reason: &FilterReason) -> &'static str {
    match reason {
        FilterReason::ClusterAffinityMismatch { .. } => "ClusterAffinity",
        FilterReason::Ineligible { reason } if reason.is_namespace_affinity() => {
            "NamespaceAffinity"
        }
        FilterReason::Ineligible { .. } => "ClusterEligibility",
        FilterReason::TaintNotTolerated { .. } => "TaintToleration",
        FilterReason::TopologySpreadViolated { .. } => "TopologySpreadConstraints",
    }
}

/// A decision reason as data; its text is written only when read (through `Deref` to
/// `str`, cached) or serialised, so results for thousands of clusters do not format strings
/// nobody reads. Serialises as the string.
#[derive(Clone)]
pub struct ReasonText {
    what: ReasonKind,
    // A boxed String (a thin pointer): the cache is two words, not three, and every picked
    // cluster holds a reason; the extra allocation is made only for a text that is read.
    #[allow(clippy::box_collection)]
    text: OnceLock<Box<String>>,
}

/// What a [`ReasonText`] is written as. Same name on purpose: the npm package's TypeScript
/// declarations are generated from serde definitions, and `ReasonText`'s `Serialize` is
/// written by hand.
mod json {
    /// A decision reason as data; its text is written only when read (through `Deref` to
    /// `str`, cached) or serialised, so results for thousands of clusters do not format
    /// strings nobody reads. Serialises as the string.
    #[allow(dead_code)] // read by the TypeScript generator, not by the compiler
    pub(super) type ReasonText = String;
}

#[derive(Debug, Clone)]
enum ReasonKind {
    Picked {
        cluster: Arc<str>,
        affinity: i32,
        topology: i32,
    },
    PickedFixed {
        cluster: Arc<str>,
    },
    NotPicked {
        cluster: Arc<str>,
        affinity: i32,
        topology: i32,
    },
    Unschedulable(Unschedulable),
    Text(String),
}

/// What a filter's reason needs (not the whole explanation). Kept small and shared (the
/// taint is the fleet's one copy), since every filtered cluster holds one.
#[derive(Debug, Clone)]
enum Unschedulable {
    Affinity,
    Ineligible(Ineligible),
    Taint(Arc<Taint>),
    Spread(Box<(String, i32)>),
}

impl fmt::Display for ReasonKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReasonKind::Picked {
                cluster,
                affinity,
                topology,
            } => write!(
                f,
                "Successfully scheduled resources for placement in \"{cluster}\" (affinity score: {affinity}, topology spread score: {topology}): picked by scheduling policy"
            ),
            ReasonKind::PickedFixed { cluster } => write!(
                f,
                "Successfully scheduled resources for placement in \"{cluster}\": picked by scheduling policy"
            ),
            ReasonKind::NotPicked {
                cluster,
                affinity,
                topology,
            } => write!(
                f,
                "Cluster \"{cluster}\" does not score high enough (affinity score: {affinity}, topology spread score: {topology})"
            ),
            ReasonKind::Unschedulable(u) => {
                f.write_str("ClusterUnschedulable, ")?;
                match u {
                    Unschedulable::Affinity => f.write_str(
                        "cluster does not match with any of the required cluster affinity terms",
                    ),
                    Unschedulable::Ineligible(reason) => f.write_str(&reason.message()),
                    Unschedulable::Taint(t) => write!(
                        f,
                        "taint &{{Key:{} Value:{} Effect:{}}} cannot be tolerated",
                        t.key, t.value, t.effect
                    ),
                    Unschedulable::Spread(spread) => {
                        let (topology_key, max_skew) = &**spread;
                        write!(
                        f,
                        "violated doNotSchedule topology spread constraint \"{topology_key}\" (max skew {max_skew})"
                    )
                    }
                }
            }
            ReasonKind::Text(t) => f.write_str(t),
        }
    }
}

impl ReasonText {
    fn new(what: ReasonKind) -> Self {
        ReasonText {
            what,
            text: OnceLock::new(),
        }
    }
}

impl std::ops::Deref for ReasonText {
    type Target = str;
    fn deref(&self) -> &str {
        self.text.get_or_init(|| Box::new(self.what.to_string()))
    }
}

impl fmt::Display for ReasonText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.text.get() {
            Some(t) => f.write_str(t),
            None => self.what.fmt(f),
        }
    }
}

impl fmt::Debug for ReasonText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl Serialize for ReasonText {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Written straight from the data (or the cached text), without an owned copy.
        serializer.collect_str(self)
    }
}

impl PartialEq for ReasonText {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl From<ReasonText> for String {
    fn from(r: ReasonText) -> String {
        match r.text.into_inner() {
            Some(t) => *t,
            None => r.what.to_string(),
        }
    }
}

impl From<String> for ReasonText {
    fn from(t: String) -> Self {
        ReasonText::new(ReasonKind::Text(t))
    }
}

/// The recorded `ClusterUnschedulable, <plugin reason>`.
pub fn filtered(reason: &FilterReason) -> ReasonText {
    ReasonText::new(ReasonKind::Unschedulable(match reason {
        FilterReason::ClusterAffinityMismatch { .. } => Unschedulable::Affinity,
        FilterReason::Ineligible { reason } => Unschedulable::Ineligible(reason.clone()),
        FilterReason::TaintNotTolerated {
            key, value, effect, ..
        } => Unschedulable::Taint(Arc::new(Taint {
            key: key.to_string(),
            value: value.to_string(),
            effect: effect.to_string(),
        })),
        FilterReason::TopologySpreadViolated {
            topology_key,
            max_skew,
            ..
        } => Unschedulable::Spread(Box::new((topology_key.clone(), *max_skew))),
    }))
}

/// The recorded reason for a taint no toleration tolerates; `taint` is the fleet's shared
/// copy (the same text as [`filtered`] on the explanation).
pub fn taint_filtered(taint: Arc<Taint>) -> ReasonText {
    ReasonText::new(ReasonKind::Unschedulable(Unschedulable::Taint(taint)))
}

/// Picked with scores (PickN, PickAll).
pub fn picked(cluster: Arc<str>, affinity: i32, topology: i32) -> ReasonText {
    ReasonText::new(ReasonKind::Picked {
        cluster,
        affinity,
        topology,
    })
}

/// Picked without scores (PickFixed).
pub fn picked_fixed(cluster: Arc<str>) -> ReasonText {
    ReasonText::new(ReasonKind::PickedFixed { cluster })
}

/// Scored, not picked.
pub fn not_picked(cluster: Arc<str>, affinity: i32, topology: i32) -> ReasonText {
    ReasonText::new(ReasonKind::NotPicked {
        cluster,
        affinity,
        topology,
    })
}

/// PickFixed target that is not eligible.
pub fn fixed_ineligible(cluster: &str, reason: &str) -> ReasonText {
    format!("Cluster \"{cluster}\" is not eligible for resource placement yet: {reason}").into()
}

/// PickFixed target that does not exist.
pub fn fixed_not_found(cluster: &str) -> ReasonText {
    format!("Specified cluster \"{cluster}\" is not found").into()
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
        FilterReason::TaintNotTolerated {
            key, value, effect, ..
        } => {
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
