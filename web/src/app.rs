//! The playground's root component: two editors in, engine results out.
//!
//! Flow: an edit updates [`State`] and schedules an evaluation (adaptive debounce: the delay
//! follows how long the last evaluation took, so small inputs update at once and large ones
//! never queue up behind the keyboard) → [`evaluation::evaluate`] → the views render the
//! report, the editors get markers, the state is saved locally.

use crate::compare::{diff, Change};
use crate::editor::{Editor, Marker};
use crate::evaluation::{self, Evaluation, FLEET, POLICY};
use crate::gallery::{Example, EXAMPLES};
use crate::json::arr;
use crate::share;
use crate::state::{State, View};
use crate::views::diagnostics::Problems;
use crate::views::disruption::DisruptionView;
use crate::views::placement::{Facts, PlacementView};
use crate::views::rollout::RolloutView;
use chrono::SecondsFormat;
use fleet_policy::Diagnostic;
use gloo_timers::callback::Timeout;
use serde_json::Value;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

/// Longest evaluation delay after a keystroke.
const MAX_DEBOUNCE_MS: f64 = 150.0;
/// Evaluations faster than this run right after the keystroke.
const FAST_MS: f64 = 60.0;
/// Local persistence waits for this pause in typing.
const SAVE_AFTER_MS: u32 = 400;

/// Which editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// The Fleet editor.
    Fleet,
    /// The Policy editor.
    Policy,
}

/// Messages.
pub enum Msg {
    /// An editor's text changed.
    Edited(Which, String),
    /// Run the engine now.
    Evaluate,
    /// Switch view.
    SetView(View),
    /// Set the evaluation instant (None = now).
    SetAt(Option<String>),
    /// Load a gallery example.
    LoadExample(String),
    /// Jump to a diagnostic.
    Jump(String, u32, u32),
    /// Select a cluster of a placement.
    Select(String, String),
    /// Set a member's what-if.
    Member(String, String),
    /// Approve a request.
    Approve(String, bool),
    /// Observe the rollout at an instant.
    Observe(Option<String>),
    /// Pin the current result for comparison.
    Pin,
    /// Drop the pinned result.
    Unpin,
    /// Download the result JSON.
    ExportJson,
    /// Download the inputs YAML.
    ExportYaml,
    /// Put a share link in the URL and show it.
    Share,
    /// Toggle light/dark.
    ToggleTheme,
    /// Hide the notice.
    DismissNotice,
    /// The URL fragment changed (a share link pasted into this tab).
    OpenLink,
    /// Bring back the session a share link replaced.
    RestorePrevious,
    /// Save the state locally (typing paused).
    Save,
}

/// What one evaluation shows, split for the views.
struct Shown {
    eval: Rc<Evaluation>,
    errors: Rc<Vec<Diagnostic>>,
    warnings: Rc<Vec<Diagnostic>>,
    placements: Rc<Vec<Value>>,
    node_pools: Rc<Vec<Value>>,
    rollouts: Rc<Vec<Value>>,
    observed: Option<Rc<Vec<Value>>>,
    facts: Rc<Facts>,
    /// The results shown are the last ones that evaluated: the input has errors now and
    /// yields none.
    stale: bool,
}

/// The playground.
pub struct App {
    state: State,
    shown: Shown,
    selected: Option<(String, String)>,
    pinned: Option<(Rc<fleet_policy::EvaluateReport>, String)>,
    notice: Option<String>,
    share_url: Option<String>,
    theme: String,
    fleet_ref: NodeRef,
    policy_ref: NodeRef,
    fleet_editor: Option<Editor>,
    policy_editor: Option<Editor>,
    pending: Option<Timeout>,
    last_cost_ms: f64,
    seq: u64,
    dirty_markers: bool,
    _on_hash: Option<gloo_events::EventListener>,
    /// Every label/property of every cluster, for the fleet text it was read from (typing in
    /// the policy editor does not re-read a large fleet).
    fleet_facts: std::cell::RefCell<(String, Rc<Facts>)>,
    /// The editors' texts, read (see [`evaluation::Parsed`]).
    parsed: std::cell::RefCell<evaluation::Parsed>,
    save_timer: Option<Timeout>,
    /// The markers each editor has (fleet, policy).
    sent_markers: (Option<Vec<Marker>>, Option<Vec<Marker>>),
}

fn perf() -> Option<web_sys::Performance> {
    web_sys::window()?.performance()
}

fn mark(name: &str) {
    if let Some(p) = perf() {
        let _ = p.mark(name);
    }
}

fn now_ms() -> f64 {
    perf().map(|p| p.now()).unwrap_or_else(js_sys::Date::now)
}

fn example_state(e: &Example) -> State {
    let (fleet, policy) = e.split();
    State {
        fleet,
        policy,
        at: e.at().map(str::to_string),
        view: e.view,
        what_if: Default::default(),
        example: Some(e.id.to_string()),
    }
}

/// The state in the page's URL fragment, and a notice about it (other engine version, or a
/// damaged link).
fn from_link() -> (Option<State>, Option<String>) {
    match share::decode(&share::current_fragment()) {
        Some(Ok(d)) => {
            let notice = (d.version != fleet_policy::VERSION).then(|| {
                format!(
                    "This link was made with engine {}; this playground runs engine {}. Results may differ from what the link's author saw.",
                    d.version,
                    fleet_policy::VERSION
                )
            });
            (Some(d.state), notice)
        }
        Some(Err(e)) => (
            None,
            Some(format!(
                "The share link could not be opened: {e}. Showing your last session instead."
            )),
        ),
        None => (None, None),
    }
}

fn system_theme() -> String {
    let dark = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches());
    if dark { "dark" } else { "light" }.to_string()
}

fn apply_theme(theme: &str) {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = el.set_attribute("data-theme", theme);
    }
}

impl App {
    fn compute(&self) -> Shown {
        let eval = evaluation::evaluate(&self.state, &mut self.parsed.borrow_mut());
        let list = |k: &str| Rc::new(arr(&eval.report, k).to_vec());
        let facts =
            if self.state.view == View::Placement && !arr(&eval.report, "placements").is_empty() {
                let mut cache = self.fleet_facts.borrow_mut();
                if cache.0 != self.state.fleet {
                    *cache = (
                        self.state.fleet.clone(),
                        Rc::new(crate::locate::all_facts(&self.parsed.borrow().input)),
                    );
                }
                crate::locate::facts(&cache.1, &self.state.policy)
            } else {
                Facts::new()
            };
        Shown {
            errors: Rc::new(eval.errors.clone()),
            warnings: Rc::new(eval.warnings.clone()),
            placements: list("placements"),
            node_pools: list("nodePools"),
            rollouts: list("rollouts"),
            observed: eval.observed_rollouts.clone().map(Rc::new),
            facts: Rc::new(facts),
            eval: Rc::new(eval),
            stale: false,
        }
    }

    /// The new results, or — while the input has errors that leave nothing to show (a YAML
    /// syntax error mid-typing) — the last results that evaluated, marked stale.
    fn keep_last_good(&self, mut next: Shown) -> Shown {
        let empty =
            next.placements.is_empty() && next.node_pools.is_empty() && next.rollouts.is_empty();
        let had = !self.shown.placements.is_empty()
            || !self.shown.node_pools.is_empty()
            || !self.shown.rollouts.is_empty();
        if !next.errors.is_empty() && empty && had {
            next.placements = self.shown.placements.clone();
            next.node_pools = self.shown.node_pools.clone();
            next.rollouts = self.shown.rollouts.clone();
            next.observed = self.shown.observed.clone();
            next.facts = self.shown.facts.clone();
            next.stale = true;
        }
        next
    }

    fn refresh(&mut self) {
        let started = now_ms();
        let next = self.compute();
        self.shown = self.keep_last_good(next);
        self.seq += 1;
        self.dirty_markers = true;
        self.save_timer = None;
        share::save(&self.state);
        self.last_cost_ms = now_ms() - started;
    }

    /// After a keystroke: evaluate now, save the state once typing pauses (writing a large
    /// state to localStorage on every keystroke would cost the typist).
    fn refresh_typing(&mut self, ctx: &Context<Self>) {
        let started = now_ms();
        mark("fleet:evaluate-start");
        let next = self.compute();
        self.shown = self.keep_last_good(next);
        mark("fleet:evaluate-end");
        self.seq += 1;
        self.dirty_markers = true;
        let link = ctx.link().clone();
        self.save_timer = Some(Timeout::new(SAVE_AFTER_MS, move || {
            link.send_message(Msg::Save)
        }));
        self.last_cost_ms = now_ms() - started;
    }

    /// Sends each editor its markers, skipping an editor whose markers did not change (typing
    /// in the policy editor leaves a large fleet's markers alone).
    fn push_markers(&mut self) {
        let of = |src: &str| -> Vec<Marker> {
            let e = self.shown.errors.iter().map(|d| (d, "error"));
            let w = self.shown.warnings.iter().map(|d| (d, "warning"));
            e.chain(w)
                .filter(|(d, _)| d.source == src)
                .map(|(d, sev)| Marker {
                    line: d.line,
                    column: d.column,
                    severity: sev,
                    message: d.message.clone(),
                })
                .collect()
        };
        let (fleet, policy) = (of(FLEET), of(POLICY));
        if let Some(e) = &self.fleet_editor {
            if self.sent_markers.0.as_ref() != Some(&fleet) {
                e.set_markers(&fleet);
                self.sent_markers.0 = Some(fleet);
            }
        }
        if let Some(e) = &self.policy_editor {
            if self.sent_markers.1.as_ref() != Some(&policy) {
                e.set_markers(&policy);
                self.sent_markers.1 = Some(policy);
            }
        }
    }

    fn load_state(&mut self, state: State) {
        self.state = state;
        // New texts: the editors' old markers no longer apply.
        self.sent_markers = (None, None);
        self.selected = None;
        if let Some(e) = &self.fleet_editor {
            e.set_text(&self.state.fleet);
        }
        if let Some(e) = &self.policy_editor {
            e.set_text(&self.state.policy);
        }
        self.refresh();
    }

    fn clear_highlights(&self) {
        for e in [&self.fleet_editor, &self.policy_editor]
            .into_iter()
            .flatten()
        {
            e.highlight(Vec::new());
        }
    }
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(_ctx: &Context<Self>) -> Self {
        // A share link wins over the last local state, which wins over the default example.
        // The session a link replaces is kept aside, to be restored.
        let (from_link, mut notice) = from_link();
        let saved = share::load();
        if let (Some(link), Some(saved)) = (&from_link, &saved) {
            if link != saved {
                share::save_previous(saved);
                notice.get_or_insert_with(|| "Opened a shared link.".to_string());
            }
        }
        let state = from_link
            .or(saved)
            .unwrap_or_else(|| example_state(&EXAMPLES[0]));
        let theme = share::load_theme().unwrap_or_else(system_theme);
        apply_theme(&theme);
        let mut app = App {
            state,
            shown: Shown {
                eval: Rc::new(Evaluation {
                    at: Default::default(),
                    at_is_now: true,
                    at_is_snapshot: false,
                    snapshot: None,
                    notices: Vec::new(),
                    report: Value::Null,
                    typed: Rc::default(),
                    observed_rollouts: None,
                    errors: vec![],
                    warnings: vec![],
                    engine_ms: 0.0,
                }),
                errors: Rc::default(),
                warnings: Rc::default(),
                placements: Rc::default(),
                node_pools: Rc::default(),
                rollouts: Rc::default(),
                observed: None,
                facts: Rc::default(),
                stale: false,
            },
            selected: None,
            pinned: None,
            notice,
            share_url: None,
            theme,
            fleet_ref: NodeRef::default(),
            policy_ref: NodeRef::default(),
            fleet_editor: None,
            policy_editor: None,
            pending: None,
            last_cost_ms: 0.0,
            seq: 0,
            dirty_markers: true,
            _on_hash: None,
            fleet_facts: Default::default(),
            parsed: Default::default(),
            save_timer: None,
            sent_markers: (None, None),
        };
        app.refresh();
        app
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Edited(which, text) => {
                match which {
                    Which::Fleet => self.state.fleet = text,
                    Which::Policy => self.state.policy = text,
                }
                self.state.example = None;
                // Adaptive debounce: fast evaluations run on the next task (keystrokes already
                // queued are handled first); slow ones wait about as long as they take, so
                // typing never queues up behind the engine.
                let delay = if self.last_cost_ms < FAST_MS {
                    0
                } else {
                    self.last_cost_ms.min(MAX_DEBOUNCE_MS) as u32
                };
                let link = ctx.link().clone();
                // Replacing the previous timeout cancels it.
                self.pending = Some(Timeout::new(delay, move || {
                    link.send_message(Msg::Evaluate)
                }));
                false
            }
            Msg::Evaluate => {
                self.pending = None;
                self.refresh_typing(ctx);
                true
            }
            Msg::Save => {
                self.save_timer = None;
                share::save(&self.state);
                false
            }
            Msg::SetView(v) => {
                self.state.view = v;
                self.refresh();
                true
            }
            Msg::SetAt(at) => {
                self.state.at = at;
                self.refresh();
                true
            }
            Msg::LoadExample(id) => {
                if let Some(e) = Example::find(&id) {
                    self.clear_highlights();
                    self.load_state(example_state(e));
                }
                true
            }
            Msg::Jump(source, line, column) => {
                let ed = if source == FLEET {
                    &self.fleet_editor
                } else {
                    &self.policy_editor
                };
                if let Some(e) = ed {
                    e.focus(line, column);
                }
                false
            }
            Msg::Select(placement, cluster) => {
                let p = self
                    .shown
                    .placements
                    .iter()
                    .find(|p| crate::json::s(p, "name") == placement);
                if let Some(p) = p {
                    let (pl, fl) = crate::locate::decision_lines(
                        &self.state.policy,
                        &self.state.fleet,
                        p,
                        &cluster,
                    );
                    if let Some(e) = &self.policy_editor {
                        e.highlight(pl);
                    }
                    if let Some(e) = &self.fleet_editor {
                        e.highlight(fl);
                    }
                }
                self.selected = Some((placement, cluster));
                true
            }
            Msg::Member(m, mode) => {
                self.state.what_if.set_member_mode(&m, &mode);
                self.refresh();
                true
            }
            Msg::Approve(r, on) => {
                let a = &mut self.state.what_if.approve;
                a.retain(|x| *x != r);
                if on {
                    a.push(r);
                    a.sort();
                }
                self.refresh();
                true
            }
            Msg::Observe(t) => {
                self.state.what_if.observe = t;
                self.refresh();
                true
            }
            Msg::Pin => {
                let label = format!(
                    "pinned at {}",
                    chrono::DateTime::from_timestamp_millis(js_sys::Date::now() as i64)
                        .unwrap_or_default()
                        .format("%H:%M:%S UTC")
                );
                self.pinned = Some((self.shown.eval.typed.clone(), label));
                true
            }
            Msg::Unpin => {
                self.pinned = None;
                true
            }
            Msg::ExportJson => {
                crate::export::download(
                    "fleet-policy-result.json",
                    "application/json",
                    &crate::export::result_json(&self.state, &self.shown.eval),
                );
                false
            }
            Msg::ExportYaml => {
                crate::export::download(
                    "fleet-policy-inputs.yaml",
                    "application/yaml",
                    &crate::export::inputs_yaml(&self.state, &self.shown.eval),
                );
                false
            }
            Msg::Share => {
                share::save(&self.state);
                let url = share::url(&self.state);
                share::set_fragment(&share::encode(&self.state));
                if let Some(c) = web_sys::window().map(|w| w.navigator().clipboard()) {
                    let _ = c.write_text(&url);
                }
                self.share_url = Some(url);
                true
            }
            Msg::ToggleTheme => {
                self.theme = if self.theme == "dark" {
                    "light"
                } else {
                    "dark"
                }
                .to_string();
                apply_theme(&self.theme);
                share::save_theme(&self.theme);
                true
            }
            Msg::DismissNotice => {
                self.notice = None;
                true
            }
            Msg::OpenLink => {
                let (state, notice) = from_link();
                if let Some(state) = state {
                    if state != self.state {
                        share::save_previous(&self.state);
                    }
                    self.clear_highlights();
                    self.load_state(state);
                    self.share_url = None;
                }
                self.notice = notice.or_else(|| {
                    share::load_previous().map(|_| "Opened a shared link.".to_string())
                });
                true
            }
            Msg::RestorePrevious => {
                if let Some(previous) = share::take_previous() {
                    self.clear_highlights();
                    self.load_state(previous);
                    share::set_fragment("");
                }
                self.notice = None;
                true
            }
        }
    }

    fn rendered(&mut self, ctx: &Context<Self>, first_render: bool) {
        if first_render {
            let link = ctx.link().clone();
            if let Some(el) = self.fleet_ref.cast::<web_sys::Element>() {
                let l = link.clone();
                self.fleet_editor = Some(Editor::mount(
                    &el,
                    &self.state.fleet,
                    "Fleet YAML",
                    move |t| l.send_message(Msg::Edited(Which::Fleet, t)),
                ));
            }
            if let Some(el) = self.policy_ref.cast::<web_sys::Element>() {
                let l = link;
                self.policy_editor = Some(Editor::mount(
                    &el,
                    &self.state.policy,
                    "Policy YAML",
                    move |t| l.send_message(Msg::Edited(Which::Policy, t)),
                ));
            }
            let l = ctx.link().clone();
            self._on_hash = web_sys::window().map(|w| {
                gloo_events::EventListener::new(&w, "hashchange", move |_| {
                    l.send_message(Msg::OpenLink)
                })
            });
            mark("fleet:first-result");
        }
        if self.dirty_markers {
            self.push_markers();
            self.dirty_markers = false;
            mark("fleet:result");
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let eval = &self.shown.eval;
        let at_value = eval.at.format("%Y-%m-%dT%H:%M:%S").to_string();
        let offset_min = -(js_sys::Date::new_0().get_timezone_offset() as i64);
        let offset = format!(
            "UTC{}{:02}:{:02}",
            if offset_min < 0 { '-' } else { '+' },
            offset_min.abs() / 60,
            offset_min.abs() % 60
        );
        let local = chrono::FixedOffset::east_opt((offset_min * 60) as i32)
            .map(|o| eval.at.with_timezone(&o).format("%H:%M").to_string())
            .unwrap_or_default();
        let on_at = link.callback(|e: Event| {
            let v = e.target_unchecked_into::<HtmlInputElement>().value();
            // datetime-local gives "YYYY-MM-DDTHH:MM[:SS]"; the picker is in UTC.
            let v = if v.len() == 16 { format!("{v}:00") } else { v };
            Msg::SetAt(if v.is_empty() {
                None
            } else {
                Some(format!("{v}Z"))
            })
        });
        let on_example = link.callback(|e: Event| {
            Msg::LoadExample(e.target_unchecked_into::<HtmlSelectElement>().value())
        });
        let current_example = self.state.example.as_deref().and_then(Example::find);
        let tab = |v: View| {
            let selected = self.state.view == v;
            let count = match v {
                View::Placement => self.shown.placements.len(),
                View::Disruption => self.shown.node_pools.len(),
                View::Rollout => self.shown.rollouts.len(),
            };
            let onkeydown = link.batch_callback(move |e: KeyboardEvent| {
                let k = View::ALL.iter().position(|x| *x == v).unwrap_or(0);
                match e.key().as_str() {
                    "ArrowRight" => Some(Msg::SetView(View::ALL[(k + 1) % 3])),
                    "ArrowLeft" => Some(Msg::SetView(View::ALL[(k + 2) % 3])),
                    _ => None,
                }
            });
            html! {
                <button type="button" role="tab" id={format!("tab-{}", v.id())} aria-selected={selected.to_string()}
                    aria-controls="result-panel" tabindex={if selected { "0" } else { "-1" }}
                    class={classes!("tab", selected.then_some("active"))}
                    onclick={link.callback(move |_| Msg::SetView(v))} {onkeydown}>
                    { v.label() }<span class="tab-count">{ count }</span>
                </button>
            }
        };
        let on_global_key = link.batch_callback(|e: KeyboardEvent| {
            if (e.ctrl_key() || e.meta_key()) && e.key() == "Enter" {
                e.prevent_default();
                Some(Msg::Evaluate)
            } else {
                None
            }
        });
        let changes: Option<Vec<Change>> = self.pinned.as_ref().map(|(p, _)| diff(p, &eval.typed));
        html! {
            <div class="app" onkeydown={on_global_key} data-eval-seq={self.seq.to_string()}>
                <header class="topbar">
                    <h1>{ "Fleet Policy" }<span class="tagline">{ " playground" }</span></h1>
                    <span class="version" id="engine-version">{ format!("engine {}", fleet_policy::VERSION) }</span>
                    <div class="time">
                        <label for="eval-time">{ "Evaluation time (UTC)" }</label>
                        <input type="datetime-local" id="eval-time" step="1" value={at_value} onchange={on_at} />
                        <button type="button" id="time-now" onclick={link.callback(|_| Msg::SetAt(Some("now".to_string())))} aria-pressed={eval.at_is_now.to_string()}>{ "Now" }</button>
                        if let Some(snap) = eval.snapshot {
                            <button type="button" id="time-snapshot" onclick={link.callback(|_| Msg::SetAt(Some(fleet_policy::AT_SNAPSHOT.to_string())))}
                                aria-pressed={eval.at_is_snapshot.to_string()}
                                title={format!("The input's own instant: its newest heartbeat or observation, {}", snap.to_rfc3339_opts(SecondsFormat::Secs, true))}>{ "Snapshot" }</button>
                        }
                        <span class="muted local-time">{ format!("= {local} local time ({offset})") }</span>
                    </div>
                    <div class="actions">
                        <button type="button" id="share" onclick={link.callback(|_| Msg::Share)}>{ "Share link" }</button>
                        if self.pinned.is_none() {
                            <button type="button" id="pin" onclick={link.callback(|_| Msg::Pin)}>{ "Pin result" }</button>
                        } else {
                            <button type="button" id="unpin" onclick={link.callback(|_| Msg::Unpin)}>{ "Unpin" }</button>
                        }
                        <button type="button" id="export-json" onclick={link.callback(|_| Msg::ExportJson)}>{ "Result JSON" }</button>
                        <button type="button" id="export-yaml" onclick={link.callback(|_| Msg::ExportYaml)}>{ "Inputs YAML" }</button>
                        <button type="button" id="theme-toggle" onclick={link.callback(|_| Msg::ToggleTheme)}
                            aria-label={format!("Switch to {} mode", if self.theme == "dark" { "light" } else { "dark" })}>
                            { if self.theme == "dark" { "☀ Light" } else { "☾ Dark" } }
                        </button>
                    </div>
                </header>
                if let Some(n) = &self.notice {
                    <div class="notice" role="status" id="notice">{ n.clone() }
                        if share::load_previous().is_some() {
                            { " " }<button type="button" id="restore-previous" onclick={link.callback(|_| Msg::RestorePrevious)}>{ "Restore your previous session" }</button>
                        }
                        <button type="button" onclick={link.callback(|_| Msg::DismissNotice)} aria-label="Dismiss notice">{ "×" }</button></div>
                }
                if let Some(u) = &self.share_url {
                    <div class="share-box" role="status">
                        <label for="share-url">{ "Share link (copied; it holds the whole state and the engine version):" }</label>
                        <input id="share-url" type="text" readonly=true value={u.clone()} />
                    </div>
                }
                <nav class="gallery" aria-label="Examples">
                    <label for="example-select">{ "Example" }</label>
                    <select id="example-select" onchange={on_example}>
                        <option value="" selected={current_example.is_none()} disabled=true>{ "Your own input…" }</option>
                        { for EXAMPLES.iter().map(|e| html! {
                            <option value={e.id} selected={current_example.is_some_and(|c| c.id == e.id)}>{ format!("{} — {}", e.view.label(), e.title) }</option>
                        }) }
                    </select>
                    <p class="example-description" id="example-description">
                        { current_example.map(|e| e.description()).unwrap_or("Edited input. Pick an example to start again.") }
                    </p>
                </nav>
                <main class="panes">
                    <section class="pane editors" aria-label="Input">
                        <div class="editor-block">
                            <h2 class="pane-title" id="fleet-title">{ "Fleet" }<span class="muted">{ " — MemberClusters, FleetMembers, NodeCounts, Nodes…" }</span></h2>
                            <div class="editor" id="fleet-editor" ref={self.fleet_ref.clone()} aria-labelledby="fleet-title"></div>
                        </div>
                        <div class="editor-block">
                            <h2 class="pane-title" id="policy-title">{ "Policy" }<span class="muted">{ " — placements, NodePools, update runs…" }</span></h2>
                            <div class="editor" id="policy-editor" ref={self.policy_ref.clone()} aria-labelledby="policy-title"></div>
                        </div>
                        <p class="muted hint">{ "Any supported kind may go in either editor. Results update as you type; Ctrl+Enter evaluates at once." }</p>
                    </section>
                    <section class="pane result-pane" aria-label="Result">
                        <Problems errors={self.shown.errors.clone()} warnings={self.shown.warnings.clone()}
                            on_jump={link.callback(|(s, l, c)| Msg::Jump(s, l, c))} />
                        if !eval.notices.is_empty() {
                            <ul class="notices" id="notices" aria-label="About the input">
                                { for eval.notices.iter().map(|n| html! {
                                    <li class="input-notice" data-kind={serde_json::to_value(n.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()}>
                                        { n.message.clone() }
                                        if n.kind == fleet_policy::notice::NoticeKind::StaleHeartbeats && n.snapshot.is_some() {
                                            { " " }<button type="button" class="to-snapshot" onclick={link.callback(|_| Msg::SetAt(Some(fleet_policy::AT_SNAPSHOT.to_string())))}>{ "Evaluate at the snapshot" }</button>
                                        }
                                    </li>
                                }) }
                            </ul>
                        }
                        if self.shown.stale {
                            <p class="stale-label" id="stale-label" role="status">{ "Showing the last result that evaluated; fix the errors to update it." }</p>
                        }
                        if let (Some(ch), Some((_, label))) = (&changes, &self.pinned) {
                            <section class="compare" id="compare" aria-label="Changes since the pinned result">
                                <h2>{ format!("Changes since the result {label}") }</h2>
                                if ch.is_empty() {
                                    <p class="muted">{ "No change." }</p>
                                } else {
                                    <ul>{ for ch.iter().map(|c| html! { <li><span class="area">{ c.area.clone() }</span>{ " " }{ c.text.clone() }</li> }) }</ul>
                                }
                            </section>
                        }
                        <div class="tabs" role="tablist" aria-label="Result views">
                            { tab(View::Placement) }{ tab(View::Disruption) }{ tab(View::Rollout) }
                        </div>
                        <div id="result-panel" role="tabpanel" aria-labelledby={format!("tab-{}", self.state.view.id())}
                            class={classes!(format!("view-{}", self.state.view.id()), self.shown.stale.then_some("stale"))}>
                            <p class="muted evaluated">{ format!("Evaluated at {}{} in {:.1} ms", eval.at.to_rfc3339_opts(SecondsFormat::Secs, true),
                                if eval.at_is_now { " (now)" } else if eval.at_is_snapshot { " (the input's snapshot: its newest heartbeat or observation)" } else { "" }, eval.engine_ms) }</p>
                            { match self.state.view {
                                View::Placement => html! {
                                    <PlacementView placements={self.shown.placements.clone()} facts={self.shown.facts.clone()}
                                        selected={self.selected.clone()} on_select={link.callback(|(p, c)| Msg::Select(p, c))} />
                                },
                                View::Disruption => html! { <DisruptionView node_pools={self.shown.node_pools.clone()} at={eval.at} /> },
                                View::Rollout => html! {
                                    <RolloutView rollouts={self.shown.rollouts.clone()} observed={self.shown.observed.clone()}
                                        what_if={self.state.what_if.clone()}
                                        on_member={link.callback(|(m, mode)| Msg::Member(m, mode))}
                                        on_approve={link.callback(|(r, on)| Msg::Approve(r, on))}
                                        on_observe={link.callback(Msg::Observe)} />
                                },
                            } }
                        </div>
                    </section>
                </main>
                <footer class="footer muted">
                    { "Runs entirely in your browser: nothing is uploaded. Share links keep the state in the URL fragment." }
                </footer>
            </div>
        }
    }
}
