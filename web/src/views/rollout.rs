//! Rollout view: a Gantt chart of stages → groups → members (with waits, approvals and
//! maintenance windows) on the simulated clock; the state of every level at the instant the
//! time slider picks (the engine re-run with `observe`); and what-if controls that re-run
//! the simulation.

use super::{short, when};
use crate::charts::gantt::{Bar, Gantt, Row};
use crate::json::{arr, compact, opt_s, s, time};
use crate::state::WhatIf;
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde_json::Value;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Props of [`RolloutView`].
#[derive(Properties, PartialEq)]
pub struct RolloutProps {
    /// `EvaluateReport.rollouts` (simulated to the end).
    pub rollouts: Rc<Vec<Value>>,
    /// The same, observed at the slider's instant.
    pub observed: Option<Rc<Vec<Value>>>,
    /// The what-ifs in force.
    pub what_if: WhatIf,
    /// Set a member's what-if mode.
    pub on_member: Callback<(String, String)>,
    /// Approve (or un-approve) an approval request.
    pub on_approve: Callback<(String, bool)>,
    /// Observe at an instant (None = settled).
    pub on_observe: Callback<Option<String>>,
}

/// The view.
#[function_component(RolloutView)]
pub fn rollout_view(p: &RolloutProps) -> Html {
    if p.rollouts.is_empty() {
        return html! { <p class="empty">{ "No rollout in the input. Put an Azure UpdateRun or a KubeFleet ClusterStagedUpdateRun (with its members) in the editors, or open a rollout example from the gallery." }</p> };
    }
    html! { <>{ for p.rollouts.iter().map(|r| one(r, p)) }</> }
}

/// Where a KubeFleet rollout's clusters came from, and where given bindings differ from the
/// placement's decision (the engine's `targets`, rendered as they are).
fn targets(r: &Value) -> Html {
    let Some(t) = r.get("targets") else {
        return html! {};
    };
    let list = |k: &str| -> Vec<String> {
        arr(t, k)
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let source = match s(t, "source") {
        "placement" => "the clusters its placement picked",
        "bindings" => "the ClusterResourceBindings in the input",
        _ => "no cluster: its placement's scheduling cycle fails",
    };
    let (only_b, only_p) = (list("onlyInBindings"), list("onlyInPlacement"));
    html! {
        <p class="targets" data-source={s(t, "source").to_string()}>
            { format!("Reaches {source}") }
            if !only_b.is_empty() || !only_p.is_empty() {
                <span class="drift">
                    { " — differs from the scheduler's decision:" }
                    if !only_b.is_empty() { { format!(" bound but not picked now: {};", only_b.join(", ")) } }
                    if !only_p.is_empty() { { format!(" picked now but not bound: {}", only_p.join(", ")) } }
                </span>
            }
        </p>
    }
}

fn members(stage: &Value) -> impl Iterator<Item = &Value> {
    arr(stage, "groups").iter().flat_map(|g| arr(g, "members"))
}

/// The time span the chart covers: the run's start to its last instant.
fn span(r: &Value) -> (DateTime<Utc>, DateTime<Utc>) {
    let mut times: Vec<DateTime<Utc>> = Vec::new();
    for key in ["start", "end"] {
        times.extend(time(r, key));
    }
    for st in arr(r, "stages") {
        times.extend(time(st, "start"));
        times.extend(time(st, "end"));
        for w in arr(st, "waits") {
            times.extend(time(w, "start"));
            times.extend(time(w, "end"));
        }
        for m in members(st) {
            times.extend(time(m, "start"));
            times.extend(time(m, "end"));
            times.extend(time(m, "nextWindowStart"));
        }
    }
    for t in arr(r, "timeline") {
        times.extend(time(t, "at"));
    }
    let start = times.iter().min().copied().unwrap_or_default();
    let end = times.iter().max().copied().unwrap_or(start);
    let end = if end <= start {
        start + Duration::hours(1)
    } else {
        end
    };
    (start, end)
}

fn bar(v: &Value, class: &str, title: String) -> Option<Bar> {
    Some(Bar {
        start: time(v, "start")?,
        end: time(v, "end"),
        class: class.to_string(),
        title,
    })
}

fn find<'a>(list: &'a [Value], name: &str, key: &str) -> Option<&'a Value> {
    list.iter().find(|v| s(v, key) == name)
}

fn one(r: &Value, p: &RolloutProps) -> Html {
    let name = s(r, "name").to_string();
    let (start, end) = span(r);
    let observed = p
        .observed
        .as_ref()
        .and_then(|o| find(o, &name, "name"))
        .unwrap_or(r);
    let cursor = p
        .what_if
        .observe
        .as_deref()
        .and_then(crate::evaluation::parse_at);
    // States at the observed instant, looked up in the engine's observed report.
    let ostage = |st: &str| find(arr(observed, "stages"), st, "name");
    let ogroup = |st: &str, g: &str| ostage(st).and_then(|o| find(arr(o, "groups"), g, "name"));
    let omember =
        |st: &str, m: &str| ostage(st).and_then(|o| members(o).find(|x| s(x, "cluster") == m));
    let mut rows = Vec::new();
    for st in arr(r, "stages") {
        let sn = s(st, "name");
        let state = ostage(sn).map(|o| s(o, "state")).unwrap_or("").to_string();
        let mut bars: Vec<Bar> = bar(st, "stage", format!("stage {sn}: {}", s(st, "state")))
            .into_iter()
            .collect();
        for w in arr(st, "waits") {
            let kind = s(w, "kind");
            let class = if kind == "Approval" {
                "approval"
            } else {
                "wait"
            };
            bars.extend(bar(
                w,
                class,
                format!("{kind} {} ({})", s(w, "name"), s(w, "placement")),
            ));
        }
        rows.push(Row {
            level: 0,
            label: format!("stage {sn}"),
            bars,
            state,
        });
        for g in arr(st, "groups") {
            let gn = s(g, "name");
            let gstate = ogroup(sn, gn)
                .map(|o| s(o, "state"))
                .unwrap_or("")
                .to_string();
            rows.push(Row {
                level: 1,
                label: format!("group {gn}"),
                bars: vec![],
                state: gstate,
            });
            for m in arr(g, "members") {
                let mn = s(m, "cluster");
                let mstate = omember(sn, mn)
                    .map(|o| s(o, "state"))
                    .unwrap_or("")
                    .to_string();
                let mut bars: Vec<Bar> = Vec::new();
                if let Some(ws) = time(m, "nextWindowStart") {
                    bars.push(Bar {
                        start: ws,
                        end: Some(ws + Duration::minutes(20)),
                        class: "window".into(),
                        title: format!("maintenance window opens {}", ws.to_rfc3339()),
                    });
                }
                let reason = opt_s(m, "message")
                    .map(str::to_string)
                    .or_else(|| m.get("reason").filter(|v| !v.is_null()).map(compact));
                bars.extend(bar(
                    m,
                    &s(m, "state").to_lowercase(),
                    format!(
                        "{mn}: {}{}",
                        s(m, "state"),
                        reason.map(|x| format!(" — {x}")).unwrap_or_default()
                    ),
                ));
                rows.push(Row {
                    level: 2,
                    label: mn.to_string(),
                    bars,
                    state: mstate,
                });
            }
        }
    }
    let total_min = (end - start).num_minutes().max(1);
    let slider_value = cursor
        .map(|c| (c - start).num_minutes().clamp(0, total_min))
        .unwrap_or(total_min);
    let on_slide = {
        let cb = p.on_observe.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let minutes = input.value().parse::<i64>().unwrap_or(0);
            let t = start + Duration::minutes(minutes);
            cb.emit(Some(t.to_rfc3339_opts(SecondsFormat::Secs, true)));
        })
    };
    let settle = {
        let cb = p.on_observe.clone();
        Callback::from(move |_| cb.emit(None))
    };
    let slider_id = format!("slider-{name}");
    let approvals: Vec<&Value> = arr(r, "stages")
        .iter()
        .flat_map(|st| arr(st, "waits"))
        .filter(|w| s(w, "kind") == "Approval")
        .collect();
    html! {
        <section class="rollout" aria-label={format!("Rollout {name}")} data-rollout={name.clone()}>
            <h2>{ format!("{} {name}", if s(r, "kind").is_empty() { "Rollout" } else { s(r, "kind") }) }
                <span class={classes!("badge", "state", s(observed, "state").to_lowercase())}>{ s(observed, "state") }</span></h2>
            <p class="summary">
                { format!("starts {}", when(s(r, "start"))) }
                if let Some(e) = opt_s(r, "end") { { format!(", ends {}", when(e)) } }
                if let Some(m) = opt_s(r, "message") { { format!(" — {m}") } }
            </p>
            { targets(r) }
            <div class="slider">
                <label for={slider_id.clone()}>{ "State at " }<output class="observed-at">{ cursor.map(|c| when(&c.to_rfc3339())).unwrap_or_else(|| "the end (settled)".into()) }</output></label>
                <input type="range" id={slider_id} min="0" max={total_min.to_string()} step="1" value={slider_value.to_string()} oninput={on_slide} />
                <button type="button" onclick={settle} disabled={cursor.is_none()}>{ "Settled" }</button>
            </div>
            <figure class="chart-figure">
                <Gantt start={start} end={end} rows={rows.clone()} cursor={cursor}
                    title={format!("Gantt chart of rollout {name}: stages, groups and members on the simulated clock")} />
                <figcaption>{ "Bars: members by state, stages, waits (hatched) and approvals; ticks: maintenance window openings; line: the observed instant." }</figcaption>
            </figure>
            <div class="table-wrap">
            <table class="levels">
                <caption>{ "State of each level at the observed instant (times UTC), and what-ifs" }</caption>
                <thead><tr><th scope="col">{ "Level" }</th><th scope="col">{ "Name" }</th><th scope="col">{ "State" }</th><th scope="col">{ "Start" }</th><th scope="col">{ "End" }</th><th scope="col">{ "What if" }</th></tr></thead>
                <tbody>
                    { for arr(r, "stages").iter().map(|st| {
                        let sn = s(st, "name");
                        html! { <>
                            <tr class="level-stage"><td>{ "stage" }</td><th scope="row">{ sn }</th><td class="state">{ ostage(sn).map(|o| s(o, "state")).unwrap_or("") }</td>
                                <td>{ opt_s(st, "start").map(short).unwrap_or_default() }</td><td>{ opt_s(st, "end").map(short).unwrap_or_default() }</td><td></td></tr>
                            { for arr(st, "waits").iter().map(|w| html! {
                                <tr class="level-wait"><td>{ s(w, "kind") }</td><th scope="row">{ s(w, "name") }</th>
                                    <td class="state">{ ostage(sn).and_then(|o| find(arr(o, "waits"), s(w, "name"), "name")).map(|o| s(o, "state")).unwrap_or("") }</td>
                                    <td>{ opt_s(w, "start").map(short).unwrap_or_default() }</td><td>{ opt_s(w, "end").map(short).unwrap_or_default() }</td>
                                    <td>{ if s(w, "kind") == "Approval" { approve_box(s(w, "name"), p) } else { html! {} } }</td></tr>
                            }) }
                            { for arr(st, "groups").iter().map(|g| html! { <>
                                <tr class="level-group"><td>{ "group" }</td><th scope="row">{ s(g, "name") }</th><td class="state">{ ogroup(sn, s(g, "name")).map(|o| s(o, "state")).unwrap_or("") }</td><td></td><td></td><td></td></tr>
                                { for arr(g, "members").iter().map(|m| {
                                    let mn = s(m, "cluster");
                                    html! {
                                        <tr class="level-member" data-member={mn.to_string()}><td>{ "member" }</td><th scope="row">{ mn }</th>
                                            <td class="state">{ omember(sn, mn).map(|o| s(o, "state")).unwrap_or("") }</td>
                                            <td>{ opt_s(m, "start").map(short).unwrap_or_default() }</td><td>{ opt_s(m, "end").map(short).unwrap_or_default() }</td>
                                            <td>{ member_select(mn, p) }</td></tr>
                                    }
                                }) }
                            </> }) }
                        </> }
                    }) }
                </tbody>
            </table>
            </div>
            if !approvals.is_empty() {
                <p class="muted">{ format!("{} approval gate(s): tick \"approve\" to approve a request when it is created.", approvals.len()) }</p>
            }
            if !arr(r, "excluded").is_empty() {
                <h3>{ "Not part of the run" }</h3>
                <ul class="excluded">{ for arr(r, "excluded").iter().map(|x| html! { <li><strong>{ s(x, "cluster") }</strong>{ ": " }{ s(x, "message") }</li> }) }</ul>
            }
            if !arr(r, "assumptions").is_empty() {
                <details class="notes"><summary>{ "Assumptions" }</summary>
                    <ul>{ for arr(r, "assumptions").iter().map(|a| html! { <li><code>{ format!("{}={}", s(a, "option"), s(a, "value")) }</code>{ " " }{ s(a, "text") }</li> }) }</ul>
                </details>
            }
        </section>
    }
}

fn member_select(member: &str, p: &RolloutProps) -> Html {
    let mode = p.what_if.member_mode(member);
    let onchange = {
        let cb = p.on_member.clone();
        let m = member.to_string();
        Callback::from(move |e: Event| {
            let sel: HtmlSelectElement = e.target_unchecked_into();
            cb.emit((m.clone(), sel.value()));
        })
    };
    html! {
        <select class="what-if" aria-label={format!("What if for member {member}")} {onchange}>
            { for [("", "as planned"), ("fail", "fails"), ("pending", "stays pending"), ("skip", "skipped")].iter().map(|(v, l)| html! {
                <option value={*v} selected={mode == *v}>{ *l }</option>
            }) }
        </select>
    }
}

fn approve_box(request: &str, p: &RolloutProps) -> Html {
    let checked = p.what_if.approve.iter().any(|a| a == request);
    let onchange = {
        let cb = p.on_approve.clone();
        let r = request.to_string();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            cb.emit((r.clone(), input.checked()));
        })
    };
    html! {
        <label class="approve"><input type="checkbox" {checked} {onchange} />{ " approve" }</label>
    }
}
