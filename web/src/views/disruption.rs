//! Disruption view: per NodePool, the disruptions allowed now per reason and the budget that
//! binds each, the budgets and their windows, a stepped chart over the engine's horizon, and
//! the candidates of each disruption method in order with each blocked node's reason.

use super::{when, Shared};
use crate::charts::steps::{Series, StepChart, Window};
use chrono::{DateTime, Utc};
use fleet_policy::disruption::budget::{is_unbounded, PerReason, Reason};
use fleet_policy::disruption::candidates::{Method, MethodCandidates};
use fleet_policy::disruption::report::{BudgetState, NodePoolResult};
use fleet_policy::EvaluateReport;
use yew::prelude::*;

/// Props of [`DisruptionView`].
#[derive(Properties, PartialEq)]
pub struct DisruptionProps {
    /// The report whose `nodePools` are shown.
    pub report: Shared<EvaluateReport>,
    /// The evaluation instant (the chart's left edge).
    pub at: DateTime<Utc>,
}

/// A per-reason count in words ("unbounded" for Karpenter's MaxInt32).
fn count(n: i64) -> String {
    if is_unbounded(n) {
        "unbounded".into()
    } else {
        n.to_string()
    }
}

/// The view.
#[function_component(DisruptionView)]
pub fn disruption_view(p: &DisruptionProps) -> Html {
    if p.report.node_pools.is_empty() {
        return html! { <p class="empty">{ "No NodePool in the input. Put a Karpenter NodePool (and NodeCounts or Nodes) in the editors, or open a budget example from the gallery." }</p> };
    }
    // The chart spans the horizon the engine evaluated (its end is in the report).
    let end = p.report.horizon_end.unwrap_or(p.at);
    html! { <>{ for p.report.node_pools.iter().map(|np| node_pool(np, p.at, end)) }</> }
}

/// Reasons that no budget limits at some point of the horizon (drawn as ∞).
fn unbounded_reasons(np: &NodePoolResult) -> Vec<&'static str> {
    Reason::ALL
        .iter()
        .filter(|r| {
            np.timeline
                .iter()
                .any(|pt| is_unbounded(pt.allowed_disruptions.get(**r)))
        })
        .map(|r| r.as_str())
        .collect()
}

fn node_pool(np: &NodePoolResult, at: DateTime<Utc>, end: DateTime<Utc>) -> Html {
    let name = np.name.as_str();
    let binding = |r: Reason| -> Html {
        let list: Vec<String> = np
            .active_budgets
            .iter()
            .filter(|a| a.binding.contains(&r))
            .map(|a| format!("budget {} ({})", a.index, a.nodes))
            .collect();
        if list.is_empty() {
            html! { <span class="muted">{ "none: no active budget limits it" }</span> }
        } else {
            html! { { list.join(", ") } }
        }
    };
    let series: Vec<Series> = Reason::ALL
        .iter()
        .map(|r| Series {
            name: r.as_str().to_string(),
            steps: np
                .timeline
                .iter()
                .map(|pt| {
                    let v = pt.allowed_disruptions.get(*r);
                    (pt.at, (!is_unbounded(v)).then_some(v))
                })
                .collect(),
        })
        .collect();
    let windows: Vec<Window> = np
        .budgets
        .iter()
        .enumerate()
        .filter(|(_, bu)| bu.schedule.is_some())
        .flat_map(|(row, bu)| {
            let label = format!(
                "budget {} nodes {} {}",
                bu.index,
                bu.nodes,
                bu.schedule.as_deref().unwrap_or_default()
            );
            bu.windows.iter().map(move |w| Window {
                label: label.clone(),
                start: w.start,
                end: w.end,
                row,
            })
        })
        .collect();
    let unbounded = unbounded_reasons(np);
    let all_scheduled = np.budgets.iter().all(|b| b.schedule.is_some());
    let per_reason = |pr: &PerReason, r: Reason| count(pr.get(r));
    html! {
        <section class="nodepool" aria-label={format!("NodePool {name}")} data-nodepool={name.to_string()}>
            <h2>{ format!("NodePool {name}") }</h2>
            <p class="summary">
                { format!("{} nodes counted, {} disrupting (deleting or not Ready)", np.nodes.total, np.nodes.disrupting) }
                if np.default_budgets { { " · budgets absent: the CRD default 10% applies" } }
                if let Some(t) = np.next_change { { format!(" · next change {}", when(t)) } }
            </p>
            if np.fail_closed {
                <p class="fail-closed">{ "A budget has an error: Karpenter allows 0 disruptions for every reason (fail closed)." }</p>
            }
            <div class="table-wrap">
            <table class="allowed">
                <caption>{ "Allowed disruptions now" }</caption>
                <thead><tr><th scope="col">{ "Reason" }</th><th scope="col">{ "Allowed now" }</th><th scope="col">{ "Budget minimum" }</th><th scope="col">{ "Binding budget" }</th></tr></thead>
                <tbody>
                    { for Reason::ALL.iter().map(|r| html! {
                        <tr data-reason={r.as_str()}>
                            <th scope="row">{ r.as_str() }</th>
                            <td class="num allowed-now">{ per_reason(&np.allowed_disruptions, *r) }</td>
                            <td class="num">{ per_reason(&np.raw_allowed_disruptions, *r) }</td>
                            <td class="binding">{ binding(*r) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            </div>
            <div class="table-wrap">
            <table class="budgets">
                <caption>{ "Budgets" }</caption>
                <thead><tr><th scope="col">{ "#" }</th><th scope="col">{ "Nodes" }</th><th scope="col">{ "Schedule" }</th><th scope="col">{ "Duration" }</th>
                    <th scope="col">{ "Reasons" }</th><th scope="col">{ "Now" }</th><th scope="col">{ "Window" }</th></tr></thead>
                <tbody>
                    { for np.budgets.iter().map(|bu| html! {
                        <tr class={if bu.active { "active" } else { "inactive" }}>
                            <td class="num">{ bu.index }</td>
                            <td>{ bu.nodes.clone() }</td>
                            <td><code>{ bu.schedule.clone().unwrap_or_else(|| "always".into()) }</code></td>
                            <td>{ bu.duration.clone().unwrap_or_else(|| "—".into()) }</td>
                            <td>{ bu.reasons.as_ref().map(|r| r.join(", ")).unwrap_or_else(|| "all".into()) }</td>
                            <td>{ if bu.active { format!("active, {}", count(bu.value)) } else { "inactive".into() } }
                                if let Some(e) = &bu.error { <span class="bad">{ format!(" error: {}", e.message()) }</span> }</td>
                            <td>{ window_text(bu) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            </div>
            <figure class="chart-figure">
                <StepChart start={at} end={end} series={series} windows={windows}
                    title={format!("Allowed disruptions of NodePool {name} from the evaluation instant to {}, per reason; shaded: scheduled budget windows", when(end))} />
                <figcaption>
                    { format!("Until {} (UTC). Lines: allowed disruptions per reason; shaded: scheduled budget windows.", when(end)) }
                    if !unbounded.is_empty() {
                        <span class="unbounded-note">
                            { format!(" ∞: no budget limits {} {}", unbounded.join(", "),
                                if all_scheduled { "outside every budget window (every budget is scheduled)" } else { "while no active budget names it" }) }
                        </span>
                    }
                </figcaption>
            </figure>
            { candidates(np) }
            if !np.notes.is_empty() {
                <details class="notes"><summary>{ "Notes and approximations" }</summary>
                    <ul>{ for np.notes.iter().map(|n| html! { <li>{ n.clone() }</li> }) }</ul>
                </details>
            }
        </section>
    }
}

fn window_text(bu: &BudgetState) -> String {
    if bu.schedule.is_none() {
        return "always".into();
    }
    if bu.never_closes {
        return "never closes".into();
    }
    if let Some(u) = bu.active_until {
        return format!("until {}", when(u));
    }
    match (bu.next_open, bu.next_close) {
        (Some(o), Some(c)) => format!("next {} → {}", when(o), when(c)),
        (Some(o), None) => format!("next {}", when(o)),
        _ => "—".into(),
    }
}

/// Why a candidate the method would reach is not disrupted in this pass when no blocker
/// applies: the method's own rule on how many nodes one pass takes.
fn not_taken(m: Method) -> &'static str {
    match m {
        Method::Drift | Method::StaticDrift => {
            "not taken in this pass: drift disrupts one node per pass, an earlier candidate was taken"
        }
        Method::MultiNodeConsolidation => {
            "not taken in this pass: multi-node consolidation considers the first 100 candidates"
        }
        Method::SingleNodeConsolidation => {
            "not taken in this pass: single-node consolidation takes one node per pass, an earlier candidate was taken"
        }
        Method::Emptiness => "not taken in this pass",
    }
}

fn candidates(np: &NodePoolResult) -> Html {
    // With node counts only (NodeCounts, no Nodes/NodeClaims) every method lists nothing:
    // say so once rather than draw a header-only table per method.
    let listed: Vec<&MethodCandidates> = np
        .candidates
        .iter()
        .filter(|m| !m.candidates.is_empty() || !m.excluded.is_empty())
        .collect();
    if listed.is_empty() {
        return html! { <p class="muted no-candidates">{ "No node data (Nodes / NodeClaims) in the input: candidates are not listed." }</p> };
    }
    html! {
        <div class="candidates">
            <h3>{ "Candidates, per method in the controller's order" }</h3>
            { for listed.into_iter().map(|m| html! {
                <div class="table-wrap">
                <table class="candidate-table">
                    <caption>{ format!("{} (reason {}, allowed {})", m.method.as_str(), m.reason.as_str(), count(m.allowed)) }</caption>
                    <thead><tr><th scope="col">{ "Order" }</th><th scope="col">{ "Node" }</th><th scope="col">{ "Disrupted now" }</th><th scope="col">{ "Why not" }</th></tr></thead>
                    <tbody>
                        { for m.candidates.iter().map(|c| html! {
                            <tr class={if c.selected { "selected-node" } else { "blocked" }}>
                                <td class="num">{ c.order }</td>
                                <th scope="row">{ c.node.as_str() }</th>
                                <td>{ if c.selected { "yes" } else { "no" } }</td>
                                <td>{ match (&c.not_selected, c.selected) {
                                    (Some(b), _) => b.message(),
                                    (None, false) => not_taken(m.method).to_string(),
                                    (None, true) => String::new(),
                                } }</td>
                            </tr>
                        }) }
                        { for m.excluded.iter().map(|c| html! {
                            <tr class="excluded">
                                <td class="num">{ "—" }</td>
                                <th scope="row">{ c.node.as_str() }</th>
                                <td>{ "not a candidate" }</td>
                                <td>{ c.blocked.message() }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
                </div>
            }) }
        </div>
    }
}
