//! One CodeMirror editor as a component: mounted once, then driven by its props (the text to
//! show after a load, the markers, the highlighted lines, a jump request).

use crate::editor::{Editor, Marker};
use crate::model::{EditorText, Unchanged};
use crate::views::Shared;
use std::rc::Rc;
use yew::prelude::*;

/// Props of [`CodeEditor`].
#[derive(Properties, PartialEq)]
pub struct CodeEditorProps {
    /// Element id of the editor's host.
    pub id: AttrValue,
    /// Id of the heading that labels it.
    pub labelled_by: AttrValue,
    /// The editor's accessible label.
    pub label: AttrValue,
    /// The text to show: a new one (an example, a link) replaces the editor's text; the user's
    /// own edits come back through `on_change` and are not sent down again.
    pub text: Shared<str>,
    /// Lint markers.
    pub markers: Rc<Vec<Marker>>,
    /// Lines to highlight (the term behind a selected decision).
    pub highlight: Rc<Vec<u32>>,
    /// Jump to (line, column); the counter makes a repeated jump to the same place fire.
    pub focus: Option<(u32, u32, u64)>,
    /// The text after each edit, with what the edit left of the text before it (`None`
    /// when not known: the first edit after a load, or an edit that did not fit).
    pub on_change: Callback<(Rc<str>, Option<Unchanged>)>,
}

/// The editor.
#[function_component(CodeEditor)]
pub fn code_editor(p: &CodeEditorProps) -> Html {
    let host = use_node_ref();
    let editor = use_mut_ref(|| None::<Editor>);
    // The text the editor was last given, so a re-render with the same text does nothing.
    let shown = use_mut_ref(|| None::<Shared<str>>);
    // The newest callback: the editor's change closure outlives any one render.
    let on_change = use_mut_ref(|| p.on_change.clone());
    *on_change.borrow_mut() = p.on_change.clone();
    // The editor's text, kept up to date from its changes: the editor sends what an edit
    // changed, not its whole text (which for a 7 MB fleet cost more than evaluating).
    let current = use_mut_ref(EditorText::default);
    // Set when the text is replaced (mounted, loaded): the next edit is not told as a change
    // of the text before it.
    let replaced = use_mut_ref(|| true);
    {
        let (host, editor, shown, on_change, current, replaced) = (
            host.clone(),
            editor.clone(),
            shown.clone(),
            on_change.clone(),
            current.clone(),
            replaced.clone(),
        );
        let (text, label) = (p.text.clone(), p.label.clone());
        use_effect_with((), move |_| {
            if let Some(el) = host.cast::<web_sys::Element>() {
                let cb = on_change.clone();
                *current.borrow_mut() = EditorText::new(text.to_string());
                let view = editor.clone();
                *editor.borrow_mut() = Some(Editor::mount(&el, &text, &label, move |flat, len| {
                    let mut t = current.borrow_mut();
                    let changes = crate::editor::changes(&flat);
                    let mut unchanged = t.apply(&changes, len as usize);
                    if unchanged.is_none() {
                        if let Some(e) = view.borrow().as_ref() {
                            *t = EditorText::new(e.text());
                        }
                    }
                    if replaced.replace(false) {
                        unchanged = None;
                    }
                    let text = Rc::<str>::from(t.as_str());
                    drop(t);
                    let cb = cb.borrow().clone();
                    cb.emit((text, unchanged))
                }));
                *shown.borrow_mut() = Some(text);
            }
        });
    }
    {
        let (editor, shown) = (editor.clone(), shown.clone());
        use_effect_with(p.text.clone(), move |text| {
            if shown.borrow().as_ref() != Some(text) {
                if let Some(e) = editor.borrow().as_ref() {
                    e.set_text(text);
                }
                *current.borrow_mut() = EditorText::new(text.to_string());
                *replaced.borrow_mut() = true;
                *shown.borrow_mut() = Some(text.clone());
            }
        });
    }
    {
        let editor = editor.clone();
        use_effect_with(p.markers.clone(), move |m| {
            if let Some(e) = editor.borrow().as_ref() {
                e.set_markers(m);
            }
        });
    }
    {
        let editor = editor.clone();
        use_effect_with(p.highlight.clone(), move |lines| {
            if let Some(e) = editor.borrow().as_ref() {
                e.highlight(lines.to_vec());
            }
        });
    }
    use_effect_with(p.focus, move |focus| {
        if let (Some((line, column, _)), Some(e)) = (focus, editor.borrow().as_ref()) {
            e.focus(*line, *column);
        }
    });
    html! {
        <div class="editor" id={p.id.clone()} ref={host} aria-labelledby={p.labelled_by.clone()}></div>
    }
}
