//! Compare: what changed between a pinned result and the current one. The changes are the
//! engine's typed diff ([`fleet_policy::diff`], shared with `fleet-policy diff`); this view
//! only lays out their words.

use fleet_policy::EvaluateReport;

/// One change, in words, with the area it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// "placement web-app", "NodePool default", "rollout upgrade".
    pub area: String,
    /// What changed.
    pub text: String,
}

/// The changes from `pinned` to `current`.
pub fn diff(pinned: &EvaluateReport, current: &EvaluateReport) -> Vec<Change> {
    fleet_policy::diff::diff(pinned, current)
        .into_iter()
        .map(|c| Change {
            area: c.subject.text(),
            text: c.what.text(),
        })
        .collect()
}
