//! The JavaScript API (wasm-bindgen): one function per engine call, each taking the YAML text
//! and optional options (JSON text) and returning the result as JSON text, identical to the
//! CLI's JSON; the npm wrapper parses it into plain objects. Bad input is reported inside the
//! result; only API misuse throws.
use crate::options_json::Json;
use crate::report::{options_from_json, EvaluateOptions};
use crate::{Input, Source};
use wasm_bindgen::prelude::*;

// Both directions cross the boundary as JSON text: the npm wrapper (`engine/npm/index.js`)
// passes `JSON.stringify(options)` and `JSON.parse`s the result. One string copy plus the JS
// engine's native JSON parser is far faster for large results than building the objects
// property by property through wasm-bindgen calls, and the text is exactly the CLI's JSON.

/// Reads the options JSON object, which must carry `at` (the npm wrapper fills in the current
/// time: the JS boundary is the one place where "now" is read). Returns the source name too:
/// `options.source` names the YAML in diagnostics, as a file name does on the CLI.
/// `source` stays in the object (every engine ignores keys it does not know): removing it
/// cost the map's removal code in the wasm.
fn options_and_source(options: Option<String>) -> Result<(Json, String), JsError> {
    let value = options_json(options)?;
    let source = match value.get("source") {
        None | Some(Json::Null) => "input".to_string(),
        Some(Json::Str(s)) => s.clone(),
        Some(_) => return Err(JsError::new("options.source must be a string")),
    };
    Ok((value, source))
}

/// The options text read as [`Json`] by the engine's YAML reader (JSON is YAML flow syntax):
/// serde_json's parser and `Value` cost ~30 KB of wasm. A syntax error is the YAML reader's
/// message; the npm wrapper always passes `JSON.stringify` output.
fn options_json(options: Option<String>) -> Result<Json, JsError> {
    let mut value = match options.as_deref() {
        None | Some("") => Json::Null,
        Some(text) => Json::parse(text)
            .map_err(|e| JsError::new(&format!("options must be an object: {e}")))?,
    };
    if value.is_null() {
        value = Json::Object(Default::default());
    }
    let Json::Object(obj) = &mut value else {
        return Err(JsError::new("options must be an object"));
    };
    // "Now" is read by the npm wrapper (engine/npm/index.js), the one caller: reading the
    // clock here took js-sys and wasm-bindgen's closure shims (~1 KB of the gzipped .wasm).
    match obj.get("at") {
        Some(Json::Str(_)) => Ok(value),
        None | Some(Json::Null) => Err(JsError::new(
            "options.at is required (the npm wrapper passes the current time)",
        )),
        Some(_) => Err(JsError::new("options.at must be an RFC 3339 string")),
    }
}

/// The result as compact JSON (serde_json); the npm wrapper `JSON.parse`s it.
fn to_json<T: serde::Serialize>(value: &T) -> Result<String, JsError> {
    serde_json::to_string(value).map_err(|e| JsError::new(&e.to_string()))
}

fn sources(yaml: &str, name: String) -> [Source; 1] {
    [Source::new(name, yaml)]
}

/// Reads the input once and settles `at`: `"snapshot"` means the input's own instant
/// ([`Input::snapshot`]), or `options.now` (the npm wrapper's clock) when the input carries
/// no times. `now` is the wrapper's, not an engine option, and is taken out.
fn read(yaml: &str, options: Option<String>) -> Result<(Input, Json), JsError> {
    let (json, name) = options_and_source(options)?;
    let input = Input::parse(&sources(yaml, name));
    let Json::Object(map) = json else {
        return Err(JsError::new("options must be an object"));
    };
    let snapshot = matches!(map.get("at"), Some(Json::Str(s)) if s == crate::AT_SNAPSHOT);
    let now = map.get("now").cloned();
    let mut map: crate::sorted_map::SortedMap<String, Json> =
        map.into_iter().filter(|(k, _)| k != "now").collect();
    if snapshot {
        let at =
            match (input.snapshot(), now) {
                (Some(t), _) => Json::Str(t.to_rfc3339()),
                (None, Some(now)) => now,
                (None, None) => return Err(JsError::new(
                    "options.at is \"snapshot\" and the input carries no times: pass options.now",
                )),
            };
        map.insert("at".to_string(), at);
    }
    Ok((input, Json::Object(map)))
}

/// `place(yaml, optionsJson?)`: KubeFleet placement decisions, as JSON text.
#[wasm_bindgen]
pub fn place(yaml: &str, options: Option<String>) -> Result<String, JsError> {
    let (input, json) = read(yaml, options)?;
    let opts = options_from_json(&json).map_err(|e| JsError::new(&e))?;
    to_json(&crate::place_input(&input, &opts))
}

/// `budgets(yaml, optionsJson?)`: Karpenter disruption budgets, as JSON text.
#[wasm_bindgen]
pub fn budgets(yaml: &str, options: Option<String>) -> Result<String, JsError> {
    let (input, json) = read(yaml, options)?;
    let opts = options_from_json(&json).map_err(|e| JsError::new(&e))?;
    to_json(&crate::budgets_input(&input, &opts))
}

/// `rollout(yaml, optionsJson?)`: rollout plans and simulations, as JSON text.
#[wasm_bindgen]
pub fn rollout(yaml: &str, options: Option<String>) -> Result<String, JsError> {
    let (input, json) = read(yaml, options)?;
    let opts = options_from_json(&json).map_err(|e| JsError::new(&e))?;
    to_json(&crate::rollout_input(&input, &opts))
}

/// `evaluate(yaml, optionsJson?)`: detects the kinds and runs every engine that applies.
#[wasm_bindgen]
pub fn evaluate(yaml: &str, options: Option<String>) -> Result<String, JsError> {
    let (input, json) = read(yaml, options)?;
    let opts = EvaluateOptions::from_json(&json).map_err(|e| JsError::new(&e))?;
    to_json(&crate::evaluate_input(&input, &opts))
}

/// `validate(yaml, optionsJson?)`: errors and warnings only (`options.source` names the input).
#[wasm_bindgen]
pub fn validate(yaml: &str, options: Option<String>) -> Result<String, JsError> {
    let (input, json) = read(yaml, options)?;
    let opts = EvaluateOptions::from_json(&json).map_err(|e| JsError::new(&e))?;
    to_json(&crate::validate_input(&input, &opts))
}

/// `version()`: the engine version.
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}
