//! The JavaScript API (wasm-bindgen): one function per engine call, each taking the YAML text
//! and an optional options object and returning a plain JS object with the same content as
//! the CLI's JSON. Bad input is reported inside the result; only API misuse throws.

use crate::report::{options_from_json, EvaluateOptions};
use crate::Source;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Builds the options JSON object: the caller's options with `at` defaulting to the current
/// time (the boundary is the one place where "now" is read). Returns the source name too:
/// `options.source` names the YAML in diagnostics, as a file name does on the CLI.
fn options_and_source(options: JsValue) -> Result<(serde_json::Value, String), JsError> {
    let mut value = options_json(options)?;
    let source = match value.as_object_mut().and_then(|o| o.remove("source")) {
        None | Some(serde_json::Value::Null) => "input".to_string(),
        Some(serde_json::Value::String(s)) => s,
        Some(_) => return Err(JsError::new("options.source must be a string")),
    };
    Ok((value, source))
}

fn options_json(options: JsValue) -> Result<serde_json::Value, JsError> {
    let mut value: serde_json::Value = if options.is_undefined() || options.is_null() {
        serde_json::Value::Object(Default::default())
    } else {
        serde_wasm_bindgen::from_value(options)
            .map_err(|e| JsError::new(&format!("options must be an object: {e}")))?
    };
    let Some(obj) = value.as_object_mut() else {
        return Err(JsError::new("options must be an object"));
    };
    match obj.get("at") {
        None | Some(serde_json::Value::Null) => {
            let now = js_sys::Date::new_0().to_iso_string();
            obj.insert("at".into(), serde_json::Value::String(now.into()));
        }
        Some(serde_json::Value::String(_)) => {}
        Some(_) => return Err(JsError::new("options.at must be an RFC 3339 string")),
    }
    Ok(value)
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    let ser = serde_wasm_bindgen::Serializer::json_compatible();
    value
        .serialize(&ser)
        .map_err(|e| JsError::new(&format!("could not convert the result: {e}")))
}

fn sources(yaml: &str, name: String) -> [Source; 1] {
    [Source::new(name, yaml)]
}

/// `place(yaml, options?)`: KubeFleet placement decisions.
#[wasm_bindgen]
pub fn place(yaml: &str, options: JsValue) -> Result<JsValue, JsError> {
    let (json, name) = options_and_source(options)?;
    let opts = options_from_json(&json).map_err(|e| JsError::new(&e))?;
    to_js(&crate::place(&sources(yaml, name), &opts))
}

/// `budgets(yaml, options?)`: Karpenter disruption budgets.
#[wasm_bindgen]
pub fn budgets(yaml: &str, options: JsValue) -> Result<JsValue, JsError> {
    let (json, name) = options_and_source(options)?;
    let opts = options_from_json(&json).map_err(|e| JsError::new(&e))?;
    to_js(&crate::budgets(&sources(yaml, name), &opts))
}

/// `rollout(yaml, options?)`: rollout plans and simulations.
#[wasm_bindgen]
pub fn rollout(yaml: &str, options: JsValue) -> Result<JsValue, JsError> {
    let (json, name) = options_and_source(options)?;
    let opts = options_from_json(&json).map_err(|e| JsError::new(&e))?;
    to_js(&crate::rollout(&sources(yaml, name), &opts))
}

/// `evaluate(yaml, options?)`: detects the kinds and runs every engine that applies.
#[wasm_bindgen]
pub fn evaluate(yaml: &str, options: JsValue) -> Result<JsValue, JsError> {
    let (json, name) = options_and_source(options)?;
    let opts = EvaluateOptions::from_json(&json).map_err(|e| JsError::new(&e))?;
    to_js(&crate::evaluate(&sources(yaml, name), &opts))
}

/// `validate(yaml, options?)`: errors and warnings only (`options.source` names the input).
#[wasm_bindgen]
pub fn validate(yaml: &str, options: JsValue) -> Result<JsValue, JsError> {
    let (json, name) = options_and_source(options)?;
    let opts = EvaluateOptions::from_json(&json).map_err(|e| JsError::new(&e))?;
    to_js(&crate::validate(&sources(yaml, name), &opts))
}

/// `version()`: the engine version.
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}
