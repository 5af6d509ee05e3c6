//! Disruption view: per NodePool, the disruptions allowed now per reason and the budget that
//! binds each, the budgets and their windows, a 7-day stepped chart, and the candidates of
//! each disruption method in order with each blocked node's reason.

use super::when;
use crate::charts::steps::{Series, StepChart, Window};
use crate::json::{arr, b, compact, count, i, opt_s, s, time};
use chrono::{DateTime, Duration, Utc};
use serde_json::Value;
use std::rc::Rc;
use yew::prelude::*;

/// Reasons in the order Karpenter's results list them.
pub const REASONS: [&str; 3] = ["Drifted", "Empty", "Underutilized"];

/// Props of [`DisruptionView`].
#[derive(Properties, PartialEq)]
pub struct DisruptionProps {
    /// `EvaluateReport.nodePools`.
    pub node_pools: Rc<Vec<Value>>,
    /// The evaluation instant (the chart's left edge).
    pub at: DateTime<Utc>,
}

fn per_reason(v: &Value, r: &str) -> Option<i64> {
    v.get(r).and_then(Value::as_i64)
}

fn unlimited(n: i64) -> Option<i64> {
    (n < 2_147_483_000).then_some(n)
}

/// The view.
#[function_component(DisruptionView)]
pub fn disruption_view(p: &DisruptionProps) -> Html {
    if p.node_pools.is_empty() {
        return html! { <p class="empty">{ "No NodePool in the input. Put a Karpenter NodePool (and NodeCounts or Nodes) in the editors, or open a budget example from the gallery." }</p> };
    }
    html! { <>{ for p.node_pools.iter().map(|np| node_pool(np, p.at)) }</> }
}

fn node_pool(np: &Value, at: DateTime<Utc>) -> Html {
    let name = s(np, "name");
    let nodes = &np["nodes"];
    let allowed = &np["allowedDisruptions"];
    let raw = &np["rawAllowedDisruptions"];
    let active = arr(np, "activeBudgets");
    let binding = |r: &str| -> Html {
        let list: Vec<String> = active
            .iter()
            .filter(|a| arr(a, "binding").iter().any(|x| x.as_str() == Some(r)))
            .map(|a| format!("budget {} ({})", i(a, "index").unwrap_or(0), s(a, "nodes")))
            .collect();
        if list.is_empty() {
            html! { <span class="muted">{ "none: no active budget limits it" }</span> }
        } else {
            html! { { list.join(", ") } }
        }
    };
    let end = at + Duration::hours(168);
    let series: Vec<Series> = REASONS
        .iter()
        .map(|r| Series {
            name: r.to_string(),
            steps: arr(np, "timeline")
                .iter()
                .filter_map(|pt| {
                    Some((
                        time(pt, "at")?,
                        per_reason(&pt["allowedDisruptions"], r).and_then(unlimited),
                    ))
                })
                .collect(),
        })
        .collect();
    let windows: Vec<Window> = arr(np, "budgets")
        .iter()
        .enumerate()
        .flat_map(|(row, bu)| {
            let label = format!(
                "budget {} nodes {} {}",
                i(bu, "index").unwrap_or(row as i64),
                s(bu, "nodes"),
                s(bu, "schedule")
            );
            arr(bu, "windows")
                .iter()
                .filter(|_| opt_s(bu, "schedule").is_some())
                .filter_map(move |w| {
                    Some(Window {
                        label: label.clone(),
                        start: time(w, "start")?,
                        end: time(w, "end"),
                        row,
                    })
                })
                .collect::<Vec<_>>()
        })
        .collect();
    html! {
        <section class="nodepool" aria-label={format!("NodePool {name}")} data-nodepool={name.to_string()}>
            <h2>{ format!("NodePool {name}") }</h2>
            <p class="summary">
                { format!("{} nodes counted, {} disrupting (deleting or not Ready)", i(nodes, "total").unwrap_or(0), i(nodes, "disrupting").unwrap_or(0)) }
                if b(np, "defaultBudgets") { { " · budgets absent: the CRD default 10% applies" } }
                if let Some(t) = opt_s(np, "nextChange") { { format!(" · next change {}", when(t)) } }
            </p>
            if b(np, "failClosed") {
                <p class="fail-closed">{ "A budget has an error: Karpenter allows 0 disruptions for every reason (fail closed)." }</p>
            }
            <div class="table-wrap">
            <table class="allowed">
                <caption>{ "Allowed disruptions now" }</caption>
                <thead><tr><th scope="col">{ "Reason" }</th><th scope="col">{ "Allowed now" }</th><th scope="col">{ "Budget minimum" }</th><th scope="col">{ "Binding budget" }</th></tr></thead>
                <tbody>
                    { for REASONS.iter().map(|r| html! {
                        <tr data-reason={r.to_string()}>
                            <th scope="row">{ *r }</th>
                            <td class="num allowed-now">{ per_reason(allowed, r).map(count).unwrap_or_else(|| "—".into()) }</td>
                            <td class="num">{ per_reason(raw, r).map(count).unwrap_or_else(|| "—".into()) }</td>
                            <td class="binding">{ binding(r) }</td>
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
                    { for arr(np, "budgets").iter().map(|bu| html! {
                        <tr class={if b(bu, "active") { "active" } else { "inactive" }}>
                            <td class="num">{ i(bu, "index").unwrap_or(0) }</td>
                            <td>{ s(bu, "nodes") }</td>
                            <td><code>{ opt_s(bu, "schedule").unwrap_or("always") }</code></td>
                            <td>{ opt_s(bu, "duration").unwrap_or("—") }</td>
                            <td>{ bu.get("reasons").filter(|r| !r.is_null()).map(compact).unwrap_or_else(|| "all".into()) }</td>
                            <td>{ if b(bu, "active") { format!("active, {}", count(i(bu, "value").unwrap_or(0))) } else { "inactive".into() } }
                                if let Some(e) = bu.get("error").filter(|e| !e.is_null()) { <span class="bad">{ format!(" error: {}", compact(e)) }</span> }</td>
                            <td>{ window_text(bu) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            </div>
            <figure class="chart-figure">
                <StepChart start={at} end={end} series={series} windows={windows}
                    title={format!("Allowed disruptions of NodePool {name} over the next 7 days, per reason; shaded: scheduled budget windows")} />
                <figcaption>{ "Next 7 days (UTC). Lines: allowed disruptions per reason; shaded: scheduled budget windows; ∞: no budget limits." }</figcaption>
            </figure>
            { candidates(np) }
            if !arr(np, "notes").is_empty() {
                <details class="notes"><summary>{ "Notes and approximations" }</summary>
                    <ul>{ for arr(np, "notes").iter().map(|n| html! { <li>{ compact(n) }</li> }) }</ul>
                </details>
            }
        </section>
    }
}

fn window_text(bu: &Value) -> String {
    if opt_s(bu, "schedule").is_none() {
        return "always".into();
    }
    if b(bu, "neverCloses") {
        return "never closes".into();
    }
    if let Some(u) = opt_s(bu, "activeUntil") {
        return format!("until {}", when(u));
    }
    match (opt_s(bu, "nextOpen"), opt_s(bu, "nextClose")) {
        (Some(o), Some(c)) => format!("next {} → {}", when(o), when(c)),
        (Some(o), None) => format!("next {}", when(o)),
        _ => "—".into(),
    }
}

fn candidates(np: &Value) -> Html {
    let methods = arr(np, "candidates");
    if methods.is_empty() {
        return html! { <p class="muted">{ "No node data (Nodes / NodeClaims) in the input: candidates are not listed." }</p> };
    }
    html! {
        <div class="candidates">
            <h3>{ "Candidates, per method in the controller's order" }</h3>
            { for methods.iter().map(|m| html! {
                <div class="table-wrap">
                <table class="candidate-table">
                    <caption>{ format!("{} (reason {}, allowed {})", compact(&m["method"]), compact(&m["reason"]), count(i(m, "allowed").unwrap_or(0))) }</caption>
                    <thead><tr><th scope="col">{ "Order" }</th><th scope="col">{ "Node" }</th><th scope="col">{ "Disrupted now" }</th><th scope="col">{ "Why not" }</th></tr></thead>
                    <tbody>
                        { for arr(m, "candidates").iter().map(|c| html! {
                            <tr class={if b(c, "selected") { "selected-node" } else { "blocked" }}>
                                <td class="num">{ i(c, "order").unwrap_or(0) }</td>
                                <th scope="row">{ s(c, "node") }</th>
                                <td>{ if b(c, "selected") { "yes" } else { "no" } }</td>
                                <td>{ c.get("notSelected").filter(|v| !v.is_null()).map(compact).unwrap_or_default() }</td>
                            </tr>
                        }) }
                        { for arr(m, "excluded").iter().map(|c| html! {
                            <tr class="excluded">
                                <td class="num">{ "—" }</td>
                                <th scope="row">{ s(c, "node") }</th>
                                <td>{ "not a candidate" }</td>
                                <td>{ compact(&c["blocked"]) }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
                </div>
            }) }
        </div>
    }
}
