//! Time-dependent node and pod facts (spec §5.3, §5.5, §5.6, §6.2): consolidateAfter,
//! expiration, pod-level do-not-disrupt, eviction cost and remaining lifetime.

use super::version::KarpenterVersion;
use crate::input::duration::GoDuration;
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

/// `IsUnderConsolidateAfter` and the Consolidatable condition: `consolidate_after` `None` means
/// `Never`. Returns whether the node is consolidatable at `now` and, if not yet, from when.
pub fn consolidatable(
    consolidate_after: Option<GoDuration>,
    initialized_at: Option<DateTime<Utc>>,
    last_pod_event: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> (bool, Option<DateTime<Utc>>) {
    let (Some(after), Some(init)) = (consolidate_after, initialized_at) else {
        return (false, None);
    };
    let reference = last_pod_event.unwrap_or(init);
    let Some(at) = reference.checked_add_signed(after.to_chrono()) else {
        return (false, None);
    };
    if now >= at {
        (true, None)
    } else {
        (false, Some(at))
    }
}

/// When a NodeClaim expires (`None` with `expireAfter: Never`).
pub fn expires_at(
    expire_after: Option<GoDuration>,
    created: DateTime<Utc>,
) -> Option<DateTime<Utc>> {
    created.checked_add_signed(expire_after?.to_chrono())
}

/// Whether the expiration controller deletes the NodeClaim at `now` (boundary inclusive).
pub fn expired(
    expire_after: Option<GoDuration>,
    created: DateTime<Utc>,
    now: DateTime<Utc>,
) -> bool {
    expires_at(expire_after, created).is_some_and(|at| now >= at)
}

/// What a pod's `karpenter.sh/do-not-disrupt` annotation does at an instant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "camelCase")]
pub enum PodDoNotDisrupt {
    /// The pod blocks disruption (until `until` for a duration value; `None` = indefinitely
    /// or, with an unknown start time, until it is known).
    Blocks {
        /// End of the protection.
        #[serde(skip_serializing_if = "Option::is_none")]
        until: Option<DateTime<Utc>>,
    },
    /// The annotation does not block.
    DoesNotBlock,
    /// The value is ignored, with Karpenter's warning event.
    Ignored {
        /// The warning.
        warning: String,
    },
}

/// Evaluates the annotation of one pod (`podutils.IsDisruptable`). Terminal and terminating
/// pods never block.
pub fn pod_do_not_disrupt(
    value: Option<&str>,
    started: Option<DateTime<Utc>>,
    terminal: bool,
    terminating: bool,
    now: DateTime<Utc>,
    version: KarpenterVersion,
) -> PodDoNotDisrupt {
    let Some(value) = value else {
        return PodDoNotDisrupt::DoesNotBlock;
    };
    if terminal || terminating {
        return PodDoNotDisrupt::DoesNotBlock;
    }
    if value == "true" {
        return PodDoNotDisrupt::Blocks { until: None };
    }
    if !version.at_least(12) {
        // Before v1.12 only the exact string "true" means anything.
        return PodDoNotDisrupt::DoesNotBlock;
    }
    match GoDuration::parse(value) {
        Err(e) => PodDoNotDisrupt::Ignored {
            warning: format!("invalid duration {value:?} in karpenter.sh/do-not-disrupt: {e}"),
        },
        Ok(d) if d.0 <= 0 => PodDoNotDisrupt::Ignored {
            warning: format!("karpenter.sh/do-not-disrupt {value:?}: duration must be positive"),
        },
        Ok(d) => match started {
            // Fails safe: without a start time the pod stays protected.
            None => PodDoNotDisrupt::Blocks { until: None },
            Some(s) => match s.checked_add_signed(d.to_chrono()) {
                Some(until) if now < until => PodDoNotDisrupt::Blocks { until: Some(until) },
                Some(_) => PodDoNotDisrupt::DoesNotBlock,
                None => PodDoNotDisrupt::Blocks { until: None },
            },
        },
    }
}

/// `disruptionutils.EvictionCost`: `clamp(1 + deletionCost/2^27 + priority/2^25, −10, 10)`.
/// An unparsable deletion cost is ignored (Karpenter logs it).
pub fn eviction_cost(deletion_cost: Option<&str>, priority: Option<i64>) -> f64 {
    let mut cost = 1.0f64;
    // Karpenter reads it with strconv.ParseFloat: no surrounding spaces, Go's literal syntax,
    // and an overflow is an error (ignored) rather than an infinite cost.
    if let Some(dc) = deletion_cost.and_then(|s| crate::input::go_float::parse_float(s).ok()) {
        cost += dc / 2f64.powi(27);
    }
    if let Some(p) = priority {
        cost += p as f64 / 2f64.powi(25);
    }
    cost.clamp(-10.0, 10.0)
}

/// `LifetimeRemaining`: `clamp((expireAfter − age) / expireAfter, 0, 1)`, 1 with `Never`.
pub fn lifetime_remaining(expire_after: Option<GoDuration>, age: Duration) -> f64 {
    let Some(e) = expire_after else { return 1.0 };
    let total = e.0 as f64 / 1e9;
    let age_s = age
        .num_nanoseconds()
        .map_or(age.num_seconds() as f64, |n| n as f64 / 1e9);
    if total == 0.0 {
        return 0.0;
    }
    ((total - age_s) / total).clamp(0.0, 1.0)
}
