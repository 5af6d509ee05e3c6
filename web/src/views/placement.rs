//! Placement view: per placement, the ranked clusters with their scores and a bar per
//! preferred term, the filtered clusters with what was observed against what was required,
//! and the `Scheduled` condition. Selecting a cluster highlights, in the editors, the policy
//! term that decided it.

use super::Shared;
use fleet_policy::placement::report::{
    FilterReason, Filtered, Picked, PlacementResult, TermMismatch, TermOutcome, TermScore,
};
use fleet_policy::sorted_map::SortedMap;
use fleet_policy::EvaluateReport;
use std::rc::Rc;
use yew::prelude::*;

/// Rows shown before "show all" (keeps typing smooth on very large fleets).
const FIRST_ROWS: usize = 50;

/// Key labels and properties per cluster (the ones the policy mentions).
pub type Facts = SortedMap<Rc<str>, Rc<[(String, String)]>>;

/// Props of [`PlacementView`].
#[derive(Properties, PartialEq)]
pub struct PlacementProps {
    /// The report whose `placements` are shown.
    pub report: Shared<EvaluateReport>,
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
    if props.report.placements.is_empty() {
        return html! {
            <p class="empty">{ "No ClusterResourcePlacement in the input. Put MemberClusters and a placement in the editors, or open a placement example from the gallery." }</p>
        };
    }
    html! {
        <>
            { for (0..props.report.placements.len()).map(|index| html! {
                <OnePlacement report={props.report.clone()} {index} facts={props.facts.clone()}
                    selected={props.selected.clone()} on_select={props.on_select.clone()} />
            }) }
        </>
    }
}

#[derive(Properties, PartialEq)]
struct OneProps {
    report: Shared<EvaluateReport>,
    /// Which of the report's placements.
    index: usize,
    facts: Rc<Facts>,
    selected: Option<(String, String)>,
    on_select: Callback<(String, String)>,
}

/// Words for one failed requirement: what was required, what was observed.
pub fn mismatch_text(m: &TermMismatch) -> (String, String) {
    match m {
        TermMismatch::Property {
            term,
            name,
            operator,
            required,
            observed,
            ..
        } => (
            format!("term {term}: {name} {operator} {required}"),
            observed.clone(),
        ),
        TermMismatch::PropertyMissing { term, name, .. } => {
            (format!("term {term}: {name} (property)"), "absent".into())
        }
        TermMismatch::Label { term, mismatch } => {
            let req = &mismatch.requirement;
            let vals = if req.values.is_empty() {
                String::new()
            } else {
                format!(" [{}]", req.values.join(", "))
            };
            (
                format!("term {term}: {} {}{vals}", req.key, req.operator),
                mismatch
                    .observed
                    .as_ref()
                    .map(|o| format!("{}={o}", req.key))
                    .unwrap_or_else(|| "absent".into()),
            )
        }
    }
}

fn filter_detail(explanation: &FilterReason) -> Html {
    match explanation {
        FilterReason::ClusterAffinityMismatch { terms } => html! {
            <ul class="mismatches">
                { for terms.iter().map(|t| {
                    let (required, observed) = mismatch_text(t);
                    html! { <li><span class="required">{ "required " }<code>{ required }</code></span>
                        <span class="observed">{ " · observed " }<code>{ observed }</code></span></li> }
                }) }
            </ul>
        },
        FilterReason::TaintNotTolerated {
            key, value, effect, ..
        } => html! {
            <span class="observed">{ "taint " }<code>{ format!("{key}={value}:{effect}") }</code>{ " not tolerated" }</span>
        },
        FilterReason::TopologySpreadViolated {
            constraint,
            topology_key,
            max_skew,
            domain,
            domain_count,
            smallest,
            largest,
        } => html! {
            <span class="observed topology">{ format!(
                "constraint {constraint}: {topology_key}={} has {} placement(s), domains range {smallest}..{largest}; one more here exceeds maxSkew {max_skew}",
                domain.as_deref().unwrap_or("(no such label)"),
                domain_count.unwrap_or(0)) }</span>
        },
        FilterReason::Ineligible { reason } => html! {
            <span class="observed">{ reason.message() }</span>
        },
    }
}

/// The share of a term's weight a cluster got, in percent (from the engine's unrounded score
/// when it interpolated, else from the rounded score).
fn term_share(t: &TermScore) -> Option<f64> {
    if t.weight == 0 {
        return None;
    }
    let score = match t.outcome {
        TermOutcome::Interpolated { unrounded, .. } => unrounded,
        _ => f64::from(t.score),
    };
    Some(score / f64::from(t.weight) * 100.0)
}

fn outcome_text(o: &TermOutcome) -> String {
    match o {
        TermOutcome::ZeroWeight => "weight 0: skipped".into(),
        TermOutcome::LabelMismatch => "label selector does not match".into(),
        TermOutcome::FullWeight => "matches: full weight".into(),
        TermOutcome::PropertyMissing => "sorter property missing".into(),
        TermOutcome::SingleValue { observed } => {
            format!("one value in the fleet ({observed}): 0")
        }
        TermOutcome::Interpolated {
            observed, min, max, ..
        } => format!("{observed} between the fleet's {min} and {max}"),
        TermOutcome::Error => "scoring failed".into(),
    }
}

fn term_bars(picked: &Picked) -> Html {
    let terms = picked
        .score_breakdown
        .as_ref()
        .map_or(&[][..], |b| b.affinity.as_slice());
    if terms.is_empty() {
        return html! { <span class="muted">{ "—" }</span> };
    }
    html! {
        <ul class="term-bars">
            { for terms.iter().map(|t| {
                let share = term_share(t);
                let width = share.map(|p| p.abs().min(100.0)).unwrap_or(0.0);
                let label = format!("term {}: {} of weight {}{}", t.term, t.score,
                    t.weight, share.map(|p| format!(" ({p:.0}%)")).unwrap_or_default());
                html! {
                    <li title={format!("{label}; {}", outcome_text(&t.outcome))}>
                        <span class="bar" aria-hidden="true"><span class={classes!("fill", (t.weight < 0).then_some("negative"))} style={format!("width:{width:.1}%")}></span></span>
                        <span class="bar-label">{ label }</span>
                    </li>
                }
            }) }
        </ul>
    }
}

/// The key labels and properties of one cluster, or a dash.
fn facts_cell(facts: Option<&[(String, String)]>) -> Html {
    match facts {
        Some(list) if !list.is_empty() => html! {
            <ul class="facts">{ for list.iter().map(|(k, v)| html! { <li><code>{ format!("{k}={v}") }</code></li> }) }</ul>
        },
        _ => html! { <span class="muted">{ "—" }</span> },
    }
}

/// The cluster button of a row (its click is handled by the table: see `OnePlacement`).
fn cluster_button(cluster: &str, selected: bool) -> Html {
    html! {
        <button type="button" class="cluster" data-cluster={cluster.to_string()} aria-pressed={selected.to_string()}>{ cluster }</button>
    }
}

#[derive(Properties, PartialEq)]
struct ScoredRowProps {
    /// 1-based rank among the scored clusters.
    rank: usize,
    cluster: Picked,
    picked: bool,
    selected: bool,
    facts: Option<Rc<[(String, String)]>>,
}

/// A picked or scored-but-not-picked cluster.
#[function_component(ScoredRow)]
fn scored_row(p: &ScoredRowProps) -> Html {
    let c = &p.cluster;
    html! {
        <tr class={classes!(if p.picked { "picked" } else { "not-picked" }, p.selected.then_some("selected"))}>
            <td class="num">{ p.rank }</td>
            <th scope="row">{ cluster_button(&c.cluster, p.selected) }</th>
            <td class="result">{ if p.picked { "picked" } else { "not picked" } }</td>
            <td class="num affinity">{ c.affinity_score }</td>
            <td class="num spread">{ c.topology_spread_score }</td>
            <td>{ term_bars(c) }</td>
            <td>{ facts_cell(p.facts.as_deref()) }</td>
        </tr>
    }
}

#[derive(Properties, PartialEq)]
struct FilteredRowProps {
    cluster: Filtered,
    selected: bool,
    facts: Option<Rc<[(String, String)]>>,
}

/// A cluster a filter rejected, with what was observed against what was required.
#[function_component(FilteredRow)]
fn filtered_row(p: &FilteredRowProps) -> Html {
    let c = &p.cluster;
    let reason: &str = &c.reason;
    html! {
        <tr class={classes!("filtered", p.selected.then_some("selected"))}>
            <td class="num">{ "—" }</td>
            <th scope="row">{ cluster_button(&c.cluster, p.selected) }</th>
            <td class="result">{ "filtered" }<span class="plugin">{ c.plugin }</span></td>
            <td colspan="3" class="reason"><span class="reason-text">{ reason }</span>{ filter_detail(&c.explanation) }</td>
            <td>{ facts_cell(p.facts.as_deref()) }</td>
        </tr>
    }
}

#[function_component(OnePlacement)]
fn one_placement(props: &OneProps) -> Html {
    let show_all = use_state(|| false);
    let Some(p) = props.report.placements.get(props.index) else {
        return html! {};
    };
    let p: &PlacementResult = p;
    let name = p.name.clone();
    let cond = &p.condition;
    let total = p.picked.len() + p.not_picked.len() + p.filtered.len();
    let limit = if *show_all { usize::MAX } else { FIRST_ROWS };
    let is_selected = |c: &str| {
        props
            .selected
            .as_ref()
            .is_some_and(|(pl, cl)| *pl == name && cl == c)
    };
    // One listener for every row's cluster button: rows are components without callbacks, so
    // a row whose props did not change is neither rendered nor compared again.
    let select = {
        let (cb, name) = (props.on_select.clone(), name.clone());
        Callback::from(move |e: MouseEvent| {
            let button = e
                .target_dyn_into::<web_sys::Element>()
                .and_then(|t| t.closest("button.cluster").ok().flatten());
            if let Some(cluster) = button.and_then(|b| b.get_attribute("data-cluster")) {
                cb.emit((name.clone(), cluster));
            }
        })
    };
    let facts_of = |c: &str| props.facts.get(c).cloned();
    let scored = p
        .picked
        .iter()
        .map(|c| (c, true))
        .chain(p.not_picked.iter().map(|c| (c, false)));
    let rows = scored.enumerate().map(|(rank, (c, picked))| {
        html! {
            <ScoredRow key={&*c.cluster} rank={rank + 1} cluster={c.clone()} {picked}
                selected={is_selected(&c.cluster)} facts={facts_of(&c.cluster)} />
        }
    });
    let frows = p.filtered.iter().map(|c| {
        html! {
            <FilteredRow key={&*c.cluster} cluster={c.clone()}
                selected={is_selected(&c.cluster)} facts={facts_of(&c.cluster)} />
        }
    });
    let rows: Vec<Html> = rows.chain(frows).take(limit).collect();
    let kind = if p.kind.is_empty() {
        "Placement"
    } else {
        p.kind.as_str()
    };
    html! {
        <section class="placement" aria-label={format!("Placement {name}")} data-placement={name.clone()}>
            <h2>
                { format!("{kind} {name}") }
                if !p.placement_type.is_empty() { <span class="badge">{ p.placement_type.clone() }</span> }
                if p.validation == "rejected" { <span class="badge bad">{ "rejected by the API server" }</span> }
            </h2>
            <p class={classes!("condition", match cond.status.as_str() { "True" => "ok", "False" => "unfulfilled", _ => "unknown" })}>
                <strong>{ format!("Scheduled={} ", cond.status) }</strong>
                <span class="cond-reason">{ cond.reason.clone() }</span>{ ": " }
                <span class="cond-message">{ cond.message.clone() }</span>
            </p>
            if let Some(e) = &p.cycle_error {
                <p class="cycle-error">{ format!("The scheduling cycle aborts: {}", e.message) }</p>
            }
            <p class="summary">{ format!("{} picked, {} scored but not picked, {} filtered{}", p.picked.len(), p.not_picked.len(), p.filtered.len(),
                if p.cycles > 1 { format!(", {} scheduling cycles", p.cycles) } else { String::new() }) }</p>
            <div class="table-wrap">
            <table class="clusters">
                <caption class="visually-hidden">{ format!("Clusters for placement {name}, picked first in rank order") }</caption>
                <thead><tr>
                    <th scope="col">{ "Rank" }</th><th scope="col">{ "Cluster" }</th><th scope="col">{ "Result" }</th>
                    <th scope="col" title="affinity score">{ "Affinity" }</th><th scope="col" title="topology spread score">{ "Spread" }</th>
                    <th scope="col">{ "Preferred terms" }</th><th scope="col">{ "Key labels / properties" }</th>
                </tr></thead>
                <tbody onclick={select}>{ for rows }</tbody>
            </table>
            </div>
            if total > FIRST_ROWS && !*show_all {
                <button type="button" class="show-all" onclick={ let s = show_all.clone(); Callback::from(move |_| s.set(true)) }>
                    { format!("Show all {total} clusters") }
                </button>
            }
            if !p.decisions.is_empty() {
                <details class="decisions"><summary>{ format!("status.clusterDecisions ({})", p.decisions.len()) }</summary>
                    <div class="table-wrap"><table>
                        <thead><tr><th scope="col">{ "Cluster" }</th><th scope="col">{ "Selected" }</th><th scope="col">{ "Reason" }</th></tr></thead>
                        <tbody>{ for p.decisions.iter().take(limit).map(|d| { let r: &str = &d.reason; html! {
                            <tr><th scope="row">{ &*d.cluster_name }</th><td>{ d.selected.to_string() }</td><td>{ r }</td></tr>
                        } }) }</tbody>
                    </table></div>
                </details>
            }
            if !p.kept.is_empty() || !p.unscheduled.is_empty() {
                <p class="bindings">{ format!("Existing bindings kept: {}; unscheduled: {}",
                    names(&p.kept), names(&p.unscheduled)) }</p>
            }
        </section>
    }
}

fn names(v: &[String]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    v.join(", ")
}
