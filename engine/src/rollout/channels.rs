//! Azure Fleet auto-upgrade channels: target version per channel and what happens to each
//! member (rollout.md A.6, R-AZ-60 … R-AZ-65).
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// `properties.channel` of an AutoUpgradeProfile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum Channel {
    /// Latest patch of minor N-1.
    Stable,
    /// Latest patch of the newest minor N.
    Rapid,
    /// Node images only.
    NodeImage,
}

/// A `major.minor.patch` Kubernetes version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Major.
    pub major: u64,
    /// Minor.
    pub minor: u64,
    /// Patch.
    pub patch: u64,
}

impl Version {
    /// Parses `1.30.5` (a leading `v` is accepted; a missing patch is 0).
    pub fn parse(s: &str) -> Option<Version> {
        let s = s.strip_prefix('v').unwrap_or(s);
        let mut it = s.split('.');
        let major = it.next()?.parse().ok()?;
        let minor = it.next()?.parse().ok()?;
        let patch = match it.next() {
            Some(p) => p.parse().ok()?,
            None => 0,
        };
        if it.next().is_some() {
            return None;
        }
        Some(Version {
            major,
            minor,
            patch,
        })
    }

    /// `(major, minor)`.
    pub fn minor_key(self) -> (u64, u64) {
        (self.major, self.minor)
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// What a channel does to one member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "action",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum MemberAction {
    /// Moves to `to` (Stable/Rapid) or gets new node images (NodeImage).
    Upgrade {
        /// Target version (Stable/Rapid).
        #[serde(skip_serializing_if = "Option::is_none")]
        to: Option<String>,
        /// NodeImage channel: the Kubernetes version stays this.
        #[serde(skip_serializing_if = "Option::is_none")]
        kubernetes_version_after: Option<String>,
        /// NodeImage channel: images move to the latest per the profile's nodeImageSelection.
        #[serde(skip_serializing_if = "Option::is_none")]
        node_image: Option<NodeImageTarget>,
    },
    /// Skipped by the generated run (at target, or newer).
    Skip {
        /// Why.
        reason: ChannelSkipReason,
    },
    /// Not moved: more than one minor behind (shown as Skipped in the generated run).
    NotMoved {
        /// Why.
        reason: ChannelSkipReason,
    },
}

/// Where node images go on the NodeImage channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeImageTarget {
    /// The latest image, chosen by the profile's `nodeImageSelection` when the run starts.
    LatestPerProfileSelection,
}

/// Why a member is not upgraded by a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ChannelSkipReason {
    /// Already at the target (R-AZ-64).
    AlreadyAtTarget,
    /// Newer than the target; no downgrade (R-AZ-64).
    NewerThanTarget,
    /// More than one minor below the target (R-AZ-63).
    MinorVersionSkewTooLarge,
    /// The member's version is unknown or unparsable.
    UnknownVersion,
}

/// The channel's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelPlan {
    /// Target version (`None` for NodeImage, or when no version qualifies).
    pub target: Option<String>,
    /// `Full` or `NodeImageOnly`.
    pub upgrade_type: String,
    /// Per member.
    pub members: BTreeMap<String, MemberAction>,
}

/// The target of a channel among the available GA versions (`preview` are removed).
pub fn target(channel: Channel, available: &[String], preview: &[String]) -> Option<Version> {
    let mut versions: Vec<Version> = available
        .iter()
        .filter(|v| !preview.contains(v))
        .filter_map(|v| Version::parse(v))
        .collect();
    versions.sort_unstable();
    versions.dedup();
    let newest_minor = versions.last()?.minor_key();
    match channel {
        Channel::NodeImage => None,
        Channel::Rapid => versions.last().copied(),
        Channel::Stable => {
            // Latest patch of the next lower minor present (N-1).
            let lower = versions
                .iter()
                .rev()
                .find(|v| v.minor_key() < newest_minor)?;
            let key = lower.minor_key();
            versions
                .iter()
                .rev()
                .find(|v| v.minor_key() == key)
                .copied()
        }
    }
}

/// What the channel does to one member at `current` (R-AZ-63/64).
pub fn member_action(channel: Channel, target: Option<Version>, current: &str) -> MemberAction {
    if channel == Channel::NodeImage {
        return MemberAction::Upgrade {
            to: None,
            kubernetes_version_after: Some(current.to_string()),
            node_image: Some(NodeImageTarget::LatestPerProfileSelection),
        };
    }
    let (Some(t), Some(c)) = (target, Version::parse(current)) else {
        return MemberAction::NotMoved {
            reason: ChannelSkipReason::UnknownVersion,
        };
    };
    match c.cmp(&t) {
        Ordering::Equal => MemberAction::Skip {
            reason: ChannelSkipReason::AlreadyAtTarget,
        },
        Ordering::Greater => MemberAction::Skip {
            reason: ChannelSkipReason::NewerThanTarget,
        },
        Ordering::Less => {
            if t.major != c.major || t.minor > c.minor + 1 {
                MemberAction::NotMoved {
                    reason: ChannelSkipReason::MinorVersionSkewTooLarge,
                }
            } else {
                MemberAction::Upgrade {
                    to: Some(t.to_string()),
                    kubernetes_version_after: None,
                    node_image: None,
                }
            }
        }
    }
}

/// The whole channel plan for members `(name, current version)`.
pub fn plan(
    channel: Channel,
    available: &[String],
    preview: &[String],
    members: &[(String, String)],
) -> ChannelPlan {
    let t = target(channel, available, preview);
    ChannelPlan {
        target: t.map(|v| v.to_string()),
        upgrade_type: match channel {
            Channel::NodeImage => "NodeImageOnly",
            _ => "Full",
        }
        .to_string(),
        members: members
            .iter()
            .map(|(n, v)| (n.clone(), member_action(channel, t, v)))
            .collect(),
    }
}
