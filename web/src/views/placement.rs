//! Placement view: per placement, the ranked clusters with their scores and a bar per
//! preferred term, the filtered clusters with what was observed against what was required,
//! and the `Scheduled` condition. Selecting a cluster highlights, in the editors, the policy
//! term that decided it.

use crate::json::{arr, compact, f, i, opt_s, s};
use serde_json::Value;
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

/// Rows shown before "show all" (keeps typing smooth on very large fleets).
const FIRST_ROWS: usize = 50;

/// Key labels and properties per cluster (the ones the policy mentions).
pub type Facts = BTreeMap<String, Vec<(String, String)>>;

/// Props of [`PlacementView`].
#[derive(Properties, PartialEq)]
pub struct PlacementProps {
    /// `EvaluateReport.placements`.
    pub placements: Rc<Vec<Value>>,
    /// Key labels/properties per cluster.
    pub facts: Rc<Facts>,
    /// Selected (placement, cluster).
    pub selected: Option<(String, String)>,
    /// Select a cluster of a placement.
    pub on_select: Callback<(String, String)>,
}

/// The placement view.
#[function_component(PlacementView)]
pub fn placement_view(props: &PlacementProps) -> Html {
    if props.placements.is_empty() {
        return html! {
            <p class="empty">{ "No ClusterResourcePlacement in the input. Put MemberClusters and a placement in the editors, or open a placement example from the gallery." }</p>
        };
    }
    html! {
        <>
            { for props.placements.iter().map(|p| html! {
                <OnePlacement placement={p.clone()} facts={props.facts.clone()}
                    selected={props.selected.clone()} on_select={props.on_select.clone()} />
            }) }
        </>
    }
}

#[derive(Properties, PartialEq)]
struct OneProps {
    placement: Value,
    facts: Rc<Facts>,
    selected: Option<(String, String)>,
    on_select: Callback<(String, String)>,
}

/// Words for one failed requirement: what was required, what was observed.
pub fn mismatch_text(m: &Value) -> (String, String) {
    let term = i(m, "term")
        .map(|t| format!("term {t}: "))
        .unwrap_or_default();
    match s(m, "type") {
        "property" => (
            format!(
                "{term}{} {} {}",
                s(m, "name"),
                s(m, "operator"),
                s(m, "required")
            ),
            s(m, "observed").to_string(),
        ),
        "propertyMissing" => (
            format!("{term}{} (property)", s(m, "name")),
            "absent".into(),
        ),
        _ => {
            let mm = &m["mismatch"];
            let req = &mm["requirement"];
            let values: Vec<&str> = arr(req, "values")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            let vals = if values.is_empty() {
                String::new()
            } else {
                format!(" [{}]", values.join(", "))
            };
            (
                format!("{term}{} {}{vals}", s(req, "key"), s(req, "operator")),
                opt_s(mm, "observed")
                    .map(|o| format!("{}={o}", s(req, "key")))
                    .unwrap_or_else(|| "absent".into()),
            )
        }
    }
}

fn filter_detail(explanation: &Value) -> Html {
    match s(explanation, "type") {
        "clusterAffinityMismatch" => html! {
            <ul class="mismatches">
                { for arr(explanation, "terms").iter().map(|t| {
                    let (required, observed) = mismatch_text(t);
                    html! { <li><span class="required">{ "required " }<code>{ required }</code></span>
                        <span class="observed">{ " · observed " }<code>{ observed }</code></span></li> }
                }) }
            </ul>
        },
        "taintNotTolerated" => html! {
            <span class="observed">{ "taint " }<code>{ format!("{}={}:{}", s(explanation, "key"), s(explanation, "value"), s(explanation, "effect")) }</code>{ " not tolerated" }</span>
        },
        "topologySpreadViolated" => html! {
            <span class="observed">{ format!("{} domain {} has {} (smallest {}, largest {}), maxSkew {}",
                s(explanation, "topologyKey"), opt_s(explanation, "domain").unwrap_or("(none)"),
                i(explanation, "domainCount").map(|c| c.to_string()).unwrap_or_else(|| "—".into()),
                i(explanation, "smallest").unwrap_or(0), i(explanation, "largest").unwrap_or(0), i(explanation, "maxSkew").unwrap_or(0)) }</span>
        },
        "" => html! {},
        _ => html! { <span class="observed">{ compact(explanation) }</span> },
    }
}

/// The share of a term's weight a cluster got, in percent (from the engine's unrounded score
/// when it interpolated, else from the rounded score).
fn term_share(t: &Value) -> Option<f64> {
    let w = f(t, "weight")?;
    if w == 0.0 {
        return None;
    }
    let score = f(&t["outcome"], "unrounded").or_else(|| f(t, "score"))?;
    Some(score / w * 100.0)
}

fn term_bars(picked: &Value) -> Html {
    let terms = arr(&picked["scoreBreakdown"], "affinity");
    if terms.is_empty() {
        return html! { <span class="muted">{ "—" }</span> };
    }
    html! {
        <ul class="term-bars">
            { for terms.iter().map(|t| {
                let share = term_share(t);
                let width = share.map(|p| p.abs().min(100.0)).unwrap_or(0.0);
                let label = format!("term {}: {} of weight {}{}", i(t, "term").unwrap_or(0), i(t, "score").unwrap_or(0),
                    i(t, "weight").unwrap_or(0), share.map(|p| format!(" ({p:.0}%)")).unwrap_or_default());
                let why = s(&t["outcome"], "type");
                html! {
                    <li title={format!("{label}; {why}")}>
                        <span class="bar" aria-hidden="true"><span class={classes!("fill", (f(t, "weight").unwrap_or(0.0) < 0.0).then_some("negative"))} style={format!("width:{width:.1}%")}></span></span>
                        <span class="bar-label">{ label }</span>
                    </li>
                }
            }) }
        </ul>
    }
}

#[function_component(OnePlacement)]
fn one_placement(props: &OneProps) -> Html {
    let p = &props.placement;
    let name = s(p, "name").to_string();
    let show_all = use_state(|| false);
    let cond = &p["condition"];
    let picked = arr(p, "picked");
    let not_picked = arr(p, "notPicked");
    let filtered = arr(p, "filtered");
    let total = picked.len() + not_picked.len() + filtered.len();
    let limit = if *show_all { usize::MAX } else { FIRST_ROWS };
    let is_selected = |c: &str| {
        props
            .selected
            .as_ref()
            .is_some_and(|(pl, cl)| *pl == name && cl == c)
    };
    let select = |c: &str| {
        let cb = props.on_select.clone();
        let key = (name.clone(), c.to_string());
        Callback::from(move |_| cb.emit(key.clone()))
    };
    let facts = |c: &str| -> Html {
        match props.facts.get(c) {
            Some(list) if !list.is_empty() => html! {
                <ul class="facts">{ for list.iter().map(|(k, v)| html! { <li><code>{ format!("{k}={v}") }</code></li> }) }</ul>
            },
            _ => html! { <span class="muted">{ "—" }</span> },
        }
    };
    let scored = picked
        .iter()
        .map(|c| (c, true))
        .chain(not_picked.iter().map(|c| (c, false)));
    let rows = scored.enumerate().map(|(rank, (c, is_picked))| {
        let cl = s(c, "cluster");
        html! {
            <tr class={classes!(if is_picked { "picked" } else { "not-picked" }, is_selected(cl).then_some("selected"))} key={cl.to_string()}>
                <td class="num">{ rank + 1 }</td>
                <th scope="row"><button type="button" class="cluster" onclick={select(cl)} aria-pressed={is_selected(cl).to_string()}>{ cl }</button></th>
                <td class="result">{ if is_picked { "picked" } else { "not picked" } }</td>
                <td class="num affinity">{ i(c, "affinityScore").unwrap_or(0) }</td>
                <td class="num spread">{ i(c, "topologySpreadScore").unwrap_or(0) }</td>
                <td>{ term_bars(c) }</td>
                <td>{ facts(cl) }</td>
            </tr>
        }
    });
    let frows = filtered.iter().map(|c| {
        let cl = s(c, "cluster");
        html! {
            <tr class={classes!("filtered", is_selected(cl).then_some("selected"))} key={cl.to_string()}>
                <td class="num">{ "—" }</td>
                <th scope="row"><button type="button" class="cluster" onclick={select(cl)} aria-pressed={is_selected(cl).to_string()}>{ cl }</button></th>
                <td class="result">{ "filtered" }<span class="plugin">{ s(c, "plugin") }</span></td>
                <td colspan="3" class="reason"><span class="reason-text">{ s(c, "reason") }</span>{ filter_detail(&c["explanation"]) }</td>
                <td>{ facts(cl) }</td>
            </tr>
        }
    });
    let rows: Vec<Html> = rows.chain(frows).take(limit).collect();
    let kept = arr(p, "kept");
    let unscheduled = arr(p, "unscheduled");
    html! {
        <section class="placement" aria-label={format!("Placement {name}")} data-placement={name.clone()}>
            <h2>
                { format!("{} {name}", if s(p, "kind").is_empty() { "Placement" } else { s(p, "kind") }) }
                if !s(p, "placementType").is_empty() { <span class="badge">{ s(p, "placementType") }</span> }
                if s(p, "validation") == "rejected" { <span class="badge bad">{ "rejected by the API server" }</span> }
            </h2>
            <p class={classes!("condition", match s(cond, "status") { "True" => "ok", "False" => "unfulfilled", _ => "unknown" })}>
                <strong>{ format!("Scheduled={} ", s(cond, "status")) }</strong>
                <span class="cond-reason">{ s(cond, "reason") }</span>{ ": " }
                <span class="cond-message">{ s(cond, "message") }</span>
            </p>
            if let Some(e) = p.get("cycleError").filter(|e| !e.is_null()) {
                <p class="cycle-error">{ format!("The scheduling cycle aborts: {}", s(e, "message")) }</p>
            }
            <p class="summary">{ format!("{} picked, {} scored but not picked, {} filtered{}", picked.len(), not_picked.len(), filtered.len(),
                if i(p, "cycles").unwrap_or(0) > 1 { format!(", {} scheduling cycles", i(p, "cycles").unwrap_or(0)) } else { String::new() }) }</p>
            <div class="table-wrap">
            <table class="clusters">
                <caption class="visually-hidden">{ format!("Clusters for placement {name}, picked first in rank order") }</caption>
                <thead><tr>
                    <th scope="col">{ "Rank" }</th><th scope="col">{ "Cluster" }</th><th scope="col">{ "Result" }</th>
                    <th scope="col" title="affinity score">{ "Affinity" }</th><th scope="col" title="topology spread score">{ "Spread" }</th>
                    <th scope="col">{ "Preferred terms" }</th><th scope="col">{ "Key labels / properties" }</th>
                </tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
            </div>
            if total > FIRST_ROWS && !*show_all {
                <button type="button" class="show-all" onclick={ let s = show_all.clone(); Callback::from(move |_| s.set(true)) }>
                    { format!("Show all {total} clusters") }
                </button>
            }
            if !arr(p, "decisions").is_empty() {
                <details class="decisions"><summary>{ format!("status.clusterDecisions ({})", arr(p, "decisions").len()) }</summary>
                    <div class="table-wrap"><table>
                        <thead><tr><th scope="col">{ "Cluster" }</th><th scope="col">{ "Selected" }</th><th scope="col">{ "Reason" }</th></tr></thead>
                        <tbody>{ for arr(p, "decisions").iter().take(limit).map(|d| html! {
                            <tr><th scope="row">{ s(d, "clusterName") }</th><td>{ d.get("selected").and_then(Value::as_bool).unwrap_or(false).to_string() }</td><td>{ s(d, "reason") }</td></tr>
                        }) }</tbody>
                    </table></div>
                </details>
            }
            if !kept.is_empty() || !unscheduled.is_empty() {
                <p class="bindings">{ format!("Existing bindings kept: {}; unscheduled: {}",
                    names(kept), names(unscheduled)) }</p>
            }
        </section>
    }
}

fn names(v: &[Value]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    v.iter().map(compact).collect::<Vec<_>>().join(", ")
}
