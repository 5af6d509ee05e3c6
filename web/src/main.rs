//! The Fleet Policy playground (Yew). It renders engine results; it computes nothing itself.

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod views;

#[cfg(target_arch = "wasm32")]
fn main() {
    yew::Renderer::<app::App>::new().render();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "fleet-playground runs in the browser: build it with `make dist` and open dist/index.html"
    );
}
