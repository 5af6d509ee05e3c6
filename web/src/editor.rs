//! The bridge to the CodeMirror editor bundled from `web/editor/editor.js` (served as
//! `dist/editor.js` next to the wasm glue, hence the relative `raw_module`).

use fleet_policy::EvaluateReport;
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(raw_module = "./editor.js")]
extern "C" {
    /// A CodeMirror `EditorView`.
    #[derive(Clone)]
    pub type EditorView;

    #[wasm_bindgen(js_name = createEditor)]
    fn create_editor(
        parent: &web_sys::Element,
        text: &str,
        label: &str,
        on_change: &Closure<dyn FnMut(js_sys::Array, u32)>,
    ) -> EditorView;

    #[wasm_bindgen(js_name = getText)]
    fn get_text(view: &EditorView) -> String;

    #[wasm_bindgen(js_name = setText)]
    fn set_text(view: &EditorView, text: &str);

    #[wasm_bindgen(js_name = setDiagnostics)]
    fn set_diagnostics(view: &EditorView, diags: JsValue);

    #[wasm_bindgen(js_name = focusLine)]
    fn focus_line(view: &EditorView, line: u32, column: u32);

    #[wasm_bindgen(js_name = highlightLines)]
    fn highlight_lines(view: &EditorView, lines: Vec<u32>);
}

/// A marker for the editor's lint layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Marker {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// "error" or "warning".
    pub severity: &'static str,
    /// The message.
    pub message: String,
}

/// One editor and the closure it calls on every edit (kept alive as long as the editor).
pub struct Editor {
    view: EditorView,
    _on_change: Closure<dyn FnMut(js_sys::Array, u32)>,
}

/// The changes of one edit from the flat array the editor sends (`[from, to, inserted, …]`,
/// the inserted text as UTF-8 bytes). Bytes that are not UTF-8 (the encoder never sends
/// them) make an insert that does not fit the editor's length: the caller then takes the
/// editor's whole text.
pub fn changes(flat: &js_sys::Array) -> Vec<crate::model::Change> {
    let flat: Vec<JsValue> = flat.iter().collect();
    flat.chunks_exact(3)
        .map(|c| crate::model::Change {
            from: c[0].as_f64().unwrap_or(0.0) as usize,
            to: c[1].as_f64().unwrap_or(0.0) as usize,
            insert: String::from_utf8(js_sys::Uint8Array::new(&c[2]).to_vec()).unwrap_or_default(),
        })
        .collect()
}

impl Editor {
    /// Mounts an editor in `parent`; `on_change(changes, length)` gets each edit.
    pub fn mount(
        parent: &web_sys::Element,
        text: &str,
        label: &str,
        on_change: impl FnMut(js_sys::Array, u32) + 'static,
    ) -> Self {
        let closure = Closure::wrap(Box::new(on_change) as Box<dyn FnMut(js_sys::Array, u32)>);
        let view = create_editor(parent, text, label, &closure);
        Editor {
            view,
            _on_change: closure,
        }
    }

    /// The whole text.
    pub fn text(&self) -> String {
        get_text(&self.view)
    }

    /// Replaces the text without reporting it as an edit.
    pub fn set_text(&self, text: &str) {
        set_text(&self.view, text);
    }

    /// Replaces the markers.
    pub fn set_markers(&self, markers: &[Marker]) {
        let value = serde_wasm_bindgen::to_value(markers).unwrap_or(JsValue::NULL);
        set_diagnostics(&self.view, value);
    }

    /// Moves the cursor to line:column and focuses the editor.
    pub fn focus(&self, line: u32, column: u32) {
        focus_line(&self.view, line, column);
    }

    /// Highlights lines (empty clears).
    pub fn highlight(&self, lines: Vec<u32>) {
        highlight_lines(&self.view, lines);
    }
}

/// The markers of one editor.
pub fn markers(report: &EvaluateReport, source: &str) -> Vec<Marker> {
    let e = report.errors.iter().map(|d| (d, "error"));
    let w = report.warnings.iter().map(|d| (d, "warning"));
    e.chain(w)
        .filter(|(d, _)| d.source == source)
        .map(|(d, severity)| Marker {
            line: d.line,
            column: d.column,
            severity,
            message: d.message.clone(),
        })
        .collect()
}
