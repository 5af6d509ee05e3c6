//! The playground's root component: editor in, engine result out.

use crate::views::{DiagnosticsPanel, PlacementView};
use fleet_policy::{PlaceOptions, PlacementReport, Source};
use gloo_timers::callback::Timeout;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

/// The example shown when the page opens.
pub const DEFAULT_EXAMPLE: &str = include_str!("../../static/examples/pick-all-by-label.yaml");

/// Evaluation delay after the last keystroke, so typing never waits for the engine.
const DEBOUNCE_MS: u32 = 120;

/// "Now", read at the boundary: the engine itself never reads the clock.
fn now() -> chrono::DateTime<chrono::Utc> {
    let ms = js_sys::Date::now() as i64;
    chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

fn evaluate(yaml: &str) -> PlacementReport {
    fleet_policy::place(&[Source::new("policy", yaml)], &PlaceOptions::at(now()))
}

/// The playground.
#[function_component(App)]
pub fn app() -> Html {
    let report = use_state(|| Rc::new(evaluate(DEFAULT_EXAMPLE)));
    let pending: Rc<RefCell<Option<Timeout>>> = use_mut_ref(|| None);

    let oninput = {
        let report = report.clone();
        Callback::from(move |e: InputEvent| {
            let text = e.target_unchecked_into::<HtmlTextAreaElement>().value();
            let report = report.clone();
            let timeout = Timeout::new(DEBOUNCE_MS, move || report.set(Rc::new(evaluate(&text))));
            // Dropping the previous timeout cancels it.
            pending.borrow_mut().replace(timeout);
        })
    };

    html! {
        <div class="app">
            <header class="topbar">
                <h1>{ "Fleet Policy" }</h1>
                <span class="tagline">{ "KubeFleet placement, evaluated in your browser" }</span>
                <span class="version">{ format!("engine {}", fleet_policy::VERSION) }</span>
            </header>
            <main class="panes">
                <section class="pane editor-pane" aria-label="Input">
                    <label for="policy-editor" class="pane-title">{ "Fleet and policy (YAML)" }</label>
                    <textarea id="policy-editor" class="editor" spellcheck="false"
                        value={DEFAULT_EXAMPLE} {oninput} />
                </section>
                <section class="pane result-pane" aria-label="Result">
                    <DiagnosticsPanel errors={report.errors.clone()} warnings={report.warnings.clone()} />
                    { for report.placements.iter().map(|p| html! { <PlacementView placement={p.clone()} /> }) }
                </section>
            </main>
        </div>
    }
}
