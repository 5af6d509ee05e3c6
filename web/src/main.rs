//! The Fleet Policy playground (Yew). It renders engine results; it computes nothing itself:
//! every number, order and reason on screen comes from `fleet_policy::evaluate` (or one of the
//! per-engine entry points), and the UI only lays them out.

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod boot;
#[cfg(target_arch = "wasm32")]
mod charts;
#[cfg(target_arch = "wasm32")]
mod compare;
#[cfg(target_arch = "wasm32")]
mod editor;
#[cfg(target_arch = "wasm32")]
mod evaluation;
#[cfg(target_arch = "wasm32")]
mod export;
#[cfg(target_arch = "wasm32")]
mod gallery;
#[cfg(target_arch = "wasm32")]
mod locate;
#[cfg(any(target_arch = "wasm32", test))]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod model;
#[cfg(target_arch = "wasm32")]
mod runner;
// Share links and the state are plain Rust, so their unit tests also run natively.
#[cfg(any(target_arch = "wasm32", test))]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod share;
#[cfg(any(target_arch = "wasm32", test))]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod state;
#[cfg(target_arch = "wasm32")]
mod ui;
#[cfg(target_arch = "wasm32")]
mod views;

#[cfg(target_arch = "wasm32")]
fn main() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_panic(&info.to_string());
    }));
    yew::Renderer::<app::App>::new().render();
}

/// A bug in the playground or the engine stops the page: say so in it, with the message and
/// how to report it, rather than leaving a page that silently stopped updating.
#[cfg(target_arch = "wasm32")]
fn show_panic(message: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (Ok(div), Some(body)) = (doc.create_element("div"), doc.body()) else {
        return;
    };
    div.set_id("panic");
    let _ = div.set_attribute("role", "alert");
    div.set_text_content(Some(&format!(
        "The playground stopped on an internal error: {message}. Please report it with your input (Inputs YAML) — reloading the page starts it again."
    )));
    let _ = body.prepend_with_node_1(&div);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "fleet-playground runs in the browser: build it with `make dist` and open dist/index.html"
    );
}
