//! The example gallery: one YAML file per scenario in `static/examples/` (also served, so the
//! CLI can replay them). Each file starts with a one-line `# what it demonstrates` comment,
//! may pin the evaluation instant with `# at: <RFC 3339>`, and holds the fleet documents,
//! then a `# == policy ==` line, then the policy documents.

use crate::state::View;

/// The line that separates the Fleet editor's documents from the Policy editor's.
pub const POLICY_MARKER: &str = "# == policy ==";

/// One gallery entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// File stem (also the id in share links and tests).
    pub id: &'static str,
    /// Short title.
    pub title: &'static str,
    /// The view that shows what it demonstrates.
    pub view: View,
    /// The file's text.
    pub text: &'static str,
}

macro_rules! example {
    ($id:literal, $title:literal, $view:expr) => {
        Example {
            id: $id,
            title: $title,
            view: $view,
            text: include_str!(concat!("../../static/examples/", $id, ".yaml")),
        }
    };
}

/// Every example, in gallery order. The first one opens by default.
pub const EXAMPLES: &[Example] = &[
    example!(
        "pickall-label-property",
        "PickAll: label + property selectors",
        View::Placement
    ),
    example!("pickfixed", "PickFixed", View::Placement),
    example!(
        "pickn-preferred-labels",
        "PickN: preferred label terms",
        View::Placement
    ),
    example!(
        "sorter-available-cpu",
        "Sorter: available CPU, descending",
        View::Placement
    ),
    example!(
        "sorter-cpu-cost",
        "Sorter: per-core cost, ascending",
        View::Placement
    ),
    example!("topology-spread", "Topology spread", View::Placement),
    example!(
        "taints-tolerations",
        "Taints and tolerations",
        View::Placement
    ),
    example!(
        "budget-daily-freeze",
        "Budgets: 20% / 5 / 0 @daily 10m",
        View::Disruption
    ),
    example!(
        "budget-business-hours",
        "Budgets: business-hours block",
        View::Disruption
    ),
    example!(
        "budget-weekend-only",
        "Budgets: weekend-only",
        View::Disruption
    ),
    example!("budget-ramp-up", "Budgets: ramp-up", View::Disruption),
    example!(
        "budget-candidates",
        "Budgets: candidates and blocked nodes",
        View::Disruption
    ),
    example!(
        "azure-update-run",
        "Azure update run: 2 stages x 2 groups",
        View::Rollout
    ),
    example!(
        "kubefleet-staged-run",
        "KubeFleet staged update run",
        View::Rollout
    ),
];

impl Example {
    /// Looks an example up by id.
    pub fn find(id: &str) -> Option<&'static Example> {
        EXAMPLES.iter().find(|e| e.id == id)
    }

    /// The one-line description (the file's first comment line).
    pub fn description(&self) -> &'static str {
        self.text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix('#'))
            .map(str::trim)
            .unwrap_or("")
    }

    /// The evaluation instant the example is written for, if it pins one.
    pub fn at(&self) -> Option<&'static str> {
        self.text
            .lines()
            .take_while(|l| l.starts_with('#'))
            .find_map(|l| l.strip_prefix("# at:"))
            .map(str::trim)
    }

    /// The Fleet and Policy editor texts.
    pub fn split(&self) -> (String, String) {
        let body: Vec<&str> = self
            .text
            .lines()
            .skip_while(|l| l.starts_with('#'))
            .collect();
        let cut = body.iter().position(|l| l.trim() == POLICY_MARKER);
        let (fleet, policy) = match cut {
            Some(i) => (&body[..i], &body[i + 1..]),
            None => (&body[..0], &body[..]),
        };
        // The fleet part ends with the `---` that keeps the whole file one valid stream.
        let mut fleet = fleet.to_vec();
        while fleet
            .last()
            .is_some_and(|l| l.trim() == "---" || l.trim().is_empty())
        {
            fleet.pop();
        }
        (join(&fleet), join(policy))
    }
}

fn join(lines: &[&str]) -> String {
    let mut s = lines.join("\n");
    s.push('\n');
    s
}
