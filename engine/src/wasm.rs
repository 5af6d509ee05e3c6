//! The JavaScript API (wasm-bindgen): one function per engine call, each taking the YAML text
//! (its length in bytes: the text is in [`text_buffer`]'s buffer) and optional options and
//! returning the result as JSON text, identical to the CLI's JSON; the npm wrapper encodes the
//! text and parses the result into plain objects.
//! Bad input is reported inside the result; only API misuse throws.
use crate::report::{options_from_value, EvaluateOptions};
use crate::{Input, Source};
use serde_json::Value;
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;

// talc rather than std's dlmalloc: see engine/Cargo.toml.
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

thread_local! {
    /// The next call's text, lent to the npm wrapper by [`text_buffer`].
    static TEXT: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    /// What the last call read, kept until [`release`].
    static LAST: RefCell<Option<Input>> = const { RefCell::new(None) };
}

/// `release()`: frees what the last call read. The npm wrapper calls it once
/// the caller has the result, when the event loop is idle: freeing the tree of a
/// 10,000-cluster dump (1.7 million nodes) takes 30-35 ms in Node, 6-7% of the call, which
/// the caller need not wait for. Each call also frees what the one before it left before it
/// reads, so back-to-back calls reuse that memory as before.
#[wasm_bindgen]
pub fn release() {
    // Taken out first: the drop runs with the cell free.
    let last = LAST.with(|l| l.borrow_mut().take());
    drop(last);
}

/// Whether the last call's input is kept, not yet freed by [`release`] (for the binding's
/// tests; not exported to JavaScript).
#[doc(hidden)]
pub fn retained() -> bool {
    LAST.with(|l| l.borrow().is_some())
}

/// Keeps `input` until [`release`] (one place for every call: its drop is not repeated).
#[inline(never)]
fn keep(input: Input) {
    LAST.with(|l| *l.borrow_mut() = Some(input));
}

/// `text_buffer(len)`: a zeroed buffer of `len` bytes for the next call's text (it replaces
/// any earlier one), and its address in linear memory, where the wrapper encodes the text.
/// The first step of a call: what the last call kept is freed first, for the new text to use.
#[wasm_bindgen]
pub fn text_buffer(len: usize) -> usize {
    release();
    let mut text = vec![0; len];
    // The heap block does not move with the Vec.
    let at = text.as_mut_ptr() as usize;
    put_text(text);
    at
}

// The text comes in as UTF-8 that the npm wrapper writes straight into linear memory with
// `TextEncoder.encodeInto`, into a buffer the engine lends it ([`text_buffer`]): not as a JS
// string, which wasm-bindgen copies in one UTF-16 unit at a time in JavaScript for as long as it
// is ASCII (a 27.6 MB dump: 125-190 ms in Node), and not as encoded bytes either, which cost a
// JS buffer of the text's size and a second copy (on a fresh instance, each is a first touch of
// the text's size of fresh memory). The buffer becomes the source's text without a copy.
//
// Options come in, and results go out, as JSON text: the npm wrapper `JSON.stringify`s the
// options and `JSON.parse`s the result. One string copy plus the JS engine's native JSON parser
// is far faster for large results than building the objects property by property through
// wasm-bindgen calls, and the text is exactly the CLI's JSON. The options are read by the
// engine's own JSON reader, as a JSON manifest is.

/// The engine options, the source name and the wrapper's clock.
type CallOptions = (serde_json::Map<String, Value>, String, Option<Value>);

/// Reads the options JSON object, which must carry `at` (the npm wrapper fills in the current
/// time: the JS boundary is the one place where "now" is read), and takes out the keys that
/// are the wrapper's rather than an engine's: `source` names the YAML in diagnostics, as a
/// file name does on the CLI; `now` is the wrapper's clock for `at: "snapshot"`.
fn options_and_source(options: &str) -> Result<CallOptions, JsError> {
    let value = crate::input::documents::read_to_json(options)
        .map_err(|e| JsError::new(&format!("options must be a JSON object: {e}")))?;
    let mut map = match value {
        Value::Null => serde_json::Map::new(),
        Value::Object(m) => m,
        _ => return Err(JsError::new("options must be an object")),
    };
    let source = match map.remove("source") {
        None | Some(Value::Null) => "input".to_string(),
        Some(Value::String(s)) => s,
        Some(_) => return Err(JsError::new("options.source must be a string")),
    };
    let now = map.remove("now");
    match map.get("at") {
        Some(Value::String(_)) => Ok((map, source, now)),
        None | Some(Value::Null) => Err(JsError::new(
            "options.at is required (the npm wrapper passes the current time)",
        )),
        Some(_) => Err(JsError::new("options.at must be an RFC 3339 string")),
    }
}

/// The result as compact JSON (serde_json); the npm wrapper `JSON.parse`s it.
fn to_json<T: serde::Serialize>(value: &T) -> Result<String, JsError> {
    serde_json::to_string(value).map_err(|e| JsError::new(&e.to_string()))
}

/// Puts `text` where the next call reads it (the wrapper writes into it in place; callers in
/// Rust, such as the binding's tests, pass their text); its length.
pub fn put_text(text: Vec<u8>) -> usize {
    let len = text.len();
    TEXT.set(text);
    len
}

/// The source's text: the first `len` bytes of the buffer the wrapper wrote, taken over
/// without a copy.
fn source(len: usize, name: String) -> Result<[Source; 1], JsError> {
    let mut yaml = TEXT.take();
    yaml.truncate(len);
    match String::from_utf8(yaml) {
        Ok(text) => Ok([Source::new(name, text)]),
        Err(_) => Err(JsError::new("the input is not UTF-8: pass a string")),
    }
}

/// Reads the input once and settles `at`: `"snapshot"` means the input's own instant
/// ([`Input::snapshot`]), or `now` (the npm wrapper's clock) when the input carries no times.
fn read(len: usize, options: &str) -> Result<(Input, Value), JsError> {
    release();
    let (mut map, name, now) = options_and_source(options)?;
    // Linear memory grows page by page while a large tree is built, which dominated the first
    // call on a fresh instance (issue 18: allocating and freeing one large block first cut
    // it 3×). Reserve about what the tree needs in one step; the allocator keeps the block
    // for the tree. `try_reserve`: a failure here is no error, only a missed speed-up.
    let mut reserve: Vec<u8> = Vec::new();
    let _ = reserve.try_reserve(len.saturating_mul(6));
    drop(reserve);
    let input = Input::parse(&source(len, name)?);
    if map.get("at").and_then(Value::as_str) == Some(crate::AT_SNAPSHOT) {
        let at =
            match (input.snapshot(), now) {
                (Some(t), _) => Value::String(t.to_rfc3339()),
                (None, Some(now)) => now,
                (None, None) => return Err(JsError::new(
                    "options.at is \"snapshot\" and the input carries no times: pass options.now",
                )),
            };
        map.insert("at".to_string(), at);
    }
    Ok((input, Value::Object(map)))
}

/// `place(len, options?)`: KubeFleet placement decisions, as JSON text.
#[wasm_bindgen]
pub fn place(len: usize, options: &str) -> Result<String, JsError> {
    let (input, json) = read(len, options)?;
    let opts = options_from_value(&json).map_err(|e| JsError::new(&e))?;
    let json = to_json(&crate::place_input(&input, &opts));
    keep(input);
    json
}

/// `budgets(len, options?)`: Karpenter disruption budgets, as JSON text.
#[wasm_bindgen]
pub fn budgets(len: usize, options: &str) -> Result<String, JsError> {
    let (input, json) = read(len, options)?;
    let opts = options_from_value(&json).map_err(|e| JsError::new(&e))?;
    let json = to_json(&crate::budgets_input(&input, &opts));
    keep(input);
    json
}

/// `rollout(len, options?)`: rollout plans and simulations, as JSON text.
#[wasm_bindgen]
pub fn rollout(len: usize, options: &str) -> Result<String, JsError> {
    let (input, json) = read(len, options)?;
    let opts = options_from_value(&json).map_err(|e| JsError::new(&e))?;
    let json = to_json(&crate::rollout_input(&input, &opts));
    keep(input);
    json
}

/// `evaluate(len, options?)`: detects the kinds and runs every engine that applies.
#[wasm_bindgen]
pub fn evaluate(len: usize, options: &str) -> Result<String, JsError> {
    let (input, json) = read(len, options)?;
    let opts = EvaluateOptions::from_value(&json).map_err(|e| JsError::new(&e))?;
    let json = to_json(&crate::evaluate_input(&input, &opts));
    keep(input);
    json
}

/// `validate(len, options?)`: errors and warnings only (`options.source` names the input).
#[wasm_bindgen]
pub fn validate(len: usize, options: &str) -> Result<String, JsError> {
    let (input, json) = read(len, options)?;
    let opts = EvaluateOptions::from_value(&json).map_err(|e| JsError::new(&e))?;
    let json = to_json(&crate::validate_input(&input, &opts));
    keep(input);
    json
}

/// `version()`: the engine version.
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}
