//! Cluster eligibility (`clustereligibilitychecker.IsEligible`, placement.md §2.3).

use crate::input::duration::GoDuration;
use crate::model::placement::MemberCluster;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The checker's default heartbeat and health timeouts: 5 minutes.
const DEFAULT_TIMEOUT_NANOS: i64 = 5 * 60 * 1_000_000_000;

/// One of the checker's timeouts (`WithClusterHeartbeatCheckTimeout`,
/// `WithClusterHealthCheckTimeout`): a Go duration such as `15m`, kept in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct CheckTimeout(pub i64);

impl Default for CheckTimeout {
    fn default() -> Self {
        CheckTimeout(DEFAULT_TIMEOUT_NANOS)
    }
}

impl TryFrom<String> for CheckTimeout {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        GoDuration::parse(&text)
            .map(|d| CheckTimeout(d.0))
            .map_err(|e| format!("{e}; a Go duration such as 5m or 1h30m is expected"))
    }
}

/// The checker's thresholds. KubeFleet's hub agent builds its checker with the defaults
/// (`cmd/hubagent/workload/setup.go`: `clustereligibilitychecker.New()`); a scheduler built
/// with other values (as `test/scheduler/suite_test.go` does) is modelled by setting these.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timeouts {
    /// How old the member agent's last heartbeat may be.
    pub heartbeat: CheckTimeout,
    /// How long the Healthy condition may have been not True.
    pub health: CheckTimeout,
}

/// Why a cluster is not eligible; checked in this order, the first failure wins.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum Ineligible {
    /// `metadata.deletionTimestamp` is set.
    Left,
    /// No `MemberAgent` entry in `status.agentStatus`.
    AgentNotOnline,
    /// The last heartbeat is older than the heartbeat timeout (5 minutes by default).
    NoRecentHeartbeat {
        /// Minutes since the last heartbeat.
        minutes: f64,
    },
    /// The `Joined` condition is missing or not `True`.
    NotJoined,
    /// The `Healthy` condition is missing.
    NoHealthCondition,
    /// `Healthy` is not `True` and changed longer ago than the health timeout (5 minutes by
    /// default).
    UnhealthyProlonged {
        /// Minutes since the last transition.
        minutes: f64,
    },
    /// NamespaceAffinity (a `ResourcePlacement` only): the cluster collects its namespaces
    /// (the `NamespaceCollectionSucceeded` condition is present) but lists none.
    NoNamespaceInformation,
    /// NamespaceAffinity (a `ResourcePlacement` only): the placement's namespace is not among
    /// the cluster's `status.namespaces`.
    NamespaceNotFound {
        /// The placement's namespace.
        namespace: String,
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
            Ineligible::NoNamespaceInformation => {
                "cluster has no namespace information available".to_string()
            }
            Ineligible::NamespaceNotFound { .. } => {
                "target namespace does not exist on cluster".to_string()
            }
        }
    }

    /// Whether the NamespaceAffinity filter (not the eligibility checker) gave this reason.
    pub fn is_namespace_affinity(&self) -> bool {
        matches!(
            self,
            Ineligible::NoNamespaceInformation | Ineligible::NamespaceNotFound { .. }
        )
    }
}

/// What the NamespaceAffinity filter reads of a cluster
/// (`pkg/scheduler/framework/plugins/namespaceaffinity/filtering.go`).
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Namespaces {
    /// No `NamespaceCollectionSucceeded` condition: collection is off, the filter passes.
    #[default]
    NotCollected,
    /// Collected (the condition has any status): these names, sorted; `None` when
    /// `status.namespaces` is absent (an empty map is absent too: the hub agent writes the
    /// field with `omitempty`).
    Collected(Option<Vec<String>>),
}

impl Namespaces {
    /// Reads a MemberCluster's `status.conditions` and `status.namespaces`.
    pub fn of(cluster: &MemberCluster) -> Namespaces {
        let Some(status) = cluster.status.as_ref() else {
            return Namespaces::NotCollected;
        };
        if !status
            .conditions
            .iter()
            .any(|c| c.condition_type == "NamespaceCollectionSucceeded")
        {
            return Namespaces::NotCollected;
        }
        Namespaces::Collected(
            status
                .namespaces
                .as_ref()
                .filter(|m| !m.is_empty())
                .map(|m| m.keys().cloned().collect()),
        )
    }

    /// The filter for a placement in `namespace`: `None` passes.
    pub fn filter(&self, namespace: &str) -> Option<Ineligible> {
        match self {
            Namespaces::NotCollected => None,
            Namespaces::Collected(None) => Some(Ineligible::NoNamespaceInformation),
            Namespaces::Collected(Some(names)) => {
                if names
                    .binary_search_by(|n| n.as_str().cmp(namespace))
                    .is_ok()
                {
                    None
                } else {
                    Some(Ineligible::NamespaceNotFound {
                        namespace: namespace.to_string(),
                    })
                }
            }
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

/// Checks eligibility at `at` with the checker's `timeouts`. `deleting` is whether `metadata.deletionTimestamp` is set.
/// A cluster without any `status` (written by hand) is eligible; the caller notes it. Any
/// `status` is read as the checker reads it: without a `MemberAgent` entry in
/// `agentStatus`, the agent is not online (a real cluster whose agent never connected).
pub fn check(
    cluster: &MemberCluster,
    deleting: bool,
    at: DateTime<Utc>,
    timeouts: Timeouts,
) -> Result<(), Ineligible> {
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
    if since > timeouts.heartbeat.0 {
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
        if since > timeouts.health.0 {
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
    fn timeout_options_read_go_durations_and_name_the_bad_one() {
        use crate::placement::PlaceOptions;
        let read = |v: serde_json::Value| serde_json::from_value::<PlaceOptions>(v);
        let o = read(serde_json::json!({"at": "2026-01-01T12:00:00Z"})).map(|o| o.timeouts());
        assert_eq!(o.ok(), Some(Timeouts::default()));
        assert_eq!(Timeouts::default().heartbeat.0, 300_000_000_000);
        let o = read(serde_json::json!({"at": "2026-01-01T12:00:00Z",
            "clusterHeartbeatCheckTimeout": "1h30m", "clusterHealthCheckTimeout": "90s"}))
        .map(|o| o.timeouts());
        assert_eq!(
            o.ok(),
            Some(Timeouts {
                heartbeat: CheckTimeout(5_400_000_000_000),
                health: CheckTimeout(90_000_000_000),
            })
        );
        let e = read(serde_json::json!({"at": "2026-01-01T12:00:00Z",
            "clusterHealthCheckTimeout": "5 minutes"}))
        .err()
        .map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("clusterHealthCheckTimeout: time: unknown unit \" minutes\" in duration \"5 minutes\"; a Go duration such as 5m or 1h30m is expected")
        );
    }

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
