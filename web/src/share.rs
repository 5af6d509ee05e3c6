//! Share links and local persistence.
//!
//! A share link carries the whole [`State`] in the URL fragment (never sent to a server):
//! `#v=<engine version>&s=<base64url(deflate(JSON))>`. The version lets a link opened in
//! another engine version say so instead of silently showing different numbers.

use crate::state::State;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// localStorage key of the last state.
const STORAGE_KEY: &str = "fleet-policy-playground/state";
/// localStorage key of the theme choice.
const THEME_KEY: &str = "fleet-policy-playground/theme";
/// Largest state a link may inflate to (guards against a hostile link).
const MAX_STATE_BYTES: usize = 8 << 20;

/// Encodes a state as a URL fragment (without the `#`).
pub fn encode(state: &State) -> String {
    let json = serde_json::to_vec(state).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    format!(
        "v={}&s={}",
        fleet_policy::VERSION,
        URL_SAFE_NO_PAD.encode(packed)
    )
}

/// A decoded link.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The state.
    pub state: State,
    /// The engine version that wrote the link.
    pub version: String,
}

/// Decodes a URL fragment (with or without the `#`); `None` when it holds no state.
pub fn decode(fragment: &str) -> Option<Result<Decoded, String>> {
    let fragment = fragment.trim_start_matches('#');
    let mut version = None;
    let mut data = None;
    for part in fragment.split('&') {
        match part.split_once('=') {
            Some(("v", v)) => version = Some(v.to_string()),
            Some(("s", s)) => data = Some(s),
            _ => {}
        }
    }
    let data = data?;
    Some((|| {
        let packed = URL_SAFE_NO_PAD
            .decode(data)
            .map_err(|e| format!("the link is damaged (base64: {e})"))?;
        let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_STATE_BYTES)
            .map_err(|e| format!("the link is damaged (deflate: {e:?})"))?;
        let state: State = serde_json::from_slice(&json)
            .map_err(|e| format!("the link's state is not understood: {e}"))?;
        Ok(Decoded {
            state,
            version: version.unwrap_or_else(|| "unknown".into()),
        })
    })())
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// Saves the last state.
pub fn save(state: &State) {
    if let (Some(s), Ok(json)) = (storage(), serde_json::to_string(state)) {
        // A full or disabled storage only loses persistence, never the session.
        let _ = s.set_item(STORAGE_KEY, &json);
    }
}

/// The last saved state.
pub fn load() -> Option<State> {
    let json = storage()?.get_item(STORAGE_KEY).ok().flatten()?;
    serde_json::from_str(&json).ok()
}

/// The saved theme ("light" / "dark"), if the user picked one.
pub fn load_theme() -> Option<String> {
    storage()?.get_item(THEME_KEY).ok().flatten()
}

/// Saves the theme choice.
pub fn save_theme(theme: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(THEME_KEY, theme);
    }
}

/// The page's current fragment.
pub fn current_fragment() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Replaces the fragment without adding a history entry.
pub fn set_fragment(fragment: &str) {
    if let Some(w) = web_sys::window() {
        if let Ok(h) = w.history() {
            let url = format!("#{fragment}");
            let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
    }
}

/// The full share URL for a state.
pub fn url(state: &State) -> String {
    let base = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .map(|h| h.split('#').next().unwrap_or("").to_string())
        .unwrap_or_default();
    format!("{base}#{}", encode(state))
}
