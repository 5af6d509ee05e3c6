//! What changed in the decisions between two evaluations of the same kind of input: clusters
//! picked or dropped per placement (with the new report's reason), allowed disruptions that
//! differ anywhere on the budget timeline, rollout order, end and states.
//!
//! Shared by `fleet-policy diff` and the playground's compare view: both render the typed
//! [`Change`]s, in words from [`Change::text`] (the one place they are written).
//! It compares engine results only; it never re-derives a decision.

use crate::disruption::report::NodePoolResult;
use crate::placement::PlacementResult;
use crate::report::EvaluateReport;
use crate::rollout::plan::{Rollout, State};
use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

/// What a change is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "camelCase")]
pub enum Subject {
    /// A placement (CRP or RP), by name.
    Placement(String),
    /// A NodePool, by name.
    NodePool(String),
    /// A rollout, by name.
    Rollout(String),
    /// The input as a whole.
    Input,
}

/// One change, as data.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "change",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum What {
    /// Present only in the new input.
    Added,
    /// Present only in the old input.
    Removed,
    /// Newly picked, with the new report's reason.
    Picked {
        /// Cluster.
        cluster: String,
        /// Why, from the new report's decision.
        reason: String,
    },
    /// No longer picked, with the new report's reason.
    Dropped {
        /// Cluster.
        cluster: String,
        /// Why (filter, score, or absent from the new input).
        reason: String,
    },
    /// The number of picked clusters.
    PickedCount {
        /// Old count.
        before: usize,
        /// New count.
        after: usize,
    },
    /// Newly filtered out.
    Filtered {
        /// Cluster.
        cluster: String,
        /// Filter plugin.
        plugin: String,
        /// Why.
        reason: String,
    },
    /// No longer filtered out.
    Unfiltered {
        /// Cluster.
        cluster: String,
    },
    /// A score of a cluster scored in both.
    Score {
        /// Cluster.
        cluster: String,
        /// `affinityScore` or `topologySpreadScore`.
        score: &'static str,
        /// Old score.
        before: i32,
        /// New score.
        after: i32,
    },
    /// The Scheduled condition's message.
    Condition {
        /// Old message.
        before: String,
        /// New message.
        after: String,
    },
    /// Allowed disruptions differ over `[from, until)` (`until` absent: to the horizon end).
    Allowed {
        /// Disruption reasons with this change (`Drifted`, `Empty`, `Underutilized`).
        reasons: Vec<&'static str>,
        /// Start of the interval.
        from: DateTime<Utc>,
        /// End of the interval.
        until: Option<DateTime<Utc>>,
        /// Old allowed disruptions.
        before: i64,
        /// New allowed disruptions.
        after: i64,
    },
    /// Run state.
    State {
        /// Old state.
        before: State,
        /// New state.
        after: State,
    },
    /// Run end.
    End {
        /// Old end.
        before: Option<DateTime<Utc>>,
        /// New end.
        after: Option<DateTime<Utc>>,
    },
    /// Members in start order.
    Order {
        /// Old order.
        before: Vec<String>,
        /// New order.
        after: Vec<String>,
    },
    /// A member's state.
    MemberState {
        /// Cluster.
        cluster: String,
        /// Old state.
        before: State,
        /// New state.
        after: State,
    },
    /// The number of input errors.
    Errors {
        /// Old count.
        before: usize,
        /// New count.
        after: usize,
    },
}

/// One change: its subject and what changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// What it is about.
    pub subject: Subject,
    /// What changed.
    #[serde(flatten)]
    pub what: What,
}

fn instant(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn maybe_instant(t: &Option<DateTime<Utc>>) -> String {
    t.as_ref().map_or_else(|| "none".to_string(), instant)
}

impl Subject {
    /// "placement web", "NodePool default", "rollout upgrade", "input".
    pub fn text(&self) -> String {
        match self {
            Subject::Placement(n) => format!("placement {n}"),
            Subject::NodePool(n) => format!("NodePool {n}"),
            Subject::Rollout(n) => format!("rollout {n}"),
            Subject::Input => "input".to_string(),
        }
    }
}

impl What {
    /// The change in words (without its subject).
    pub fn text(&self) -> String {
        match self {
            What::Added => "new".to_string(),
            What::Removed => "removed".to_string(),
            What::Picked { cluster, reason } => format!("picked: + {cluster} ({reason})"),
            What::Dropped { cluster, reason } => format!("picked: − {cluster} ({reason})"),
            What::PickedCount { before, after } => format!("picked count: {before} → {after}"),
            What::Filtered {
                cluster,
                plugin,
                reason,
            } => format!("filtered: + {cluster} by {plugin} ({reason})"),
            What::Unfiltered { cluster } => format!("filtered: − {cluster}"),
            What::Score {
                cluster,
                score,
                before,
                after,
            } => format!("{cluster} {score}: {before} → {after}"),
            What::Condition { before, after } => format!("Scheduled: {before} → {after}"),
            What::Allowed {
                reasons,
                from,
                until,
                before,
                after,
            } => {
                let until = until
                    .as_ref()
                    .map_or_else(|| "the horizon end".to_string(), instant);
                format!(
                    "allowed {}: {before} → {after} from {} until {until}",
                    reasons.join(", "),
                    instant(from)
                )
            }
            What::State { before, after } => format!("state: {before:?} → {after:?}"),
            What::End { before, after } => {
                format!("end: {} → {}", maybe_instant(before), maybe_instant(after))
            }
            What::Order { before, after } => {
                format!("order: {} → {}", list(before), list(after))
            }
            What::MemberState {
                cluster,
                before,
                after,
            } => format!("{cluster}: {before:?} → {after:?}"),
            What::Errors { before, after } => format!("errors: {before} → {after}"),
        }
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "(none)".to_string()
    } else {
        items.join(", ")
    }
}

/// The changes from `old` to `new`, per placement, NodePool and rollout in the order they
/// first appear (old first), then the input's error count.
pub fn diff(old: &EvaluateReport, new: &EvaluateReport) -> Vec<Change> {
    let mut out = Vec::new();
    pair_up(
        &old.placements,
        &new.placements,
        |p| &p.name,
        |subject, o, n| placement(subject, o, n, &mut out),
    );
    let horizon_end = new.horizon_end.or(old.horizon_end);
    pair_up(
        &old.node_pools,
        &new.node_pools,
        |p| &p.name,
        |subject, o, n| node_pool(subject, o, n, horizon_end, &mut out),
    );
    pair_up(
        &old.rollouts,
        &new.rollouts,
        |r| &r.name,
        |subject, o, n| rollout(subject, o, n, &mut out),
    );
    if old.errors.len() != new.errors.len() {
        out.push(Change {
            subject: Subject::Input,
            what: What::Errors {
                before: old.errors.len(),
                after: new.errors.len(),
            },
        });
    }
    out
}

/// Calls `f` with each name of `old` then the new names, and the item of each side.
fn pair_up<'a, T>(
    old: &'a [T],
    new: &'a [T],
    name: impl Fn(&T) -> &String,
    mut f: impl FnMut(&str, Option<&'a T>, Option<&'a T>),
) {
    let mut names: Vec<&String> = old.iter().map(&name).collect();
    for n in new.iter().map(&name) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    for n in names {
        let o = old.iter().find(|x| name(x) == n);
        let a = new.iter().find(|x| name(x) == n);
        f(n, o, a);
    }
}

/// Added/Removed for a subject on one side only; `None` when it is on both.
fn presence<'a, T>(
    subject: &Subject,
    old: Option<&'a T>,
    new: Option<&'a T>,
    out: &mut Vec<Change>,
) -> Option<(&'a T, &'a T)> {
    let what = match (old, new) {
        (Some(o), Some(n)) => return Some((o, n)),
        (None, Some(_)) => What::Added,
        (Some(_), None) => What::Removed,
        (None, None) => return None,
    };
    out.push(Change {
        subject: subject.clone(),
        what,
    });
    None
}

/// The clusters a placement selects: those picked in this cycle, then those whose existing
/// bindings stay (a scheduler keeps them without picking them again).
pub fn selected(p: &PlacementResult) -> Vec<&str> {
    let mut out: Vec<&str> = p.picked.iter().map(|x| &*x.cluster).collect();
    for k in &p.kept {
        if !out.contains(&k.as_str()) {
            out.push(k);
        }
    }
    out
}

/// Why `cluster` has its place in a placement result: its filter, else its decision.
pub(crate) fn reason_in(p: &PlacementResult, cluster: &str) -> String {
    if let Some(f) = p.filtered.iter().find(|f| &*f.cluster == cluster) {
        return format!("{}: {}", f.plugin, &*f.reason);
    }
    if let Some(d) = p.decisions.iter().find(|d| &*d.cluster_name == cluster) {
        return d.reason.to_string();
    }
    "not in the input".to_string()
}

fn placement(
    name: &str,
    old: Option<&PlacementResult>,
    new: Option<&PlacementResult>,
    out: &mut Vec<Change>,
) {
    let subject = Subject::Placement(name.to_string());
    let Some((o, n)) = presence(&subject, old, new, out) else {
        return;
    };
    let mut push = |what| {
        out.push(Change {
            subject: subject.clone(),
            what,
        })
    };
    let (before, after) = (selected(o), selected(n));
    for c in after.iter().filter(|c| !before.contains(c)) {
        push(What::Picked {
            cluster: c.to_string(),
            reason: reason_in(n, c),
        });
    }
    for c in before.iter().filter(|c| !after.contains(c)) {
        push(What::Dropped {
            cluster: c.to_string(),
            reason: reason_in(n, c),
        });
    }
    if before.len() != after.len() {
        push(What::PickedCount {
            before: before.len(),
            after: after.len(),
        });
    }
    for f in &n.filtered {
        if !o.filtered.iter().any(|x| x.cluster == f.cluster) {
            push(What::Filtered {
                cluster: f.cluster.to_string(),
                plugin: f.plugin.to_string(),
                reason: f.reason.to_string(),
            });
        }
    }
    for f in &o.filtered {
        if !n.filtered.iter().any(|x| x.cluster == f.cluster) {
            push(What::Unfiltered {
                cluster: f.cluster.to_string(),
            });
        }
    }
    for c in n.picked.iter().chain(&n.not_picked) {
        let Some(b) = o
            .picked
            .iter()
            .chain(&o.not_picked)
            .find(|b| b.cluster == c.cluster)
        else {
            continue;
        };
        for (score, before, after) in [
            ("affinityScore", b.affinity_score, c.affinity_score),
            (
                "topologySpreadScore",
                b.topology_spread_score,
                c.topology_spread_score,
            ),
        ] {
            if before != after {
                push(What::Score {
                    cluster: c.cluster.to_string(),
                    score,
                    before,
                    after,
                });
            }
        }
    }
    if o.condition.message != n.condition.message {
        push(What::Condition {
            before: o.condition.message.clone(),
            after: n.condition.message.clone(),
        });
    }
}

/// A reason (index into [`REASONS`]) whose allowed disruptions go from `.3` to `.4` over
/// `[.1, .2)`.
type Run = (usize, DateTime<Utc>, Option<DateTime<Utc>>, i64, i64);

const REASONS: [&str; 3] = ["Drifted", "Empty", "Underutilized"];

/// Allowed disruptions per reason at `t` on a timeline (the last point at or before `t`).
fn allowed_at(p: &NodePoolResult, t: DateTime<Utc>) -> [i64; 3] {
    let a = p
        .timeline
        .iter()
        .take_while(|pt| pt.at <= t)
        .last()
        .map_or(&p.allowed_disruptions, |pt| &pt.allowed_disruptions);
    [a.drifted, a.empty, a.underutilized]
}

fn node_pool(
    name: &str,
    old: Option<&NodePoolResult>,
    new: Option<&NodePoolResult>,
    horizon_end: Option<DateTime<Utc>>,
    out: &mut Vec<Change>,
) {
    let subject = Subject::NodePool(name.to_string());
    let Some((o, n)) = presence(&subject, old, new, out) else {
        return;
    };
    // Both timelines are step functions from the same instant: compare them on every
    // interval between the breakpoints of either.
    let mut cuts: Vec<DateTime<Utc>> = o.timeline.iter().chain(&n.timeline).map(|p| p.at).collect();
    cuts.sort_unstable();
    cuts.dedup();
    if cuts.is_empty() {
        return;
    }
    // Per reason: runs of (from, until, before, after) where the two differ, merged while
    // the pair stays the same.
    let mut runs: Vec<Run> = Vec::new();
    for (i, &from) in cuts.iter().enumerate() {
        let until = cuts.get(i + 1).copied().or(horizon_end);
        let (b, a) = (allowed_at(o, from), allowed_at(n, from));
        for r in 0..REASONS.len() {
            if b[r] == a[r] {
                continue;
            }
            match runs
                .iter_mut()
                .rev()
                .find(|run| run.0 == r)
                .filter(|run| run.2 == Some(from) && run.3 == b[r] && run.4 == a[r])
            {
                Some(run) => run.2 = until,
                None => runs.push((r, from, until, b[r], a[r])),
            }
        }
    }
    // Reasons changing the same way on the same interval read as one change.
    let mut changes: Vec<What> = Vec::new();
    for (r, from, until, before, after) in runs {
        let same = changes.iter_mut().find(|w| {
            matches!(w, What::Allowed { from: f, until: u, before: b, after: a, .. }
                if *f == from && *u == until && *b == before && *a == after)
        });
        match same {
            Some(What::Allowed { reasons, .. }) => reasons.push(REASONS[r]),
            _ => changes.push(What::Allowed {
                reasons: vec![REASONS[r]],
                from,
                until,
                before,
                after,
            }),
        }
    }
    changes.sort_by_key(|w| match w {
        What::Allowed { from, .. } => Some(*from),
        _ => None,
    });
    out.extend(changes.into_iter().map(|what| Change {
        subject: subject.clone(),
        what,
    }));
}

/// Members that started, in start order (ties in plan order).
pub fn start_order(r: &Rollout) -> Vec<String> {
    let mut ms: Vec<(DateTime<Utc>, &str)> = r
        .stages
        .iter()
        .flat_map(|s| &s.groups)
        .flat_map(|g| &g.members)
        .filter_map(|m| Some((m.start?, &*m.cluster)))
        .collect();
    ms.sort_by_key(|(t, _)| *t);
    ms.into_iter().map(|(_, c)| c.to_string()).collect()
}

fn rollout(name: &str, old: Option<&Rollout>, new: Option<&Rollout>, out: &mut Vec<Change>) {
    let subject = Subject::Rollout(name.to_string());
    let Some((o, n)) = presence(&subject, old, new, out) else {
        return;
    };
    let mut push = |what| {
        out.push(Change {
            subject: subject.clone(),
            what,
        })
    };
    if o.state != n.state {
        push(What::State {
            before: o.state,
            after: n.state,
        });
    }
    if o.end != n.end {
        push(What::End {
            before: o.end,
            after: n.end,
        });
    }
    let (before, after) = (start_order(o), start_order(n));
    if before != after {
        push(What::Order { before, after });
    }
    let members = |r: &'_ Rollout| -> Vec<(String, State)> {
        r.stages
            .iter()
            .flat_map(|s| &s.groups)
            .flat_map(|g| &g.members)
            .map(|m| (m.cluster.to_string(), m.state))
            .collect()
    };
    let old_members = members(o);
    for (cluster, after) in members(n) {
        if let Some((_, before)) = old_members.iter().find(|(c, _)| *c == cluster) {
            if *before != after {
                push(What::MemberState {
                    cluster,
                    before: *before,
                    after,
                });
            }
        }
    }
}

/// The changes as a two-column text table (`fleet-policy diff`'s default output).
pub fn render_table(changes: &[Change]) -> String {
    if changes.is_empty() {
        return "no change in the decisions\n".to_string();
    }
    let rows: Vec<(String, String)> = changes
        .iter()
        .map(|c| {
            (
                crate::text::escape_controls(&c.subject.text()).into_owned(),
                crate::text::escape_controls(&c.what.text()).into_owned(),
            )
        })
        .collect();
    let width = rows
        .iter()
        .map(|(s, _)| s.chars().count())
        .chain(["SUBJECT".len()])
        .max()
        .unwrap_or(0);
    let mut out = format!("{:width$}  CHANGE\n", "SUBJECT");
    for (s, w) in rows {
        out.push_str(&format!("{s:width$}  {w}\n"));
    }
    out.push_str(&summary(changes));
    out
}

/// "3 change(s): 1 placement, 2 NodePools" (subjects counted once).
fn summary(changes: &[Change]) -> String {
    let mut subjects: Vec<&Subject> = Vec::new();
    for c in changes {
        if !subjects.contains(&&c.subject) {
            subjects.push(&c.subject);
        }
    }
    format!(
        "{} change(s) in {} subject(s)\n",
        changes.len(),
        subjects.len()
    )
}

/// A Markdown table cell: pipes escaped, lines joined, other control characters escaped.
fn cell(text: &str) -> String {
    let joined = text
        .replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ");
    crate::text::escape_controls(&joined).into_owned()
}

/// The changes as Markdown for a pull-request comment.
pub fn render_markdown(changes: &[Change]) -> String {
    if changes.is_empty() {
        return "### fleet-policy diff: no change in the decisions\n".to_string();
    }
    let mut out = String::from(
        "### fleet-policy diff: decisions changed\n\n| Subject | Change |\n|---|---|\n",
    );
    for c in changes {
        out.push_str(&format!(
            "| {} | {} |\n",
            cell(&c.subject.text()),
            cell(&c.what.text())
        ));
    }
    out.push('\n');
    out.push_str(&summary(changes));
    out
}

/// The changes as JSON: `{"changed": bool, "changes": [...]}`.
pub fn render_json(changes: &[Change]) -> String {
    #[derive(Serialize)]
    struct Out<'a> {
        changed: bool,
        changes: &'a [Change],
    }
    crate::report::to_json(&Out {
        changed: !changes.is_empty(),
        changes,
    }) + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_cells_escape_pipes_and_newlines() {
        assert_eq!(cell("a|b\nc\\"), "a\\|b c\\\\");
    }
}
