//! Notices: facts about the input as a whole that change how to read a result, stated once
//! (not one warning per document), as data with their words made here.
use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

/// What a notice is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum NoticeKind {
    /// MemberClusters without any `status`: written by hand, treated as joined and healthy.
    HandWrittenClusters,
    /// Documents of kinds no engine reads (EC2NodeClass, Namespace, Deployment…).
    IgnoredKinds,
    /// Kinds that change what the real system does but that the engine does not model
    /// (overrides, placement disruption budgets, evictions).
    NotModelled,
    /// Most member agents' heartbeats are older than 5 minutes at the evaluation instant.
    StaleHeartbeats,
}

/// Documents of one kind.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KindCount {
    /// `kind`.
    pub kind: String,
    /// `apiVersion`.
    pub api_version: String,
    /// How many documents.
    pub count: usize,
}

/// A fact about the input as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Notice {
    /// What it is about.
    pub kind: NoticeKind,
    /// How many clusters (or documents) it concerns.
    pub count: usize,
    /// The clusters concerned (hand-written or stale clusters), in name order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clusters: Vec<String>,
    /// The kinds concerned, by kind and apiVersion.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<KindCount>,
    /// The instant of the input's newest observation (heartbeat, condition, property), when
    /// the input carries one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<DateTime<Utc>>,
    /// The notice in words.
    pub message: String,
}

fn kinds_text(kinds: &[KindCount]) -> String {
    kinds
        .iter()
        .map(|k| format!("{} × {}", k.count, k.kind))
        .collect::<Vec<_>>()
        .join(", ")
}

fn time_text(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

impl Notice {
    /// MemberClusters with no `status` at all.
    pub fn hand_written(clusters: Vec<String>) -> Notice {
        let count = clusters.len();
        Notice {
            kind: NoticeKind::HandWrittenClusters,
            count,
            message: format!(
                "{count} MemberCluster(s) have no status (written by hand): treated as joined and healthy"
            ),
            clusters,
            kinds: Vec::new(),
            snapshot: None,
        }
    }

    /// Documents of kinds no engine reads.
    pub fn ignored(kinds: Vec<KindCount>) -> Notice {
        let count = kinds.iter().map(|k| k.count).sum();
        Notice {
            kind: NoticeKind::IgnoredKinds,
            count,
            message: format!(
                "ignored (no engine reads these kinds): {}",
                kinds_text(&kinds)
            ),
            clusters: Vec::new(),
            kinds,
            snapshot: None,
        }
    }

    /// Kinds that matter to the real system but are not modelled.
    pub fn not_modelled(kinds: Vec<KindCount>) -> Notice {
        let count = kinds.iter().map(|k| k.count).sum();
        Notice {
            kind: NoticeKind::NotModelled,
            count,
            message: format!(
                "not modelled (read, but their effect is not simulated): {}",
                kinds_text(&kinds)
            ),
            clusters: Vec::new(),
            kinds,
            snapshot: None,
        }
    }

    /// Most heartbeats are stale at `at`.
    pub fn stale_heartbeats(
        clusters: Vec<String>,
        total: usize,
        at: DateTime<Utc>,
        snapshot: Option<DateTime<Utc>>,
    ) -> Notice {
        let count = clusters.len();
        let hint = match snapshot {
            Some(s) => format!(
                "; the input was captured at {} — evaluate there with --at snapshot (npm: at: \"snapshot\")",
                time_text(s)
            ),
            None => String::new(),
        };
        Notice {
            kind: NoticeKind::StaleHeartbeats,
            count,
            message: format!(
                "{count} of {total} member agents sent no heartbeat in the 5 minutes before {}, so the scheduler filters them{hint}",
                time_text(at)
            ),
            clusters,
            kinds: Vec::new(),
            snapshot,
        }
    }
}
