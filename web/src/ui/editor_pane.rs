//! The input pane: the Fleet and the Policy editors.

use super::code_editor::CodeEditor;
use crate::editor::Marker;
use crate::model::Unchanged;
use crate::views::Shared;
use std::rc::Rc;
use yew::prelude::*;

/// What one editor shows, besides its text's edits.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EditorView {
    /// The text to show after a load.
    pub text: Shared<str>,
    /// Lint markers.
    pub markers: Rc<Vec<Marker>>,
    /// Highlighted lines.
    pub highlight: Rc<Vec<u32>>,
    /// A jump request.
    pub focus: Option<(u32, u32, u64)>,
}

/// Props of [`EditorPane`].
#[derive(Properties, PartialEq)]
pub struct EditorPaneProps {
    /// The Fleet editor.
    pub fleet: EditorView,
    /// The Policy editor.
    pub policy: EditorView,
    /// Fleet text edited (the text, and what the edit left of the text before it).
    pub on_fleet: Callback<(Rc<str>, Option<Unchanged>)>,
    /// Policy text edited.
    pub on_policy: Callback<(Rc<str>, Option<Unchanged>)>,
}

/// The pane.
#[function_component(EditorPane)]
pub fn editor_pane(p: &EditorPaneProps) -> Html {
    let editor = |id: &'static str,
                  title: &'static str,
                  label: &'static str,
                  v: &EditorView,
                  cb: &Callback<(Rc<str>, Option<Unchanged>)>| {
        html! {
            <CodeEditor id={id} labelled_by={title} label={label} text={v.text.clone()}
                markers={v.markers.clone()} highlight={v.highlight.clone()} focus={v.focus}
                on_change={cb.clone()} />
        }
    };
    html! {
        <section class="pane editors" aria-label="Input">
            <div class="editor-block">
                <h2 class="pane-title" id="fleet-title">{ "Fleet" }<span class="muted">{ " — MemberClusters, FleetMembers, NodeCounts, Nodes…" }</span></h2>
                { editor("fleet-editor", "fleet-title", "Fleet YAML", &p.fleet, &p.on_fleet) }
            </div>
            <div class="editor-block">
                <h2 class="pane-title" id="policy-title">{ "Policy" }<span class="muted">{ " — placements, NodePools, update runs…" }</span></h2>
                { editor("policy-editor", "policy-title", "Policy YAML", &p.policy, &p.on_policy) }
            </div>
            <p class="muted hint">{ "Any supported kind may go in either editor. Results update as you type; Ctrl+Enter evaluates at once." }</p>
        </section>
    }
}
