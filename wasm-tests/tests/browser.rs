//! The JS API in headless Chromium.
#![cfg(target_arch = "wasm32")]

mod common;
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn place_returns_picks_and_reasons() {
    common::place_returns_picks_and_reasons();
}

#[wasm_bindgen_test]
fn bad_yaml_is_an_error_value_with_position() {
    common::bad_yaml_is_an_error_value_with_position();
}

#[wasm_bindgen_test]
fn options_need_at_and_misuse_throws() {
    common::options_need_at_and_misuse_throws();
}

#[wasm_bindgen_test]
fn a_call_keeps_its_input_until_released_or_the_next_call() {
    common::a_call_keeps_its_input_until_released_or_the_next_call();
}
