//! The top bar: title, engine version, the evaluation instant, and the actions.

use crate::evaluation::Evaluation;
use crate::state::Theme;
use crate::views::Shared;
use chrono::SecondsFormat;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Props of [`TopBar`].
#[derive(Properties, PartialEq)]
pub struct TopBarProps {
    /// The evaluation shown (its instant, and whether it is "now" or the snapshot).
    pub eval: Shared<Evaluation>,
    /// The theme in force.
    pub theme: Theme,
    /// Whether a result is pinned for comparison.
    pub pinned: bool,
    /// Set the evaluation instant: an RFC 3339 instant, "now", the snapshot, or None.
    pub on_at: Callback<Option<String>>,
    /// Make a share link.
    pub on_share: Callback<()>,
    /// Pin (true) or unpin (false) the result.
    pub on_pin: Callback<bool>,
    /// Download the result JSON.
    pub on_export_json: Callback<()>,
    /// Download the inputs YAML.
    pub on_export_yaml: Callback<()>,
    /// Switch the theme.
    pub on_theme: Callback<()>,
}

/// The browser's offset from UTC, in minutes (the picker is in UTC; the local time is shown).
fn local_offset_min() -> i64 {
    -(js_sys::Date::new_0().get_timezone_offset() as i64)
}

/// The bar.
#[function_component(TopBar)]
pub fn topbar(p: &TopBarProps) -> Html {
    let eval = &p.eval;
    let at_value = eval.at.format("%Y-%m-%dT%H:%M:%S").to_string();
    let offset_min = local_offset_min();
    let offset = format!(
        "UTC{}{:02}:{:02}",
        if offset_min < 0 { '-' } else { '+' },
        offset_min.abs() / 60,
        offset_min.abs() % 60
    );
    let local = chrono::FixedOffset::east_opt((offset_min * 60) as i32)
        .map(|o| eval.at.with_timezone(&o).format("%H:%M").to_string())
        .unwrap_or_default();
    let on_at = p.on_at.reform(|e: Event| {
        let v = e.target_unchecked_into::<HtmlInputElement>().value();
        // datetime-local gives "YYYY-MM-DDTHH:MM[:SS]"; the picker is in UTC.
        let v = if v.len() == 16 { format!("{v}:00") } else { v };
        (!v.is_empty()).then(|| format!("{v}Z"))
    });
    let set = |v: &'static str| p.on_at.reform(move |_| Some(v.to_string()));
    let emit = |cb: &Callback<()>| cb.reform(|_: MouseEvent| ());
    html! {
        <header class="topbar">
            <h1>{ "Fleet Policy" }<span class="tagline">{ " playground" }</span></h1>
            <span class="version" id="engine-version">{ format!("engine {}", fleet_policy::VERSION) }</span>
            <div class="time">
                <label for="eval-time">{ "Evaluation time (UTC)" }</label>
                <input type="datetime-local" id="eval-time" step="1" value={at_value} onchange={on_at} />
                <button type="button" id="time-now" onclick={set("now")} aria-pressed={eval.at_is_now.to_string()}>{ "Now" }</button>
                if let Some(snap) = eval.snapshot {
                    <button type="button" id="time-snapshot" onclick={set(fleet_policy::AT_SNAPSHOT)}
                        aria-pressed={eval.at_is_snapshot.to_string()}
                        title={format!("The input's own instant: its newest heartbeat or observation, {}", snap.to_rfc3339_opts(SecondsFormat::Secs, true))}>{ "Snapshot" }</button>
                }
                <span class="muted local-time">{ format!("= {local} local time ({offset})") }</span>
            </div>
            <div class="actions">
                <button type="button" id="share" onclick={emit(&p.on_share)}>{ "Share link" }</button>
                if p.pinned {
                    <button type="button" id="unpin" onclick={p.on_pin.reform(|_| false)}>{ "Unpin" }</button>
                } else {
                    <button type="button" id="pin" onclick={p.on_pin.reform(|_| true)}>{ "Pin result" }</button>
                }
                <button type="button" id="export-json" onclick={emit(&p.on_export_json)}>{ "Result JSON" }</button>
                <button type="button" id="export-yaml" onclick={emit(&p.on_export_yaml)}>{ "Inputs YAML" }</button>
                <button type="button" id="theme-toggle" onclick={emit(&p.on_theme)}
                    aria-label={format!("Switch to {} mode", p.theme.toggled().id())}>
                    { if p.theme == Theme::Dark { "☀ Light" } else { "☾ Dark" } }
                </button>
            </div>
        </header>
    }
}
