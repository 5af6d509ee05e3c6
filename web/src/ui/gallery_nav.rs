//! The example picker and what the current example demonstrates.

use crate::gallery::{Example, EXAMPLES};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// Props of [`GalleryNav`].
#[derive(Properties, PartialEq)]
pub struct GalleryNavProps {
    /// The example the input came from (None once edited).
    pub current: Option<String>,
    /// Open an example by id.
    pub on_example: Callback<String>,
}

/// The gallery.
#[function_component(GalleryNav)]
pub fn gallery_nav(p: &GalleryNavProps) -> Html {
    let current = p.current.as_deref().and_then(Example::find);
    let onchange = p
        .on_example
        .reform(|e: Event| e.target_unchecked_into::<HtmlSelectElement>().value());
    html! {
        <nav class="gallery" aria-label="Examples">
            <label for="example-select">{ "Example" }</label>
            <select id="example-select" {onchange}>
                <option value="" selected={current.is_none()} disabled=true>{ "Your own input…" }</option>
                { for EXAMPLES.iter().map(|e| html! {
                    <option value={e.id} selected={current.is_some_and(|c| c.id == e.id)}>{ format!("{} — {}", e.view.label(), e.title) }</option>
                }) }
            </select>
            <p class="example-description" id="example-description">
                { current.map(|e| e.description()).unwrap_or("Edited input. Pick an example to start again.") }
            </p>
        </nav>
    }
}
