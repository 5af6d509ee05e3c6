//! What the user has set up: the part of the playground that share links and local
//! persistence carry. Results are never stored; they are recomputed from this.

use serde::{Deserialize, Serialize};
use std::rc::Rc;

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

/// Light or dark colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    /// Light.
    #[default]
    Light,
    /// Dark.
    Dark,
}

impl Theme {
    /// The word stored locally and set as `<html data-theme>`.
    pub fn id(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// The theme a stored word names.
    pub fn from_id(id: &str) -> Option<Self> {
        match id {
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }

    /// The other one.
    pub fn toggled(self) -> Self {
        match self {
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Light,
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

/// What a member is set to in the rollout what-ifs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemberMode {
    /// No what-if: the member runs as planned.
    #[default]
    AsPlanned,
    /// Its update operation fails.
    Fail,
    /// It stays Pending (its window never opens).
    Pending,
    /// The user skips it before the run starts.
    Skip,
}

impl MemberMode {
    /// Every mode, in the order the menu lists them.
    pub const ALL: [MemberMode; 4] = [
        MemberMode::AsPlanned,
        MemberMode::Fail,
        MemberMode::Pending,
        MemberMode::Skip,
    ];

    /// Stable id (the `<option>` value; the engine's option name).
    pub fn id(self) -> &'static str {
        match self {
            MemberMode::AsPlanned => "",
            MemberMode::Fail => "fail",
            MemberMode::Pending => "pending",
            MemberMode::Skip => "skip",
        }
    }

    /// Menu label.
    pub fn label(self) -> &'static str {
        match self {
            MemberMode::AsPlanned => "as planned",
            MemberMode::Fail => "fails",
            MemberMode::Pending => "stays pending",
            MemberMode::Skip => "skipped",
        }
    }

    /// The mode with this id (an unknown id is "as planned").
    pub fn from_id(id: &str) -> Self {
        MemberMode::ALL
            .into_iter()
            .find(|m| m.id() == id)
            .unwrap_or_default()
    }
}

impl WhatIf {
    fn list(&mut self, mode: MemberMode) -> Option<&mut Vec<String>> {
        match mode {
            MemberMode::AsPlanned => None,
            MemberMode::Fail => Some(&mut self.fail),
            MemberMode::Pending => Some(&mut self.pending),
            MemberMode::Skip => Some(&mut self.skip),
        }
    }

    /// What the member is set to.
    pub fn member_mode(&self, member: &str) -> MemberMode {
        let has = |l: &[String]| l.iter().any(|m| m == member);
        if has(&self.fail) {
            MemberMode::Fail
        } else if has(&self.pending) {
            MemberMode::Pending
        } else if has(&self.skip) {
            MemberMode::Skip
        } else {
            MemberMode::AsPlanned
        }
    }

    /// Sets a member's what-if mode.
    pub fn set_member_mode(&mut self, member: &str, mode: MemberMode) {
        for l in [&mut self.fail, &mut self.pending, &mut self.skip] {
            l.retain(|m| m != member);
        }
        if let Some(target) = self.list(mode) {
            target.push(member.to_string());
            target.sort();
        }
    }
}

/// The whole user state.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct State {
    /// The Fleet editor's text (shared: a keystroke's new state does not copy the other
    /// editor's text, nor the views theirs).
    pub fleet: Rc<str>,
    /// The Policy editor's text.
    pub policy: Rc<str>,
    /// Evaluation instant (RFC 3339, UTC); none = "now", read when evaluating.
    pub at: Option<String>,
    /// The view shown.
    pub view: View,
    /// Rollout what-ifs.
    pub what_if: WhatIf,
    /// The gallery example the state started from, if any.
    pub example: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_has_one_mode_and_as_planned_clears_it() {
        let mut w = WhatIf::default();
        w.set_member_mode("b", MemberMode::Fail);
        w.set_member_mode("a", MemberMode::Fail);
        assert_eq!(w.fail, ["a", "b"]);
        w.set_member_mode("a", MemberMode::Skip);
        assert_eq!(
            (w.fail.as_slice(), w.skip.as_slice()),
            (&["b".to_string()][..], &["a".to_string()][..])
        );
        assert_eq!(w.member_mode("a"), MemberMode::Skip);
        w.set_member_mode("a", MemberMode::AsPlanned);
        assert_eq!(w.member_mode("a"), MemberMode::AsPlanned);
        assert!(w.skip.is_empty());
        assert_eq!(MemberMode::from_id("pending"), MemberMode::Pending);
        assert_eq!(MemberMode::from_id("bogus"), MemberMode::AsPlanned);
    }
}
