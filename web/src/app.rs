//! The playground's root: it holds the state ([`Model`]) and the latest results, passes them
//! down as props and takes the user's actions back as callbacks.
//!
//! Flow: an action updates the model → [`use_evaluations`] schedules an evaluation →
//! [`Runner::run`] → the parts re-render what changed; the editors get their markers.

use crate::boot::{boot, boot_restarted, example_state, from_link, restarted, system_theme};
use crate::editor::markers;
use crate::evaluation::{FLEET, POLICY};
use crate::gallery::Example;
use crate::model::{Action, Model, Unchanged, Which};
use crate::pacing::use_evaluations;
use crate::runner::{Runner, Shown};
use crate::share;
use crate::state::{State, Theme};
use crate::ui::editor_pane::{EditorPane, EditorView};
use crate::ui::gallery_nav::GalleryNav;
use crate::ui::notice::{NoticeBar, ShareBox};
use crate::ui::result_pane::ResultPane;
use crate::ui::topbar::TopBar;
use crate::views::Shared;
use fleet_policy::EvaluateReport;
use gloo_events::EventListener;
use std::rc::Rc;
use web_sys::KeyboardEvent;
use yew::prelude::*;

/// A notice and whether the session a link replaced can be brought back.
type Notice = Option<(String, bool)>;

/// The playground.
#[function_component(App)]
pub fn app() -> Html {
    // After a trap the module starts again with the editors' texts, and waits for an edit
    // before evaluating (the input may be what tripped the bug).
    let boot = use_memo((), |_| match restarted() {
        Some((fleet, policy, error)) => {
            let (state, notice) = boot_restarted(fleet, policy, &error);
            (state, Some((notice, false)), true)
        }
        None => {
            let (state, notice) = boot();
            (
                state,
                notice.map(|n| (n, share::load_previous().is_some())),
                false,
            )
        }
    });
    let model = use_reducer(|| Model::new(boot.0.clone()));
    let runner = use_mut_ref(Runner::default);
    let shown = {
        let (runner, model, wait) = (runner.clone(), model.clone(), boot.2);
        use_state(move || match wait {
            true => Shown::none(),
            false => runner.borrow_mut().run(&model.state, 0),
        })
    };
    let notice = use_state(|| -> Notice { boot.1.clone() });
    let share_url = use_state(|| None::<String>);
    let theme = use_state(|| {
        share::load_theme()
            .as_deref()
            .and_then(Theme::from_id)
            .unwrap_or_else(system_theme)
    });
    let pinned = use_state(|| None::<(Shared<EvaluateReport>, AttrValue)>);
    let highlights = use_state(|| (Rc::new(Vec::new()), Rc::new(Vec::new())));
    let jump = use_state(|| None::<(Which, u32, u32, u64)>);
    // The newest model, for listeners registered once.
    let latest = use_mut_ref(|| model.clone());
    *latest.borrow_mut() = model.clone();
    use_evaluations(&model, &shown, &runner);
    use_effect_with(*theme, |t| {
        if let Some(el) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = el.set_attribute("data-theme", t.id());
        }
    });
    // A share link pasted into this tab.
    {
        let (latest, notice, share_url, highlights) = (
            latest.clone(),
            notice.clone(),
            share_url.clone(),
            highlights.clone(),
        );
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                EventListener::new(&w, "hashchange", move |_| {
                    let (state, text) = from_link();
                    let model = latest.borrow().clone();
                    if let Some(state) = state {
                        if state != model.state {
                            share::save_previous(&model.state);
                        }
                        highlights.set(Default::default());
                        model.dispatch(Action::Load(state));
                        share_url.set(None);
                    }
                    let can_restore = share::load_previous().is_some();
                    let text = text.or_else(|| can_restore.then(|| "Opened a shared link.".into()));
                    notice.set(text.map(|t| (t, can_restore)));
                })
            });
            move || drop(listener)
        });
    }

    // An edit: the runner notes where the text changed, the model takes the text.
    let on_edit = |which: Which| {
        let (model, runner) = (model.clone(), runner.clone());
        Callback::from(move |(text, unchanged): (Rc<str>, Option<Unchanged>)| {
            runner.borrow_mut().edited(which, &text, unchanged);
            model.dispatch(Action::Edited(which, text));
        })
    };
    let load = {
        let (model, highlights) = (model.clone(), highlights.clone());
        Callback::from(move |state: State| {
            highlights.set(Default::default());
            model.dispatch(Action::Load(state));
        })
    };
    let on_example = {
        let load = load.clone();
        Callback::from(move |id: String| {
            if let Some(e) = Example::find(&id) {
                load.emit(example_state(e));
            }
        })
    };
    let on_select = {
        let (model, runner, shown, highlights) = (
            model.clone(),
            runner.clone(),
            shown.clone(),
            highlights.clone(),
        );
        Callback::from(move |(placement, cluster): (String, String)| {
            let report = &shown.shown.report;
            if let Some(p) = report.placements.iter().find(|p| p.name == placement) {
                let (policy, fleet) =
                    crate::locate::decision_lines(runner.borrow().input(), p, &cluster);
                highlights.set((Rc::new(fleet), Rc::new(policy)));
            }
            model.dispatch(Action::Select(placement, cluster));
        })
    };
    let on_jump = {
        let jump = jump.clone();
        Callback::from(move |(source, line, column): (String, u32, u32)| {
            let which = if source == FLEET {
                Which::Fleet
            } else {
                Which::Policy
            };
            let n = jump.as_ref().map_or(0, |j| j.3 + 1);
            jump.set(Some((which, line, column, n)));
        })
    };
    // Handlers read the state when they run: cloning a large fleet's text on every render
    // would cost the typist.
    let on_share = {
        let (model, share_url) = (model.clone(), share_url.clone());
        Callback::from(move |()| {
            let state = &model.state;
            share::save(state);
            let url = share::url(state);
            share::set_fragment(&share::encode(state));
            if let Some(c) = web_sys::window().map(|w| w.navigator().clipboard()) {
                let _ = c.write_text(&url);
            }
            share_url.set(Some(url));
        })
    };
    let on_pin = {
        let (pinned, report) = (pinned.clone(), shown.current.report.clone());
        Callback::from(move |on: bool| {
            let label = format!(
                "pinned at {}",
                crate::evaluation::now().format("%H:%M:%S UTC")
            );
            pinned.set(on.then(|| (Shared(report.clone()), label.into())));
        })
    };
    let export = |name: &'static str, mime: &'static str, json: bool| {
        let (model, eval) = (model.clone(), shown.current.clone());
        Callback::from(move |()| {
            let text = if json {
                crate::export::result_json(&model.state, &eval)
            } else {
                crate::export::inputs_yaml(&model.state, &eval)
            };
            crate::export::download(name, mime, &text);
        })
    };
    let on_theme = {
        let theme = theme.clone();
        Callback::from(move |()| {
            let next = theme.toggled();
            share::save_theme(next.id());
            theme.set(next);
        })
    };
    let on_restore = {
        let (load, notice) = (load.clone(), notice.clone());
        Callback::from(move |()| {
            if let Some(previous) = share::take_previous() {
                load.emit(previous);
                share::set_fragment("");
            }
            notice.set(None);
        })
    };
    let on_global_key = {
        let model = model.clone();
        Callback::from(move |e: KeyboardEvent| {
            if (e.ctrl_key() || e.meta_key()) && e.key() == "Enter" {
                e.prevent_default();
                model.dispatch(Action::Evaluate);
            }
        })
    };

    // The editors' texts change only on a load: typing flows up, never back down.
    let texts = {
        let model = model.clone();
        use_memo(model.loaded, move |_| {
            (
                Shared(model.state.fleet.clone()),
                Shared(model.state.policy.clone()),
            )
        })
    };
    let report = Shared(shown.current.report.clone());
    let fleet_markers = use_memo(report.clone(), |r| markers(r, FLEET));
    let policy_markers = use_memo(report, |r| markers(r, POLICY));
    let focus = |w: Which| (*jump).filter(|j| j.0 == w).map(|j| (j.1, j.2, j.3));
    let fleet = EditorView {
        text: texts.0.clone(),
        markers: fleet_markers,
        highlight: highlights.0.clone(),
        focus: focus(Which::Fleet),
    };
    let policy = EditorView {
        text: texts.1.clone(),
        markers: policy_markers,
        highlight: highlights.1.clone(),
        focus: focus(Which::Policy),
    };
    let state = &model.state;
    let dispatcher = model.dispatcher().to_callback();
    html! {
        <div class="app" onkeydown={on_global_key} data-eval-seq={shown.seq.to_string()}>
            <TopBar eval={shown.current.clone()} theme={*theme} pinned={pinned.is_some()}
                on_at={dispatcher.reform(Action::SetAt)} on_share={on_share}
                on_pin={on_pin} on_export_json={export("fleet-policy-result.json", "application/json", true)}
                on_export_yaml={export("fleet-policy-inputs.yaml", "application/yaml", false)} on_theme={on_theme} />
            if let Some((text, can_restore)) = &*notice {
                <NoticeBar text={text.clone()} can_restore={*can_restore} on_restore={on_restore}
                    on_dismiss={{ let n = notice.clone(); Callback::from(move |()| n.set(None)) }} />
            }
            if let Some(url) = &*share_url {
                <ShareBox url={url.clone()} at_now={shown.current.at_is_now} />
            }
            <GalleryNav current={state.example.clone()} on_example={on_example} />
            <main class="panes">
                <EditorPane fleet={fleet} policy={policy}
                    on_fleet={on_edit(Which::Fleet)} on_policy={on_edit(Which::Policy)} />
                <ResultPane current={shown.current.clone()} shown={shown.shown.clone()} facts={shown.facts.clone()}
                    view={state.view} selected={model.selected.clone()} what_if={state.what_if.clone()}
                    pinned={(*pinned).clone()} on_jump={on_jump}
                    on_view={dispatcher.reform(Action::SetView)} on_select={on_select}
                    on_member={dispatcher.reform(|(m, mode)| Action::Member(m, mode))}
                    on_approve={dispatcher.reform(|(r, on)| Action::Approve(r, on))}
                    on_observe={dispatcher.reform(Action::Observe)} on_at={dispatcher.reform(Action::SetAt)} />
            </main>
            <footer class="footer muted">
                { "Runs entirely in your browser: nothing is uploaded. Share links keep the state in the URL fragment." }
            </footer>
        </div>
    }
}
