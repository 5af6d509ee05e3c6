//! Where the playground starts: a share link, the last local session, or the first example;
//! and the system's colour scheme.

use crate::gallery::{Example, EXAMPLES};
use crate::share;
use crate::state::{State, Theme};

/// The state of a gallery example.
pub fn example_state(e: &Example) -> State {
    let (fleet, policy) = e.split();
    State {
        fleet: fleet.into(),
        policy: policy.into(),
        at: e.at().map(str::to_string),
        view: e.view,
        what_if: Default::default(),
        example: Some(e.id.to_string()),
    }
}

/// The state in the page's URL fragment, and a notice about it (other engine version, or a
/// damaged link).
pub fn from_link() -> (Option<State>, Option<String>) {
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

/// The state to start with: a share link wins over the last local state, which wins over the
/// default example. The session a link replaces is kept aside, to be restored.
pub fn boot() -> (State, Option<String>) {
    let (linked, mut notice) = from_link();
    let saved = share::load();
    if let (Some(link), Some(saved)) = (&linked, &saved) {
        if link != saved {
            share::save_previous(saved);
            notice.get_or_insert_with(|| "Opened a shared link.".to_string());
        }
    }
    let state = linked
        .or(saved)
        .unwrap_or_else(|| example_state(&EXAMPLES[0]));
    // What the page shows is the session from now on (a reload without the link keeps it).
    share::save(&state);
    (state, notice)
}

/// What `static/start.js` hands a module started again after a trap: the editors' texts and
/// the trap's message (taken once).
pub fn restarted() -> Option<(Option<String>, Option<String>, String)> {
    let global = js_sys::global();
    let key = wasm_bindgen::JsValue::from_str("fleetPlaygroundRestart");
    let v = js_sys::Reflect::get(&global, &key).ok()?;
    if v.is_undefined() || v.is_null() {
        return None;
    }
    let _ = js_sys::Reflect::delete_property(&global, &key);
    let get = |k: &str| {
        js_sys::Reflect::get(&v, &wasm_bindgen::JsValue::from_str(k))
            .ok()
            .and_then(|x| x.as_string())
    };
    Some((
        get("fleet"),
        get("policy"),
        get("error").unwrap_or_default(),
    ))
}

/// The state after a restart: the last saved session with the editors' texts as they were.
pub fn boot_restarted(
    fleet: Option<String>,
    policy: Option<String>,
    error: &str,
) -> (State, String) {
    let mut state = share::load()
        .or_else(|| from_link().0)
        .unwrap_or_else(|| example_state(&EXAMPLES[0]));
    if let Some(f) = fleet {
        state.fleet = f.into();
    }
    if let Some(p) = policy {
        state.policy = p.into();
    }
    let notice = format!(
        "The playground stopped on an internal error ({error}) and was started again with your texts; it evaluates again on your next edit (or Ctrl+Enter). Please report it with your input (Inputs YAML)."
    );
    (state, notice)
}

pub fn system_theme() -> Theme {
    let dark = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches());
    if dark {
        Theme::Dark
    } else {
        Theme::Light
    }
}
