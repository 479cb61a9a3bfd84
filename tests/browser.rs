//! The JS boundary in headless Chromium.
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[path = "common/boundary.rs"]
mod boundary;

#[path = "common/context.rs"]
mod context;
#[path = "common/view_boundary.rs"]
mod view_boundary;
