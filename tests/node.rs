//! The JS boundary in Node (wasm-bindgen-test's default environment).
#![cfg(target_arch = "wasm32")]

#[path = "common/boundary.rs"]
mod boundary;

#[path = "common/context.rs"]
mod context;
#[path = "common/view_boundary.rs"]
mod view_boundary;
