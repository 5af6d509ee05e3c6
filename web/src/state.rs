//! What the user has set up: the part of the playground that share links and local
//! persistence carry. Results are never stored; they are recomputed from this.

use serde::{Deserialize, Serialize};

/// Which result view is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum View {
    /// Ranked clusters of each placement.
    #[default]
    Placement,
    /// NodePool budgets over time and candidates.
    Disruption,
    /// Rollout Gantt chart and what-ifs.
    Rollout,
}

impl View {
    /// Every view, in tab order.
    pub const ALL: [View; 3] = [View::Placement, View::Disruption, View::Rollout];

    /// Tab label.
    pub fn label(self) -> &'static str {
        match self {
            View::Placement => "Placement",
            View::Disruption => "Disruption",
            View::Rollout => "Rollout",
        }
    }

    /// Stable id (used in element ids and the URL).
    pub fn id(self) -> &'static str {
        match self {
            View::Placement => "placement",
            View::Disruption => "disruption",
            View::Rollout => "rollout",
        }
    }
}

/// What-if inputs of the rollout simulation (passed to the engine as options).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WhatIf {
    /// Members whose update operation fails.
    pub fail: Vec<String>,
    /// Members that stay Pending (their window never opens).
    pub pending: Vec<String>,
    /// Members the user skips before the run starts.
    pub skip: Vec<String>,
    /// Approval requests approved as soon as they are created.
    pub approve: Vec<String>,
    /// The instant whose states the rollout view shows (RFC 3339; none = when it settles).
    pub observe: Option<String>,
}

impl WhatIf {
    /// What the member is set to: "", "fail", "pending" or "skip".
    pub fn member_mode(&self, member: &str) -> &'static str {
        let has = |l: &[String]| l.iter().any(|m| m == member);
        if has(&self.fail) {
            "fail"
        } else if has(&self.pending) {
            "pending"
        } else if has(&self.skip) {
            "skip"
        } else {
            ""
        }
    }

    /// Sets a member's what-if mode ("" clears it).
    pub fn set_member_mode(&mut self, member: &str, mode: &str) {
        for l in [&mut self.fail, &mut self.pending, &mut self.skip] {
            l.retain(|m| m != member);
        }
        let target = match mode {
            "fail" => &mut self.fail,
            "pending" => &mut self.pending,
            "skip" => &mut self.skip,
            _ => return,
        };
        target.push(member.to_string());
        target.sort();
    }
}

/// The whole user state.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct State {
    /// The Fleet editor's text.
    pub fleet: String,
    /// The Policy editor's text.
    pub policy: String,
    /// Evaluation instant (RFC 3339, UTC); none = "now", read when evaluating.
    pub at: Option<String>,
    /// The view shown.
    pub view: View,
    /// Rollout what-ifs.
    pub what_if: WhatIf,
    /// The gallery example the state started from, if any.
    pub example: Option<String>,
}
