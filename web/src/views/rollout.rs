//! Rollout view: a Gantt chart of stages → groups → members (with waits, approvals and
//! maintenance windows) on the simulated clock; the state of every level at the instant the
//! time slider picks (the engine re-run with `observe`); and what-if controls that re-run
//! the simulation.

use super::{short, when, Shared};
use crate::charts::gantt::{Bar, Gantt, Row};
use crate::state::{MemberMode, WhatIf};
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use fleet_policy::rollout::plan::{Member, Rollout, Stage, TargetSource, WaitKind};
use fleet_policy::rollout::report::member_reason_text;
use fleet_policy::EvaluateReport;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Props of [`RolloutView`].
#[derive(Properties, PartialEq)]
pub struct RolloutProps {
    /// The report whose `rollouts` are shown (simulated to the end).
    pub report: Shared<EvaluateReport>,
    /// The same rollouts, observed at the slider's instant.
    pub observed: Option<Shared<Vec<Rollout>>>,
    /// The what-ifs in force.
    pub what_if: WhatIf,
    /// Set a member's what-if mode.
    pub on_member: Callback<(String, MemberMode)>,
    /// Approve (or un-approve) an approval request.
    pub on_approve: Callback<(String, bool)>,
    /// Observe at an instant (None = settled).
    pub on_observe: Callback<Option<String>>,
}

/// The view.
#[function_component(RolloutView)]
pub fn rollout_view(p: &RolloutProps) -> Html {
    if p.report.rollouts.is_empty() {
        return html! { <p class="empty">{ "No rollout in the input. Put an Azure UpdateRun or a KubeFleet ClusterStagedUpdateRun (with its members) in the editors, or open a rollout example from the gallery." }</p> };
    }
    html! { <>{ for p.report.rollouts.iter().map(|r| one(r, p)) }</> }
}

/// Where a KubeFleet rollout's clusters came from, and where given bindings differ from the
/// placement's decision (the engine's `targets`, rendered as they are).
fn targets(r: &Rollout) -> Html {
    let Some(t) = &r.targets else {
        return html! {};
    };
    let (source, id) = match t.source {
        TargetSource::Placement => ("the clusters its placement picked", "placement"),
        TargetSource::Bindings => ("the ClusterResourceBindings in the input", "bindings"),
        TargetSource::None => ("no cluster: its placement's scheduling cycle fails", "none"),
    };
    let (only_b, only_p) = (&t.only_in_bindings, &t.only_in_placement);
    html! {
        <p class="targets" data-source={id}>
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

fn members(stage: &Stage) -> impl Iterator<Item = &Member> {
    stage.groups.iter().flat_map(|g| g.members.iter())
}

/// The time span the chart covers: the run's start to its last instant.
fn span(r: &Rollout) -> (DateTime<Utc>, DateTime<Utc>) {
    let mut times: Vec<DateTime<Utc>> = Vec::new();
    times.extend(r.start);
    times.extend(r.end);
    for st in &r.stages {
        times.extend(st.start);
        times.extend(st.end);
        for w in &st.waits {
            times.extend(w.start);
            times.extend(w.end);
        }
        for m in members(st) {
            times.extend(m.start);
            times.extend(m.end);
            times.extend(m.next_window_start);
        }
    }
    times.extend(r.timeline.iter().map(|t| t.at));
    let start = times.iter().min().copied().unwrap_or_default();
    let end = times.iter().max().copied().unwrap_or(start);
    let end = if end <= start {
        start + Duration::hours(1)
    } else {
        end
    };
    (start, end)
}

fn bar(
    start: Option<DateTime<Utc>>,
    end: Option<DateTime<Utc>>,
    class: &str,
    title: String,
) -> Option<Bar> {
    Some(Bar {
        start: start?,
        end,
        class: class.to_string(),
        title,
    })
}

/// What the Gantt's colours mean (the classes `charts::gantt` draws, as `style.css` fills
/// them).
const LEGEND: [(&str, &str); 9] = [
    ("completed", "completed"),
    ("running", "running"),
    ("failed", "failed / stuck"),
    ("pending", "pending / waiting"),
    ("notstarted", "not started / skipped"),
    ("stage", "stage"),
    ("wait", "after-stage wait"),
    ("approval", "approval gate"),
    ("window", "maintenance window opens"),
];

fn one(r: &Rollout, p: &RolloutProps) -> Html {
    let name = r.name.clone();
    let (start, end) = span(r);
    let observed = p
        .observed
        .as_ref()
        .and_then(|o| o.iter().find(|x| x.name == name))
        .unwrap_or(r);
    let cursor = p
        .what_if
        .observe
        .as_deref()
        .and_then(crate::evaluation::parse_at);
    // States at the observed instant, looked up in the engine's observed report.
    let ostage = |st: &str| observed.stages.iter().find(|o| &*o.name == st);
    let ostate = |st: &str| ostage(st).map(|o| o.state.as_str()).unwrap_or("");
    let ogroup = |st: &str, g: &str| {
        ostage(st)
            .and_then(|o| o.groups.iter().find(|x| &*x.name == g))
            .map(|o| o.state.as_str())
            .unwrap_or("")
    };
    let omember = |st: &str, m: &str| {
        ostage(st)
            .and_then(|o| members(o).find(|x| &*x.cluster == m))
            .map(|o| o.state.as_str())
            .unwrap_or("")
    };
    let owait = |st: &str, w: &str| {
        ostage(st)
            .and_then(|o| o.waits.iter().find(|x| x.name == w))
            .map(|o| o.state.as_str())
            .unwrap_or("")
    };
    let mut rows = Vec::new();
    for st in &r.stages {
        let sn: &str = &st.name;
        let mut bars: Vec<Bar> = bar(
            st.start,
            st.end,
            "stage",
            format!("stage {sn}: {}", st.state.as_str()),
        )
        .into_iter()
        .collect();
        for w in &st.waits {
            let class = if w.kind == WaitKind::Approval {
                "approval"
            } else {
                "wait"
            };
            bars.extend(bar(
                w.start,
                w.end,
                class,
                format!(
                    "{} {} ({})",
                    w.kind.as_str(),
                    w.name,
                    if w.placement == fleet_policy::rollout::plan::Placement::Before {
                        "before"
                    } else {
                        "after"
                    }
                ),
            ));
        }
        rows.push(Row {
            level: 0,
            label: format!("stage {sn}"),
            bars,
            state: ostate(sn).to_string(),
        });
        for g in &st.groups {
            let gn: &str = &g.name;
            rows.push(Row {
                level: 1,
                label: format!("group {gn}"),
                bars: vec![],
                state: ogroup(sn, gn).to_string(),
            });
            for m in &g.members {
                let mn: &str = &m.cluster;
                let mut bars: Vec<Bar> = Vec::new();
                if let Some(ws) = m.next_window_start {
                    bars.push(Bar {
                        start: ws,
                        end: Some(ws + Duration::minutes(20)),
                        class: "window".into(),
                        title: format!("maintenance window opens {}", ws.to_rfc3339()),
                    });
                }
                let reason = m
                    .message
                    .clone()
                    .or_else(|| m.reason.as_ref().map(member_reason_text));
                bars.extend(bar(
                    m.start,
                    m.end,
                    &m.state.as_str().to_lowercase(),
                    format!(
                        "{mn}: {}{}",
                        m.state.as_str(),
                        reason.map(|x| format!(" — {x}")).unwrap_or_default()
                    ),
                ));
                rows.push(Row {
                    level: 2,
                    label: mn.to_string(),
                    bars,
                    state: omember(sn, mn).to_string(),
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
    let approvals = r
        .stages
        .iter()
        .flat_map(|st| st.waits.iter())
        .filter(|w| w.kind == WaitKind::Approval)
        .count();
    let kind = if r.kind.is_empty() {
        "Rollout"
    } else {
        r.kind.as_str()
    };
    html! {
        <section class="rollout" aria-label={format!("Rollout {name}")} data-rollout={name.clone()}>
            <h2>{ format!("{kind} {name}") }
                <span class={classes!("badge", "state", observed.state.as_str().to_lowercase())}>{ observed.state.as_str() }</span></h2>
            <p class="summary">
                if let Some(s) = r.start { { format!("starts {}", when(s)) } }
                if let Some(e) = r.end { { format!(", ends {}", when(e)) } }
                if let Some(m) = &r.message { { format!(" — {m}") } }
            </p>
            { targets(r) }
            <div class="slider">
                <label for={slider_id.clone()}>{ "State at " }<output class="observed-at">{ cursor.map(when).unwrap_or_else(|| "the end (settled)".into()) }</output></label>
                <input type="range" id={slider_id} min="0" max={total_min.to_string()} step="1" value={slider_value.to_string()} oninput={on_slide} />
                <button type="button" onclick={settle} disabled={cursor.is_none()}>{ "Settled" }</button>
            </div>
            <figure class="chart-figure">
                <Gantt start={start} end={end} rows={rows} cursor={cursor}
                    title={format!("Gantt chart of rollout {name}: stages, groups and members on the simulated clock")} />
                <figcaption>
                    { "Bars: members by state, stages, waits and approvals; line: the observed instant." }
                    <ul class="legend gantt-legend" aria-label="Colours">
                        { for LEGEND.iter().map(|(class, label)| html! {
                            <li><svg class="gantt swatch" viewBox="0 0 14 10" aria-hidden="true" width="14" height="10"><rect class={classes!("bar", *class)} x="0" y="0" width="14" height="10" /></svg>{ *label }</li>
                        }) }
                    </ul>
                </figcaption>
            </figure>
            <div class="table-wrap">
            <table class="levels">
                <caption>{ "State of each level at the observed instant (times UTC), and what-ifs" }</caption>
                <thead><tr><th scope="col">{ "Level" }</th><th scope="col">{ "Name" }</th><th scope="col">{ "State" }</th><th scope="col">{ "Start" }</th><th scope="col">{ "End" }</th><th scope="col">{ "What if" }</th></tr></thead>
                <tbody>
                    { for r.stages.iter().map(|st| {
                        let sn: &str = &st.name;
                        html! { <>
                            <tr class="level-stage"><td>{ "stage" }</td><th scope="row">{ sn }</th><td class="state">{ ostate(sn) }</td>
                                <td>{ st.start.map(short).unwrap_or_default() }</td><td>{ st.end.map(short).unwrap_or_default() }</td><td></td></tr>
                            { for st.waits.iter().map(|w| html! {
                                <tr class="level-wait"><td>{ w.kind.as_str() }</td><th scope="row">{ w.name.clone() }</th>
                                    <td class="state">{ owait(sn, &w.name) }</td>
                                    <td>{ w.start.map(short).unwrap_or_default() }</td><td>{ w.end.map(short).unwrap_or_default() }</td>
                                    <td>{ if w.kind == WaitKind::Approval { approve_box(&w.name, p) } else { html! {} } }</td></tr>
                            }) }
                            { for st.groups.iter().map(|g| html! { <>
                                <tr class="level-group"><td>{ "group" }</td><th scope="row">{ &*g.name }</th><td class="state">{ ogroup(sn, &g.name) }</td><td></td><td></td><td></td></tr>
                                { for g.members.iter().map(|m| {
                                    let mn: &str = &m.cluster;
                                    html! {
                                        <tr class="level-member" data-member={mn.to_string()}><td>{ "member" }</td><th scope="row">{ mn }</th>
                                            <td class="state">{ omember(sn, mn) }</td>
                                            <td>{ m.start.map(short).unwrap_or_default() }</td><td>{ m.end.map(short).unwrap_or_default() }</td>
                                            <td>{ member_select(mn, p) }</td></tr>
                                    }
                                }) }
                            </> }) }
                        </> }
                    }) }
                </tbody>
            </table>
            </div>
            if approvals > 0 {
                <p class="muted">{ format!("{approvals} approval gate(s): tick \"approve\" to approve a request when it is created.") }</p>
            }
            if !r.excluded.is_empty() {
                <h3>{ "Not part of the run" }</h3>
                <ul class="excluded">{ for r.excluded.iter().map(|x| html! { <li><strong>{ x.cluster.clone() }</strong>{ ": " }{ x.message.clone() }</li> }) }</ul>
            }
            if !r.assumptions.is_empty() {
                <details class="notes"><summary>{ "Assumptions" }</summary>
                    <ul>{ for r.assumptions.iter().map(|a| html! { <li><code>{ format!("{}={}", a.option, a.value) }</code>{ " " }{ a.text.clone() }</li> }) }</ul>
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
            cb.emit((m.clone(), MemberMode::from_id(&sel.value())));
        })
    };
    html! {
        <select class="what-if" aria-label={format!("What if for member {member}")} {onchange}>
            { for MemberMode::ALL.iter().map(|m| html! {
                <option value={m.id()} selected={mode == *m}>{ m.label() }</option>
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
