//! The playground's root component.

use yew::prelude::*;

/// The playground.
#[function_component(App)]
pub fn app() -> Html {
    html! { <main>{ "Fleet Policy" }</main> }
}
