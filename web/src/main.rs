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
mod pacing;
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

/// A panic is a trap in the shipped build (panics abort at once); `static/start.js` catches
/// it and starts the module again in a new host element (the old one goes, with the stopped
/// instance's event listeners).
#[cfg(target_arch = "wasm32")]
fn main() {
    let host = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app-host"));
    match host {
        Some(host) => yew::Renderer::<app::App>::with_root(host).render(),
        None => yew::Renderer::<app::App>::new().render(),
    };
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "fleet-playground runs in the browser: build it with `make dist` and open dist/index.html"
    );
}
