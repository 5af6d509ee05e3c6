//! Export: the result as JSON, and the inputs as one YAML file the CLI replays.

use crate::evaluation::Evaluation;
use crate::gallery::POLICY_MARKER;
use crate::state::State;
use chrono::SecondsFormat;
use wasm_bindgen::JsCast;

/// The result file: the engine's report plus what produced it.
pub fn result_json(state: &State, eval: &Evaluation) -> String {
    let doc = serde_json::json!({
        "engineVersion": fleet_policy::VERSION,
        "at": eval.at.to_rfc3339_opts(SecondsFormat::Secs, true),
        "options": crate::evaluation::options_json(state, eval.at),
        "report": eval.report,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// The inputs as one multi-document YAML file, with the command that replays it.
/// The replay line is printable ASCII (see [`crate::share::replay_command`]): what-ifs from a
/// crafted link can neither end the comment nor run anything in the shell it is pasted into.
pub fn inputs_yaml(state: &State, eval: &Evaluation) -> String {
    let at = eval.at;
    let mut out = format!(
        "# Fleet Policy playground inputs (engine {}).\n# Replay: {}\n",
        fleet_policy::VERSION,
        crate::share::replay_command(
            &at.to_rfc3339_opts(SecondsFormat::Secs, true),
            &crate::evaluation::options_json(state, at)
        )
    );
    out.push_str(state.fleet.trim_end());
    out.push_str("\n---\n");
    out.push_str(POLICY_MARKER);
    out.push('\n');
    out.push_str(state.policy.trim_end());
    out.push('\n');
    out
}

/// Offers `text` as a download named `name`.
pub fn download(name: &str, mime: &str, text: &str) {
    let run = || -> Option<()> {
        let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
        let opts = web_sys::BlobPropertyBag::new();
        opts.set_type(mime);
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts).ok()?;
        let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
        let doc = web_sys::window()?.document()?;
        let a: web_sys::HtmlAnchorElement = doc.create_element("a").ok()?.dyn_into().ok()?;
        a.set_href(&url);
        a.set_download(name);
        doc.body()?.append_child(&a).ok()?;
        a.click();
        a.remove();
        let _ = web_sys::Url::revoke_object_url(&url);
        Some(())
    };
    let _ = run();
}
