//! The result pane: problems, facts about the input, the comparison with a pinned result, and
//! the three result views behind their tabs.

use crate::compare::diff;
use crate::evaluation::Evaluation;
use crate::state::{MemberMode, View, WhatIf};
use crate::views::diagnostics::Problems;
use crate::views::disruption::DisruptionView;
use crate::views::placement::{Facts, PlacementView};
use crate::views::rollout::RolloutView;
use crate::views::Shared;
use chrono::SecondsFormat;
use fleet_policy::notice::NoticeKind;
use fleet_policy::EvaluateReport;
use std::rc::Rc;
use web_sys::KeyboardEvent;
use yew::prelude::*;

/// Props of [`ResultPane`].
#[derive(Properties, PartialEq)]
pub struct ResultPaneProps {
    /// The newest evaluation (its problems and notices are listed).
    pub current: Shared<Evaluation>,
    /// The evaluation whose results are shown: the newest, or while the input has errors
    /// that leave nothing to show, the last one that had results.
    pub shown: Shared<Evaluation>,
    /// Key labels/properties per cluster.
    pub facts: Rc<Facts>,
    /// The view shown.
    pub view: View,
    /// The selected (placement, cluster).
    pub selected: Option<(String, String)>,
    /// The rollout what-ifs.
    pub what_if: WhatIf,
    /// The pinned report and its label.
    pub pinned: Option<(Shared<EvaluateReport>, AttrValue)>,
    /// Jump to a diagnostic.
    pub on_jump: Callback<(String, u32, u32)>,
    /// Switch view.
    pub on_view: Callback<View>,
    /// Select a cluster of a placement.
    pub on_select: Callback<(String, String)>,
    /// Set a member's what-if.
    pub on_member: Callback<(String, MemberMode)>,
    /// Approve a request.
    pub on_approve: Callback<(String, bool)>,
    /// Observe the rollouts at an instant.
    pub on_observe: Callback<Option<String>>,
    /// Set the evaluation instant.
    pub on_at: Callback<Option<String>>,
}

/// Props of [`Compare`].
#[derive(Properties, PartialEq)]
struct CompareProps {
    pinned: Shared<EvaluateReport>,
    current: Shared<EvaluateReport>,
    label: AttrValue,
}

/// What changed since the pinned result (the engine's typed diff).
#[function_component(Compare)]
fn compare(p: &CompareProps) -> Html {
    let changes = use_memo((p.pinned.clone(), p.current.clone()), |(a, b)| diff(a, b));
    html! {
        <section class="compare" id="compare" aria-label="Changes since the pinned result">
            <h2>{ format!("Changes since the result {}", p.label) }</h2>
            if changes.is_empty() {
                <p class="muted">{ "No change." }</p>
            } else {
                <ul>{ for changes.iter().map(|c| html! { <li><span class="area">{ c.area.clone() }</span>{ " " }{ c.text.clone() }</li> }) }</ul>
            }
        </section>
    }
}

/// The pane.
#[function_component(ResultPane)]
pub fn result_pane(p: &ResultPaneProps) -> Html {
    let eval = &p.current;
    let report = Shared(eval.report.clone());
    let results = Shared(p.shown.report.clone());
    let stale = !Rc::ptr_eq(&eval.report, &p.shown.report);
    let tab = |v: View| {
        let selected = p.view == v;
        let count = match v {
            View::Placement => results.placements.len(),
            View::Disruption => results.node_pools.len(),
            View::Rollout => results.rollouts.len(),
        };
        let on_view = p.on_view.clone();
        let onkeydown = Callback::from(move |e: KeyboardEvent| {
            let k = View::ALL.iter().position(|x| *x == v).unwrap_or(0);
            match e.key().as_str() {
                "ArrowRight" => on_view.emit(View::ALL[(k + 1) % 3]),
                "ArrowLeft" => on_view.emit(View::ALL[(k + 2) % 3]),
                _ => {}
            }
        });
        html! {
            <button type="button" role="tab" id={format!("tab-{}", v.id())} aria-selected={selected.to_string()}
                aria-controls="result-panel" tabindex={if selected { "0" } else { "-1" }}
                class={classes!("tab", selected.then_some("active"))}
                onclick={p.on_view.reform(move |_| v)} {onkeydown}>
                { v.label() }<span class="tab-count">{ count }</span>
            </button>
        }
    };
    let to_snapshot = p
        .on_at
        .reform(|_| Some(fleet_policy::AT_SNAPSHOT.to_string()));
    html! {
        <section class="pane result-pane" aria-label="Result">
            <Problems report={report.clone()} on_jump={p.on_jump.clone()} />
            if !eval.report.notices.is_empty() {
                <ul class="notices" id="notices" aria-label="About the input">
                    { for eval.report.notices.iter().map(|n| html! {
                        <li class="input-notice" data-kind={serde_json::to_value(n.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()}>
                            { n.message.clone() }
                            if n.kind == NoticeKind::StaleHeartbeats && n.snapshot.is_some() {
                                { " " }<button type="button" class="to-snapshot" onclick={to_snapshot.clone()}>{ "Evaluate at the snapshot" }</button>
                            }
                        </li>
                    }) }
                </ul>
            }
            if stale {
                <p class="stale-label" id="stale-label" role="status">{ "Showing the last result that evaluated; fix the errors to update it." }</p>
            }
            if let Some((pinned, label)) = &p.pinned {
                <Compare pinned={pinned.clone()} current={report.clone()} label={label.clone()} />
            }
            <div class="tabs" role="tablist" aria-label="Result views">
                { tab(View::Placement) }{ tab(View::Disruption) }{ tab(View::Rollout) }
            </div>
            <div id="result-panel" role="tabpanel" aria-labelledby={format!("tab-{}", p.view.id())}
                class={classes!(format!("view-{}", p.view.id()), stale.then_some("stale"))}>
                <p class="muted evaluated">{ format!("Evaluated at {}{} in {:.1} ms", eval.at.to_rfc3339_opts(SecondsFormat::Secs, true),
                    if eval.at_is_now { " (now)" } else if eval.at_is_snapshot { " (the input's snapshot: its newest heartbeat or observation)" } else { "" }, eval.engine_ms) }</p>
                { match p.view {
                    View::Placement => html! {
                        <PlacementView report={results.clone()} facts={p.facts.clone()}
                            selected={p.selected.clone()} on_select={p.on_select.clone()} />
                    },
                    View::Disruption => html! { <DisruptionView report={results.clone()} at={p.shown.at} /> },
                    View::Rollout => html! {
                        <RolloutView report={results.clone()} observed={p.shown.observed_rollouts.clone().map(Shared)}
                            what_if={p.what_if.clone()} on_member={p.on_member.clone()}
                            on_approve={p.on_approve.clone()} on_observe={p.on_observe.clone()} />
                    },
                } }
            </div>
        </section>
    }
}
