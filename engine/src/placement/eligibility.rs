//! Cluster eligibility (`clustereligibilitychecker.IsEligible`, placement.md §2.3).

use crate::model::placement::MemberCluster;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// Heartbeat and health timeouts (the checker's defaults): 5 minutes.
const TIMEOUT_NANOS: i64 = 5 * 60 * 1_000_000_000;

/// Why a cluster is not eligible; checked in this order, the first failure wins.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum Ineligible {
    /// `metadata.deletionTimestamp` is set.
    Left,
    /// No `MemberAgent` entry in `status.agentStatus`.
    AgentNotOnline,
    /// The last heartbeat is older than 5 minutes.
    NoRecentHeartbeat {
        /// Minutes since the last heartbeat.
        minutes: f64,
    },
    /// The `Joined` condition is missing or not `True`.
    NotJoined,
    /// The `Healthy` condition is missing.
    NoHealthCondition,
    /// `Healthy` is not `True` and changed more than 5 minutes ago.
    UnhealthyProlonged {
        /// Minutes since the last transition.
        minutes: f64,
    },
}

impl Ineligible {
    /// The checker's reason string.
    pub fn message(&self) -> String {
        match self {
            Ineligible::Left => "cluster has left the fleet".to_string(),
            Ineligible::AgentNotOnline => {
                "cluster is not connected to the fleet: member agent not online yet".to_string()
            }
            Ineligible::NoRecentHeartbeat { minutes } => format!(
                "cluster is not connected to the fleet: no recent heartbeat signals (last received {:.2} minutes ago)",
                minutes
            ),
            Ineligible::NotJoined => {
                "cluster is not connected to the fleet: member agent not joined yet".to_string()
            }
            Ineligible::NoHealthCondition => {
                "cluster is not connected to the fleet: health condition from member agent is not available".to_string()
            }
            Ineligible::UnhealthyProlonged { minutes } => format!(
                "cluster is not connected to the fleet: unhealthy for a prolonged period of time (last transitioned {:.2} minutes ago)",
                minutes
            ),
        }
    }
}

/// Go's `time.Since(t)` as nanoseconds, saturating like `time.Duration` does.
fn since_nanos(at: DateTime<Utc>, t: Option<DateTime<Utc>>) -> i64 {
    match t {
        // A zero `metav1.Time` is year 1: far enough in the past to saturate.
        None => i64::MAX,
        Some(t) => (at - t)
            .num_nanoseconds()
            .unwrap_or(if at > t { i64::MAX } else { i64::MIN }),
    }
}

/// Go's `Duration.Minutes()`.
fn minutes(nanos: i64) -> f64 {
    let minute = 60 * 1_000_000_000_i64;
    let whole = nanos / minute;
    let rest = nanos % minute;
    whole as f64 + rest as f64 / (60.0 * 1e9)
}

/// Checks eligibility at `at`. `deleting` is whether `metadata.deletionTimestamp` is set.
/// A cluster without any `status` (written by hand) is eligible; the caller notes it. Any
/// `status` is read as the checker reads it: without a `MemberAgent` entry in
/// `agentStatus`, the agent is not online (a real cluster whose agent never connected).
pub fn check(cluster: &MemberCluster, deleting: bool, at: DateTime<Utc>) -> Result<(), Ineligible> {
    if deleting {
        return Err(Ineligible::Left);
    }
    let Some(status) = cluster.status.as_ref() else {
        return Ok(());
    };
    let agents = status.agent_status.as_deref().unwrap_or_default();
    let Some(agent) = agents.iter().find(|a| a.agent_type == "MemberAgent") else {
        return Err(Ineligible::AgentNotOnline);
    };
    let since = since_nanos(at, agent.last_received_heartbeat);
    if since > TIMEOUT_NANOS {
        return Err(Ineligible::NoRecentHeartbeat {
            minutes: minutes(since),
        });
    }
    let cond = |t: &str| agent.conditions.iter().find(|c| c.condition_type == t);
    if cond("Joined").is_none_or(|c| c.status != "True") {
        return Err(Ineligible::NotJoined);
    }
    let Some(healthy) = cond("Healthy") else {
        return Err(Ineligible::NoHealthCondition);
    };
    if healthy.status != "True" {
        let since = since_nanos(at, healthy.last_transition_time);
        if since > TIMEOUT_NANOS {
            return Err(Ineligible::UnhealthyProlonged {
                minutes: minutes(since),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes_follow_go_duration() {
        assert_eq!(minutes(90 * 1_000_000_000), 1.5);
        assert_eq!(
            format!("{:.2}", minutes(25 * 3600 * 1_000_000_000)),
            "1500.00"
        );
        assert_eq!(
            Ineligible::NoRecentHeartbeat { minutes: 6.0 }.message(),
            "cluster is not connected to the fleet: no recent heartbeat signals (last received 6.00 minutes ago)"
        );
    }
}
